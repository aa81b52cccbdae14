//go:build linux

package gui

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/test/internal/proctest"
)

// Generous bounds for a loaded 2-core machine with a software OpenGL. They
// only bound how long a broken build takes to fail; no test asserts that
// anything is fast.
const (
	xStartTimeout   = 30 * time.Second // Xvfb until it accepts clients
	appStartTimeout = 90 * time.Second // the app until its window is shown
	stopTimeout     = 30 * time.Second // SIGTERM until exit
	cliTimeout      = 60 * time.Second // one CLI or X tool run
	pollTimeout     = 30 * time.Second // output, state or pixels to appear
	pollEvery       = 100 * time.Millisecond
)

// The screen of the tests' shared display.
const screenW, screenH = 1600, 1000

var (
	guiBin    string // the desktop app under test ($PANEFLOW_GUI_BIN)
	cliBin    string // the nogui CLI, built by TestMain
	missing   string // why the tests cannot run; "" when they can
	artifacts string // where screenshots go
)

func TestMain(m *testing.M) {
	if f := os.Getenv(envHTTPFile); f != "" {
		os.Exit(serveHTTP(f))
	}
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	guiBin = os.Getenv("PANEFLOW_GUI_BIN")
	var why []string
	if guiBin == "" {
		why = append(why, "PANEFLOW_GUI_BIN is unset (make test builds bin/paneflow-gui and sets it)")
	} else if abs, err := filepath.Abs(guiBin); err != nil {
		why = append(why, err.Error())
	} else if _, err := os.Stat(abs); err != nil {
		why = append(why, fmt.Sprintf("PANEFLOW_GUI_BIN: %v", err))
	} else {
		guiBin = abs
	}
	for _, tool := range []string{"Xvfb", "xdotool", "import"} {
		if _, err := exec.LookPath(tool); err != nil {
			why = append(why, tool+" is not installed (scripts/deps.sh gui installs it)")
		}
	}
	missing = strings.Join(why, "; ")

	artifacts = os.Getenv("PANEFLOW_ARTIFACTS")
	if artifacts == "" {
		artifacts = "artifacts"
	}
	if abs, err := filepath.Abs(artifacts); err == nil {
		artifacts = abs
	}

	dir, err := os.MkdirTemp("", "paneflow-gui-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	// The installed layout: the CLI client, and next to it the headless
	// server its `serve` hands over to (the benchmark's headless side),
	// the launch shim and the hook program (agent_test.go's real agent).
	cliBin = filepath.Join(dir, "paneflow")
	for _, b := range []struct{ out, tags, pkg string }{
		{cliBin, "nogui,client", "cmd/paneflow"}, {filepath.Join(dir, "paneflow-server"), "nogui", "cmd/paneflow"},
		{filepath.Join(dir, "paneflow-shim"), "nogui", "cmd/paneflow-shim"}, {filepath.Join(dir, "paneflow-ai-hook"), "nogui", "cmd/paneflow-ai-hook"},
	} {
		cmd := exec.Command("go", "build", "-tags", b.tags, "-o", b.out, "github.com/paneflow-go/paneflow/"+b.pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "gui: building %s: %v\n", filepath.Base(b.out), err)
			return 1
		}
	}
	code := m.Run()
	stopSharedX()
	return code
}

// need skips the test when a prerequisite is missing, or fails it under
// CI=true, where everything must be present.
func need(t testing.TB) {
	t.Helper()
	if missing == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("cannot run the GUI tests under CI=true: %s", missing)
	}
	t.Skipf("skipping the GUI tests: %s", missing)
}

// logLine is one line a process wrote, with when it arrived.
type logLine struct {
	at   time.Time
	text string
}

// lineLog collects a process's output line by line, time-stamped, for
// waiting on a line and for parsing probe lines. Safe for one writer and
// concurrent readers.
type lineLog struct {
	mu      sync.Mutex
	partial []byte
	lines   []logLine
	changed chan struct{} // closed and replaced on every new line
}

func newLineLog() *lineLog { return &lineLog{changed: make(chan struct{})} }

