//go:build linux

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/test/internal/proctest"
)

// The fake agent: the test binary itself, run under the name "claude"
// (a symlink) with fakeAgentEnv set, behaves like a Claude Code CLI with
// Paneflow's hooks and launch shim: it prints to its pane, runs
// paneflow-ai-hook with Claude Code's hook payloads on stdin, reads the
// user's answers from the pane and exits with a chosen code. What it does
// is a script of steps given as its arguments:
//
//	banner        print a banner with the agent's pid ("pid=N")
//	hook:EVENT    run `paneflow-ai-hook EVENT` with EVENT's payload
//	read          wait for a line on stdin (an answer, or the test's go-ahead)
//	echo          from here on, echo what it is sent but nothing for an
//	              Enter, in raw mode, and never end a turn (a TUI that takes
//	              an Enter for a newline in its input box)
//	spin:DUR      keep a CPU busy for DUR (a Go duration), printing nothing
//	exit:N        report the exit like the launch shim (hook Exit) and exit N
//
// Hooks run with PANEFLOW_AI_PID set to the agent's own pid and
// PANEFLOW_AI_TOOL=claude, as under the launch shim; PANEFLOW_SURFACE_ID,
// PANEFLOW_WORKSPACE_ID and PANEFLOW_SOCKET_PATH come from the pane.
const fakeAgentEnv = "PANEFLOW_E2E_FAKE_AGENT"

// Texts the fake agent's payloads carry, which the tests look for.
const (
	fakeSessionID = "5f3c2a9e-1b7d-4c2e-9a61-0d8e4f2b7c11"
	fakeQuestion  = "Claude needs your permission to use Bash"
	fakeResult    = "Added `--dry-run` to deploy.sh: it prints each step instead of running it. `go test ./deploy/...` passes (12 tests)."
)

// fakePayload returns Claude Code's hook payload for event (the shapes of
// hook/testdata/claude).
func fakePayload(event string) map[string]any {
	p := map[string]any{
		"session_id":      fakeSessionID,
		"transcript_path": "/home/dev/.claude/projects/-home-dev-shop/" + fakeSessionID + ".jsonl",
		"cwd":             "/home/dev/shop",
		"permission_mode": "default",
		"hook_event_name": event,
	}
	switch event {
	case "SessionStart":
		p["source"], p["model"] = "startup", "claude-sonnet-4-5"
	case "UserPromptSubmit":
		p["prompt"] = "Add a --dry-run flag to the deploy script and test it"
	case "PreToolUse":
		p["tool_name"] = "Bash"
		p["tool_input"] = map[string]any{
			"command": "go test ./deploy/...", "description": "Run the deploy package tests",
			"timeout": 120000, "run_in_background": false,
		}
		p["tool_use_id"] = "toolu_01ABCDEFGHJKMNPQRSTVWXYZ"
	case "Notification":
		p["message"], p["title"], p["notification_type"] = fakeQuestion, "Permission needed", "permission_prompt"
	case "Stop":
		p["stop_hook_active"], p["stop_reason"], p["last_assistant_message"] = false, "end_turn", fakeResult
	}
	return p
}

// fakeAgentMain runs the fake agent's script and returns its exit code.
func fakeAgentMain(steps []string) int {
	in := bufio.NewReader(os.Stdin)
	for _, step := range steps {
		name, arg, _ := strings.Cut(step, ":")
		switch name {
		case "banner":
			fmt.Printf("fake claude 1.0 pid=%d\r\n", os.Getpid())
		case "hook":
			fmt.Printf("hook %s\r\n", arg)
			if err := fakeHook(arg, nil); err != nil {
				fmt.Printf("hook %s failed: %v\r\n", arg, err)
				return 3
			}
		case "read":
			// Like a real agent's TUI, bracketed paste is on while it
			// reads its input (paneflow send --submit waits for it).
			fmt.Print("\x1b[?2004h")
			line, err := in.ReadString('\n')
			fmt.Print("\x1b[?2004l")
			if err != nil {
				fmt.Printf("reading stdin: %v\r\n", err)
				return 3
			}
			line = strings.ReplaceAll(strings.ReplaceAll(line, "\x1b[200~", ""), "\x1b[201~", "")
			fmt.Printf("got %q\r\n", strings.TrimSpace(line))
		case "echo":
			return fakeEcho(in)
		case "spin":
			// Work without printing: a CPU kept busy for the duration.
			d, err := time.ParseDuration(arg)
			if err != nil {
				fmt.Printf("bad step %q\r\n", step)
				return 3
			}
			for start := time.Now(); time.Since(start) < d; {
			}
		case "exit":
			code, err := strconv.Atoi(arg)
			if err != nil {
				fmt.Printf("bad step %q\r\n", step)
				return 3
			}
			if err := fakeHook("Exit", []string{"PANEFLOW_AI_EXIT_CODE=" + arg}); err != nil {
				fmt.Printf("hook Exit failed: %v\r\n", err)
				return 3
			}
			fmt.Printf("bye (%d)\r\n", code)
			return code
		default:
			fmt.Printf("bad step %q\r\n", step)
			return 3
		}
	}
	return 0
}

