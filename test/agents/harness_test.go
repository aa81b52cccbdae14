//go:build linux

package agents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/test/internal/fakemodel"
	"github.com/paneflow-go/paneflow/test/internal/proctest"
	"github.com/paneflow-go/paneflow/test/internal/servetest"
)

// pollTimeout bounds how long a state may take to appear on a loaded
// machine (a real CLI starts in seconds, not milliseconds); no test
// asserts speed.
const pollTimeout = 3 * time.Minute

var (
	binDir string            // paneflow, paneflow-shim, paneflow-ai-hook, paneflow-mcp, built once
	agents map[string]string // tool → absolute path of the real CLI
	// versions are the pinned versions, from scripts/agents.sh list.
	versions map[string]string
)

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "pf-agents-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	if err := installAgents(); err != nil {
		fmt.Fprintln(os.Stderr, "test/agents: the real agent CLIs are needed and could not be installed:", err)
		return 1
	}
	for _, b := range []string{"cmd/paneflow", "cmd/paneflow-shim", "cmd/paneflow-ai-hook", "cmd/paneflow-mcp"} {
		cmd := exec.Command("go", "build", "-tags", "nogui", "-o", dir+"/", "github.com/paneflow-go/paneflow/"+b)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building", b+":", err)
			return 1
		}
	}
	code := m.Run()
	if code == 0 {
		if err := checkCompat(); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL:", err)
			return 1
		}
	}
	return code
}

// installAgents runs scripts/agents.sh (which installs what is missing
// into the npm cache outside the clone) and records each CLI's path and
// version.
func installAgents() error {
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "..", "..", "scripts", "agents.sh")
	cmd := exec.Command("bash", script, "install")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("bash %s install: %w", script, err)
	}
	out, err := exec.Command("bash", script, "list").Output()
	if err != nil {
		return fmt.Errorf("bash %s list: %w", script, err)
	}
	agents, versions = map[string]string{}, map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 {
			return fmt.Errorf("agents.sh list: bad line %q", line)
		}
		if _, err := os.Stat(f[3]); err != nil {
			return fmt.Errorf("%s@%s: %w", f[1], f[2], err)
		}
		agents[f[0]], versions[f[0]] = f[3], f[2]
	}
	return nil
}

// env is one isolated run: its own HOME and XDG directories, a fake model
// server, and a `paneflow serve` whose first pane (surface 1) runs bash in
// the project directory.
type env struct {
	t       testing.TB
	dir     string // the temporary root
	home    string
	project string // the pane's working directory
	sock    string
	environ []string
	model   *fakemodel.Server
	serve   *proctest.Process
	watch   *proctest.Process
	events  proctest.Buffer // paneflow watch --surface 1
}

// options of newEnv.
type options struct {
	// profile is more of ~/.profile, read by the pane's login shell: what a
	// user puts there for the agent (its endpoint, its key).
	profile string
	// setup runs before serve starts (config files in e.home).
	setup func(e *env)
	// serveArgs are more flags of `paneflow serve` (--web ADDR).
	serveArgs []string
	// env is more of the server's environment (KEY=VALUE), which panes
	// started with a command (no login shell) inherit.
	env []string
}

