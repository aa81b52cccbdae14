package proto

import (
	"path"
	"slices"
	"strings"
)

// Agent is one coding agent CLI Paneflow knows (spec conductor.md §1):
// what the conductor's process scan matches, the launch shim stands in
// for, send_text types into, and `up`/`flow` specs name.
type Agent struct {
	// Name is the display name, e.g. "Claude Code".
	Name string
	// Binary is the executable's name and the wire "tool" id of its
	// frames and states, e.g. "claude".
	Binary string
	// Tag is the persisted and `up`/`flow` agent name, e.g. "claude_code".
	Tag string
	// Argv starts it interactively (Binary, and the subcommand some need).
	Argv []string
	// Package is the npm package whose script, run by an interpreter
	// (`node …/@anthropic-ai/claude-code/cli.js`), is this agent; "" when
	// none is known.
	Package string
	// Submit is how surface.send_text puts a submitted text in.
	Submit SubmitStyle
	// ReadyTitles: the agent's TUI turns bracketed paste on before it
	// reads its input, and reads it once it has set a window title
	// starting with one of these ([Agent.ReadsInput]). opencode 1.18.33
	// on a loaded machine: bracketed paste 5 s after its start, its title
	// ("OpenCode" on its home screen, "OC | <session>" in a session) 30 to
	// 60 s later; a prompt pasted in between was lost.
	ReadyTitles []string
}

// ReadsInput reports whether the agent's TUI reads its input, given what
// its terminal shows: bracketed paste on, and for an agent with
// ReadyTitles a window title starting with one of them. The zero Agent (a
// program Paneflow does not know) reads it once bracketed paste is on. A
// submitted text or a start prompt waits for this.
func (a Agent) ReadsInput(bracketedPaste bool, title string) bool {
	if !bracketedPaste {
		return false
	}
	if len(a.ReadyTitles) == 0 {
		return true
	}
	for _, t := range a.ReadyTitles {
		if strings.HasPrefix(title, t) {
			return true
		}
	}
	return false
}

// SubmitStyle is how a submitted text reaches an agent's prompt.
type SubmitStyle int

const (
	// SubmitPasted: a bracketed paste, then the server's deferred Enter
	// (submit_mode deferred_paste_cr).
	SubmitPasted SubmitStyle = iota
	// SubmitTyped: a text without control characters but line breaks is
	// typed, line breaks as LF, then the deferred Enter (submit_mode
	// deferred_typed_cr); others are pasted. The Gemini CLI takes an
	// Enter for a newline while a state set by a paste is still seen by
	// its key handler, which no wait on our side can rule out.
	SubmitTyped
)

// agents are the known agents in display order, which is also the order
// of fleet.list rows within a workspace.
var agents = [...]Agent{
	{Name: "Claude Code", Binary: "claude", Tag: "claude_code", Argv: []string{"claude"}, Package: "@anthropic-ai/claude-code"},
	{Name: "Codex", Binary: "codex", Tag: "codex", Argv: []string{"codex"}, Package: "@openai/codex"},
	{Name: "OpenCode", Binary: "opencode", Tag: "opencode", Argv: []string{"opencode"}, Package: "opencode-ai", ReadyTitles: []string{"OpenCode", "OC | "}},
	{Name: "Pi", Binary: "pi", Tag: "pi", Argv: []string{"pi"}},
	{Name: "Hermes Agent", Binary: "hermes", Tag: "hermes", Argv: []string{"hermes"}},
	{Name: "Grok", Binary: "grok", Tag: "grok", Argv: []string{"grok"}},
	{Name: "Amp", Binary: "amp", Tag: "amp", Argv: []string{"amp"}, Package: "@sourcegraph/amp"},
	{Name: "Cursor", Binary: "cursor-agent", Tag: "cursor", Argv: []string{"cursor-agent"}},
	{Name: "Gemini", Binary: "gemini", Tag: "gemini", Argv: []string{"gemini"}, Package: "@google/gemini-cli", Submit: SubmitTyped},
	{Name: "Kiro", Binary: "kiro-cli", Tag: "kiro", Argv: []string{"kiro-cli", "chat"}},
	{Name: "Antigravity", Binary: "agy", Tag: "antigravity", Argv: []string{"agy"}},
	{Name: "Copilot", Binary: "copilot", Tag: "copilot", Argv: []string{"copilot"}, Package: "@github/copilot"},
	{Name: "CodeBuddy", Binary: "codebuddy", Tag: "codebuddy", Argv: []string{"codebuddy"}},
	{Name: "Factory", Binary: "droid", Tag: "factory", Argv: []string{"droid"}},
	{Name: "Qoder", Binary: "qodercli", Tag: "qoder", Argv: []string{"qodercli"}},
	{Name: "Openclaw", Binary: "openclaw", Tag: "openclaw", Argv: []string{"openclaw", "tui"}},
}