func (l *lineLog) Write(p []byte) (int, error) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	added := false
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		l.lines = append(l.lines, logLine{at: now, text: string(l.partial[:i])})
		l.partial = l.partial[i+1:]
		added = true
	}
	if added {
		close(l.changed)
		l.changed = make(chan struct{})
	}
	return len(p), nil
}

// snapshot returns the lines so far (from index from on) and a channel
// closed when more arrive.
func (l *lineLog) snapshot(from int) ([]logLine, chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if from > len(l.lines) {
		from = len(l.lines)
	}
	return append([]logLine(nil), l.lines[from:]...), l.changed
}

// count is the number of complete lines so far.
func (l *lineLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.lines)
}

// String is everything written, for failure messages.
func (l *lineLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for _, ln := range l.lines {
		b.WriteString(ln.text)
		b.WriteByte('\n')
	}
	b.Write(l.partial)
	return b.String()
}

// tempDir returns a fresh directory with a short path (socket paths must
// stay under ~104 bytes), removed when the test ends.
func tempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "pfg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// xserver is a running Xvfb.
type xserver struct {
	display string // ":N"
	fbdir   string // where Xvfb keeps its framebuffer file (-fbdir)
	proc    *proctest.Process
	stderr  *proctest.Buffer
}

// startX starts Xvfb with one w×h×24 screen on a free display number,
// which Xvfb picks and reports through -displayfd.
func startX(w, h int) (*xserver, error) {
	fbdir, err := os.MkdirTemp("", "pfg-x-")
	if err != nil {
		return nil, err
	}
	r, wr, err := os.Pipe()
	if err != nil {
		os.RemoveAll(fbdir)
		return nil, err
	}
	defer r.Close()
	x := &xserver{fbdir: fbdir, stderr: new(proctest.Buffer)}
	// No key autorepeat: on a loaded machine xdotool may be descheduled
	// between a key's press and release for longer than the repeat delay,
	// and the server then typed the key twice ("eecho" in TestDesktop).
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", fmt.Sprintf("%dx%dx24", w, h),
		"-nolisten", "tcp", "-noreset", "-fbdir", fbdir, "-r", "-ardelay", "60000")
	cmd.ExtraFiles = []*os.File{wr}
	cmd.Stderr = x.stderr
	// Pdeathsig: a test binary that dies (a panic, a timeout) takes its
	// display along rather than leaving it running.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	x.proc, err = proctest.Start(cmd)
	wr.Close()
	if err != nil {
		os.RemoveAll(fbdir)
		return nil, fmt.Errorf("starting Xvfb: %w", err)
	}
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		got <- strings.TrimSpace(line)
	}()
	select {
	case n := <-got:
		if _, err := strconv.Atoi(n); err != nil {
			x.stop()
			return nil, fmt.Errorf("Xvfb reported display %q; stderr:\n%s", n, proctest.Indent(x.stderr.String()))
		}
		x.display = ":" + n
	case <-time.After(xStartTimeout):
		x.stop()
		return nil, fmt.Errorf("Xvfb did not report a display within %v; stderr:\n%s", xStartTimeout, proctest.Indent(x.stderr.String()))
	}
	return x, nil
}

// stop ends Xvfb and removes its framebuffer directory.
func (x *xserver) stop() {
	x.proc.Terminate(stopTimeout)
	os.RemoveAll(x.fbdir)
}

var (
	sharedMu  sync.Mutex
	sharedX   *xserver
	sharedErr error
)

// display returns the tests' shared Xvfb, starting it on first use.
func display(t testing.TB) *xserver {
	t.Helper()
	need(t)
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if sharedX == nil && sharedErr == nil {
		sharedX, sharedErr = startX(screenW, screenH)
	}
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return sharedX
}

func stopSharedX() {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if sharedX != nil {
		sharedX.stop()
		sharedX = nil
	}
}

// app is a running desktop app.
type app struct {
	t    testing.TB
	x    *xserver
	dir  string // working directory, HOME and XDG base
	sock string
	env  []string
	proc *proctest.Process
	log  *lineLog // stderr

	win    string // X window id
	server *app   // the server the window attached to (startApp); nil for an embedded window

	// closed is set once the test has ended the window on purpose
	// (waitExit): its socket, the server's, is still waited on, and the
	// window's exit is no longer a reason to stop waiting.
	closed bool
}

