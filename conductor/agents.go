package conductor

import (
	"path"
	"strings"
)

// Agent describes one agent CLI Paneflow recognizes (spec conductor.md §1).
type Agent struct {
	// Name is the display name, e.g. "Claude Code".
	Name string
	// Binary is the executable's name and the wire "tool" id, e.g. "claude".
	Binary string
	// Tag is the persisted and `up`/`flow` agent name, e.g. "claude_code".
	Tag string
}

// agents are the recognized agents in display order, which is also the
// order of fleet.list rows within a workspace.
var agents = [...]Agent{
	{"Claude Code", "claude", "claude_code"},
	{"Codex", "codex", "codex"},
	{"OpenCode", "opencode", "opencode"},
	{"Pi", "pi", "pi"},
	{"Hermes Agent", "hermes", "hermes"},
	{"Grok", "grok", "grok"},
	{"Amp", "amp", "amp"},
	{"Cursor", "cursor-agent", "cursor"},
	{"Gemini", "gemini", "gemini"},
	{"Kiro", "kiro-cli", "kiro"},
	{"Antigravity", "agy", "antigravity"},
	{"Copilot", "copilot", "copilot"},
	{"CodeBuddy", "codebuddy", "codebuddy"},
	{"Factory", "droid", "factory"},
	{"Qoder", "qodercli", "qoder"},
	{"Openclaw", "openclaw", "openclaw"},
}

// rankOf maps a binary name to its display rank.
var rankOf = func() map[string]int {
	m := make(map[string]int, len(agents))
	for i, a := range agents {
		m[a.Binary] = i
	}
	return m
}()

// Agents returns the recognized agents in display order. The caller owns
// the returned slice.
func Agents() []Agent { return append([]Agent(nil), agents[:]...) }

// LookupAgent returns the agent whose binary is tool.
func LookupAgent(tool string) (Agent, bool) {
	if i, ok := rankOf[tool]; ok {
		return agents[i], true
	}
	return Agent{}, false
}

// rank is tool's display rank; tools we do not know (accepted from hooks
// of other agents) sort after every known one.
func rank(tool string) int {
	if i, ok := rankOf[tool]; ok {
		return i
	}
	return len(agents)
}

// defaultTool is the tool of a frame that names none: Claude Code, whose
// persistent hooks run without the launch shim (spec conductor.md §3).
const defaultTool = "claude"

// maxToolID bounds a tool id; see validTool.
const maxToolID = 64

// validTool reports whether s is an acceptable tool id: 1 to 64
// characters of [A-Za-z0-9-] (spec limits.md).
func validTool(s string) bool {
	if s == "" || len(s) > maxToolID {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// cleanExitCodes are the agent exit codes that mean "the user ended it",
// not a crash: 0, SIGHUP/SIGINT/SIGKILL/SIGTERM deaths (128+n) and
// Windows' STATUS_CONTROL_C_EXIT (spec conductor.md §3).
var cleanExitCodes = map[int]bool{0: true, 129: true, 130: true, 137: true, 143: true, -1073741510: true}

// stateAfterExit is the state an agent exiting with code reaches.
func stateAfterExit(code int) State {
	if cleanExitCodes[code] {
		return Finished
	}
	return Errored
}

// interpreters are the runtimes that run agent CLIs written in JavaScript
// or Python; for them the script, not the process name, names the agent.
var interpreters = map[string]bool{
	"node": true, "nodejs": true, "bun": true, "deno": true, "python": true, "python3": true,
}

// packageMarkers name agents by the npm package their script lives in,
// for launches such as `node …/node_modules/@anthropic-ai/claude-code/cli.js`
// whose script is not named after the agent.
var packageMarkers = []struct{ marker, tool string }{
	{"@anthropic-ai/claude-code", "claude"},
	{"@openai/codex", "codex"},
	{"@google/gemini-cli", "gemini"},
	{"opencode-ai", "opencode"},
	{"@sourcegraph/amp", "amp"},
	{"@github/copilot", "copilot"},
}

// commandTool returns the agent a program name means: its base name with
// any directory and Windows executable extension removed, matched exactly
// against the binary names.
func commandTool(name string) (string, bool) {
	base := path.Base(strings.ReplaceAll(name, `\`, "/"))
	lower := strings.ToLower(base)
	for _, ext := range []string{".exe", ".cmd", ".bat"} {
		if strings.HasSuffix(lower, ext) {
			base = base[:len(base)-len(ext)]
			break
		}
	}
	if _, ok := rankOf[base]; ok {
		return base, true
	}
	return "", false
}

// scriptTool returns the agent an interpreter's script argument means: a
// script named after an agent (with a .js, .mjs, .cjs, .ts or .py
// extension or none), or one inside an agent's npm package.
func scriptTool(arg string) (string, bool) {
	a := strings.ReplaceAll(arg, `\`, "/")
	a = strings.TrimPrefix(a, "npm:")
	for _, m := range packageMarkers {
		if strings.Contains(a, m.marker) {
			return m.tool, true
		}
	}
	base := path.Base(a)
	for _, ext := range []string{".js", ".mjs", ".cjs", ".ts", ".py"} {
		if strings.HasSuffix(base, ext) {
			base = strings.TrimSuffix(base, ext)
			break
		}
	}
	if _, ok := rankOf[base]; ok {
		return base, true
	}
	return "", false
}

// matchProcess returns the agent a process is, if any: its kernel name
// (comm) or its argv[0] names an agent binary, or it is an interpreter
// whose script names an agent. The script is the first argument that is
// not an option (after "run" for deno); later arguments are the script's
// own and never count, so `node server.js claude` is not Claude Code.
func matchProcess(comm string, argv []string) (string, bool) {
	if _, ok := rankOf[comm]; ok {
		return comm, true
	}
	if len(argv) > 0 {
		if tool, ok := commandTool(argv[0]); ok {
			return tool, true
		}
	}
	prog := comm
	if len(argv) > 0 && argv[0] != "" {
		prog = path.Base(strings.ReplaceAll(argv[0], `\`, "/"))
		prog = strings.TrimSuffix(strings.ToLower(prog), ".exe")
	}
	if !interpreters[prog] {
		return "", false
	}
	for i, arg := range argv {
		if i == 0 || arg == "" || strings.HasPrefix(arg, "-") || prog == "deno" && arg == "run" {
			continue
		}
		return scriptTool(arg)
	}
	return "", false
}
