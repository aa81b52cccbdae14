//go:build linux

package gui

import (
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/test/internal/proctest"
)

// startedRe is the line a window logs when it started the server it
// attaches to.
var startedRe = regexp.MustCompile(`^paneflow: started the server \(pid (\d+)\) on (\S+); its log: (.+)$`)

// startDefault runs the GUI binary as `make run` does (no mode flag: it
// attaches to the server on the socket, starting one when none answers)
// with --socket sock ("": a fresh one), and waits as startApp does. The
// server it may start outlives it: killServerAtEnd stops it.
func startDefault(t testing.TB, x *xserver, sock string, extra ...string) *app {
	t.Helper()
	return windowReady(launchOn(t, x, guiBin, []string{"--socket"}, extra, sock))
}

// startedServer is the pid of the server window a says it started, from
// log line from on; 0 when it started none.
func startedServer(a *app, from int) int {
	lines, _ := a.log.snapshot(from)
	for _, l := range lines {
		if m := startedRe.FindStringSubmatch(l.text); m != nil {
			pid, _ := strconv.Atoi(m[1])
			return pid
		}
	}
	return 0
}

// killServerAtEnd stops the server on a's socket when the test ends
// (`paneflow kill-server`), before the test's directories go; when the
// test failed it first logs the end of the log of the server a started.
func killServerAtEnd(t testing.TB, a *app) {
	t.Cleanup(func() {
		if t.Failed() {
			logServerLog(t, a)
		}
		if r := a.cli("kill-server"); r.code != 0 && !strings.Contains(r.stderr, "no Paneflow server is running") {
			t.Errorf("stopping the server: %s", r)
		}
	})
}

// logServerLog logs the last lines of the log of the server a says it
// started (startedRe), if any.
func logServerLog(t testing.TB, a *app) {
	lines, _ := a.log.snapshot(0)
	for _, l := range lines {
		m := startedRe.FindStringSubmatch(l.text)
		if m == nil {
			continue
		}
		b, err := os.ReadFile(m[3])
		if err != nil {
			t.Logf("the server's log: %v", err)
			return
		}
		const keep = 16 << 10
		if len(b) > keep {
			b = b[len(b)-keep:]
		}
		t.Logf("the server's log (%s), its end:\n%s", m[3], proctest.Indent(string(b)))
		return
	}
}

