//go:build linux

package agents

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/test/internal/fakemodel"
)

// claudeKey is the fake API key; interactive mode wants its last 20
// characters approved in ~/.claude.json.
const claudeKey = "sk-ant-fake-0123456789abcdefghijklmnop"

// claudeProfile points Claude Code at the fake model.
func claudeProfile(m *fakemodel.Server) string {
	return "export ANTHROPIC_BASE_URL=" + m.URL + " ANTHROPIC_API_KEY=" + claudeKey + "\n"
}

// bashTurns is a Claude Code turn with one Bash call whose answer waits
// for hold: while it waits the agent is thinking, with Bash as its last
// tool.
func bashTurns(hold chan struct{}, command, result string) []fakemodel.Turn {
	return []fakemodel.Turn{
		{Text: "Running it.", Calls: []fakemodel.Call{{Name: "Bash", Args: map[string]any{"command": command, "description": "run the command"}}}},
		{Text: result, Hold: hold},
	}
}

// hooksSetup runs `paneflow hooks setup` as a user would, with claude on
// PATH, and returns its output.
func (e *env) hooksSetup() string {
	e.t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "paneflow"), "hooks", "setup")
	cmd.Env = append(append([]string(nil), e.environ...), "PATH="+filepath.Dir(agents["claude"])+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		e.t.Fatalf("paneflow hooks setup: %v\n%s", err, out)
	}
	return string(out)
}

// turn describes one scripted agent run for printTurn.
type turn struct {
	tool       string // the agent, as the conductor names it
	command    string // the command line typed into the pane
	activeTool string // the tool name while the tool's result is with the model
	lastResult string // the expected last_result; "" when the agent reports none
	output     string // what the tool call prints, which the model must get back
}

// printTurn runs a one-shot agent turn with one tool call in pane 1 and
// checks what Paneflow makes of it, up to the pane being idle again after
// the exit (issue 13's stale state). hold holds the model's answer to the
// tool's result, so the test sees the agent thinking meanwhile.
func (e *env) printTurn(tr turn, hold chan struct{}) {
	e.t.Helper()
	prove(e.t, tr.tool, "hooks", "yes")
	prove(e.t, tr.tool, "states", "yes")
	if tr.lastResult != "" {
		prove(e.t, tr.tool, "last_result", "yes")
	} else {
		prove(e.t, tr.tool, "last_result", "no")
	}
	e.typeLine(tr.command)
	st := e.waitStatus(tr.tool+" thinking while the "+tr.activeTool+" result is with the model", func(s status) bool {
		return s.State == "thinking" && str(s.ActiveToolName) == tr.activeTool
	})
	if !st.Hooked || st.Tool != tr.tool || st.PID == nil {
		e.t.Fatalf("status while thinking = %s, want hooked %s with the shim's pid", st, tr.tool)
	}
	close(hold)
	evs := e.waitEvent("ai.session_end", func(ev event) bool { return ev.Type == "ai.session_end" })
	e.inOrder(evs,
		step("agent_state thinking (prompt submitted)", func(ev event) bool {
			return isState("thinking")(ev) && ev.ActiveToolName == nil && ev.Hooked
		}),
		step("agent_state thinking/"+tr.activeTool, func(ev event) bool {
			return isState("thinking")(ev) && str(ev.ActiveToolName) == tr.activeTool
		}),
		step("agent_state finished with last_result "+tr.lastResult, func(ev event) bool {
			return isState("finished")(ev) && str(ev.LastResult) == tr.lastResult
		}),
		step("ai.exit 0", func(ev event) bool { return ev.Type == "ai.exit" && ev.ExitCode != nil && *ev.ExitCode == 0 }),
		step("ai.session_end", func(ev event) bool { return ev.Type == "ai.session_end" }),
	)
	last := e.waitEvent("agent_state idle after the session ended", func(ev event) bool {
		return isState("idle")(ev) && str(ev.Previous) == "finished"
	})
	for _, ev := range last {
		if isState("unknown_running")(ev) {
			e.t.Errorf("the run published %s (the stale state of issue 13)", ev)
		}
	}
	e.notStale(tr.tool, *st.PID)

	// The model got the tool's output back.
	var sawResult bool
	for _, r := range e.model.Requests() {
		if r.Turn == 1 && strings.Contains(string(r.Body), tr.output) {
			sawResult = true
		}
	}
	if !sawResult {
		e.t.Errorf("no model request carried the tool's output %q", tr.output)
	}
}

// claudeTurn is the Claude Code print-mode run of the tests.
var claudeTurn = turn{tool: "claude", command: `claude -p "run the echo please"`, activeTool: "Bash", lastResult: "All done here.", output: "from-bash"}

// TestClaudePrintHooksSetup: Claude Code 2.1.332 in print mode with the
// persistent hooks of `paneflow hooks setup`.
func TestClaudePrintHooksSetup(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	model := fakemodel.Start(t, bashTurns(hold, "echo from-bash", "All done here.")...)
	e := newEnv(t, model, options{profile: claudeProfile(model)})
	if out := e.hooksSetup(); !strings.Contains(out, "hooks installed") {
		t.Fatalf("paneflow hooks setup said:\n%s", out)
	}
	settings, err := os.ReadFile(filepath.Join(e.home, ".claude", "settings.json"))
	if err != nil || !strings.Contains(string(settings), "paneflow-ai-hook Stop") {
		t.Fatalf("~/.claude/settings.json after setup: %v\n%s", err, settings)
	}
	e.printTurn(claudeTurn, hold)
	if _, err := os.Stat(filepath.Join(e.project, ".claude")); err == nil {
		t.Errorf("the launch left %s/.claude behind", e.project)
	}
}

