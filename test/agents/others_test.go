//go:build linux

package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/test/internal/fakemodel"
)

// geminiSetup configures Gemini CLI 0.61.0 for the fake model; trusted
// adds the project to the trusted folders.
func geminiSetup(trusted bool) func(e *env) {
	return func(e *env) {
		e.write(".gemini/settings.json", `{"security":{"auth":{"selectedType":"gemini-api-key"}}}`+"\n")
		if trusted {
			e.write(".gemini/trustedFolders.json", `{"`+e.project+`":"TRUST_FOLDER"}`+"\n")
		}
	}
}

func geminiProfile(m *fakemodel.Server) string {
	return "export GOOGLE_GEMINI_BASE_URL=" + m.URL + " GEMINI_API_KEY=fake-gemini-key\n"
}

// TestGeminiTrusted: Gemini CLI in a trusted folder, through the shim
// (project hooks in ./.gemini/settings.json, Gemini's own event names).
func TestGeminiTrusted(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	model := fakemodel.Start(t,
		fakemodel.Turn{Calls: []fakemodel.Call{{Name: "run_shell_command", Args: map[string]any{"command": "echo from-gemini-shell", "description": "echo"}}}},
		fakemodel.Turn{Text: "Gemini is done.", Hold: hold})
	e := newEnv(t, model, options{profile: geminiProfile(model), setup: geminiSetup(true)})
	e.printTurn(turn{
		tool: "gemini", command: `gemini -m gemini-2.5-flash --yolo -p "run the echo please"`,
		activeTool: "run_shell_command", lastResult: "Gemini is done.", output: "from-gemini-shell",
	}, hold)
	if _, err := os.Stat(filepath.Join(e.project, ".gemini")); err == nil {
		t.Errorf("the launch left %s/.gemini behind", e.project)
	}
}

// TestOpencode: opencode through the shim; its plugin drives the states,
// posting each event to the server's http-hook endpoint: no hook process
// runs (issue 25).
func TestOpencode(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	model := fakemodel.Start(t,
		fakemodel.Turn{Calls: []fakemodel.Call{{Name: "bash", Args: map[string]any{"command": "echo from-opencode-bash", "description": "echo"}}}},
		fakemodel.Turn{Text: "opencode is done.", Hold: hold})
	model.SetSide("A title")
	hookLog := filepath.Join(t.TempDir(), "hook.log")
	e := newEnv(t, model, options{
		profile: "export OPENCODE_DISABLE_MODELS_FETCH=true OPENCODE_DISABLE_AUTOUPDATE=true npm_config_offline=true\n" +
			"export PANEFLOW_HOOK_LOG=" + hookLog + "\n",
		setup: func(e *env) {
			e.write(".config/opencode/opencode.json", `{"provider":{"fake":{"npm":"@ai-sdk/openai-compatible","options":{"baseURL":"`+model.URL+`/v1","apiKey":"x"},"models":{"fake-model":{"tool_call":true}}}},"model":"fake/fake-model","permission":{"*":"allow"}}`+"\n")
		}})
	e.printTurn(turn{
		tool: "opencode", command: `opencode run "run the echo please"`,
		activeTool: "bash", lastResult: "opencode is done.", output: "from-opencode-bash",
	}, hold)
	if _, err := os.Stat(filepath.Join(e.project, ".opencode")); err == nil {
		t.Errorf("the launch left %s/.opencode behind", e.project)
	}
	if b, err := os.ReadFile(hookLog); err == nil && len(b) > 0 {
		t.Errorf("paneflow-ai-hook ran (the plugin's posts expected):\n%s", b)
	}
}

