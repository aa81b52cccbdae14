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
	e.checkUsage(tr.tool, true)
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

// pollLoop is a shell command that runs until the file go exists in dir,
// then prints from-<word>: a long tool call the test ends when it wants
// (Claude Code refuses a foreground `sleep N`).
func pollLoop(dir, word string) string {
	return `node -e "const f=require('fs');const t=setInterval(()=>{if(f.existsSync('` + filepath.Join(dir, "go") +
		`')){clearInterval(t);console.log('from-' + '` + word + `')}},100)"`
}

// release lets a pollLoop end.
func release(t testing.TB, dir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

// claudeInteractive starts the Claude Code TUI in pane 1 (hooks from
// `paneflow hooks setup`) against a model whose first turn is a Bash call
// of command, and types a prompt; it returns once Claude asks permission
// for the command (waiting_for_input with Claude's question) and its
// dialog is on the screen.
func claudeInteractive(t *testing.T, command string, more ...fakemodel.Turn) (*env, status) {
	t.Helper()
	model := fakemodel.Start(t, append([]fakemodel.Turn{{Text: "Running it.", Calls: []fakemodel.Call{{Name: "Bash", Args: map[string]any{
		"command": command, "description": "print a word"}}}}}, more...)...)
	e := claudeTUI(t, model)
	e.submitPrompt("run the node one-liner please")
	st := e.waitStatus("the permission prompt", func(s status) bool { return s.State == "waiting_for_input" })
	if !st.Hooked || st.Tool != "claude" || !strings.Contains(str(st.Message), "permission") {
		t.Errorf("status at the permission prompt = %s, want hooked claude waiting with Claude's question", st)
	}
	e.waitScreen("Claude's permission dialog", "❯ 1. Yes")
	return e, st
}

// claudeTUI starts a run with Claude Code's TUI in pane 1 at its prompt,
// onboarded, the project trusted, its hooks from `paneflow hooks setup`,
// talking to model.
func claudeTUI(t *testing.T, model *fakemodel.Server) *env {
	t.Helper()
	return claudeTUIServing(t, model, nil)
}

// claudeTUIServing is claudeTUI with more flags of `paneflow serve`.
func claudeTUIServing(t *testing.T, model *fakemodel.Server, serveArgs []string) *env {
	t.Helper()
	e := newEnv(t, model, options{profile: claudeProfile(model), serveArgs: serveArgs, setup: onboarded})
	if out := e.hooksSetup(); !strings.Contains(out, "hooks installed") {
		t.Fatalf("paneflow hooks setup said:\n%s", out)
	}
	// "auto", the default mode, asks the vendor's server about each tool
	// call; acceptEdits still asks the user before running a program.
	e.typeLine("claude --permission-mode acceptEdits")
	e.waitScreen("the Claude Code prompt", "accept edits on")
	return e
}

// onboarded writes the ~/.claude.json of an onboarded user who trusts the
// project and approved the fake key: the TUI starts at its prompt.
func onboarded(e *env) {
	e.write(".claude.json", `{"hasCompletedOnboarding":true,"projects":{"`+e.project+`":{"hasTrustDialogAccepted":true}},`+
		`"customApiKeyResponses":{"approved":["`+claudeKey[len(claudeKey)-20:]+`"],"rejected":[]}}`+"\n")
}

// waitScreen waits until pane 1's screen shows text.
func (e *env) waitScreen(what, text string) {
	e.t.Helper()
	e.waitFor(what, func() bool {
		out, _ := e.cli("read", "1")
		return strings.Contains(out, text)
	})
}

// TestClaudeInteractive: the Claude Code TUI with hooks from `paneflow hooks
// setup`: a prompt → thinking with Bash as the active tool → the
// permission prompt → waiting_for_input with Claude's own question →
// approved → thinking with Bash at once, while the approved command still
// runs (Claude fires no hook before the command ends: the key that
// approved did it) → finished with the turn's last_result; /exit ends the
// session, and `paneflow watch` saw the ai.* events in that order.
func TestClaudeInteractive(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	dir := t.TempDir()
	e, st := claudeInteractive(t, pollLoop(dir, "tui"), fakemodel.Turn{Text: "TUI turn done.", Hold: hold})
	prove(t, "claude", "permission wait", "yes")
	// Yes is the first, selected choice.
	e.approveHeld("claude", "1", "Bash", dir, hold, "TUI turn done.")

	e.typeCommand("/exit")
	evs := e.waitEvent("ai.session_end", func(ev event) bool { return ev.Type == "ai.session_end" })
	e.inOrder(evs,
		step("ai.prompt_submit", func(ev event) bool { return ev.Type == "ai.prompt_submit" }),
		step("ai.tool_use Bash (PreToolUse)", func(ev event) bool { return ev.Type == "ai.tool_use" && str(ev.ActiveToolName) == "Bash" }),
		step("ai.notification (permission prompt)", func(ev event) bool {
			return ev.Type == "ai.notification" && str(ev.State) == "waiting_for_input" && str(ev.Message) != ""
		}),
		step("agent_state thinking/Bash (approved)", func(ev event) bool {
			return isState("thinking")(ev) && str(ev.Previous) == "waiting_for_input" && str(ev.ActiveToolName) == "Bash"
		}),
		step("ai.tool_use Bash (PostToolUse)", func(ev event) bool { return ev.Type == "ai.tool_use" && str(ev.ActiveToolName) == "Bash" }),
		step("ai.stop with last_result", func(ev event) bool { return ev.Type == "ai.stop" && str(ev.LastResult) == "TUI turn done." }),
		step("ai.exit 0", func(ev event) bool { return ev.Type == "ai.exit" && ev.ExitCode != nil && *ev.ExitCode == 0 }),
		step("ai.session_end", func(ev event) bool { return ev.Type == "ai.session_end" }),
	)
	e.notStale("claude", *st.PID)
	e.modelGot("from-tui")
}

// approvedWhileRunning checks, once the status says thinking after an
// approval, that the approved command still runs: no hook has come since
// the permission prompt (the agent's next one is PostToolUse, when the
// command has ended), so the key alone moved the state.
func (e *env) approvedWhileRunning(tool string) {
	e.t.Helper()
	evs := e.agentEvents()
	i := len(evs) - 1
	for i >= 0 && evs[i].Type != "ai.notification" {
		i--
	}
	if i < 0 {
		e.t.Fatalf("no ai.notification among %v", evs)
	}
	for _, ev := range evs[i+1:] {
		if strings.HasPrefix(ev.Type, "ai.") {
			e.t.Fatalf("%s sent %s after its permission prompt before the command ended: the test shows nothing", tool, ev)
		}
	}
	if n := e.model.Turns(); n != 1 {
		e.t.Fatalf("the model was asked %d times: the command's result came back already", n)
	}
}

// modelGot checks that a model request after the first carried output.
func (e *env) modelGot(output string) {
	e.t.Helper()
	for _, r := range e.model.Requests() {
		if r.Turn == 1 && strings.Contains(string(r.Body), output) {
			return
		}
	}
	e.t.Errorf("the model never got the approved command's output %q", output)
}

// TestClaudeDenied: Claude Code's permission prompt answered No (arrows
// to "4. No", then Enter): Claude fires no hook and waits for the user to
// say what to do instead, so the pane stays waiting_for_input; the arrow
// keys alone change nothing either. (Esc does the same to Claude, and is
// no answer for the conductor: conductor TestAnswerMovesOn.)
func TestClaudeDenied(t *testing.T) {
	t.Parallel()
	e, _ := claudeInteractive(t, `node -e "console.log('from-' + 'denied')"`)
	for range 3 {
		e.mustCLI("key", "1", "down")
	}
	e.waitScreen("the mark on No", "❯ 4. No")
	e.enterNoTurn()
	e.waitScreen("Claude's question after the denial", "What should Claude do instead?")
	if st := e.status(); st.State != "waiting_for_input" {
		t.Errorf("status after No = %s, want waiting_for_input", st)
	}
	evs := e.agentEvents()
	for i := len(evs) - 1; i >= 0 && evs[i].Type != "ai.notification"; i-- {
		t.Errorf("after the permission prompt: %s (want nothing)", evs[i])
	}
	if n := e.model.Turns(); n != 1 {
		t.Errorf("the model was asked %d times, want once: the command was denied", n)
	}
}

// approveHeld answers tool's permission prompt with key and checks the
// pane is thinking with activeTool at once, while the approved command
// (a pollLoop in dir) still runs; then it lets the command end and the
// held final answer come, and waits for finished with result.
func (e *env) approveHeld(tool, key, activeTool, dir string, hold chan struct{}, result string) {
	e.t.Helper()
	e.mustCLI("send", "1", key)
	e.waitStatus("thinking after the approval", func(s status) bool {
		return s.State == "thinking" && str(s.ActiveToolName) == activeTool
	})
	e.approvedWhileRunning(tool)
	release(e.t, dir)
	close(hold)
	e.waitStatus("finished", func(s status) bool { return s.State == "finished" && str(s.LastResult) == result })
}

// TestClaudePrintHTTPHooks: the launch shim gives Claude Code 2.1.332
// http hooks that post to the server's loopback endpoint (hooks.endpoint,
// package hookhttp): the same states reach `paneflow ps` and watch, and
// no hook process runs (paneflow-ai-hook logs every call it gets to
// PANEFLOW_HOOK_LOG; the log stays empty).
func TestClaudePrintHTTPHooks(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	model := fakemodel.Start(t, bashTurns(hold, "echo from-bash", "All done here.")...)
	logDir, err := os.MkdirTemp("", "pfa-hooklog-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(logDir) })
	hookLog := filepath.Join(logDir, "hook.log")
	e := newEnv(t, model, options{profile: claudeProfile(model) + "export PANEFLOW_HOOK_LOG=" + hookLog + "\n"})
	e.printTurn(claudeTurn, hold)
	if b, err := os.ReadFile(hookLog); err == nil && len(b) > 0 {
		t.Errorf("paneflow-ai-hook ran (http hooks expected):\n%s", b)
	}
}

// TestClaudeInteractiveHTTPHooks: the Claude Code 2.1.332 TUI with the
// shim's http hooks (no `paneflow hooks setup`): its permission question
// arrives as an http Notification (waiting_for_input with Claude's own
// question), and no hook process runs.
func TestClaudeInteractiveHTTPHooks(t *testing.T) {
	t.Parallel()
	model := fakemodel.Start(t, fakemodel.Turn{Text: "Running it.", Calls: []fakemodel.Call{{Name: "Bash", Args: map[string]any{
		"command": "node -e \"console.log('from-' + 'node')\"", "description": "print a word"}}}})
	logDir, err := os.MkdirTemp("", "pfa-hooklog-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(logDir) })
	hookLog := filepath.Join(logDir, "hook.log")
	e := newEnv(t, model, options{profile: claudeProfile(model) + "export PANEFLOW_HOOK_LOG=" + hookLog + "\n", setup: onboarded})
	e.typeLine("claude --permission-mode acceptEdits")
	e.waitScreen("the Claude Code prompt", "accept edits on")
	e.submitPrompt("run the node one-liner please")
	st := e.waitStatus("the permission prompt", func(s status) bool { return s.State == "waiting_for_input" })
	if !st.Hooked || st.Tool != "claude" || !strings.Contains(str(st.Message), "permission") {
		t.Errorf("status at the permission prompt = %s, want hooked claude waiting with Claude's question", st)
	}
	if b, err := os.ReadFile(hookLog); err == nil && len(b) > 0 {
		t.Errorf("paneflow-ai-hook ran (http hooks expected):\n%s", b)
	}
}