// fakeEcho is the fake agent's echo step: its terminal in raw mode and
// bracketed paste on, it prints what it reads without the paste markers
// and the CRs, until stdin ends.
func fakeEcho(in *bufio.Reader) int {
	stty := exec.Command("stty", "raw", "-echo")
	stty.Stdin = os.Stdin
	if out, err := stty.CombinedOutput(); err != nil {
		fmt.Printf("stty: %v %s\r\n", err, out)
		return 3
	}
	fmt.Print("\x1b[?2004hecho> ")
	buf := make([]byte, 4096)
	for {
		n, err := in.Read(buf)
		text := strings.NewReplacer("\x1b[200~", "", "\x1b[201~", "", "\r", "").Replace(string(buf[:n]))
		os.Stdout.WriteString(text)
		if err != nil {
			return 0
		}
	}
}

// fakeHook runs paneflow-ai-hook event (found on PATH, as Claude Code
// would) with event's payload on stdin.
func fakeHook(event string, env []string) error {
	cmd := exec.Command("paneflow-ai-hook", event)
	cmd.Env = append(os.Environ(), "PANEFLOW_AI_PID="+strconv.Itoa(os.Getpid()), "PANEFLOW_AI_TOOL=claude")
	cmd.Env = append(cmd.Env, env...)
	if event != "Exit" && event != "SessionEnd" {
		data, err := json.Marshal(fakePayload(event))
		if err != nil {
			return err
		}
		cmd.Stdin = strings.NewReader(string(data))
	}
	out, err := cmd.CombinedOutput()
	if err == nil && len(out) > 0 {
		err = fmt.Errorf("unexpected output %q", out)
	}
	return err
}

// agentDir returns a directory holding `claude` (the test binary, as the
// fake agent) and `paneflow-ai-hook`, and the split arguments that run
// the fake agent with script steps in a new pane with that directory first
// on its PATH. The hook's diagnostics go to the returned log file.
func agentDir(t *testing.T, steps ...string) (args []string, hookLog string) {
	t.Helper()
	dir := tempDir(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"claude": self, "paneflow-ai-hook": hookBin} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	hookLog = filepath.Join(dir, "hook.log")
	t.Cleanup(func() {
		if t.Failed() {
			data, _ := os.ReadFile(hookLog)
			t.Logf("paneflow-ai-hook log:\n%s", proctest.Indent(string(data)))
		}
	})
	return []string{
		"v", "--command", "claude " + strings.Join(steps, " "),
		"--env", "PATH=" + dir + ":" + os.Getenv("PATH"),
		"--env", fakeAgentEnv + "=1",
		"--env", "PANEFLOW_HOOK_LOG=" + hookLog,
	}, hookLog
}

// agentStatus is `paneflow status --json`'s result.
type agentStatus struct {
	SurfaceID      uint64  `json:"surface_id"`
	State          string  `json:"state"`
	Hooked         bool    `json:"hooked"`
	Tool           *string `json:"tool"`
	PID            *int    `json:"pid"`
	ActiveToolName *string `json:"active_tool_name"`
	Message        *string `json:"message"`
	LastResult     *string `json:"last_result"`
	ExitCode       *int    `json:"exit_code"`
}