// procStat returns the state, parent and session id of pid from
// /proc/<pid>/stat; ok is false when it is gone or a zombie.
func procStat(pid int) (ppid, sid int, ok bool) {
	_, f, ok := readStat(strconv.Itoa(pid))
	if !ok || len(f) < 4 || f[0] == "Z" {
		return 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	sid, _ = strconv.Atoi(f[3])
	return ppid, sid, true
}

// windowID is a's X window as a number.
func windowID(t testing.TB, a *app) uint32 {
	t.Helper()
	win, err := strconv.ParseUint(a.win, 10, 32)
	if err != nil {
		t.Fatalf("window id %q: %v", a.win, err)
	}
	return uint32(win)
}

// waitExit waits until a's process exits and returns its exit error;
// later waits on a go on through its socket (app.closed).
func waitExit(t testing.TB, a *app, what string) error {
	t.Helper()
	select {
	case <-a.proc.Exited():
		a.closed = true
		return a.proc.Err()
	case <-time.After(stopTimeout):
		t.Fatalf("%s: the app did not exit within %v\n%s", what, stopTimeout, proctest.Indent(a.log.String()))
		return nil
	}
}

// TestWindowStartsServerAndDetaches is `make run`'s lifecycle: the
// window finds no server, starts one (detached: its own session, not the
// window's child once the window is gone) and attaches; closing the
// window detaches (no question asked, exit 0) and the program in the pane
// keeps its state; a second window finds the server, starts none, and
// types on; a window killed with SIGKILL leaves it running too. The window
// keeps no session file of its own: the server's is the only one.
func TestWindowStartsServerAndDetaches(t *testing.T) {
	x := display(t)
	w := startDefault(t, x, "")
	killServerAtEnd(t, w)
	pid := startedServer(w, 0)
	if pid == 0 || pid == w.pid() {
		t.Fatalf("the window did not say it started a server (pid %d, window %d):\n%s", pid, w.pid(), proctest.Indent(w.log.String()))
	}
	if _, sid, ok := procStat(pid); !ok || sid != pid {
		t.Errorf("the server %d runs in session %d (alive %v), want a session of its own", pid, sid, ok)
	}
	if fd2, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/2", pid)); err != nil || !strings.HasSuffix(fd2, filepath.Join("paneflow", "server.log")) {
		t.Errorf("the server's stderr is %q (%v), want its log file", fd2, err)
	}
	// A program with state in the server's pane: it counts the lines it reads.
	w.mustCLI(nil, "send", "1", `i=0; while read l; do i=$((i+1)); echo "got $i:$l"; done`, "--submit")
	w.typeLine("1", "alpha")
	w.waitOutput("1", `got 1:alpha`)

	if err := closeWindow(x.display, windowID(t, w)); err != nil {
		t.Fatal(err)
	}
	if err := waitExit(t, w, "closing the window"); err != nil {
		t.Fatalf("closing the window: exit %v, want 0\n%s", err, proctest.Indent(w.log.String()))
	}
	if _, _, ok := procStat(pid); !ok {
		t.Fatalf("the server %d ended with the window", pid)
	}
	state := filepath.Join(w.dir, "state", "paneflow")
	if _, err := os.Stat(filepath.Join(state, "session.json")); !os.IsNotExist(err) {
		t.Errorf("the window left a session file of its own (%v)", err)
	}
	if m, _ := filepath.Glob(filepath.Join(state, "session-*.json")); len(m) != 1 {
		t.Errorf("the server's session files: %q, want one", m)
	}

	w2 := startDefault(t, x, w.sock)
	if p := startedServer(w2, 0); p != 0 {
		t.Fatalf("the second window started another server (%d) instead of attaching to %d", p, pid)
	}
	w2.typeLine("1", "beta")
	w2.waitOutput("1", `got 2:beta`)
	if err := w2.proc.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-w2.proc.Exited()
	w.mustCLI(nil, "send", "1", "gamma", "--submit")
	w.waitOutput("1", `got 3:gamma`)
	if _, _, ok := procStat(pid); !ok {
		t.Fatalf("the server %d ended with the SIGKILLed window", pid)
	}
}

// TestDeadServerBanner: the server a window attached to is killed with
// SIGKILL; the window says so in its banner, whose "Restart server and
// restore" button starts the server again (it restores its session: the
// renamed pane comes back) and reattaches: typing in the window reaches
// the restored pane.
func TestDeadServerBanner(t *testing.T) {
	x := display(t)
	w := startDefault(t, x, "", "PANEFLOW_UI_PROBE=1")
	killServerAtEnd(t, w)
	pid := startedServer(w, 0)
	if pid == 0 {
		t.Fatalf("the window did not start a server:\n%s", proctest.Indent(w.log.String()))
	}
	w.mustCLI(nil, "rename", "1", "keeper")
	state := filepath.Join(w.dir, "state", "paneflow")
	w.eventually("the server's session file to hold the pane's name", func() (bool, string) {
		m, _ := filepath.Glob(filepath.Join(state, "session-*.json"))
		if len(m) != 1 {
			return false, fmt.Sprint(m)
		}
		b, _ := os.ReadFile(m[0])
		return strings.Contains(string(b), `"custom_name": "keeper"`), string(b)
	})
	from := w.log.count()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if _, err := w.waitLine(regexp.MustCompile(`^paneflow: server lost: `), from, pollTimeout); err != nil {
		t.Fatalf("the window did not notice the server's end: %v\n%s", err, proctest.Indent(w.log.String()))
	}
	bx, by, _ := w.probed("banner-action", from)
	// The pointer may already be where the button is (an earlier run's
	// click): xdotool's mousemove --sync then waits for a move that never
	// comes, for seconds.
	w.xdo("mousemove", "0", "0")
	w.click(bx, by)
	if _, err := w.waitLine(regexp.MustCompile(`^paneflow: reattached socket=`), from, appStartTimeout); err != nil {
		t.Fatalf("the window did not reattach: %v\n%s", err, proctest.Indent(w.log.String()))
	}
	again := startedServer(w, from)
	if again == 0 || again == pid {
		t.Fatalf("restart: started server %d (the killed one was %d)", again, pid)
	}
	var l listing
	w.mustCLI(&l, "ls")
	if len(l.Surfaces) != 1 || l.Surfaces[0].Name != "keeper" {
		t.Fatalf("the restarted server's panes: %+v, want the restored pane keeper", l.Surfaces)
	}
	w.waitOutput("keeper", promptRe)
	w.typeLine("keeper", "echo restored-$((6*7))")
	w.waitOutput("keeper", `restored-42`)
}

