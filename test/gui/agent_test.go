//go:build linux

package gui

import (
	"encoding/json"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/test/internal/fakemodel"
	"github.com/paneflow-go/paneflow/test/internal/proctest"
)

// agentTimeout bounds how long a real agent CLI may take to show a state
// on the loaded machine (it starts in seconds, not milliseconds). No test
// asserts speed.
const agentTimeout = 3 * time.Minute

// agentBin returns the absolute path of a pinned real agent CLI, installed
// by scripts/agents.sh into its cache outside the clone when missing
// (`make test` runs `make agents` first, so this normally finds it). It
// fails the test, never skips it, when the CLI cannot be had.
func agentBin(t *testing.T, tool string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "..", "..", "scripts", "agents.sh")
	cmd := exec.Command("bash", script, "bin", tool)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	path := strings.TrimSpace(string(out))
	if err != nil || path == "" {
		t.Fatalf("the real %s CLI is needed and could not be installed (`bash scripts/agents.sh bin %s`, or `make agents`): %v\n%s",
			tool, tool, err, proctest.Indent(stderr.String()))
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the real %s CLI: %v", tool, err)
	}
	return path
}

// agentStatus is the part of surface.status the agent test checks.
type agentStatus struct {
	State          string  `json:"state"`
	Hooked         bool    `json:"hooked"`
	Tool           string  `json:"tool"`
	PID            *int    `json:"pid"`
	ActiveToolName *string `json:"active_tool_name"`
	Message        *string `json:"message"`
	LastResult     *string `json:"last_result"`
}

func (s agentStatus) String() string {
	j, _ := json.Marshal(s)
	return string(j)
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// status asks the socket for a pane's agent status.
func (a *app) status(id uint64) agentStatus {
	a.t.Helper()
	var st agentStatus
	a.rpc(&st, "surface.status", map[string]any{"surface_id": id})
	return st
}

// within polls cond until it reports true, failing the test with the
// last state it described after d (a real agent's states need a longer
// bound than eventually's), or at once when the app exits (unless the
// test closed it on purpose: then its server is what is waited on).
func (a *app) within(d time.Duration, what string, cond func() (bool, string)) {
	a.t.Helper()
	deadline := time.Now().Add(d)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if !a.closed {
			select {
			case <-a.proc.Exited():
				a.t.Fatalf("the app exited (%v) while waiting for %s", a.proc.Err(), what)
			default:
			}
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("gave up after %v waiting for %s; last state:\n%s", d, what, proctest.Indent(state))
		}
		time.Sleep(pollEvery)
	}
}

// The sidebar's agent status line takes the theme's colour of the state
// (app/sidebar.go statusColor; Fyne's dark theme): primary blue while
// thinking, warning amber while waiting for input, success green when
// finished. These recognise them, antialiased text included.
func isBlue(c rgb) bool {
	return int(c.B) > 170 && int(c.B)-int(c.R) > 100 && int(c.B)-int(c.G) > 40
}

func isAmber(c rgb) bool {
	return c.R > 200 && c.G > 100 && c.G < 200 && c.B < 80
}

// sidebarColours counts the pixels of each state colour in the sidebar.
type sidebarColours struct{ blue, amber, green int }

func (c sidebarColours) String() string {
	return fmt.Sprintf("blue %d, amber %d, green %d", c.blue, c.amber, c.green)
}

// agentsButtonPx is the height of the sidebar's Agents button row at
// FYNE_SCALE=1.
const agentsButtonPx = 45

// countSidebar counts them in the sidebar's workspace cards, below the
// Agents button (whose own badge turns amber while an agent waits).
func countSidebar(img image.Image) sidebarColours {
	r := image.Rect(0, agentsButtonPx, sidebarPx, img.Bounds().Dy())
	return sidebarColours{blue: find(img, r, isBlue).N, amber: find(img, r, isAmber).N, green: find(img, r, isGreen).N}
}

// stateShown is how many more pixels of a state's colour than before the
// agent started make its status line count as shown, and how few of the
// other two states' colours it may add: a line of caption text has some
// hundreds, antialiasing a few stray ones.
const (
	shownPx = 40
	strayPx = 10
)