// Agents returns the known agents in display order. The caller owns the
// returned slice and the agents' Argv.
func Agents() []Agent {
	out := make([]Agent, len(agents))
	for i, a := range agents {
		a.Argv = slices.Clone(a.Argv)
		a.ReadyTitles = slices.Clone(a.ReadyTitles)
		out[i] = a
	}
	return out
}

// AgentBinaries returns the known agents' binary names in display order.
// The caller owns the returned slice.
func AgentBinaries() []string {
	out := make([]string, len(agents))
	for i, a := range agents {
		out[i] = a.Binary
	}
	return out
}

// AgentRank returns the display rank of the agent whose binary is tool;
// tools Paneflow does not know (accepted from hooks of other agents) rank
// after every known one.
func AgentRank(tool string) int {
	for i := range agents {
		if agents[i].Binary == tool {
			return i
		}
	}
	return len(agents)
}

// AgentByBinary returns the agent whose binary (the wire tool id) is tool.
func AgentByBinary(tool string) (Agent, bool) {
	if i := AgentRank(tool); i < len(agents) {
		a := agents[i]
		a.Argv = slices.Clone(a.Argv)
		a.ReadyTitles = slices.Clone(a.ReadyTitles)
		return a, true
	}
	return Agent{}, false
}

// AgentByName resolves an agent as a spec's `agent` names it ("claude",
// "Claude-Code", "codex", …): trimmed, lower-cased, '-' → '_', "claude" →
// "claude_code", then matched against the tags.
func AgentByName(name string) (Agent, bool) {
	n := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "-", "_")
	if n == "claude" {
		n = "claude_code"
	}
	for _, a := range agents {
		if a.Tag == n {
			a.Argv = slices.Clone(a.Argv)
			a.ReadyTitles = slices.Clone(a.ReadyTitles)
			return a, true
		}
	}
	return Agent{}, false
}

// interpreters are the runtimes that run agent CLIs written in JavaScript
// or Python; for them the script, not the process name, names the agent.
func isInterpreter(prog string) bool {
	switch prog {
	case "node", "nodejs", "bun", "deno", "python", "python3":
		return true
	}
	return false
}

// CommandAgent returns the agent a program name means: its base name
// (Unix or Windows separators) with a Windows executable extension (.exe,
// .cmd, .bat, any case) removed, matched exactly against the binaries.
func CommandAgent(name string) (string, bool) {
	base := path.Base(strings.ReplaceAll(name, `\`, "/"))
	lower := strings.ToLower(base)
	for _, ext := range []string{".exe", ".cmd", ".bat"} {
		if strings.HasSuffix(lower, ext) {
			base = base[:len(base)-len(ext)]
			break
		}
	}
	if AgentRank(base) < len(agents) {
		return base, true
	}
	return "", false
}

// scriptAgent returns the agent an interpreter's script argument means: a
// script inside an agent's npm package, or one named after an agent (with
// a .js, .mjs, .cjs, .ts or .py extension or none).
func scriptAgent(arg string) (string, bool) {
	a := strings.ReplaceAll(arg, `\`, "/")
	a = strings.TrimPrefix(a, "npm:")
	for _, ag := range agents {
		if ag.Package != "" && strings.Contains(a, ag.Package) {
			return ag.Binary, true
		}
	}
	base := path.Base(a)
	for _, ext := range []string{".js", ".mjs", ".cjs", ".ts", ".py"} {
		if strings.HasSuffix(base, ext) {
			base = strings.TrimSuffix(base, ext)
			break
		}
	}
	if AgentRank(base) < len(agents) {
		return base, true
	}
	return "", false
}

// MatchProcess returns the agent a process is, if any: its kernel name
// (comm) or its argv[0] names an agent binary, or it is an interpreter
// whose script names an agent. The script is the first argument that is
// not an option (after "run" for deno); later arguments are the script's
// own and never count, so `node server.js claude` is not Claude Code.
func MatchProcess(comm string, argv []string) (string, bool) {
	if AgentRank(comm) < len(agents) {
		return comm, true
	}
	if len(argv) > 0 {
		if tool, ok := CommandAgent(argv[0]); ok {
			return tool, true
		}
	}
	prog := comm
	if len(argv) > 0 && argv[0] != "" {
		prog = path.Base(strings.ReplaceAll(argv[0], `\`, "/"))
		prog = strings.TrimSuffix(strings.ToLower(prog), ".exe")
	}
	if !isInterpreter(prog) {
		return "", false
	}
	for i, arg := range argv {
		if i == 0 || arg == "" || strings.HasPrefix(arg, "-") || prog == "deno" && arg == "run" {
			continue
		}
		return scriptAgent(arg)
	}
	return "", false
}