// TestQuitStopsEverything: with quit_action = "stop" the quit keystroke
// ends the server too (system.shutdown: it saves its session and ends
// its panes' programs) and the window exits 0.
func TestQuitStopsEverything(t *testing.T) {
	x := display(t)
	cfg := tempDir(t)
	if err := os.Mkdir(filepath.Join(cfg, "paneflow"), 0o700); err != nil {
		t.Fatal(err)
	}
	toml := fmt.Sprintf("quit_action = \"stop\"\n[shortcuts]\n%q = \"quit\"\n", quitKeys)
	if err := os.WriteFile(filepath.Join(cfg, "paneflow", "paneflow.toml"), []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	w := startDefault(t, x, "", "XDG_CONFIG_HOME="+cfg)
	killServerAtEnd(t, w)
	pid := startedServer(w, 0)
	if pid == 0 {
		t.Fatalf("the window did not start a server:\n%s", proctest.Indent(w.log.String()))
	}
	w.mustCLI(nil, "send", "1", "echo PID=$$; exec sleep 1000", "--submit")
	w.waitOutput("1", `PID=\d+`)
	m := regexp.MustCompile(`PID=(\d+)`).FindStringSubmatch(w.readRaw("1"))
	sleeper, _ := strconv.Atoi(m[1])
	w.xdo("windowfocus", "--sync", w.win, "key", "--clearmodifiers", quitKeys)
	if err := waitExit(t, w, "Stop everything"); err != nil {
		t.Fatalf("Stop everything: the window exited %v, want 0\n%s", err, proctest.Indent(w.log.String()))
	}
	w.eventually("the server and its pane's program to end", func() (bool, string) {
		_, _, srv := procStat(pid)
		_, _, prog := procStat(sleeper)
		return !srv && !prog, fmt.Sprintf("server alive %v, pane program alive %v", srv, prog)
	})
	if m, _ := filepath.Glob(filepath.Join(w.dir, "state", "paneflow", "session-*.json")); len(m) != 1 {
		t.Errorf("the server's session file: %q, want one", m)
	}
}

// TestOlderServerNoticed: a window that finds a server of another version
// (make run after a rebuild, the old server still running) attaches to it
// and says so in its banner and log, naming both versions and the way to
// upgrade.
func TestOlderServerNoticed(t *testing.T) {
	x := display(t)
	old := filepath.Join(tempDir(t), "paneflow-server")
	build := exec.Command("go", "build", "-tags", "nogui", "-ldflags", "-X github.com/paneflow-go/paneflow/version.Version=v0.0.1-old",
		"-o", old, "github.com/paneflow-go/paneflow/cmd/paneflow")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the old server: %v\n%s", err, out)
	}
	srv := launch(t, nil, old, []string{"serve", "--socket"}, nil)
	srv.waitPing()
	w := startDefault(t, x, srv.sock)
	if p := startedServer(w, 0); p != 0 {
		t.Fatalf("the window started a server (%d) though one answered", p)
	}
	if _, err := w.waitLine(regexp.MustCompile(`^paneflow: The server on \S+ runs Paneflow v0\.0\.1-old, this window \S+: quit with "Stop everything"`), 0, pollTimeout); err != nil {
		t.Fatalf("no notice of the older server: %v\n%s", err, proctest.Indent(w.log.String()))
	}
}