// fleetRow is one agent of `paneflow ps --json`.
type fleetRow struct {
	PID        *int    `json:"pid"`
	Tool       string  `json:"tool"`
	State      string  `json:"state"`
	Hooked     bool    `json:"hooked"`
	SurfaceID  *uint64 `json:"surface_id"`
	Message    *string `json:"message"`
	LastResult *string `json:"last_result"`
	ExitCode   *int    `json:"exit_code"`
}

// str dereferences p for messages and comparisons ("" for nil).
func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// waitState polls `status <pane> --json` until the pane's agent is in
// state and returns that status.
func (s *server) waitState(pane uint64, state string) agentStatus {
	s.t.Helper()
	return s.waitStatus(pane, state, func(agentStatus) bool { return true })
}

// waitStatus polls `status <pane> --json` until the pane's agent is in
// state and ok accepts the status, and returns that status.
func (s *server) waitStatus(pane uint64, state string, ok func(agentStatus) bool) agentStatus {
	s.t.Helper()
	var st agentStatus
	s.eventually(fmt.Sprintf("pane %d's agent to be %s", pane, state), func() (bool, string) {
		st = agentStatus{}
		r := s.mustCLI(&st, "status", id(pane), "--json")
		return st.State == state && ok(st), r.stdout
	})
	return st
}

// fleetRowOf runs `ps --json` and returns the row of pane's agent.
func (s *server) fleetRowOf(pane uint64) (fleetRow, string) {
	s.t.Helper()
	var fl struct {
		Agents []fleetRow `json:"agents"`
	}
	r := s.mustCLI(&fl, "ps", "--json")
	var found []fleetRow
	for _, a := range fl.Agents {
		if a.SurfaceID != nil && *a.SurfaceID == pane {
			found = append(found, a)
		}
	}
	if len(found) != 1 {
		s.t.Fatalf("ps --json: got %d agents in pane %d, want 1:\n%s", len(found), pane, r)
	}
	return found[0], r.stdout
}

// nextAI returns the next ai.* frame watch printed, skipping heartbeats.
func (w *watcher) nextAI() map[string]any {
	w.s.t.Helper()
	for {
		f := w.next()
		if typ, _ := f["type"].(string); strings.HasPrefix(typ, "ai.") {
			return f
		}
		if f["type"] == "dropped" {
			w.s.t.Fatalf("watch: events were dropped: %v", f)
		}
	}
}

// frameField returns field of an event frame, at its top level or in its
// data object.
func frameField(f map[string]any, field string) any {
	if v, ok := f[field]; ok {
		return v
	}
	if d, ok := f["data"].(map[string]any); ok {
		return d[field]
	}
	return nil
}