// TestCodex: Codex 0.169.0 runs a hook only once it is trusted. The shim
// passes its hooks and their trust on the command line (-c), so they fire
// without any file written, while the user's own untrusted hook stays
// skipped.
func TestCodex(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	model := fakemodel.Start(t,
		fakemodel.Turn{Calls: []fakemodel.Call{{Name: "exec_command", Args: map[string]any{"cmd": "echo from-codex-exec"}}}},
		fakemodel.Turn{Text: "Codex is done.", Hold: hold})
	var config, userHooks string
	marker := ""
	e := newEnv(t, model, options{setup: func(e *env) {
		config = "model = \"fake-model\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"Fake\"\nbase_url = \"" + model.URL + "/v1\"\nwire_api = \"responses\"\n"
		e.write(".codex/config.toml", config)
		// A hook of the user's own that they never trusted.
		marker = filepath.Join(e.dir, "untrusted-hook-ran")
		userHooks = `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"touch ` + marker + `","timeout":5}]}]}}` + "\n"
		e.write(".codex/hooks.json", userHooks)
	}})
	e.printTurn(turn{
		tool: "codex", command: `codex exec --skip-git-repo-check "run the echo please" </dev/null`,
		activeTool: "Bash", lastResult: "Codex is done.", output: "from-codex-exec",
	}, hold)
	if got, _ := os.ReadFile(filepath.Join(e.home, ".codex", "config.toml")); string(got) != config {
		t.Errorf("~/.codex/config.toml changed:\n%s", got)
	}
	if got, _ := os.ReadFile(filepath.Join(e.home, ".codex", "hooks.json")); string(got) != userHooks {
		t.Errorf("~/.codex/hooks.json changed:\n%s", got)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the user's untrusted Stop hook ran: the launch weakened Codex's hook trust")
	}
	e.checkDaySurvives("codex")
	if _, err := os.Stat(filepath.Join(e.project, ".codex")); err == nil {
		t.Errorf("the launch left %s/.codex behind", e.project)
	}
}

// TestCodexMCPHooks: with `paneflow mcp install` done, the shim gives
// Codex 0.169.0 mcp_tool hooks that call the unlisted hook tool of the
// bridge Codex runs anyway, trusted by hash for the run: the states of
// TestCodex, the turn's answer kept, and no hook process runs (issue 25).
func TestCodexMCPHooks(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	model := fakemodel.Start(t,
		fakemodel.Turn{Calls: []fakemodel.Call{{Name: "exec_command", Args: map[string]any{"cmd": "echo from-codex-mcp"}}}},
		fakemodel.Turn{Text: "Codex is done over MCP.", Hold: hold})
	hookLog := filepath.Join(t.TempDir(), "hook.log")
	e := newEnv(t, model, options{profile: "export PANEFLOW_HOOK_LOG=" + hookLog + "\n", setup: func(e *env) {
		e.write(".codex/config.toml", "model = \"fake-model\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"Fake\"\nbase_url = \""+model.URL+"/v1\"\nwire_api = \"responses\"\n")
	}})
	e.mcpVerb("install")
	e.printTurn(turn{
		tool: "codex", command: `codex exec --skip-git-repo-check "run the echo please" </dev/null`,
		activeTool: "Bash", lastResult: "Codex is done over MCP.", output: "from-codex-mcp",
	}, hold)
	e.checkArtifact("Codex is done over MCP.")
	if b, err := os.ReadFile(hookLog); err == nil && len(b) > 0 {
		t.Errorf("paneflow-ai-hook ran (the bridge's hook tool expected):\n%s", b)
	}
	// The model is offered the bridge's tools, never the hook tool.
	for _, r := range model.Requests() {
		if r.Turn == 0 && (!strings.Contains(string(r.Body), "mcp__paneflow") || strings.Contains(string(r.Body), proto.MCPHookTool)) {
			t.Errorf("the model's tools (want mcp__paneflow's, without %s):\n%s", proto.MCPHookTool, r.Body)
		}
	}
}