// appEnv is the environment of the app and of the CLI runs against it:
// an isolated HOME and XDG tree, a UTF-8 locale, a plain shell with a
// short prompt, no session bus, and Fyne's scale pinned to 1 so pixel
// positions do not depend on the virtual screen's reported size.
func appEnv(dir, displayName string) []string {
	return []string{
		"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "LANG=en_US.UTF-8", "SHELL=/bin/sh", "PS1=$ ",
		"DISPLAY=" + displayName, "FYNE_SCALE=1", "DBUS_SESSION_BUS_ADDRESS=unix:path=" + filepath.Join(dir, "no-bus"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"XDG_RUNTIME_DIR=" + filepath.Join(dir, "run"), "XDG_CACHE_HOME=" + filepath.Join(dir, "cache"),
		"XDG_DATA_HOME=" + filepath.Join(dir, "data"),
		"PANEFLOW_IPC_SCRIPTING=1",
	}
}

// startApp runs the desktop app as a user does: `paneflow serve` (the GUI
// binary's, as the window itself would start it) on a fresh socket, then
// the GUI binary in its default mode (no mode flag: it finds the server on
// --socket and attaches), both on x's display environment and in one
// fresh directory that is their HOME and XDG base. It waits until the
// window logs that it is shown, the socket answers and the window can be
// found. extra adds environment variables to both. The server is the
// test's child (it ends with the test binary), unlike the detached one a
// window starts when none answers (startDefault); it is stopped after the
// window when the test ends. The app's proc and log are the window's,
// server's the server's.
func startApp(t testing.TB, x *xserver, extra ...string) *app {
	t.Helper()
	dir := freshDir(t)
	srv := launchIn(t, x, guiBin, []string{"serve", "--socket"}, extra, dir, "")
	srv.waitPing()
	a := windowReady(launchIn(t, x, guiBin, []string{"--socket"}, extra, dir, srv.sock))
	if p := startedServer(a, 0); p != 0 {
		t.Fatalf("the window started a server (pid %d) though %s answered", p, srv.sock)
	}
	a.server = srv
	return a
}

// startEmbedded runs the GUI binary with --embedded --socket on x (the
// window hosting the panes itself, so the test's process owns them all and
// stopping it stops them), for the tests and benchmarks about that mode,
// and waits as startApp does.
func startEmbedded(t testing.TB, x *xserver, extra ...string) *app {
	t.Helper()
	return windowReady(launch(t, x, guiBin, []string{"--embedded", "--socket"}, extra))
}

// startAttached runs the GUI binary with --attach on x, attached to the
// running server srv (`paneflow serve`, startServe), and waits as
// startApp does. Its socket is srv's.
func startAttached(t testing.TB, x *xserver, srv *app) *app {
	t.Helper()
	return windowReady(launchOn(t, x, guiBin, []string{"--attach", "--socket"}, nil, srv.sock))
}

// windowReady waits until the app a logs that its window is shown, the
// socket answers and the window can be found.
func windowReady(a *app) *app {
	t := a.t
	t.Helper()
	if _, err := a.waitLine(regexp.MustCompile(`^paneflow: window ready socket=`), 0, appStartTimeout); err != nil {
		t.Fatalf("the app did not log `paneflow: window ready`: %v\nstderr:\n%s", err, proctest.Indent(a.log.String()))
	}
	if want := "socket=" + a.sock; !strings.Contains(a.log.String(), want) {
		t.Errorf("the window-ready line does not name the socket (want %q):\n%s", want, proctest.Indent(a.log.String()))
	}
	a.waitPing()
	return a.waitWindow()
}

// waitWindow waits until the app's window is mapped and records it.
func (a *app) waitWindow() *app {
	t := a.t
	t.Helper()
	a.eventually("the Paneflow window to be mapped", func() (bool, string) {
		r := runTool(t, a.env, "xdotool", "search", "--all", "--onlyvisible", "--pid", strconv.Itoa(a.pid()), "--name", "^Paneflow")
		ids := strings.Fields(r.stdout)
		if len(ids) == 0 {
			return false, r.String()
		}
		a.win = ids[len(ids)-1]
		return true, ""
	})
	return a
}

// startServe runs the headless server (`paneflow serve --size COLSxROWS`,
// the nogui CLI) in a fresh directory, for comparisons with the window.
func startServe(t testing.TB, size string) *app {
	t.Helper()
	a := launch(t, nil, cliBin, []string{"serve", "--size", size, "--socket"}, nil)
	a.waitPing()
	return a
}

// launch starts prog with args and the socket path appended, in a fresh
// directory that is its HOME and XDG base, on x's display when x is not
// nil. The process is stopped (SIGTERM, checked to exit 0) when the test
// ends.
func launch(t testing.TB, x *xserver, prog string, args, extra []string) *app {
	t.Helper()
	return launchOn(t, x, prog, args, extra, "")
}

// launchOn is launch with the socket path sock ("": pf.sock in the
// fresh directory).
func launchOn(t testing.TB, x *xserver, prog string, args, extra []string, sock string) *app {
	t.Helper()
	return launchIn(t, x, prog, args, extra, freshDir(t), sock)
}

// freshDir returns a fresh directory with the XDG base directories the
// apps' environment names (appEnv), removed when the test ends.
func freshDir(t testing.TB) string {
	t.Helper()
	dir := tempDir(t)
	for _, d := range []string{"config", "state", "run", "cache", "data", "state/paneflow"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// The window's first-start hint (a line above the panes) was seen:
	// the tests' pixel positions are those of every later start.
	// TestSettingsView removes it to see the hint. (app.HintFileName:
	// the tests link none of the app.)
	if err := os.WriteFile(filepath.Join(dir, "state", "paneflow", "first-start-hint-shown"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// launchIn is launchOn in dir (made by freshDir), the process's working
// directory, HOME and XDG base.
func launchIn(t testing.TB, x *xserver, prog string, args, extra []string, dir, sock string) *app {
	t.Helper()
	if sock == "" {
		sock = filepath.Join(dir, "pf.sock")
	}
	a := &app{t: t, x: x, dir: dir, sock: sock, log: newLineLog()}
	displayName := ""
	if x != nil {
		displayName = x.display
	}
	a.env = append(appEnv(dir, displayName), extra...)
	cmd := exec.Command(prog, append(args, a.sock)...)
	cmd.Env = a.env
	cmd.Dir = dir
	cmd.Stderr = a.log
	cmd.Stdout = a.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	var err error
	if a.proc, err = proctest.Start(cmd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s (pid %d, socket %s) output:\n%s", filepath.Base(prog), a.proc.Pid(), a.sock, proctest.Indent(a.log.String()))
		}
	})
	t.Cleanup(a.stop)
	return a
}

// waitPing waits until the socket answers system.ping.
func (a *app) waitPing() {
	a.t.Helper()
	a.eventually("the socket to answer system.ping", func() (bool, string) {
		res, err := a.tryRPC("system.ping", nil)
		return err == nil && strings.Contains(string(res), `"pong":true`), fmt.Sprint(string(res), err)
	})
}

func (a *app) pid() int { return a.proc.Pid() }

// waitLine waits until a line from index from on matches re and returns
// it, or fails when the app exits or timeout passes.
func (a *app) waitLine(re *regexp.Regexp, from int, timeout time.Duration) (logLine, error) {
	deadline := time.After(timeout)
	for {
		lines, changed := a.log.snapshot(from)
		for _, l := range lines {
			if re.MatchString(l.text) {
				return l, nil
			}
		}
		from += len(lines)
		select {
		case <-changed:
		case <-a.proc.Exited():
			lines, _ := a.log.snapshot(from)
			for _, l := range lines {
				if re.MatchString(l.text) {
					return l, nil
				}
			}
			return logLine{}, fmt.Errorf("the app exited (%v) first", a.proc.Err())
		case <-deadline:
			return logLine{}, fmt.Errorf("no line matched /%s/ within %v", re, timeout)
		}
	}
}

// terminate sends SIGTERM and returns the exit error (nil for exit 0),
// failing the test when the app does not exit in time.
func (a *app) terminate() error {
	a.t.Helper()
	return a.proc.TerminateOrFail(a.t, "the app", stopTimeout)
}

// stop ends the process if it still runs, checking it exits cleanly.
func (a *app) stop() { a.proc.StopOrFail(a.t, "the app", stopTimeout) }

// eventually polls cond until it reports true, failing the test with the
// last state it described after pollTimeout (within, with that bound).
func (a *app) eventually(what string, cond func() (bool, string)) {
	a.t.Helper()
	a.within(pollTimeout, what, cond)
}

// result is one run of a program.
type result struct {
	prog           string
	args           []string
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("`%s %s` exited %d\n  stdout:\n%s\n  stderr:\n%s",
		r.prog, strings.Join(r.args, " "), r.code, proctest.Indent(r.stdout), proctest.Indent(r.stderr))
}

// runTool runs prog with env, failing the test only when it cannot start
// or does not finish within cliTimeout.
func runTool(t testing.TB, env []string, prog string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{prog: filepath.Base(prog), args: args, stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("%s did not finish within %v", r, cliTimeout)
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%s %s: %v", prog, strings.Join(args, " "), err)
	}
	return r
}

// mustTool runs prog and fails the test unless it exits 0.
func mustTool(t testing.TB, env []string, prog string, args ...string) string {
	t.Helper()
	r := runTool(t, env, prog, args...)
	if r.code != 0 {
		t.Fatalf("want exit 0:\n%s", r)
	}
	return r.stdout
}

// cli runs the nogui paneflow CLI against the app.
func (a *app) cli(args ...string) result {
	a.t.Helper()
	return runTool(a.t, append(append([]string{}, a.env...), "PANEFLOW_SOCKET_PATH="+a.sock), cliBin, args...)
}

// mustCLI runs the CLI, fails the test unless it exits 0, and decodes its
// stdout as JSON into v when v is not nil.
func (a *app) mustCLI(v any, args ...string) string {
	a.t.Helper()
	r := a.cli(args...)
	if r.code != 0 {
		a.t.Fatalf("want exit 0:\n%s", r)
	}
	if v != nil {
		if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
			a.t.Fatalf("output is not the expected JSON (%v):\n%s", err, r)
		}
	}
	return r.stdout
}

// xdo runs xdotool on the app's display.
func (a *app) xdo(args ...string) string {
	a.t.Helper()
	return mustTool(a.t, a.env, "xdotool", args...)
}

// tryRPC calls method on a fresh connection and returns its result.
func (a *app) tryRPC(method string, params any) (json.RawMessage, error) {
	c, err := net.Dial("unix", a.sock)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(cliTimeout))
	req := map[string]any{"jsonrpc": "2.0", "id": 1, "method": method}
	if params != nil {
		req["params"] = params
	}
	line, _ := json.Marshal(req)
	if _, err := c.Write(append(line, '\n')); err != nil {
		return nil, err
	}
	reply, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		return nil, err
	}
	var f struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(reply, &f); err != nil {
		return nil, fmt.Errorf("reply %q: %w", reply, err)
	}
	if f.Error != nil {
		return nil, fmt.Errorf("%s: error %d: %s", method, f.Error.Code, f.Error.Message)
	}
	return f.Result, nil
}

