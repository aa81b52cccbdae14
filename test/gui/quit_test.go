//go:build linux

package gui

import (
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/test/internal/proctest"
)

// quitKeys is the keystroke TestQuitWhileBusy binds to the quit action,
// which has no default one on Linux.
const quitKeys = "ctrl+alt+q"

// ending is one way the desktop app ends.
type ending struct {
	name string
	// end makes the app end: it sends a signal, or asks to quit and
	// accepts the confirmation (p keeps the pointer moving meanwhile).
	end func(t *testing.T, a *app, p *pointer)
}

// endings are the ways the app can end while a program runs in a pane.
// Closing the last workspace is not one: the model refuses it
// (workspace.ErrLastWorkspace), and closing the last pane leaves the only
// workspace empty, with the window open.
var endings = []ending{
	{"SIGTERM", func(t *testing.T, a *app, _ *pointer) { signal(t, a, syscall.SIGTERM) }},
	{"SIGINT", func(t *testing.T, a *app, _ *pointer) { signal(t, a, syscall.SIGINT) }},
	{"CloseWindow", func(t *testing.T, a *app, p *pointer) {
		win, err := strconv.ParseUint(a.win, 10, 32)
		if err != nil {
			t.Fatalf("window id %q: %v", a.win, err)
		}
		if err := closeWindow(a.x.display, uint32(win)); err != nil {
			t.Fatal(err)
		}
		// An attached window detaches without a question; a window
		// hosting busy panes asks first.
		if a.server == nil {
			acceptQuit(t, a, p)
		}
	}},
	{"QuitKey", func(t *testing.T, a *app, p *pointer) {
		a.xdo("windowfocus", "--sync", a.win, "key", "--clearmodifiers", quitKeys)
		acceptQuit(t, a, p)
	}},
}

// quitRounds is how many times TestQuitWhileBusy ends the app each way:
// 2 by default, PANEFLOW_QUIT_ROUNDS when set (make stress-gui).
func quitRounds(t *testing.T) int {
	s := os.Getenv("PANEFLOW_QUIT_ROUNDS")
	if s == "" {
		return 2
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("PANEFLOW_QUIT_ROUNDS=%q: want a positive number", s)
	}
	return n
}

// TestQuitWhileBusy ends the app in every way it can end while a pane
// floods output and the pointer keeps crossing between the sidebar and the
// pane (so Fyne changes the mouse cursor on every crossing): SIGTERM and
// SIGINT (which Fyne's own handler sees too, racing the app's), the
// window's close request and the quit keystroke, each with the
// confirmation accepted where one is asked (the quit keystroke of an
// attached window asks Detach or Stop everything, and the test detaches;
// closing a window hosting its panes asks to stop the busy one). The app
// must exit 0, without a panic and without hanging, every time; an
// attached window's server must go on with the flooding pane. Both the
// attached window (startApp) and the one hosting its panes (--embedded)
// run every ending: Fyne's faults below are in the window's shutdown,
// which differs between them in what it stops. Before the fix 11 endings
// in 52 failed: 8 crashed in GLFW (a pointer event reached a window Fyne
// had already closed, fyne-io/fyne#5981) and 3 signals left the app
// waiting forever for a stopped hook Fyne had dropped (see
// ARCHITECTURE.md, Quitting).
func TestQuitWhileBusy(t *testing.T) {
	x := display(t)
	rounds := quitRounds(t)
	for _, mode := range []struct {
		name  string
		start func(testing.TB, *xserver, ...string) *app
	}{{"attached", startApp}, {"embedded", startEmbedded}} {
		t.Run(mode.name, func(t *testing.T) {
			for _, e := range endings {
				t.Run(e.name, func(t *testing.T) {
					for round := range rounds {
						t.Run(strconv.Itoa(round), func(t *testing.T) { quitWhileBusy(t, x, mode.start, e) })
					}
				})
			}
		})
	}
}

// quitWhileBusy runs one round: start the app with start, flood a pane,
// move the pointer, end the app as e says, and check it exited 0 without
// a panic, and that an attached window's server still runs the pane.
func quitWhileBusy(t *testing.T, x *xserver, start func(testing.TB, *xserver, ...string) *app, e ending) {
	t.Helper()
	cfg := tempDir(t)
	if err := os.Mkdir(filepath.Join(cfg, "paneflow"), 0o700); err != nil {
		t.Fatal(err)
	}
	toml := fmt.Sprintf("[shortcuts]\n%q = \"quit\"\n", quitKeys)
	if err := os.WriteFile(filepath.Join(cfg, "paneflow", "paneflow.toml"), []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	a := start(t, x, "XDG_CONFIG_HOME="+cfg)
	id := strconv.FormatUint(a.ls().Surfaces[0].ID, 10)
	a.waitOutput(id, promptRe)
	a.mustCLI(nil, "send", id, "--submit", "yes paneflow-quit-test")
	a.waitOutput(id, `\npaneflow-quit-test\n`) // yes's output, not the echoed command

	p := startPointer(t, a)
	defer p.stop()
	e.end(t, a, p)

	select {
	case <-a.proc.Exited():
	case <-time.After(stopTimeout):
		// SIGQUIT makes the Go runtime print every goroutine's stack.
		a.proc.Cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-a.proc.Exited():
		case <-time.After(stopTimeout):
		}
		t.Fatalf("the app did not exit within %v of being told to quit; its goroutines at SIGQUIT:\n%s", stopTimeout, proctest.Indent(a.log.String()))
	}
	log := a.log.String()
	if err := a.proc.Err(); err != nil {
		t.Fatalf("the app exited with %v, want exit 0:\n%s", err, proctest.Indent(log))
	}
	for _, bad := range []string{"panic", "fatal error", "SIGSEGV", "should have been called in fyne.Do"} {
		if strings.Contains(log, bad) {
			t.Fatalf("the app logged %q while quitting:\n%s", bad, proctest.Indent(log))
		}
	}
	if a.server != nil {
		// Detached: the pane and its program are still there (asked
		// through the server's app: the window's has exited).
		if l := a.server.ls(); len(l.Surfaces) != 1 || strconv.FormatUint(l.Surfaces[0].ID, 10) != id {
			t.Fatalf("the server's panes after the window ended: %+v, want the flooding one", l)
		}
		a.server.mustCLI(nil, "key", id, "ctrl-c")
		a.server.waitOutput(id, promptRe)
	}
}