// newEnv starts a run with model as the model server.
func newEnv(t testing.TB, model *fakemodel.Server, o options) *env {
	t.Helper()
	dir, err := os.MkdirTemp("", "pfa-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	e := &env{t: t, dir: dir, home: filepath.Join(dir, "home"), project: filepath.Join(dir, "project"),
		sock: filepath.Join(dir, "pf.sock"), model: model}
	run := filepath.Join(dir, "run")
	for _, d := range []string{e.home, e.project, run} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	e.environ = []string{
		"HOME=" + e.home, "PATH=" + os.Getenv("PATH"), "SHELL=/bin/bash", "LANG=en_US.UTF-8", "TERM=xterm-256color",
		"XDG_CONFIG_HOME=" + filepath.Join(e.home, ".config"), "XDG_CACHE_HOME=" + filepath.Join(e.home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(e.home, ".local", "share"), "XDG_STATE_HOME=" + filepath.Join(e.home, ".local", "state"),
		"XDG_RUNTIME_DIR=" + run, "PANEFLOW_SOCKET_PATH=" + e.sock, "PANEFLOW_IPC_SCRIPTING=1",
	}
	e.environ = append(e.environ, o.env...)
	// What a user's profile would say: the agents on PATH (after the
	// shim's directory, which the shell integration keeps first), offline
	// and quiet.
	var dirs []string
	for _, tool := range []string{"claude", "codex", "gemini", "opencode"} {
		dirs = append(dirs, filepath.Dir(agents[tool]))
	}
	profile := "export PATH=\"$PATH:" + strings.Join(dirs, ":") + "\"\n" +
		"export DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 DISABLE_AUTOUPDATER=1\n" +
		"export CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL=1\n" +
		"unset RUST_BACKTRACE\n" +
		"PS1='$ '\n" + o.profile
	e.write(".profile", profile)
	if o.setup != nil {
		o.setup(e)
	}
	e.serve = servetest.Start(t, servetest.Config{Bin: filepath.Join(binDir, "paneflow"), Sock: e.sock, Dir: e.project, Env: e.environ, Size: "120x40", Args: o.serveArgs}).Proc
	t.Cleanup(func() { // before servetest's: serve still runs
		if e.watch != nil {
			e.watch.Terminate(10 * time.Second)
		}
		if t.Failed() {
			e.logPanes()
			t.Logf("events:\n%s", proctest.Indent(e.events.String()))
			for _, r := range model.Requests() {
				t.Logf("model request %s turn %d: %.300s", r.Path, r.Turn, r.Body)
			}
		}
	})
	w := exec.Command(filepath.Join(binDir, "paneflow"), "watch", "--surface", "1")
	w.Env, w.Stdout, w.Stderr = e.environ, &e.events, &e.events
	if e.watch, err = proctest.Start(w); err != nil {
		t.Fatal(err)
	}
	e.waitFor("the event stream", func() bool { return strings.Contains(e.events.String(), `"subscribed"`) })
	return e
}

// write writes a file under HOME (rel may contain directories).
func (e *env) write(rel, content string) {
	e.t.Helper()
	p := filepath.Join(e.home, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// cli runs a paneflow verb against the server and returns its stdout.
func (e *env) cli(args ...string) (string, error) {
	cmd := exec.Command(filepath.Join(binDir, "paneflow"), args...)
	cmd.Env, cmd.Dir = e.environ, e.project
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("paneflow %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

// logPanes logs, for a failed run, the text of every pane (a team's
// teammates too) and the agent teams' inboxes under ~/.claude/teams (how
// teammates and their lead talk: files the panes' programs write).
func (e *env) logPanes() {
	var ls struct {
		Surfaces []struct {
			ID   uint64 `json:"surface_id"`
			Name string `json:"name"`
		}
	}
	out, err := e.cli("ls")
	if err == nil {
		err = json.Unmarshal([]byte(out), &ls)
	}
	if err != nil {
		e.t.Logf("panes: %v", err)
	}
	for _, p := range ls.Surfaces {
		id := strconv.FormatUint(p.ID, 10)
		// 1000 lines: a reply must stay under the socket's 256 KiB frame.
		if text, err := e.cli("read", id, "--lines", "1000", "--raw"); err != nil {
			e.t.Logf("pane %s (%s): %v", id, p.Name, err)
		} else {
			e.t.Logf("pane %s (%s):\n%s", id, p.Name, proctest.Indent(text))
		}
	}
	// opencode's own log says what it was doing (plugin installs, instance
	// reloads) when its TUI did not do what the test typed.
	logs, _ := filepath.Glob(filepath.Join(e.home, ".local", "share", "opencode", "log", "*.log"))
	for _, f := range logs {
		if b, err := os.ReadFile(f); err == nil {
			if len(b) > 16<<10 {
				b = b[len(b)-16<<10:]
			}
			e.t.Logf("%s (its last 16 KiB at most):\n%s", f, proctest.Indent(string(b)))
		}
	}
	inboxes, _ := filepath.Glob(filepath.Join(e.home, ".claude", "teams", "*", "inboxes", "*.json"))
	for _, f := range inboxes {
		if b, err := os.ReadFile(f); err == nil {
			e.t.Logf("%s:\n%s", f, proctest.Indent(string(b)))
		}
	}
}

// mustCLI is cli for a verb that must succeed.
func (e *env) mustCLI(args ...string) string {
	e.t.Helper()
	out, err := e.cli(args...)
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

// typeLine types a command line into pane 1's shell and presses Enter.
func (e *env) typeLine(line string) {
	e.t.Helper()
	e.mustCLI("send", "1", line, "--submit")
}

// submitPrompt types a prompt into the agent TUI of pane 1 with `send
// --submit` and checks its answer: started, confirmed by the agent's own
// hook (the turn start it reports, not the echo of the prompt).
func (e *env) submitPrompt(prompt string) {
	e.t.Helper()
	var res struct {
		Started     bool   `json:"started"`
		StartReason string `json:"start_reason"`
	}
	out := e.mustCLI("send", "1", prompt, "--submit")
	if err := json.Unmarshal([]byte(out), &res); err != nil || !res.Started || res.StartReason != "hook_turn_started" {
		e.t.Errorf("send --submit %q answered %s (%v), want started by hook_turn_started", prompt, out, err)
	}
}

// typeCommand types a line that may start no turn (a slash command, Enter
// on a dialog's choice) into the agent TUI of pane 1 with `send --submit`,
// which then fails with "no turn start was confirmed": that is no error
// here.
func (e *env) typeCommand(line string) {
	e.t.Helper()
	if _, err := e.cli("send", "1", line, "--submit"); err != nil && !strings.Contains(err.Error(), "no turn start was confirmed") {
		e.t.Fatal(err)
	}
}

// enterNoTurn presses Enter in the agent TUI of pane 1 with `send ""
// --submit` where it must start no turn (it answers a dialog), and checks
// that send says so: exit 1, no turn start from the agent's hooks.
func (e *env) enterNoTurn() {
	e.t.Helper()
	out, err := e.cli("send", "1", "", "--submit")
	if err == nil || !strings.Contains(err.Error(), "no_hook_turn_start") {
		e.t.Errorf("send \"\" --submit on a dialog: %s, %v; want it to fail with no_hook_turn_start", out, err)
	}
}

// waitFor polls cond until it holds, failing the test after pollTimeout.
func (e *env) waitFor(what string, cond func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(pollTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// status is pane 1's surface.status.
type status struct {
	State          string  `json:"state"`
	Hooked         bool    `json:"hooked"`
	Reason         *string `json:"reason"`
	Tool           string  `json:"tool"`
	PID            *int    `json:"pid"`
	ActiveToolName *string `json:"active_tool_name"`
	Message        *string `json:"message"`
	LastResult     *string `json:"last_result"`
	ExitCode       *int    `json:"exit_code"`
}

func (s status) String() string {
	j, _ := json.Marshal(s)
	return string(j)
}

func (e *env) status() status {
	e.t.Helper()
	var st status
	out := e.mustCLI("status", "1", "--json")
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		e.t.Fatalf("status: %v: %s", err, out)
	}
	return st
}

// waitStatus polls pane 1's status until cond holds and returns it.
func (e *env) waitStatus(what string, cond func(status) bool) status {
	e.t.Helper()
	deadline := time.Now().Add(pollTimeout)
	for {
		st := e.status()
		if cond(st) {
			return st
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out waiting for %s (last status %s)", what, st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// event is one line of `paneflow watch`.
type event struct {
	Type           string  `json:"type"`
	State          *string `json:"state"`
	Previous       *string `json:"previous_state"`
	Tool           string  `json:"tool"`
	PID            int     `json:"pid"`
	Hooked         bool    `json:"hooked"`
	Reason         *string `json:"reason"`
	ActiveToolName *string `json:"active_tool_name"`
	Message        *string `json:"message"`
	LastResult     *string `json:"last_result"`
	ExitCode       *int    `json:"exit_code"`
}

func (ev event) String() string {
	s := ev.Type
	if ev.State != nil {
		s += " " + *ev.State
	}
	if ev.ActiveToolName != nil {
		s += "/" + *ev.ActiveToolName
	}
	if ev.Reason != nil {
		s += " reason=" + *ev.Reason
	}
	return s
}

// agentEvents returns the ai.* and agent_state events seen so far.
func (e *env) agentEvents() []event {
	var out []event
	for _, line := range strings.Split(e.events.String(), "\n") {
		var ev event
		if json.Unmarshal([]byte(line), &ev) != nil {
			continue
		}
		if ev.Type == "agent_state" || strings.HasPrefix(ev.Type, "ai.") {
			out = append(out, ev)
		}
	}
	return out
}

// waitEvent waits for an event that matches and returns the events up to
// and including the first such one.
func (e *env) waitEvent(what string, match func(event) bool) []event {
	e.t.Helper()
	var got []event
	e.waitFor(what, func() bool {
		evs := e.agentEvents()
		for i, ev := range evs {
			if match(ev) {
				got = evs[:i+1]
				return true
			}
		}
		return false
	})
	return got
}

// str is *p, or "" for nil.
func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// isState matches an agent_state event of state st.
func isState(st string) func(event) bool {
	return func(ev event) bool { return ev.Type == "agent_state" && str(ev.State) == st }
}

// inOrder checks that evs hold events matching each of steps, in that
// order (other events may come between), and fails with the whole list
// otherwise.
func (e *env) inOrder(evs []event, steps ...struct {
	what  string
	match func(event) bool
}) {
	e.t.Helper()
	i := 0
	for _, ev := range evs {
		if i < len(steps) && steps[i].match(ev) {
			i++
		}
	}
	if i < len(steps) {
		var b strings.Builder
		for _, ev := range evs {
			b.WriteString("\n    " + ev.String())
		}
		e.t.Errorf("events lack %q (in order); got:%s", steps[i].what, b.String())
	}
}

// step is one expected event for inOrder.
func step(what string, match func(event) bool) struct {
	what  string
	match func(event) bool
} {
	return struct {
		what  string
		match func(event) bool
	}{what, match}
}

// notStale checks the pane once its agent has ended: the shim (pid) has
// exited, and surface.status and fleet.list report no agent there.
func (e *env) notStale(tool string, pid int) {
	e.t.Helper()
	e.waitFor(fmt.Sprintf("the %s shim (pid %d) to exit", tool, pid), func() bool {
		return syscall.Kill(pid, 0) != nil
	})
	if st := e.status(); st.State != "idle" || st.Hooked || st.PID != nil {
		e.t.Errorf("status after %s exited = %s, want idle, not hooked, no pid", tool, st)
	}
	out := e.mustCLI("ps", "--json")
	if strings.Contains(out, `"tool": "`+tool+`"`) {
		e.t.Errorf("ps after %s exited still lists it:\n%s", tool, out)
	}
}