// rpc calls method and decodes its result into v, failing the test on
// error.
func (a *app) rpc(v any, method string, params any) {
	a.t.Helper()
	res, err := a.tryRPC(method, params)
	if err != nil {
		a.t.Fatal(err)
	}
	if v != nil {
		if err := json.Unmarshal(res, v); err != nil {
			a.t.Fatalf("%s result %s: %v", method, res, err)
		}
	}
}

// layoutNode is the part of workspace.current's layout tree the tests use.
type layoutNode struct {
	Type      string       `json:"type"`
	Direction string       `json:"direction"`
	Ratios    []float64    `json:"ratios"`
	Children  []layoutNode `json:"children"`
	Surfaces  []struct {
		SurfaceID  uint64 `json:"surface_id"`
		CustomName string `json:"custom_name"`
		Focus      bool   `json:"focus"`
	} `json:"surfaces"`
}

// current is workspace.current's result.
type current struct {
	Index  int         `json:"index"`
	Title  string      `json:"title"`
	Panes  int         `json:"panes"`
	Layout *layoutNode `json:"layout"`
}

// current returns the active workspace without scrollback.
func (a *app) current() current {
	a.t.Helper()
	var c current
	a.rpc(&c, "workspace.current", map[string]any{"scrollback": false})
	return c
}