// signal sends sig to the app.
func signal(t *testing.T, a *app, sig syscall.Signal) {
	t.Helper()
	if err := a.proc.Cmd.Process.Signal(sig); err != nil {
		t.Fatalf("sending %v: %v", sig, err)
	}
}

// pointer keeps the pointer crossing between a point over the sidebar and
// one over the pane (default and text cursors) until stopped, with
// xdotool, so that the app gets pointer events at every moment of its
// shutdown.
type pointer struct {
	a          *app
	side, pane image.Point // screen coordinates
	mu         sync.Mutex
	quit       chan struct{} // closed by stop; nil when stopped
	done       chan struct{} // closed when the mover returned
}

// startPointer starts moving the pointer over a's window.
func startPointer(t *testing.T, a *app) *pointer {
	t.Helper()
	g := a.geometry()
	p := &pointer{a: a, side: image.Pt(g.X+sidebarPx/2, g.Y+g.H/2), pane: image.Pt(g.X+(sidebarPx+g.W)/2, g.Y+g.H/2)}
	a.xdo(p.crossings(4)...) // moving already when startPointer returns
	p.start()
	return p
}

// crossings returns xdotool arguments moving the pointer across n times.
func (p *pointer) crossings(n int) []string {
	var args []string
	for i := range n {
		q := p.side
		if i%2 == 1 {
			q = p.pane
		}
		args = append(args, "mousemove", strconv.Itoa(q.X), strconv.Itoa(q.Y))
	}
	return args
}

// start starts the mover goroutine unless it runs.
func (p *pointer) start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.quit != nil {
		return
	}
	quit, done := make(chan struct{}), make(chan struct{})
	p.quit, p.done = quit, done
	go func() {
		defer close(done)
		args := p.crossings(40)
		for {
			select {
			case <-quit:
				return
			default:
			}
			// Errors do not matter here: the pointer moves on the
			// screen whether or not the app still has a window.
			cmd := exec.Command("xdotool", args...)
			cmd.Env = p.a.env
			_ = cmd.Run()
		}
	}()
}

// stop stops the pointer and waits until the mover returned.
func (p *pointer) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.quit == nil {
		return
	}
	close(p.quit)
	<-p.done
	p.quit, p.done = nil, nil
}

// acceptQuit waits for the quit confirmation, then clicks its confirm
// button and goes on moving the pointer across the window at once, in one
// xdotool run: the app quits inside the click's handling, with pointer
// events queued behind it.
func acceptQuit(t *testing.T, a *app, p *pointer) {
	t.Helper()
	p.stop()
	// Off the dialog, so that no button is drawn hovered.
	a.xdo("mousemove", "--sync", strconv.Itoa(p.side.X), strconv.Itoa(p.side.Y))
	var yes image.Point
	a.eventually("the quit confirmation to show", func() (bool, string) {
		img := a.screenshot("confirm")
		b, ok := confirmButton(img)
		if !ok {
			return false, "no confirm button found"
		}
		yes = b
		return true, ""
	})
	g := a.geometry()
	args := append([]string{"mousemove", "--sync", strconv.Itoa(g.X + yes.X), strconv.Itoa(g.Y + yes.Y), "click", "1"}, p.crossings(40)...)
	a.xdo(args...)
	p.start()
}

// primary is the colour of the confirm button: Fyne's default primary
// colour, which the app's themes keep.
var primary = rgb{0x29, 0x6f, 0xf6}

// confirmButton finds the quit confirmation's confirm button in a window
// screenshot, the one area of the primary colour at full strength (the
// dialog's shade dims the focus ring and the sidebar below it), and
// returns its centre.
func confirmButton(img image.Image) (image.Point, bool) {
	r := img.Bounds()
	r = image.Rect(r.Dx()/4, r.Dy()/4, r.Dx()*3/4, r.Dy()*3/4) // the dialog is centred
	b := find(img, r, func(c rgb) bool { return c.close(primary, 12) })
	if b.N < 200 || b.Dx() > 300 || b.Dy() > 80 {
		return image.Point{}, false
	}
	return image.Pt((b.Min.X+b.Max.X)/2, (b.Min.Y+b.Max.Y)/2), true
}
