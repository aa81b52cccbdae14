//go:build linux

package keyecho

import (
	"bufio"
	"fmt"
	"image"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// xvfb starts a private Xvfb and returns its display, stopped when the
// test ends. The test is skipped when Xvfb is not installed (scripts/deps.sh
// gui installs it), except under CI.
func xvfb(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("Xvfb"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("Xvfb is not installed (scripts/deps.sh gui installs it)")
		}
		t.Skip("Xvfb is not installed (scripts/deps.sh gui installs it)")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "640x480x24", "-nolisten", "tcp", "-r")
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("Xvfb reported no display: %v", err)
	}
	return ":" + strings.TrimSpace(line)
}

// echoClient is an X client that answers each key press by first
// drawing the same pixels again (damage without a change: black right of
// the square) and then, after delay, filling a square whose colour follows
// the key count.
type echoClient struct {
	x   *xgb.Conn
	win xproto.Window
	gc  xproto.Gcontext
}

func startEchoClient(t *testing.T, display string, delay time.Duration) *echoClient {
	t.Helper()
	x, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(x.Close)
	scr := xproto.Setup(x).DefaultScreen(x)
	win, _ := xproto.NewWindowId(x)
	if err := xproto.CreateWindowChecked(x, scr.RootDepth, win, scr.Root, 10, 10, 200, 100, 0,
		xproto.WindowClassInputOutput, scr.RootVisual, xproto.CwBackPixel|xproto.CwEventMask,
		[]uint32{scr.BlackPixel, xproto.EventMaskKeyPress | xproto.EventMaskExposure}).Check(); err != nil {
		t.Fatal(err)
	}
	pidAtom, err := xproto.InternAtom(x, false, uint16(len("_NET_WM_PID")), "_NET_WM_PID").Reply()
	if err != nil {
		t.Fatal(err)
	}
	pid := make([]byte, 4)
	xgb.Put32(pid, uint32(os.Getpid()))
	xproto.ChangeProperty(x, xproto.PropModeReplace, win, pidAtom.Atom, xproto.AtomCardinal, 32, 1, pid)
	gc, _ := xproto.NewGcontextId(x)
	xproto.CreateGC(x, gc, xproto.Drawable(win), xproto.GcForeground, []uint32{scr.BlackPixel})
	if err := xproto.MapWindowChecked(x, win).Check(); err != nil {
		t.Fatal(err)
	}
	c := &echoClient{x: x, win: win, gc: gc}
	go func() {
		n := uint32(0)
		for {
			ev, xerr := x.WaitForEvent()
			if ev == nil && xerr == nil {
				return
			}
			if _, ok := ev.(xproto.KeyPressEvent); !ok {
				continue
			}
			n++
			// The same black again: a damage notification, no change.
			c.fill(scr.BlackPixel, 100, 0, 100, 100)
			time.Sleep(delay)
			c.fill(0x10000*(n*40%256)|0xff, 20, 20, 40, 40)
		}
	}()
	return c
}

func (c *echoClient) fill(pixel uint32, x, y int16, w, h uint16) {
	xproto.ChangeGC(c.x, c.gc, xproto.GcForeground, []uint32{pixel})
	xproto.PolyFillRectangle(c.x, xproto.Drawable(c.win), c.gc, []xproto.Rectangle{{X: x, Y: y, Width: w, Height: h}})
	xproto.GetInputFocus(c.x).Reply() // flush and wait
}

// TestKeyEcho types keys into a client that draws an unchanged frame at
// once and the change only after a delay: every sample must count to the
// change, never to the unchanged frame.
func TestKeyEcho(t *testing.T) {
	display := xvfb(t)
	const delay = 40 * time.Millisecond
	client := startEchoClient(t, display, delay)

	c, err := Dial(display)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	win, err := c.FindWindow(os.Getpid(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if win != client.win {
		t.Fatalf("FindWindow found %#x, want the client's %#x", win, client.win)
	}
	g, err := c.Geometry(win)
	if err != nil {
		t.Fatal(err)
	}
	if want := image.Rect(10, 10, 210, 110); g != want {
		t.Errorf("Geometry = %v, want %v", g, want)
	}
	if err := c.Focus(win, 5, 5); err != nil {
		t.Fatal(err)
	}
	w, err := c.Watch(win, image.Rectangle{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var samples []time.Duration
	for i := range 5 {
		if _, err := w.Quiet(150*time.Millisecond, 30*time.Second); err != nil {
			t.Fatal(err)
		}
		d, err := w.Key(rune('a'+i), 30*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if d < delay {
			t.Errorf("key %d: %v, shorter than the client's %v before it changed a pixel", i, d, delay)
		}
		samples = append(samples, d)
	}
	s := Summarize(samples)
	if s.N != 5 || s.Median < delay || s.P99 != s.Max {
		t.Errorf("Summarize(%v) = %+v", samples, s)
	}
}

// TestKeyEchoRegion: a change outside the region of interest is not an
// echo; the key times out.
func TestKeyEchoRegion(t *testing.T) {
	display := xvfb(t)
	startEchoClient(t, display, 0)
	c, err := Dial(display)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	win, err := c.FindWindow(os.Getpid(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Focus(win, 5, 5); err != nil {
		t.Fatal(err)
	}
	w, err := c.Watch(win, image.Rect(100, 0, 200, 100)) // the client draws at 20..60
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Quiet(150*time.Millisecond, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if d, err := w.Key('x', 500*time.Millisecond); err == nil {
		t.Errorf("Key saw a change after %v; the client drew outside the region", d)
	}
}

func TestSummarize(t *testing.T) {
	ms := func(n ...int) []time.Duration {
		var d []time.Duration
		for _, v := range n {
			d = append(d, time.Duration(v)*time.Millisecond)
		}
		return d
	}
	samples := ms(100, 1, 2, 3, 4, 5, 6, 7, 8, 9) // 10 samples: p99 is the largest
	got := Summarize(samples)
	want := Stats{N: 10, Median: 6 * time.Millisecond, P99: 100 * time.Millisecond, Max: 100 * time.Millisecond}
	if got != want {
		t.Errorf("Summarize = %+v, want %+v", got, want)
	}
	var many []time.Duration
	for i := 1; i <= 200; i++ {
		many = append(many, time.Duration(i))
	}
	if got := Summarize(many); got.P99 != 198 || got.Median != 101 {
		t.Errorf("200 samples: %+v, want p99 198, median 101", fmt.Sprint(got))
	}
	if got := Summarize(nil); got != (Stats{}) {
		t.Errorf("Summarize(nil) = %+v", got)
	}
}