// TestClaudeSidebar runs the real Claude Code 2.1.332 TUI in a pane of the
// desktop app, typed with the keyboard, against the scripted fake model,
// with the hooks of `paneflow hooks setup`, and checks that the socket and
// the window agree on its states at each step: thinking while the model's
// first answer is held; thinking with Bash while a Bash call runs (Claude
// runs it unasked: a read-only loop that waits for the test); waiting for
// input at the permission prompt of a second call, with Claude's own
// message (amber in the sidebar, "1 waiting" in the window title); thinking
// with Bash once approved, while the next answer is held; finished with
// the turn's last_result (green); and nothing left once Claude exits.
func TestClaudeSidebar(t *testing.T) {
	x := display(t)
	claude := agentBin(t, "claude")
	// The first Bash call runs until the test creates release.
	release := filepath.Join(tempDir(t), "release")
	first, last := make(chan struct{}), make(chan struct{})
	model := fakemodel.Start(t,
		fakemodel.Turn{Text: "Waiting first.", Hold: first, Calls: []fakemodel.Call{{Name: "Bash", Args: map[string]any{
			"command": "until [ -e " + release + " ]; do sleep 0.1; done; echo from-$((40+2))", "description": "wait for the release"}}}},
		fakemodel.Turn{Text: "Now the node one.", Calls: []fakemodel.Call{{Name: "Bash", Args: map[string]any{
			"command": `node -e "console.log('from-' + 'gui')"`, "description": "print a word"}}}},
		fakemodel.Turn{Text: "Sidebar turn done.", Hold: last})
	a, pane := startClaudeApp(t, x, claude, model)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("pane:\n%s", proctest.Indent(a.cli("read", strconv.FormatUint(pane, 10), "--raw", "--lines", "400").stdout))
			for _, r := range model.Requests() {
				t.Logf("model request %s turn %d: %.300s", r.Path, r.Turn, r.Body)
			}
		}
	})
	target := strconv.FormatUint(pane, 10)
	g := a.geometry()
	before := countSidebar(a.stable("before", image.Rect(0, 0, g.W, g.H)))

	// shown waits until the sidebar shows a state's colour, at least min
	// pixels more of it than before the agent started and hardly any more
	// of the others, keeping the screenshots; it returns the counts.
	shown := func(name string, want func(c sidebarColours) int, min int) sidebarColours {
		t.Helper()
		var c sidebarColours
		a.within(agentTimeout, "the sidebar to show "+name, func() (bool, string) {
			c = countSidebar(a.screenshot(name))
			d := sidebarColours{c.blue - before.blue, c.amber - before.amber, c.green - before.green}
			others := d.blue + d.amber + d.green - want(d)
			return want(d) >= min && others <= strayPx, fmt.Sprintf("sidebar %s (before the agent: %s)", c, before)
		})
		t.Logf("sidebar %s: %s (before the agent: %s)", name, c, before)
		return c
	}
	title := func(want string) {
		t.Helper()
		a.within(agentTimeout, fmt.Sprintf("the window title %q", want), func() (bool, string) {
			name := strings.TrimSpace(a.xdo("getwindowname", a.win))
			return name == want, name
		})
	}
	waitStatus := func(what string, cond func(agentStatus) bool) agentStatus {
		t.Helper()
		var st agentStatus
		a.within(agentTimeout, what, func() (bool, string) {
			st = a.status(pane)
			return cond(st), st.String()
		})
		return st
	}
	blue := func(c sidebarColours) int { return c.blue }

	a.typeText("claude --permission-mode acceptEdits")
	a.within(agentTimeout, "the Claude Code prompt", func() (bool, string) {
		text := a.readRaw(target)
		return strings.Contains(text, "accept edits on"), text
	})
	a.typeLine(target, "run the two commands please")

	// The model's first answer is held: thinking, no tool yet.
	st := waitStatus("thinking while the model's answer is held", func(s agentStatus) bool { return s.State == "thinking" })
	if !st.Hooked || st.Tool != "claude" || st.PID == nil || st.ActiveToolName != nil {
		t.Errorf("status while the first answer is held = %s, want hooked claude thinking, no tool", st)
	}
	thinking := shown("thinking", blue, shownPx)
	title("Paneflow")
	close(first)

	// The first Bash call runs until released: its result cannot have
	// reached the model yet.
	waitStatus("thinking with Bash while the Bash call runs", func(s agentStatus) bool {
		return s.State == "thinking" && deref(s.ActiveToolName) == "Bash"
	})
	if n := model.Turns(); n != 1 {
		t.Errorf("%d model turns taken while the Bash call runs, want 1", n)
	}
	// "◐ thinking… (Bash)": more blue text than "◐ thinking…".
	shown("thinking-bash-running", blue, thinking.blue-before.blue+shownPx)
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}

	// The second Bash call needs the user's approval.
	st = waitStatus("waiting for input at the permission prompt", func(s agentStatus) bool { return s.State == "waiting_for_input" })
	if !st.Hooked || !strings.Contains(deref(st.Message), "permission") {
		t.Errorf("status at the permission prompt = %s, want hooked, with Claude's question", st)
	}
	shown("waiting", func(c sidebarColours) int { return c.amber }, shownPx)
	title("Paneflow — 1 waiting")

	// Yes is the first, selected choice.
	a.xdo("windowfocus", "--sync", a.win)
	a.xdo("key", "1")
	waitStatus("thinking with Bash after the approval, the answer held", func(s agentStatus) bool {
		return s.State == "thinking" && deref(s.ActiveToolName) == "Bash"
	})
	shown("thinking-bash-approved", blue, thinking.blue-before.blue+shownPx)
	title("Paneflow")
	close(last)

	waitStatus("finished with the turn's last_result", func(s agentStatus) bool {
		return s.State == "finished" && deref(s.LastResult) == "Sidebar turn done."
	})
	shown("finished", func(c sidebarColours) int { return c.green }, shownPx)

	// The model got both commands' output back.
	for turn, out := range map[int]string{1: "from-42", 2: "from-gui"} {
		saw := false
		for _, r := range model.Requests() {
			if r.Turn == turn && strings.Contains(string(r.Body), out) {
				saw = true
			}
		}
		if !saw {
			t.Errorf("the model's request for turn %d lacks the command's output %q", turn, out)
		}
	}

	a.typeLine(target, "/exit")
	waitStatus("no agent once Claude Code exited", func(s agentStatus) bool { return s.State == "idle" && s.PID == nil })
	a.waitOutput(target, promptRe)
	a.within(agentTimeout, "the status line gone from the sidebar", func() (bool, string) {
		c := countSidebar(a.screenshot("exited"))
		return c.blue <= before.blue+strayPx && c.amber <= before.amber+strayPx && c.green <= before.green+strayPx,
			fmt.Sprintf("sidebar %s (before the agent: %s)", c, before)
	})
}