// TestAgentLifecycle runs a fake Claude Code in a pane through a whole
// turn with a permission question and checks what status, ps, watch and
// wait --idle report at each step.
func TestAgentLifecycle(t *testing.T) {
	s := startServer(t, "PANEFLOW_IPC_SCRIPTING=1")
	args, _ := agentDir(t,
		"banner", "hook:SessionStart", "hook:UserPromptSubmit", "hook:PreToolUse",
		"read", // the test's go-ahead: then ask
		"hook:Notification",
		"read", // the user's answer: then go on
		"hook:PreToolUse",
		"read", // the test's go-ahead: then end the turn
		"hook:Stop",
		"read", // the test's go-ahead: then quit
		"exit:0")
	pane := s.split(args...)
	pid, err := strconv.Atoi(s.waitOutput(id(pane), `fake claude 1\.0 pid=(\d+)`))
	if err != nil {
		t.Fatal(err)
	}

	// Thinking after the prompt, then (the agent runs a tool) thinking with
	// an active tool.
	st := s.waitStatus(pane, "thinking", func(st agentStatus) bool { return str(st.ActiveToolName) == "Bash" })
	if str(st.Tool) != "claude" || !st.Hooked {
		t.Errorf("status while thinking: got tool %q, hooked %v; want claude, true", str(st.Tool), st.Hooked)
	}
	if st.PID == nil || *st.PID != pid {
		t.Errorf("status while thinking: got pid %v, want the agent's %d", st.PID, pid)
	}
	row, out := s.fleetRowOf(pane)
	if row.Tool != "claude" || row.State != "thinking" || !row.Hooked || row.PID == nil || *row.PID != pid {
		t.Errorf("ps --json: got %+v, want tool claude, state thinking, hooked, pid %d:\n%s", row, pid, out)
	}

	w := s.startWatch("--surface", id(pane), "--type", "ai.notification", "--type", "ai.stop")
	if ack := w.next(); ack["type"] != "subscribed" {
		t.Fatalf("watch: first frame %v, want subscribed", ack)
	}

	goAhead(s, pane, "go")
	st = s.waitState(pane, "waiting_for_input")
	if !strings.Contains(str(st.Message), fakeQuestion) {
		t.Errorf("status while waiting: got message %q, want it to contain %q", str(st.Message), fakeQuestion)
	}
	if r := s.mustCLI(nil, "status", id(pane)); !strings.HasPrefix(r.stdout, "waiting_for_input (claude)\n") || !strings.Contains(r.stdout, fakeQuestion) {
		t.Errorf("status (text): got %q, want \"waiting_for_input (claude)\" and the question", r.stdout)
	}
	if f := w.nextAI(); f["type"] != "ai.notification" || !strings.Contains(fmt.Sprint(frameField(f, "message")), fakeQuestion) {
		t.Errorf("watch: got %v, want ai.notification with the question", f)
	}
	if row, out := s.fleetRowOf(pane); row.State != "waiting_for_input" || !strings.Contains(str(row.Message), fakeQuestion) {
		t.Errorf("ps --json while waiting: got %+v, want waiting_for_input with the question:\n%s", row, out)
	}

	// The answer: the agent goes on with a tool call (PreToolUse), a turn
	// start by its own hook.
	s.submitStarted(pane, "yes", "hook_turn_started")
	s.waitOutput(id(pane), `got "yes"`)
	st = s.waitState(pane, "thinking")
	if str(st.Message) != "" {
		t.Errorf("status after the answer: got message %q, want none", str(st.Message))
	}

	goAhead(s, pane, "go")
	st = s.waitState(pane, "finished")
	if str(st.LastResult) != fakeResult {
		t.Errorf("status when finished: got last_result %q, want %q", str(st.LastResult), fakeResult)
	}
	if f := w.nextAI(); f["type"] != "ai.stop" || frameField(f, "last_result") != fakeResult {
		t.Errorf("watch: got %v, want ai.stop with the last result", f)
	}
	if row, out := s.fleetRowOf(pane); row.State != "finished" || str(row.LastResult) != fakeResult {
		t.Errorf("ps --json when finished: got %+v, want finished with the last result:\n%s", row, out)
	}
	s.mustCLI(nil, "wait", "--match", id(pane), "--idle", "--for", "500ms", "--timeout", "60s")
	if st := s.waitState(pane, "finished"); str(st.LastResult) != fakeResult {
		t.Errorf("status after wait --idle: got last_result %q, want %q", str(st.LastResult), fakeResult)
	}
	w.interrupt()

	goAhead(s, pane, "bye")
	s.eventually(fmt.Sprintf("pane %d to exit 0", pane), func() (bool, string) {
		x, ok := s.surface(pane)
		return ok && x.Exited && x.ExitCode != nil && *x.ExitCode == 0, fmt.Sprintf("%+v", x)
	})
	if st := s.waitState(pane, "idle"); str(st.Tool) != "" && st.Hooked {
		t.Errorf("status after the agent quit: got %+v, want no hooked agent", st)
	}
}

// TestAgentErrored runs a fake agent that fails (exit 1) in the middle of
// its turn: its pane reports errored with the exit code, and ps lists it.
func TestAgentErrored(t *testing.T) {
	s := startServer(t, "PANEFLOW_IPC_SCRIPTING=1")
	args, _ := agentDir(t, "banner", "hook:SessionStart", "hook:UserPromptSubmit", "read", "exit:1")
	pane := s.split(args...)
	s.waitState(pane, "thinking")
	goAhead(s, pane, "go")
	s.eventually(fmt.Sprintf("pane %d to exit 1", pane), func() (bool, string) {
		x, ok := s.surface(pane)
		return ok && x.Exited && x.ExitCode != nil && *x.ExitCode == 1, fmt.Sprintf("%+v", x)
	})
	st := s.waitState(pane, "errored")
	if str(st.Tool) != "claude" || st.ExitCode == nil || *st.ExitCode != 1 {
		t.Errorf("status: got tool %q, exit code %v; want claude, 1", str(st.Tool), st.ExitCode)
	}
	if row, out := s.fleetRowOf(pane); row.Tool != "claude" || row.State != "errored" || row.ExitCode == nil || *row.ExitCode != 1 {
		t.Errorf("ps --json: got %+v, want claude errored with exit code 1:\n%s", row, out)
	}
}