// TestGeminiUntrusted: in a folder Gemini CLI does not trust it runs no
// hooks (and `-p` exits 55): the pane says so, hooked:false with a reason
// the user can act on, instead of a session that never moves.
func TestGeminiUntrusted(t *testing.T) {
	t.Parallel()
	model := fakemodel.Start(t, fakemodel.Turn{Text: "never asked"})
	e := newEnv(t, model, options{profile: geminiProfile(model), setup: geminiSetup(false)})
	e.typeLine(`gemini -m gemini-2.5-flash -p "hello"`)
	evs := e.waitEvent("ai.exit", func(ev event) bool { return ev.Type == "ai.exit" })
	e.inOrder(evs,
		step("agent_state unknown_running, not hooked, reason untrusted_folder", func(ev event) bool {
			return isState("unknown_running")(ev) && !ev.Hooked && strings.HasPrefix(str(ev.Reason), "untrusted_folder: ") &&
				strings.Contains(str(ev.Reason), e.project)
		}),
		step("ai.exit 55", func(ev event) bool { return ev.Type == "ai.exit" && ev.ExitCode != nil && *ev.ExitCode == 55 }),
	)
	st := e.waitStatus("errored after exit 55", func(s status) bool { return s.State == "errored" })
	if st.Hooked || !strings.HasPrefix(str(st.Reason), "untrusted_folder: ") || st.Tool != "gemini" {
		t.Errorf("status = %s, want gemini errored, hooked false, reason untrusted_folder", st)
	}
	if _, err := os.Stat(filepath.Join(e.project, ".gemini")); err == nil {
		t.Errorf("hooks were written into the untrusted folder")
	}
	if n := model.Turns(); n != 0 {
		t.Errorf("gemini asked the model %d times in an untrusted folder", n)
	}
}

// codexInteractive starts the Codex TUI through the shim in pane 1, with
// an approval policy that asks before running a command, against a model
// whose first turn is an escalated exec_command of cmd, and types a
// prompt; it returns once Codex asks (waiting_for_input from its
// PermissionRequest hook) and its dialog is on the screen. With hookLog
// set, the bridge is installed first (so its hook tool serves the hooks)
// and paneflow-ai-hook logs to hookLog if it runs.
func codexInteractive(t *testing.T, hookLog, cmd string, more ...fakemodel.Turn) (*env, status) {
	t.Helper()
	model := fakemodel.Start(t, append([]fakemodel.Turn{{Calls: []fakemodel.Call{{Name: "exec_command", Args: map[string]any{"cmd": cmd,
		"sandbox_permissions": "require_escalated", "justification": "Print a word outside the sandbox?"}}}}}, more...)...)
	o := options{setup: func(e *env) {
		e.write(".codex/config.toml", "model = \"fake-model\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"Fake\"\nbase_url = \""+
			model.URL+"/v1\"\nwire_api = \"responses\"\n\n[projects.\""+e.project+"\"]\ntrust_level = \"trusted\"\n")
	}}
	if hookLog != "" {
		o.profile = "export PANEFLOW_HOOK_LOG=" + hookLog + "\n"
	}
	e := newEnv(t, model, o)
	if hookLog != "" {
		e.mcpVerb("install")
	}
	e.typeLine("codex -a on-request -s workspace-write")
	e.waitScreen("the Codex prompt", "fake-model")
	e.submitPrompt("run the node one-liner please")
	st := e.waitStatus("the approval prompt", func(s status) bool { return s.State == "waiting_for_input" })
	if !st.Hooked || st.Tool != "codex" || str(st.Message) == "" {
		t.Errorf("status at the approval prompt = %s, want hooked codex waiting with a message", st)
	}
	e.waitScreen("Codex's approval dialog", "Yes, proceed")
	return e, st
}

