package termview

import (
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/paneflow-go/paneflow/terminal"
)

// passReturns calls g.Pass on a goroutine and returns a channel closed
// when Pass returns (a hold lapses after paintHoldMax, so a held Pass
// returns too, only later).
func passReturns(g *paintGate) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		g.Pass()
		close(done)
	}()
	return done
}

func TestPaintGate(t *testing.T) {
	var g paintGate
	<-passReturns(&g) // no hold: passes

	if h := g.painting(time.Now()); h != nil {
		t.Fatal("a paint with no frame drawn started a hold")
	}

	g.drawn()
	<-passReturns(&g) // drawn but not painting yet: output still flows

	h := g.painting(time.Now().Add(time.Hour)) // a hold that cannot lapse during the test
	if h == nil {
		t.Fatal("the paint of a drawn frame started no hold")
	}
	if g.painting(time.Now()) != nil {
		t.Fatal("a second paint of the same frame started another hold")
	}
	done := passReturns(&g)
	select {
	case <-done:
		t.Fatal("Pass returned during the paint's hold")
	case <-time.After(20 * time.Millisecond):
	}
	g.release(h)
	<-done // released: the held Pass returns

	// A stale release does not end a newer hold.
	g.drawn()
	h2 := g.painting(time.Now().Add(time.Hour))
	g.release(h)
	if g.hold.Load() != h2 {
		t.Fatal("releasing an old hold ended the current one")
	}
	g.stop()
	<-passReturns(&g)
	if g.hold.Load() != nil {
		t.Fatal("stop left a hold on")
	}
}

// TestPaintGateLapses checks that a hold nobody releases ends by itself.
func TestPaintGateLapses(t *testing.T) {
	var g paintGate
	g.drawn()
	if g.painting(time.Now()) == nil {
		t.Fatal("no hold")
	}
	<-passReturns(&g) // returns after paintHoldMax without a release
}

// gatedPane is a fakePane whose "terminal" takes an output gate.
type gatedPane struct {
	*fakePane
	mu   sync.Mutex
	gate terminal.OutputGate
}

func (p *gatedPane) SetOutputGate(g terminal.OutputGate) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gate = g
}

func (p *gatedPane) ClearOutputGate(g terminal.OutputGate) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gate == g {
		p.gate = nil
	}
}

func (p *gatedPane) installed() terminal.OutputGate {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gate
}

// TestViewPaintGate checks the wiring: the View installs its gate on a
// pane that takes one, a drawn frame's paint (the renderer's Objects)
// holds the output and the function it posts releases it, and Close takes
// the gate away.
func TestViewPaintGate(t *testing.T) {
	test.NewTempApp(t)
	p := &gatedPane{fakePane: newFakePane(20, 5, 100)}
	// Posted functions are recorded, not run: the watcher's frame
	// requests among them, which this test draws by hand instead.
	var mu sync.Mutex
	var posted []func()
	post := func(f func()) {
		mu.Lock()
		defer mu.Unlock()
		posted = append(posted, f)
	}
	nposted := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(posted)
	}
	v := newView(p, Options{}, post)
	w := test.NewTempWindow(t, v)
	cw, ch := v.fonts.CellSize()
	w.Resize(fyne.NewSize(float32(20*cw), float32(5*ch)))
	if p.installed() != terminal.OutputGate(&v.gate) {
		t.Fatalf("installed gate = %v, want the View's", p.installed())
	}
	p.write("hello")
	// The watcher posts one frame for the output and then waits for it to
	// run, which it never does here: no other post can come in between.
	waitFor(t, "the watcher to post a frame", v.pending.Load)
	v.mu.Lock()
	rows := v.drawLocked()
	v.mu.Unlock()
	if rows == 0 {
		t.Fatal("the frame drew no rows")
	}
	before := nposted()
	test.WidgetRenderer(v).Objects() // Fyne on its way to paint
	if v.gate.hold.Load() == nil || nposted() != before+1 {
		t.Fatalf("the paint of a drawn frame: hold %v, %d posted functions; want a hold and one release", v.gate.hold.Load(), nposted()-before)
	}
	mu.Lock()
	release := posted[before]
	mu.Unlock()
	test.WidgetRenderer(v).Objects() // another walk in the same tick
	if nposted() != before+1 {
		t.Fatalf("a second walk posted another release")
	}
	release() // after the paint
	if v.gate.hold.Load() != nil {
		t.Fatal("the posted release left the hold on")
	}
	v.Close()
	if p.installed() != nil {
		t.Fatal("Close left the gate installed")
	}
}
