package termview

import (
	"sync/atomic"
	"time"

	"github.com/paneflow-go/paneflow/terminal"
)

// outputGater is an optional Pane capability: a gate its terminal passes
// before each read and each parsed chunk of the program's output
// (terminal.Terminal.SetOutputGate and ClearOutputGate). With it the View holds a flood of
// output back while the window paints the frame it just drew.
//
// Why: on a machine with few cores a program that floods its pane keeps
// one busy writing, and the terminal's reader and parser another. Fyne
// paints at most 60 times a second, and with software OpenGL (Mesa
// llvmpipe, as under Xvfb or in a VM) the paint's rasteriser threads then
// get a fraction of a core. Holding the output for the length of the
// paint (not while the frame waits for Fyne's next tick) lets the frame
// out sooner; the reader catches up right after.
type outputGater interface {
	SetOutputGate(g terminal.OutputGate)
	ClearOutputGate(g terminal.OutputGate)
}

// paintHoldMax is how long a paint holds the output back at most: only
// its start, where the main thread uploads the frame and the rasteriser
// threads begin. Holding for the whole paint (10-20 ms under llvmpipe on
// two busy cores) drew 52 frames a second but halved the throughput;
// measured with BenchmarkGUI (400 MB of SGR output into a 200x50 pane
// under Xvfb, two cores): no hold 28 fps at 0.86x the headless
// throughput, 4 ms 37-38 fps at 0.70-0.74x, 6 ms 36-39 fps at 0.70x,
// 8 ms 29-39 fps at 0.53-0.63x, 25 ms 52 fps at 0.36x.
const paintHoldMax = 5 * time.Millisecond

// paintHold is the hold during one paint: done is closed when the paint
// is over, and the hold lapses at until in any case.
type paintHold struct {
	done  chan struct{}
	until time.Time
}

// paintGate holds a View's output back while the window paints a frame the
// View drew. Its methods are safe for concurrent use: drawn, painting and
// release run on the UI goroutine, Pass on the terminal's reader and
// parser.
type paintGate struct {
	hold     atomic.Pointer[paintHold]
	awaiting atomic.Bool // a frame was drawn and its paint has not started
}

// drawn records that a frame was drawn and waits for the window to
// paint it. Output keeps flowing until the paint starts.
func (g *paintGate) drawn() { g.awaiting.Store(true) }

// painting is called from the renderer's Objects, which Fyne calls on its
// way to painting the window. When a drawn frame is waiting, it starts a
// hold and returns it, to be released once the paint is over (with post,
// whose functions run after the paint); otherwise it returns nil.
func (g *paintGate) painting(now time.Time) *paintHold {
	if !g.awaiting.Swap(false) {
		return nil
	}
	h := &paintHold{done: make(chan struct{}), until: now.Add(paintHoldMax)}
	g.hold.Store(h)
	return h
}

// release ends h if it is still the current hold.
func (g *paintGate) release(h *paintHold) {
	if h != nil && g.hold.CompareAndSwap(h, nil) {
		close(h.done)
	}
}

// Pass implements terminal.OutputGate: it blocks while a hold is on, at
// most until the hold lapses.
func (g *paintGate) Pass() {
	h := g.hold.Load()
	if h == nil {
		return
	}
	d := time.Until(h.until)
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-h.done:
	case <-t.C:
	}
}

// stop releases any hold for good.
func (g *paintGate) stop() {
	g.awaiting.Store(false)
	g.release(g.hold.Load())
}