// TestCodexInteractive: the Codex TUI through the shim: prompt → the
// command's approval prompt → waiting_for_input from Codex's
// PermissionRequest hook → approved with y → thinking with Bash at once,
// while the command still runs (Codex's next hook is PostToolUse) →
// finished with last_result.
func TestCodexInteractive(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	dir := t.TempDir()
	e, st := codexInteractive(t, "", pollLoop(dir, "codex-tui"), fakemodel.Turn{Text: "Codex TUI done.", Hold: hold})
	prove(t, "codex", "permission wait", "yes")
	// "Yes, proceed", key y.
	e.approveHeld("codex", "y", "Bash", dir, hold, "Codex TUI done.")
	e.typeCommand("/quit")
	evs := e.waitEvent("ai.session_end", func(ev event) bool { return ev.Type == "ai.session_end" })
	e.inOrder(evs,
		step("ai.prompt_submit", func(ev event) bool { return ev.Type == "ai.prompt_submit" }),
		step("ai.tool_use Bash (PreToolUse)", func(ev event) bool { return ev.Type == "ai.tool_use" && str(ev.ActiveToolName) == "Bash" }),
		step("ai.notification (PermissionRequest)", func(ev event) bool {
			return ev.Type == "ai.notification" && str(ev.State) == "waiting_for_input" && strings.Contains(str(ev.Message), "from-")
		}),
		step("agent_state thinking/Bash (approved)", func(ev event) bool {
			return isState("thinking")(ev) && str(ev.Previous) == "waiting_for_input" && str(ev.ActiveToolName) == "Bash"
		}),
		step("ai.tool_use Bash (PostToolUse)", func(ev event) bool { return ev.Type == "ai.tool_use" && str(ev.ActiveToolName) == "Bash" }),
		step("ai.stop with last_result", func(ev event) bool { return ev.Type == "ai.stop" && str(ev.LastResult) == "Codex TUI done." }),
		step("ai.exit 0", func(ev event) bool { return ev.Type == "ai.exit" && ev.ExitCode != nil && *ev.ExitCode == 0 }),
		step("ai.session_end", func(ev event) bool { return ev.Type == "ai.session_end" }),
	)
	e.notStale("codex", *st.PID)
	e.modelGot("from-codex-tui")
}

// TestCodexDenied: Codex's approval prompt answered with Enter on "No"
// (after arrow keys, which alone change nothing): Codex cancels the
// command, fires only its Interrupt hook and waits at its prompt, so the
// turn ended: finished, without the answered question as its message
// (before Interrupt was installed the pane stayed waiting_for_input with
// it). The Enter started no turn, and `send --submit` says so. Once with
// command hooks, once with the bridge's hook tool serving them (issue 25:
// then no hook process runs, PermissionRequest and Interrupt included).
func TestCodexDenied(t *testing.T) {
	t.Parallel()
	for _, viaMCP := range []bool{false, true} {
		t.Run(map[bool]string{false: "command hooks", true: "mcp_tool hooks"}[viaMCP], func(t *testing.T) {
			t.Parallel()
			hookLog := ""
			if viaMCP {
				hookLog = filepath.Join(t.TempDir(), "hook.log")
			}
			codexDenied(t, hookLog)
			if b, err := os.ReadFile(hookLog); viaMCP && err == nil && len(b) > 0 {
				t.Errorf("paneflow-ai-hook ran (the bridge's hook tool expected):\n%s", b)
			}
		})
	}
}

// codexDenied is TestCodexDenied, with hookLog as for codexInteractive.
func codexDenied(t *testing.T, hookLog string) {
	e, _ := codexInteractive(t, hookLog, `node -e "console.log('from-' + 'denied')"`)
	e.mustCLI("key", "1", "down")
	e.mustCLI("key", "1", "down")
	e.waitScreen("the mark on No", "› 3. No")
	if st := e.status(); st.State != "waiting_for_input" {
		t.Errorf("status after the arrow keys = %s, want still waiting_for_input", st)
	}
	e.enterNoTurn()
	e.waitScreen("Codex's cancellation", "You canceled the request")
	st := e.waitStatus("the turn's end (Interrupt)", func(s status) bool { return s.State == "finished" })
	if !st.Hooked || str(st.Message) != "" || str(st.LastResult) != "" || str(st.ActiveToolName) != "" {
		t.Errorf("status after No = %s, want hooked, finished, no message, no last_result, no tool", st)
	}
	evs := e.agentEvents()
	i := len(evs) - 1
	for i >= 0 && evs[i].Type != "ai.notification" {
		i--
	}
	e.inOrder(evs[i+1:],
		step("ai.stop (Interrupt)", func(ev event) bool { return ev.Type == "ai.stop" && str(ev.LastResult) == "" }),
	)
	for _, ev := range evs[i+1:] {
		if isState("thinking")(ev) || ev.Type == "ai.tool_use" || ev.Type == "ai.prompt_submit" {
			t.Errorf("after the denial: %s (want only the turn's end)", ev)
		}
	}
}

