package termview

import (
	"flag"
	"image"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/paneflow-go/paneflow/app/internal/goldenpng"
	"github.com/paneflow-go/paneflow/terminal"
)

var update = flag.Bool("update", false, "rewrite the golden PNGs in testdata")

// fakePane is a Pane backed by a real emulator (no PTY): tests write
// program output with write and read what the View sent with takeInput.
type fakePane struct {
	emu *terminal.Emulator

	mu      sync.Mutex
	input   []byte
	resizes [][2]int

	snapshots atomic.Int64 // Snapshot calls
}

var (
	_ Pane           = (*fakePane)(nil)
	_ droppedCounter = (*fakePane)(nil)
	_ modeReader     = (*fakePane)(nil)
)

func newFakePane(cols, rows, scrollback int) *fakePane {
	return &fakePane{emu: terminal.NewEmulator(cols, rows, terminal.EmulatorOptions{Scrollback: scrollback})}
}

func (p *fakePane) Snapshot(s *terminal.Snapshot, offset int) {
	p.snapshots.Add(1)
	p.emu.SnapshotAt(s, offset)
}
func (p *fakePane) HistoryLen() int                  { return p.emu.HistoryLen() }
func (p *fakePane) Lines(from, to int) []string      { return p.emu.Lines(from, to) }
func (p *fakePane) Watch() (uint64, <-chan struct{}) { return p.emu.Watch() }
func (p *fakePane) Bells() int                       { return p.emu.Bells() }
func (p *fakePane) DroppedLines() uint64             { return p.emu.DroppedLines() }
func (p *fakePane) Modes() terminal.InputModes       { return p.emu.Modes() }
func (p *fakePane) ClearScrollback()                 { p.emu.ClearScrollback() }
func (p *fakePane) Reset()                           { p.emu.Reset() }

func (p *fakePane) SendInput(b []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.input = append(p.input, b...)
	return nil
}

func (p *fakePane) Resize(cols, rows int) error {
	p.mu.Lock()
	p.resizes = append(p.resizes, [2]int{cols, rows})
	p.mu.Unlock()
	p.emu.Resize(cols, rows)
	return nil
}

// write feeds program output.
func (p *fakePane) write(s string) { _, _ = p.emu.Write([]byte(s)) }

// takeInput returns and clears what the View sent.
func (p *fakePane) takeInput() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := string(p.input)
	p.input = nil
	return s
}

func (p *fakePane) lastResize() [2]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.resizes) == 0 {
		return [2]int{}
	}
	return p.resizes[len(p.resizes)-1]
}

// harness is a View in a test window sized to cols×rows cells.
type harness struct {
	t    testing.TB
	v    *View
	p    *fakePane
	w    fyne.Window
	cw   float32 // cell size in widget units
	ch   float32
	cols int
	rows int
}

func newHarness(t testing.TB, cols, rows int, o Options) *harness {
	return newHarnessSB(t, cols, rows, 1000, o)
}

// newHarnessSB is newHarness with a scrollback size.
func newHarnessSB(t testing.TB, cols, rows, scrollback int, o Options) *harness {
	t.Helper()
	test.NewTempApp(t)
	p := newFakePane(cols, rows, scrollback)
	v := New(p, o)
	t.Cleanup(v.Close)
	w := test.NewTempWindow(t, v)
	w.SetPadded(false)
	cw, ch := v.fonts.CellSize()
	w.Resize(fyne.NewSize(float32(cols*cw), float32(rows*ch)))
	h := &harness{t: t, v: v, p: p, w: w, cw: float32(cw), ch: float32(ch), cols: cols, rows: rows}
	if got := p.lastResize(); got != [2]int{cols, rows} {
		t.Fatalf("pane resized to %v, want %dx%d", got, cols, rows)
	}
	return h
}

// waitFor polls cond (on the test goroutine) until it holds, failing
// after a generous bound. It is not a timed assertion: it only bounds how
// long a broken build takes to fail.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// output writes program output and waits until the View drew it.
func (h *harness) output(s string) {
	h.t.Helper()
	h.p.write(s)
	h.settle()
}

// settle waits until the View has drawn the emulator's latest output.
func (h *harness) settle() {
	h.t.Helper()
	waitFor(h.t, "frame", func() bool {
		g, _ := h.p.emu.Watch()
		return h.v.drawnGen.Load() == g && !h.v.pending.Load()
	})
}

// pos returns the widget position of the middle of cell (col, row).
func (h *harness) pos(col, row int) fyne.Position {
	return fyne.NewPos((float32(col)+0.5)*h.cw, (float32(row)+0.5)*h.ch)
}

// capture renders the window with the View's state locked (the test
// driver's painter reads the View's image).
func (h *harness) capture() image.Image {
	h.v.mu.Lock()
	defer h.v.mu.Unlock()
	return h.w.Canvas().Capture()
}

// clipboardText returns the test app's clipboard.
func clipboardText() string { return fyne.CurrentApp().Clipboard().Content() }

// assertGolden compares img with testdata/<name>.png (rewritten with
// -update) exactly.
func assertGolden(t testing.TB, name string, img image.Image) {
	t.Helper()
	goldenpng.Check(t, "testdata", name, img, *update, 0)
}