// focused returns the focused pane of the active workspace, 0 for none.
func (c current) focused() uint64 {
	var walk func(n *layoutNode) uint64
	walk = func(n *layoutNode) uint64 {
		for _, s := range n.Surfaces {
			if s.Focus {
				return s.SurfaceID
			}
		}
		for i := range n.Children {
			if id := walk(&n.Children[i]); id != 0 {
				return id
			}
		}
		return 0
	}
	if c.Layout == nil {
		return 0
	}
	return walk(c.Layout)
}

// listing is `paneflow ls`'s output.
type listing struct {
	PaneCount int `json:"pane_count"`
	Workspace int `json:"workspace"`
	Surfaces  []struct {
		ID        uint64 `json:"surface_id"`
		Name      string `json:"name"`
		Workspace int    `json:"workspace"`
	} `json:"surfaces"`
}

func (a *app) ls() listing {
	a.t.Helper()
	var l listing
	a.mustCLI(&l, "ls")
	return l
}

// readRaw returns the text of a pane's newest rows.
func (a *app) readRaw(target string) string {
	a.t.Helper()
	return a.mustCLI(nil, "read", target, "--raw", "--lines", "400")
}

// waitOutput polls `read --raw` until the pane's text matches re.
func (a *app) waitOutput(target, re string) {
	a.t.Helper()
	rx := regexp.MustCompile(re)
	a.eventually(fmt.Sprintf("pane %s to show /%s/", target, re), func() (bool, string) {
		text := a.readRaw(target)
		return rx.MatchString(text), text
	})
}