// geminiPrompt types a prompt into the Gemini CLI TUI of pane 1 once it
// has started: its input box is drawn seconds before its start-up ends
// (the banner with "Authenticated with" comes then, and its SessionStart
// hook runs after that), and an Enter before that is lost or the prompt
// queued.
func (e *env) geminiPrompt(prompt string) {
	e.t.Helper()
	e.waitScreen("the end of Gemini's start-up", "Authenticated with")
	e.geminiReady("")
	e.geminiType(prompt)
}

// geminiReady waits until Gemini is idle: the last window title it set
// since the last event of type after ("" for any) says Ready, and no hook
// of ours is still running (Gemini waits for its hooks: while it shows
// "Executing Hook" a prompt is queued and a slash command refused).
func (e *env) geminiReady(after string) { e.t.Helper(); e.geminiReadyFrom(after, 0) }

// geminiReadySince is geminiReady looking only at the events from index
// since of e.events on (a restarted Gemini's).
func (e *env) geminiReadySince(since int) { e.t.Helper(); e.geminiReadyFrom("", since) }

func (e *env) geminiReadyFrom(after string, since int) {
	e.t.Helper()
	e.waitFor("Gemini ready (title and no hook running)", func() bool {
		ready := false
		for _, line := range strings.Split(e.events.String()[since:], "\n") {
			var ev struct{ Type, Title string }
			if json.Unmarshal([]byte(line), &ev) != nil {
				continue
			}
			switch {
			case ev.Type == after:
				ready = false
			case ev.Type == "title_changed":
				ready = strings.Contains(ev.Title, "Ready")
			}
		}
		if !ready {
			return false
		}
		out, _ := e.cli("read", "1")
		return !strings.Contains(out, "Executing Hook")
	})
}

// geminiType types a line into Gemini's input box as keys (not a paste:
// Gemini takes an Enter that comes within 40 ms of a paste for a newline)
// and presses Enter alone once the line is echoed. (Not for a slash
// command: Enter must wait for Gemini's completion, which `send --submit`
// does, see typeCommand.)
func (e *env) geminiType(line string) {
	e.t.Helper()
	e.mustCLI("send", "1", line)
	e.waitScreen("the line in Gemini's input box", "> "+line)
	// send --submit checks that a turn started within 3 s, which a loaded
	// machine may miss; the test's next wait is the check that counts.
	if _, err := e.cli("send", "1", "", "--submit"); err != nil && !strings.Contains(err.Error(), "no turn start was confirmed") {
		e.t.Fatal(err)
	}
}

