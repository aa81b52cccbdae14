//go:build linux

package agents

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/test/internal/fakemodel"
)

// The MCP tests are not parallel: Go runs them one after another before the
// parallel tests of the package start, so five more real CLIs do not pile
// onto the others. With them parallel, TestFlowReviewPipelineClaude (whose
// prompt submit into the Claude Code TUI is sensitive to load) timed out
// in two of three whole-package runs at load 30-45; alone it passed.

// mcpMarker is what the pane read over MCP prints; the model must get it
// back inside the fence.
const mcpMarker = "mcp-proof-line-7f3a"

// agentPath is PATH with the four real CLIs on it, after the user's.
func agentPath() string {
	p := os.Getenv("PATH")
	for _, tool := range []string{"claude", "codex", "gemini", "opencode"} {
		p += ":" + filepath.Dir(agents[tool])
	}
	return p
}

// agentCmd runs a real agent CLI (or paneflow) outside the panes, as the
// user would in a terminal: the run's environment with the agents on
// PATH, in the project directory. It returns stdout and stderr together.
func (e *env) agentCmd(name string, args ...string) (string, error) {
	if p, ok := agents[name]; ok {
		name = p
	}
	cmd := exec.Command(name, args...)
	cmd.Env = append(append([]string(nil), e.environ...), "PATH="+agentPath(),
		"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"OPENCODE_DISABLE_MODELS_FETCH=true", "OPENCODE_DISABLE_AUTOUPDATE=true", "npm_config_offline=true")
	cmd.Dir = e.project
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// mcpConfigs are the four agents' files `paneflow mcp install` edits, with
// content of the user's own in each, in the user's own formatting.
func (e *env) mcpConfigs() map[string]string {
	return map[string]string{
		".claude.json": `{"hasCompletedOnboarding":true,  "numStartups": 3,` + "\n" +
			` "projects":{"` + e.project + `":{"hasTrustDialogAccepted":true}},` + "\n" +
			` "customApiKeyResponses":{"approved":["` + claudeKey[len(claudeKey)-20:] + `"],"rejected":[]}}` + "\n",
		".codex/config.toml": "# the user's own settings\nmodel = \"fake-model\"   # inline comment\nmodel_provider = \"fake\"\n\n" +
			"[model_providers.fake]\nname = \"Fake\"\nbase_url = \"" + e.model.URL + "/v1\"\nwire_api = \"responses\"\n",
		".gemini/settings.json": "{\n  \"security\": {\"auth\": {\"selectedType\": \"gemini-api-key\"}}\n}\n",
		".config/opencode/opencode.jsonc": "{\n  // the user's own comment\n  \"permission\": {\"*\": \"allow\"},\n" +
			"  \"provider\": {\"fake\": {\"npm\": \"@ai-sdk/openai-compatible\", \"options\": {\"baseURL\": \"" + e.model.URL + "/v1\", \"apiKey\": \"x\"}, \"models\": {\"fake-model\": {\"tool_call\": true}}}},\n" +
			"  \"model\": \"fake/fake-model\",\n}\n",
	}
}

// mcpSetup writes mcpConfigs and trusts the project for Gemini CLI.
func mcpSetup(e *env) {
	for rel, content := range e.mcpConfigs() {
		e.write(rel, content)
	}
	e.write(".gemini/trustedFolders.json", `{"`+e.project+`":"TRUST_FOLDER"}`+"\n")
}

// mcpInstall runs `paneflow mcp <verb>` with the agents on PATH and fails
// the test unless it exits 0.
func (e *env) mcpVerb(verb string) string {
	e.t.Helper()
	out, err := e.agentCmd(filepath.Join(binDir, "paneflow"), "mcp", verb)
	if err != nil {
		e.t.Fatalf("paneflow mcp %s: %v\n%s", verb, err, out)
	}
	return out
}

// bridgePath is where `paneflow mcp install` puts the bridge in this run.
func (e *env) bridgePath() string {
	return filepath.Join(e.home, ".local", "share", "paneflow", "bin", "paneflow-mcp")
}

// TestMCPInstallListed: after `paneflow mcp install` each real CLI sees
// the entry: Claude Code, Gemini CLI and opencode start the bridge and
// report it connected, Codex (which never starts a server to list it)
// shows our command; `paneflow mcp uninstall` then leaves every file
// byte-for-byte as it was.
func TestMCPInstallListed(t *testing.T) {
	model := fakemodel.Start(t)
	e := newEnv(t, model, options{setup: mcpSetup})
	before := e.mcpConfigs()
	// Install then uninstall gives every file its bytes back.
	e.mcpVerb("install")
	e.mcpVerb("uninstall")
	for rel, want := range before {
		if data, err := os.ReadFile(filepath.Join(e.home, rel)); err != nil || string(data) != want {
			t.Errorf("~/%s after install and uninstall (err %v):\n%s\nwant the bytes from before install:\n%s", rel, err, data, want)
		}
	}
	out := e.mcpVerb("install")
	for _, name := range []string{"Claude Code", "Codex", "Gemini CLI", "opencode"} {
		if !strings.Contains(out, name) || strings.Contains(out, name+" not detected") {
			t.Fatalf("paneflow mcp install did not install %s:\n%s", name, out)
		}
	}
	bridge := e.bridgePath()

	// Claude Code: "paneflow: <cmd>  - ✔ Connected".
	out, err := e.agentCmd("claude", "mcp", "list")
	if err != nil || !strings.Contains(out, "paneflow: "+bridge) || !strings.Contains(out, "✔ Connected") {
		t.Errorf("claude mcp list: %v\n%s", err, out)
	} else {
		prove(t, "claude", "MCP", "yes")
	}
	// Gemini CLI (stderr; exits 0 either way): "✓ paneflow: <cmd> (stdio) - Connected".
	out, err = e.agentCmd("gemini", "mcp", "list")
	if err != nil || !strings.Contains(out, "✓ paneflow: "+bridge) || !strings.Contains(out, "- Connected") {
		t.Errorf("gemini mcp list: %v\n%s", err, out)
	} else {
		prove(t, "gemini", "MCP", "yes")
	}
	// opencode: "✓ paneflow connected" (with colour codes between).
	out, err = e.agentCmd("opencode", "mcp", "list")
	if plain := stripANSI(out); err != nil || !strings.Contains(plain, "✓ paneflow connected") || !strings.Contains(plain, bridge) {
		t.Errorf("opencode mcp list: %v\n%s", err, out)
	} else {
		prove(t, "opencode", "MCP", "yes")
	}
	// Codex: the entry as Codex reads it.
	out, err = e.agentCmd("codex", "mcp", "get", "paneflow", "--json")
	var got struct {
		Name      string `json:"name"`
		Enabled   bool   `json:"enabled"`
		Transport struct {
			Type    string   `json:"type"`
			Command string   `json:"command"`
			Args    []string `json:"args"`
			EnvVars []any    `json:"env_vars"`
		} `json:"transport"`
	}
	if err != nil {
		t.Errorf("codex mcp get paneflow --json: %v\n%s", err, out)
	} else if i := strings.Index(out, "{"); i < 0 || json.Unmarshal([]byte(out[i:strings.LastIndex(out, "}")+1]), &got) != nil {
		t.Errorf("codex mcp get paneflow --json printed no JSON object:\n%s", out)
	} else if got.Name != "paneflow" || !got.Enabled || got.Transport.Type != "stdio" || got.Transport.Command != bridge ||
		len(got.Transport.Args) != 0 || !strings.Contains(out, `"PANEFLOW_SOCKET_PATH"`) || !strings.Contains(out, `"XDG_RUNTIME_DIR"`) {
		t.Errorf("codex mcp get paneflow --json = %+v, want enabled stdio %s without args, passing PANEFLOW_SOCKET_PATH and XDG_RUNTIME_DIR on:\n%s", got, bridge, out)
	}

	// The CLIs rewrite their own files as they run (Claude Code reformats
	// ~/.claude.json and adds its state, opencode adds "$schema" and drops
	// a trailing comma), so the bytes from before install cannot come
	// back now: uninstall removes our entry and keeps what they wrote.
	e.mcpVerb("uninstall")
	for rel := range before {
		if data, err := os.ReadFile(filepath.Join(e.home, rel)); err != nil || strings.Contains(string(data), bridge) {
			t.Errorf("~/%s after uninstall (err %v) still names the bridge:\n%s", rel, err, data)
		}
	}
	if out, err := e.agentCmd("claude", "mcp", "list"); err != nil || strings.Contains(out, "paneflow") {
		t.Errorf("claude mcp list after uninstall: %v\n%s", err, out)
	}
}

// stripANSI removes CSI escape sequences.
func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// mcpTarget opens a second pane named "proof" that prints mcpMarker and
// waits, and returns its name.
func (e *env) mcpTarget() string {
	e.t.Helper()
	e.mustCLI("split", "v", "--target", "1", "--name", "proof", "--command", "echo "+mcpMarker+"; exec sleep 600")
	e.waitFor("the proof pane's line", func() bool {
		out, _ := e.cli("read", "proof")
		return strings.Contains(out, mcpMarker)
	})
	return "proof"
}

// fencedResult checks that a model request after the tool call carried
// read_pane's answer: the fence with the pane's line inside. It looks at
// every string in the request bodies of script turn turn.
func (e *env) fencedResult(turn int) {
	e.t.Helper()
	for _, r := range e.model.Requests() {
		if r.Turn != turn {
			continue
		}
		var v any
		if json.Unmarshal(r.Body, &v) != nil {
			continue
		}
		var found bool
		walkStrings(v, func(s string) {
			open := strings.Index(s, `<untrusted_terminal_output source="proof"`)
			if open >= 0 && strings.Contains(s[open:], mcpMarker) && strings.Contains(s[open:], "</untrusted_terminal_output id=") {
				found = true
			}
		})
		if found {
			return
		}
	}
	for _, r := range e.model.Requests() {
		var v any
		if r.Turn == turn && json.Unmarshal(r.Body, &v) == nil {
			walkStrings(v, func(s string) {
				if (strings.Contains(s, "proof") || strings.Contains(s, "aneflow") || strings.Contains(s, "rror")) && len(s) < 4000 {
					e.t.Logf("turn %d string: %q", turn, s)
				}
			})
		}
	}
	e.t.Errorf("no model request of turn %d carried the fenced pane text (<untrusted_terminal_output source=\"proof\" … %s …)", turn, mcpMarker)
}

// walkStrings calls f with every string in a decoded JSON value.
func walkStrings(v any, f func(string)) {
	switch x := v.(type) {
	case string:
		f(x)
	case []any:
		for _, y := range x {
			walkStrings(y, f)
		}
	case map[string]any:
		for _, y := range x {
			walkStrings(y, f)
		}
	}
}

// TestMCPClaudeTurn: a real Claude Code print-mode turn in pane 1 calls
// mcp__paneflow__read_pane on another live pane; the model gets the
// pane's text back, fenced, as the tool result.
func TestMCPClaudeTurn(t *testing.T) {
	model := fakemodel.Start(t,
		fakemodel.Turn{Text: "Reading it.", Calls: []fakemodel.Call{{Name: "mcp__paneflow__read_pane", Args: map[string]any{"target": "proof", "lines": 20}}}},
		fakemodel.Turn{Text: "Read the pane."})
	e := newEnv(t, model, options{profile: claudeProfile(model), setup: mcpSetup})
	e.mcpVerb("install")
	e.mcpTarget()
	// Print mode runs an MCP tool only when allowed (Claude Code 2.1.332
	// answers "Claude requested permissions to use …" otherwise), as a user
	// allows it: on the command line.
	e.typeLine(`claude -p "read the proof pane please" --allowedTools mcp__paneflow__read_pane`)
	e.waitEvent("claude's exit", func(ev event) bool { return ev.Type == "ai.exit" })
	e.fencedResult(1)
	e.checkArtifact("Read the pane.")
	prove(t, "claude", "MCP", "yes")
}

// TestMCPCodexTurn: the same with a real `codex exec` turn (Responses
// API: Codex offers our tools in the namespace mcp__paneflow).
func TestMCPCodexTurn(t *testing.T) {
	model := fakemodel.Start(t,
		fakemodel.Turn{Calls: []fakemodel.Call{{Namespace: "mcp__paneflow", Name: "read_pane", Args: map[string]any{"target": "proof", "lines": 20}}}},
		fakemodel.Turn{Text: "Read the pane."})
	e := newEnv(t, model, options{setup: mcpSetup})
	e.mcpVerb("install")
	e.mcpTarget()
	e.typeLine(`codex exec --skip-git-repo-check "read the proof pane please" </dev/null`)
	e.waitEvent("codex's exit", func(ev event) bool { return ev.Type == "ai.exit" })
	e.fencedResult(1)
	e.checkArtifact("Read the pane.")
	prove(t, "codex", "MCP", "yes")
}

// checkArtifact checks pane 1's artifact: the hook binary kept the turn's
// final answer in $XDG_DATA_HOME/paneflow/artifacts/1/1/output.json.
func (e *env) checkArtifact(answer string) {
	e.t.Helper()
	p := filepath.Join(e.home, ".local", "share", "paneflow", "artifacts", "1", "1", "output.json")
	data, err := os.ReadFile(p)
	var a struct {
		Output string `json:"output"`
	}
	if err != nil || json.Unmarshal(data, &a) != nil || a.Output != answer {
		e.t.Errorf("artifact %s (err %v):\n%s\nwant output %q", p, err, data, answer)
	}
}

// TestMCPGeminiTurn: a real Gemini CLI `-p` turn in a trusted folder
// calls our read_pane (Gemini names MCP tools mcp_<server>_<tool>; our
// entry's "trust": true skips the confirmation).
func TestMCPGeminiTurn(t *testing.T) {
	model := fakemodel.Start(t,
		fakemodel.Turn{Calls: []fakemodel.Call{{Name: "mcp_paneflow_read_pane", Args: map[string]any{"target": "proof", "lines": 20}}}},
		fakemodel.Turn{Text: "Read the pane."})
	e := newEnv(t, model, options{profile: geminiProfile(model), setup: mcpSetup})
	e.mcpVerb("install")
	e.mcpTarget()
	e.typeLine(`gemini -m gemini-2.5-flash -p "read the proof pane please"`)
	e.waitEvent("gemini's exit", func(ev event) bool { return ev.Type == "ai.exit" })
	e.fencedResult(1)
	e.checkArtifact("Read the pane.")
	prove(t, "gemini", "MCP", "yes")
}

// TestMCPOpencodeTurn: the same with a real `opencode run` (opencode
// names MCP tools <server>_<tool>).
func TestMCPOpencodeTurn(t *testing.T) {
	model := fakemodel.Start(t,
		fakemodel.Turn{Calls: []fakemodel.Call{{Name: "paneflow_read_pane", Args: map[string]any{"target": "proof", "lines": 20}}}},
		fakemodel.Turn{Text: "Read the pane."})
	model.SetSide("A title")
	e := newEnv(t, model, options{
		profile: "export OPENCODE_DISABLE_MODELS_FETCH=true OPENCODE_DISABLE_AUTOUPDATE=true npm_config_offline=true\n",
		setup:   mcpSetup,
	})
	e.mcpVerb("install")
	e.mcpTarget()
	e.typeLine(`opencode run "read the proof pane please"`)
	e.waitEvent("opencode's exit", func(ev event) bool { return ev.Type == "ai.exit" })
	e.fencedResult(1)
	e.checkArtifact("Read the pane.")
	prove(t, "opencode", "MCP", "yes")
}