// splitShell splits pane target side by side (`split v`) and returns the
// new pane's ID once its shell shows a prompt.
func (a *app) splitShell(target string) string {
	a.t.Helper()
	var res struct {
		SurfaceID uint64 `json:"surface_id"`
	}
	a.mustCLI(&res, "split", "v", "--target", target)
	id := strconv.FormatUint(res.SurfaceID, 10)
	a.waitOutput(id, promptRe)
	return id
}

// geometry is a window's position and size on the screen.
type geometry struct{ X, Y, W, H int }

// geometry asks xdotool where the app's window is.
func (a *app) geometry() geometry {
	a.t.Helper()
	out := a.xdo("getwindowgeometry", "--shell", a.win)
	var g geometry
	for _, f := range strings.Fields(out) {
		k, v, _ := strings.Cut(f, "=")
		n, _ := strconv.Atoi(v)
		switch k {
		case "X":
			g.X = n
		case "Y":
			g.Y = n
		case "WIDTH":
			g.W = n
		case "HEIGHT":
			g.H = n
		}
	}
	if g.W == 0 || g.H == 0 {
		a.t.Fatalf("xdotool getwindowgeometry gave %q", out)
	}
	return g
}

// shots numbers the screenshot names of each test in order of first use:
// a name taken again (polling until something shows) overwrites its file.
var (
	shotsMu sync.Mutex
	shots   = map[string]map[string]int{} // test → name → number
)

// screenshot captures the app's window with ImageMagick's import, keeps
// it as an artifact named after the test and name, and decodes it.
func (a *app) screenshot(name string) image.Image {
	a.t.Helper()
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		a.t.Fatal(err)
	}
	shotsMu.Lock()
	names := shots[a.t.Name()]
	if names == nil {
		names = map[string]int{}
		shots[a.t.Name()] = names
	}
	n, ok := names[name]
	if !ok {
		n = len(names) + 1
		names[name] = n
	}
	shotsMu.Unlock()
	base := strings.NewReplacer("/", "-", " ", "_").Replace(a.t.Name())
	path := filepath.Join(artifacts, fmt.Sprintf("%s-%02d-%s.png", base, n, name))
	mustTool(a.t, a.env, "import", "-display", a.x.display, "-window", a.win, path)
	f, err := os.Open(path)
	if err != nil {
		a.t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		a.t.Fatalf("decoding %s: %v", path, err)
	}
	if !ok {
		a.t.Logf("screenshot %s (%dx%d)", path, img.Bounds().Dx(), img.Bounds().Dy())
	}
	return img
}