// TestGeminiInteractive: the Gemini CLI TUI through the shim in a trusted
// folder: prompt → thinking with run_shell_command → its confirmation
// dialog → waiting_for_input from Gemini's Notification hook
// (ToolPermission) → "1. Allow once" → thinking with run_shell_command at
// once, while the command still runs (Gemini fires no hook on approval) →
// finished with last_result (AfterAgent); /quit ends the session.
func TestGeminiInteractive(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	dir := t.TempDir()
	model := fakemodel.Start(t,
		fakemodel.Turn{Calls: []fakemodel.Call{{Name: "run_shell_command", Args: map[string]any{"command": pollLoop(dir, "gemini-tui"), "description": "poll"}}}},
		fakemodel.Turn{Text: "Gemini TUI done.", Hold: hold})
	e := newEnv(t, model, options{profile: geminiProfile(model), setup: geminiSetup(true)})
	prove(t, "gemini", "permission wait", "yes")
	e.typeLine("gemini -m gemini-2.5-flash")
	e.geminiPrompt("run the loop please")
	st := e.waitStatus("the confirmation prompt", func(s status) bool { return s.State == "waiting_for_input" })
	if !st.Hooked || st.Tool != "gemini" || str(st.Message) == "" {
		t.Errorf("status at the confirmation prompt = %s, want hooked gemini waiting with a message", st)
	}
	e.waitScreen("Gemini's confirmation dialog", "1. Allow once")
	e.approveHeld("gemini", "1", "run_shell_command", dir, hold, "Gemini TUI done.")
	e.geminiReady("ai.stop") // the AfterAgent hook that sent it still runs
	e.typeCommand("/quit")   // Enter once Gemini completed it (api's geminiCompleted)
	evs := e.waitEvent("ai.session_end", func(ev event) bool { return ev.Type == "ai.session_end" })
	e.inOrder(evs,
		step("ai.prompt_submit", func(ev event) bool { return ev.Type == "ai.prompt_submit" }),
		step("ai.tool_use run_shell_command (BeforeTool)", func(ev event) bool {
			return ev.Type == "ai.tool_use" && str(ev.ActiveToolName) == "run_shell_command"
		}),
		step("ai.notification (ToolPermission)", func(ev event) bool {
			return ev.Type == "ai.notification" && str(ev.State) == "waiting_for_input" && str(ev.Message) != ""
		}),
		step("agent_state thinking/run_shell_command (approved)", func(ev event) bool {
			return isState("thinking")(ev) && str(ev.Previous) == "waiting_for_input" && str(ev.ActiveToolName) == "run_shell_command"
		}),
		step("ai.stop with last_result", func(ev event) bool { return ev.Type == "ai.stop" && str(ev.LastResult) == "Gemini TUI done." }),
		step("ai.exit 0", func(ev event) bool { return ev.Type == "ai.exit" && ev.ExitCode != nil && *ev.ExitCode == 0 }),
		step("ai.session_end", func(ev event) bool { return ev.Type == "ai.session_end" }),
	)
	e.notStale("gemini", *st.PID)
	e.modelGot("from-gemini-tui")
	if _, err := os.Stat(filepath.Join(e.project, ".gemini")); err == nil {
		t.Errorf("the launch left %s/.gemini behind", e.project)
	}
}