// TestClaudePrintShimOnly: Claude Code without `hooks setup`: the launch
// shim's per-launch --settings hooks give the same states, and the user's
// own settings files stay as they were.
func TestClaudePrintShimOnly(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	model := fakemodel.Start(t, bashTurns(hold, "echo from-bash", "All done here.")...)
	userSettings := "{\n  \"theme\": \"dark\",\n  \"hooks\": {}\n}\n"
	e := newEnv(t, model, options{profile: claudeProfile(model), setup: func(e *env) {
		e.write(".claude/settings.json", userSettings)
	}})
	e.printTurn(claudeTurn, hold)
	if got, _ := os.ReadFile(filepath.Join(e.home, ".claude", "settings.json")); string(got) != userSettings {
		t.Errorf("~/.claude/settings.json changed:\n%s", got)
	}
	for _, p := range []string{filepath.Join(e.project, ".claude"), filepath.Join(e.home, ".claude", "settings.json.bak")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("the launch left %s behind", p)
		}
	}
}

// TestClaudeInteractive: the Claude Code TUI with hooks from `paneflow hooks
// setup`: a prompt → thinking with Bash as the active tool → the
// permission prompt → waiting_for_input with Claude's own question →
// approved → thinking → finished with the turn's last_result; /exit ends
// the session, and `paneflow watch` saw the ai.* events in that order.
func TestClaudeInteractive(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	model := fakemodel.Start(t,
		fakemodel.Turn{Text: "Running it.", Calls: []fakemodel.Call{{Name: "Bash", Args: map[string]any{
			"command": `node -e "console.log('from-' + 'tui')"`, "description": "print a word"}}}},
		fakemodel.Turn{Text: "TUI turn done.", Hold: hold})
	e := newEnv(t, model, options{profile: claudeProfile(model), setup: func(e *env) {
		e.write(".claude.json", `{"hasCompletedOnboarding":true,"projects":{"`+e.project+`":{"hasTrustDialogAccepted":true}},`+
			`"customApiKeyResponses":{"approved":["`+claudeKey[len(claudeKey)-20:]+`"],"rejected":[]}}`+"\n")
	}})
	if out := e.hooksSetup(); !strings.Contains(out, "hooks installed") {
		t.Fatalf("paneflow hooks setup said:\n%s", out)
	}
	prove(t, "claude", "permission wait", "yes")
	// "auto", the default mode, asks the vendor's server about each tool
	// call; acceptEdits still asks the user before running a program.
	e.typeLine("claude --permission-mode acceptEdits")
	e.waitFor("the Claude Code prompt", func() bool {
		out, _ := e.cli("read", "1")
		return strings.Contains(out, "accept edits on")
	})
	e.typeLine("run the node one-liner please")

	st := e.waitStatus("the permission prompt", func(s status) bool { return s.State == "waiting_for_input" })
	if !st.Hooked || st.Tool != "claude" || !strings.Contains(str(st.Message), "permission") {
		t.Errorf("status at the permission prompt = %s, want hooked claude waiting with Claude's question", st)
	}
	// Yes is the first, selected choice.
	e.mustCLI("send", "1", "1")
	st = e.waitStatus("thinking after the approval", func(s status) bool {
		return s.State == "thinking" && str(s.ActiveToolName) == "Bash"
	})
	close(hold)
	e.waitStatus("finished", func(s status) bool { return s.State == "finished" && str(s.LastResult) == "TUI turn done." })

	e.typeLine("/exit")
	evs := e.waitEvent("ai.session_end", func(ev event) bool { return ev.Type == "ai.session_end" })
	e.inOrder(evs,
		step("ai.prompt_submit", func(ev event) bool { return ev.Type == "ai.prompt_submit" }),
		step("ai.tool_use Bash (PreToolUse)", func(ev event) bool { return ev.Type == "ai.tool_use" && str(ev.ActiveToolName) == "Bash" }),
		step("ai.notification (permission prompt)", func(ev event) bool {
			return ev.Type == "ai.notification" && str(ev.State) == "waiting_for_input" && str(ev.Message) != ""
		}),
		step("ai.tool_use Bash (PostToolUse)", func(ev event) bool { return ev.Type == "ai.tool_use" && str(ev.ActiveToolName) == "Bash" }),
		step("ai.stop with last_result", func(ev event) bool { return ev.Type == "ai.stop" && str(ev.LastResult) == "TUI turn done." }),
		step("ai.exit 0", func(ev event) bool { return ev.Type == "ai.exit" && ev.ExitCode != nil && *ev.ExitCode == 0 }),
		step("ai.session_end", func(ev event) bool { return ev.Type == "ai.session_end" }),
	)
	e.notStale("claude", *st.PID)
	var sawResult bool
	for _, r := range model.Requests() {
		if r.Turn == 1 && strings.Contains(string(r.Body), "from-tui") {
			sawResult = true
		}
	}
	if !sawResult {
		t.Errorf("the model never got the approved command's output")
	}
}