// TestSubmitConfirmedBusy: an agent that takes the submit and then works
// for longer than the hook limit without printing (as opencode did, held
// to 15 % of a CPU: 16 s silent before its first hook) is still
// confirmed: its processes' CPU demand counts as output does.
func TestSubmitConfirmedBusy(t *testing.T) {
	t.Parallel()
	s := startServer(t, "PANEFLOW_IPC_SCRIPTING=1")
	spin := proto.HookConfirmLimit + 3*time.Second
	args, _ := agentDir(t, "banner", "hook:SessionStart", "read", "spin:"+spin.String(), "hook:UserPromptSubmit", "read")
	pane := s.split(args...)
	s.waitState(pane, "idle")
	s.submitStarted(pane, "say hi", "hook_turn_started")
	s.waitState(pane, "thinking")
}

// submitStarted sends text to pane with `send --submit` and checks that
// it answered started, by reason.
func (s *server) submitStarted(pane uint64, text, reason string) {
	s.t.Helper()
	var res struct {
		Started     bool   `json:"started"`
		StartReason string `json:"start_reason"`
	}
	s.mustCLI(&res, "send", id(pane), text, "--submit")
	if !res.Started || res.StartReason != reason {
		s.t.Errorf("pane %d: send --submit %q = %+v, want started by %s", pane, text, res, reason)
	}
}

// goAhead types line and a CR into the fake agent's pane as keys (send
// without --submit): the fake reads it, but it starts no turn, which
// `send --submit` would wait for and fail without.
func goAhead(s *server, pane uint64, line string) {
	s.t.Helper()
	s.mustCLI(nil, "send", id(pane), line+"\r")
}

// TestSubmitConfirmed: `send --submit` to an agent pane answers started
// only when the agent started a turn after the Enter: for a hooked agent
// its own hook (UserPromptSubmit), for one without hooks output after the
// Enter. An agent that only echoes the text and takes the Enter for
// nothing (as Gemini CLI did when it took the Enter for a newline) is no
// start, hooked or not: send fails, the text delivered.
func TestSubmitConfirmed(t *testing.T) {
	s := startServer(t, "PANEFLOW_IPC_SCRIPTING=1")

	args, _ := agentDir(t, "banner", "hook:SessionStart", "read", "hook:UserPromptSubmit", "read")
	hooked := s.split(args...)
	s.waitState(hooked, "idle")
	s.submitStarted(hooked, "say hi", "hook_turn_started")
	s.waitState(hooked, "thinking")

	args, _ = agentDir(t, "banner", "read", "read")
	plain := s.split(args...)
	s.waitOutput(id(plain), `fake claude 1\.0 pid=`)
	s.submitStarted(plain, "say hi", "output_after_enter") // the tty's echo of the line end, and "got"
	s.waitOutput(id(plain), `got "say hi"`)
	if st := s.waitState(plain, "unknown_running"); st.Hooked {
		t.Errorf("the fake without hooks: %+v, want not hooked", st)
	}

	args, _ = agentDir(t, "banner", "hook:SessionStart", "echo")
	hookedEcho := s.split(args...)
	s.waitOutput(id(hookedEcho), "echo>")
	s.waitState(hookedEcho, "idle")
	s.wantCode(1, []string{"no turn start was confirmed", "no_hook_turn_start"}, "send", id(hookedEcho), "say hi", "--submit")
	s.waitOutput(id(hookedEcho), "echo> say hi") // delivered, echoed
	if st := s.waitState(hookedEcho, "idle"); !st.Hooked {
		t.Errorf("the hooked echo: %+v, want hooked", st)
	}

	args, _ = agentDir(t, "banner", "echo")
	plainEcho := s.split(args...)
	s.waitOutput(id(plainEcho), "echo>")
	s.waitState(plainEcho, "unknown_running")
	s.wantCode(1, []string{"no turn start was confirmed", "no_output_after_enter"}, "send", id(plainEcho), "say hi", "--submit")
	s.waitOutput(id(plainEcho), "echo> say hi")
}