// TestGeminiSendSubmit: `paneflow send --submit` (a bracketed paste, then
// the server's deferred Enter) submits a prompt to the Gemini CLI TUI.
// Gemini takes an Enter within 40 ms of a paste for a newline unless the
// terminal speaks the kitty keyboard protocol: on a loaded machine that
// guard turned the Enter into a newline even 60 ms after the echo (node
// ran the guard's timer and read the Enter in one turn of its loop), so
// the test also checks that Gemini switched the protocol on.
func TestGeminiSendSubmit(t *testing.T) {
	t.Parallel()
	model := fakemodel.Start(t, fakemodel.Turn{Text: "Gemini got the pasted prompt."})
	e := newEnv(t, model, options{profile: geminiProfile(model), setup: geminiSetup(true)})
	e.typeLine("gemini -m gemini-2.5-flash")
	e.waitScreen("the end of Gemini's start-up", "Authenticated with")
	e.geminiReady("")
	// send --submit checks that a turn started within 3 s, which a loaded
	// machine may miss; the wait below is the check that counts.
	out, err := e.cli("send", "1", "say something please", "--submit")
	if err != nil && !strings.Contains(err.Error(), "no turn start was confirmed") {
		t.Fatal(err)
	}
	if out != "" { // printed when the start was confirmed
		var res struct {
			Kitty *int `json:"terminal_kitty_keyboard"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || res.Kitty == nil || *res.Kitty != 1 {
			t.Errorf("send --submit answered %s: want terminal_kitty_keyboard 1 (Gemini switches the kitty keyboard protocol on)", out)
		}
	}
	e.waitStatus("finished", func(s status) bool {
		return s.State == "finished" && str(s.LastResult) == "Gemini got the pasted prompt."
	})
	e.inOrder(e.waitEvent("ai.stop", func(ev event) bool { return ev.Type == "ai.stop" }),
		step("ai.prompt_submit", func(ev event) bool { return ev.Type == "ai.prompt_submit" }),
		step("ai.stop with last_result", func(ev event) bool {
			return ev.Type == "ai.stop" && str(ev.LastResult) == "Gemini got the pasted prompt."
		}),
	)
}

// TestOpencodePermission: the opencode TUI through the shim, with bash
// set to ask (`opencode run` rejects such a request by itself): prompt →
// its "Permission required" dialog → waiting_for_input with the command
// in the message, from the plugin's permission.asked event → "Allow
// once" (the first, selected choice) with Enter → the command runs
// (tool.execute.after: thinking) → finished with last_result.
func TestOpencodePermission(t *testing.T) {
	t.Parallel()
	model := fakemodel.Start(t,
		fakemodel.Turn{Calls: []fakemodel.Call{{Name: "bash", Args: map[string]any{"command": "echo from-opencode-asked", "description": "echo"}}}},
		fakemodel.Turn{Text: "opencode asked and ran it."})
	model.SetSide("A title")
	e := newEnv(t, model, options{
		profile: "export OPENCODE_DISABLE_MODELS_FETCH=true OPENCODE_DISABLE_AUTOUPDATE=true npm_config_offline=true\n",
		setup: func(e *env) {
			e.write(".config/opencode/opencode.json", `{"provider":{"fake":{"npm":"@ai-sdk/openai-compatible","options":{"baseURL":"`+model.URL+`/v1","apiKey":"x"},"models":{"fake-model":{"tool_call":true}}}},"model":"fake/fake-model","permission":{"*":"allow","bash":"ask"}}`+"\n")
		}})
	prove(t, "opencode", "permission wait", "yes")
	e.typeLine("opencode")
	// Its input box is drawn before it reads input; the window title
	// comes when it does.
	e.waitFor("opencode's window title and input box", func() bool {
		out, _ := e.cli("read", "1", "--raw")
		return strings.Contains(e.events.String(), `"title":"OpenCode"`) && strings.Contains(out, "Ask anything")
	})
	e.submitPrompt("run the echo please")
	st := e.waitStatus("the permission prompt", func(s status) bool { return s.State == "waiting_for_input" })
	if !st.Hooked || st.Tool != "opencode" || !strings.Contains(str(st.Message), "echo from-opencode-asked") {
		t.Errorf("status at the permission prompt = %s, want hooked opencode waiting with the command in its message", st)
	}
	e.waitFor("opencode's permission dialog", func() bool {
		out, _ := e.cli("read", "1", "--raw")
		return strings.Contains(out, "Allow once")
	})
	e.typeCommand("") // Enter on "Allow once"
	e.waitStatus("finished", func(s status) bool {
		return s.State == "finished" && str(s.LastResult) == "opencode asked and ran it."
	})
	evs := e.agentEvents()
	e.inOrder(evs,
		step("ai.prompt_submit (chat.message)", func(ev event) bool { return ev.Type == "ai.prompt_submit" }),
		step("ai.tool_use bash (tool.execute.before)", func(ev event) bool { return ev.Type == "ai.tool_use" && str(ev.ActiveToolName) == "bash" }),
		step("ai.notification (permission.asked)", func(ev event) bool {
			return ev.Type == "ai.notification" && str(ev.State) == "waiting_for_input"
		}),
		step("ai.tool_use bash (tool.execute.after)", func(ev event) bool {
			return ev.Type == "ai.tool_use" && str(ev.State) == "thinking" && str(ev.ActiveToolName) == "bash"
		}),
		step("ai.stop with last_result (session.idle)", func(ev event) bool {
			return ev.Type == "ai.stop" && str(ev.LastResult) == "opencode asked and ran it."
		}),
	)
	e.modelGot("from-opencode-asked")
}