// TestTwoWindowsAtOnce: two windows attached to one server at the same
// time show the same panes; keys typed in either reach the pane's program
// and both windows draw its output (their pane areas differ by at most
// the cursor's row: one of them has the keyboard focus); closing one
// leaves the other attached and working.
func TestTwoWindowsAtOnce(t *testing.T) {
	x := display(t)
	a := startApp(t, x)
	b := windowReady(launchIn(t, x, guiBin, []string{"--socket"}, nil, a.dir, a.sock))
	if p := startedServer(b, 0); p != 0 {
		t.Fatalf("the second window started a server (pid %d) though %s answered", p, a.sock)
	}
	a.mustCLI(nil, "send", "1", `i=0; while read l; do i=$((i+1)); echo "got $i:$l"; done`, "--submit")
	a.typeLine("1", "alpha")
	a.waitOutput("1", `got 1:alpha`)
	b.typeLine("1", "beta")
	a.waitOutput("1", `got 2:beta`)

	// Both windows draw the pane alike: the same size and theme, so the
	// same pixels, but for the cursor's row.
	g := a.geometry()
	if gb := b.geometry(); gb.W != g.W || gb.H != g.H {
		t.Fatalf("the windows differ in size: %dx%d and %dx%d", g.W, g.H, gb.W, gb.H)
	}
	pane := image.Rect(sidebarPx+10, agentsButtonPx+10, g.W-10, g.H-10)
	var d image.Rectangle
	b.eventually("both windows to draw the pane alike", func() (bool, string) {
		// The windows overlap: each is raised to be captured whole.
		a.xdo("windowraise", a.win)
		ia := a.stable("window-a", pane)
		b.xdo("windowraise", b.win)
		ib := b.stable("window-b", pane)
		d = differing(ia, ib, pane)
		return d.Dy() <= cursorRowPx, fmt.Sprintf("the windows' pane areas differ in %v", d)
	})
	t.Logf("the windows' pane areas differ only in %v", d)

	// One window closed: the other still types and draws.
	if err := closeWindow(x.display, windowID(t, a)); err != nil {
		t.Fatal(err)
	}
	if err := waitExit(t, a, "closing one of two windows"); err != nil {
		t.Fatalf("closing the window: exit %v, want 0\n%s", err, proctest.Indent(a.log.String()))
	}
	b.xdo("windowraise", b.win)
	before := b.stable("window-b-alone", pane)
	b.typeLine("1", "gamma")
	b.waitOutput("1", `got 3:gamma`)
	b.eventually("the remaining window to draw the new output", func() (bool, string) {
		n := changed(before, b.stable("window-b-after", pane), pane, 0)
		return n > 0, fmt.Sprintf("%d pixels changed", n)
	})
}

// cursorRowPx bounds the height of what may differ between two windows
// showing the same pane: the cursor's row (a cell at the default font
// size is about 20 px high).
const cursorRowPx = 24

// differing returns the bounding box of the pixels in r that differ
// between a and b (empty when none do).
func differing(a, b image.Image, r image.Rectangle) image.Rectangle {
	var d image.Rectangle
	r = r.Intersect(a.Bounds()).Intersect(b.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if !at(a, x, y).close(at(b, x, y), 0) {
				d = d.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return d
}