// claudeKey is the API key the real Claude Code sends the fake model.
const claudeKey = "sk-ant-fake-0123456789abcdefghijklmnop"

// startClaudeApp starts the attached desktop app (startApp) set up as a
// user who has run Claude Code before: bash as the shell, whose login
// profile puts the real claude on PATH pointed at model; onboarding done,
// the project trusted and the key approved in ~/.claude.json; the hooks of
// `paneflow hooks setup`. It opens a workspace "project" on the project
// directory, waits for its shell's prompt, selects it and returns the
// app and that workspace's pane.
func startClaudeApp(t *testing.T, x *xserver, claude string, model *fakemodel.Server) (*app, uint64) {
	t.Helper()
	binDir := filepath.Dir(cliBin)
	// bash, whose login shell reads ~/.profile (written below), and
	// Paneflow's shim and hook program from this tree.
	a := startApp(t, x, "SHELL=/bin/bash",
		"PANEFLOW_SHIM_BIN="+filepath.Join(binDir, "paneflow-shim"), "PANEFLOW_HOOK_BIN="+filepath.Join(binDir, "paneflow-ai-hook"))
	project := filepath.Join(a.dir, "project")
	if err := os.Mkdir(project, 0o700); err != nil {
		t.Fatal(err)
	}
	// Onboarding done, the project trusted, the key approved: what a user
	// who has run Claude Code before has in ~/.claude.json.
	claudeJSON := `{"hasCompletedOnboarding":true,"projects":{"` + project + `":{"hasTrustDialogAccepted":true}},` +
		`"customApiKeyResponses":{"approved":["` + claudeKey[len(claudeKey)-20:] + `"],"rejected":[]}}` + "\n"
	if err := os.WriteFile(filepath.Join(a.dir, ".claude.json"), []byte(claudeJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	// What a user's profile says: Claude Code on PATH (after the shim's
	// directory, which the shell integration keeps first), pointed at the
	// model server, offline and quiet.
	profile := "export PATH=\"$PATH:" + filepath.Dir(claude) + "\"\n" +
		"export ANTHROPIC_BASE_URL=" + model.URL + " ANTHROPIC_API_KEY=" + claudeKey + "\n" +
		"export DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 DISABLE_AUTOUPDATER=1\n" +
		"export CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL=1\n"
	if err := os.WriteFile(filepath.Join(a.dir, ".profile"), []byte(profile), 0o600); err != nil {
		t.Fatal(err)
	}
	// `paneflow hooks setup` as the user runs it, with claude on PATH.
	setupEnv := append(append([]string{}, a.env...), "PANEFLOW_SOCKET_PATH="+a.sock, "PATH="+filepath.Dir(claude)+":"+os.Getenv("PATH"))
	if r := runTool(t, setupEnv, cliBin, "hooks", "setup"); r.code != 0 || !strings.Contains(r.stdout+r.stderr, "hooks installed") {
		t.Fatalf("paneflow hooks setup:\n%s", r)
	}

	// A workspace on the project: its pane's login shell reads the profile.
	a.rpc(nil, "workspace.create", map[string]any{"name": "project", "cwd": project})
	var pane uint64
	for _, s := range a.ls().Surfaces {
		if s.Workspace == 1 {
			pane = s.ID
		}
	}
	if pane == 0 {
		t.Fatalf("workspace.create made no pane: %+v", a.ls())
	}
	a.waitOutput(strconv.FormatUint(pane, 10), promptRe)
	a.rpc(nil, "workspace.select", map[string]any{"index": 1})
	a.within(agentTimeout, "the project's pane focused", func() (bool, string) {
		c := a.current()
		return c.focused() == pane, fmt.Sprintf("workspace %d, focused pane %d (want %d)", c.Index, c.focused(), pane)
	})
	return a, pane
}

// TestClaudeOutlivesWindow is issue 26's proof with the real Claude Code
// 2.1.332 against the scripted model: a turn is started from the attached
// window's keyboard and the window is closed (the window manager's close)
// while the model's answer is held. With no window attached the turn goes
// on in the server: Claude runs the answer's Bash call, the model gets the
// next request with its output, and `paneflow ps` shows the turn finished
// with its result. A new window shows it finished (green in the sidebar),
// and the output is in the pane. The same again with the second window
// killed with SIGKILL mid-turn.
func TestClaudeOutlivesWindow(t *testing.T) {
	x := display(t)
	claude := agentBin(t, "claude")
	closed, killed := make(chan struct{}), make(chan struct{})
	model := fakemodel.Start(t,
		fakemodel.Turn{Text: "Running it.", Hold: closed, Calls: []fakemodel.Call{{Name: "Bash", Args: map[string]any{
			"command": "echo outlived-$((40+2))", "description": "print a word"}}}},
		fakemodel.Turn{Text: "Outlived the window."},
		fakemodel.Turn{Text: "Outlived the kill.", Hold: killed})
	a, pane := startClaudeApp(t, x, claude, model)
	srv := a.server
	target := strconv.FormatUint(pane, 10)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("pane:\n%s", proctest.Indent(srv.cli("read", target, "--raw", "--lines", "400").stdout))
			for _, r := range model.Requests() {
				t.Logf("model request %s turn %d: %.300s", r.Path, r.Turn, r.Body)
			}
		}
	})
	g := a.geometry()
	before := countSidebar(a.stable("before", image.Rect(0, 0, g.W, g.H)))
	// The server answers for the pane while no window is attached.
	waitStatus := func(what string, cond func(agentStatus) bool) agentStatus {
		t.Helper()
		var st agentStatus
		srv.within(agentTimeout, what, func() (bool, string) {
			st = srv.status(pane)
			return cond(st), st.String()
		})
		return st
	}
	// reopen starts a new window on the server, as the user does, and
	// waits until its sidebar shows the pane's agent finished (green).
	reopen := func(name string) *app {
		t.Helper()
		w := windowReady(launchIn(t, x, guiBin, []string{"--socket"}, nil, a.dir, a.sock))
		if p := startedServer(w, 0); p != 0 {
			t.Fatalf("the new window started a server (pid %d) instead of attaching", p)
		}
		w.server = srv
		var c sidebarColours
		w.within(agentTimeout, "the new window's sidebar to show the agent finished", func() (bool, string) {
			c = countSidebar(w.screenshot(name))
			return c.green >= before.green+shownPx && c.blue <= before.blue+strayPx && c.amber <= before.amber+strayPx,
				fmt.Sprintf("sidebar %s (before the agent: %s)", c, before)
		})
		t.Logf("sidebar %s: %s (before the agent: %s)", name, c, before)
		return w
	}
	// turnEnded waits until the server says the turn finished with result,
	// `paneflow ps` lists it finished and the pane shows the result.
	turnEnded := func(result string) {
		t.Helper()
		waitStatus("the turn to finish with no window attached", func(s agentStatus) bool {
			return s.State == "finished" && deref(s.LastResult) == result
		})
		var ps struct {
			Agents []struct {
				SurfaceID uint64 `json:"surface_id"`
				State     string `json:"state"`
			} `json:"agents"`
		}
		out := srv.mustCLI(&ps, "ps", "--json")
		if len(ps.Agents) != 1 || ps.Agents[0].SurfaceID != pane || ps.Agents[0].State != "finished" {
			t.Errorf("paneflow ps --json after the turn: %s, want pane %d's agent finished", out, pane)
		}
		srv.waitOutput(target, regexp.QuoteMeta(result))
	}

	a.typeText("claude --permission-mode acceptEdits")
	a.within(agentTimeout, "the Claude Code prompt", func() (bool, string) {
		text := a.readRaw(target)
		return strings.Contains(text, "accept edits on"), text
	})
	a.typeLine(target, "print the word please")
	waitStatus("thinking while the model's answer is held", func(s agentStatus) bool { return s.State == "thinking" })
	model.WaitTurns(1, nil) // the request the held answer is for has arrived

	// Closed mid-turn: the window detaches and exits 0.
	if err := closeWindow(x.display, windowID(t, a)); err != nil {
		t.Fatal(err)
	}
	if err := waitExit(t, a, "closing the window mid-turn"); err != nil {
		t.Fatalf("closing the window: exit %v, want 0\n%s", err, proctest.Indent(a.log.String()))
	}
	if n := model.Turns(); n != 1 {
		t.Fatalf("%d model turns before the held answer was released, want 1", n)
	}
	close(closed)
	turnEnded("Outlived the window.")
	saw := false
	for _, r := range model.Requests() {
		saw = saw || r.Turn == 1 && strings.Contains(string(r.Body), "outlived-42")
	}
	if !saw {
		t.Errorf("the model's next request lacks the Bash call's output outlived-42")
	}
	w := reopen("reopened")

	// The same with the window killed: a prompt typed in the new window,
	// the answer held, SIGKILL.
	w.typeLine(target, "once more please")
	waitStatus("thinking while the third answer is held", func(s agentStatus) bool { return s.State == "thinking" })
	model.WaitTurns(3, nil)
	if err := w.proc.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-w.proc.Exited()
	close(killed)
	turnEnded("Outlived the kill.")
	reopen("reopened-after-kill")
}
