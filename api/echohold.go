package api

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/paneflow-go/paneflow/internal/clock"
	"github.com/paneflow-go/paneflow/terminal"
	"github.com/paneflow-go/paneflow/workspace"
)

// echoHoldFor is how long the echo hold holds the other panes' output
// after a key: the echo's way through the program, the server, the
// socket and the window's paint (BenchmarkKeyEcho, attached window with a
// flooding neighbour: 25-40 ms idle at load 20-100).
const echoHoldFor = 40 * time.Millisecond

// EchoHold holds the output of every pane but one for echoHoldFor after a
// window's key was typed into that one (screen.input for an attached
// window; the core's HoldEcho for the window hosting it): on a machine with
// few cores a pane flooding output (its program, the server's reader and
// parser) otherwise takes the processor time the key's echo needs, in the
// program, in the server and in the window's paint. A held pane's program
// blocks on its full terminal meanwhile, as it does whenever its reader
// is slower than it. Holds start at most every 2 × echoHoldFor, so a held
// pane keeps at least half its time however fast the keys come, and a key
// into another pane ends the hold at once. Its zero value is ready (on
// the real clock) and holds nothing; it is safe for concurrent use.
type EchoHold struct {
	clock clock.Clock
	cur   atomic.Pointer[held] // the hold that is on, or nil
	// waits counts the passes that waited for a hold (for tests).
	waits atomic.Int64

	mu   sync.Mutex
	next time.Time // the earliest start of the next hold, guarded by mu
}

// held is one hold: every pane's output but pane's waits until done is
// closed.
type held struct {
	pane uint64
	done chan struct{}
}

// Start holds every pane's output but pane's output for echoHoldFor,
// unless a hold for pane is on or one ended less than echoHoldFor ago;
// a hold for another pane ends now. It installs the hold's gate on every
// pane of m (once per pane). Call it before the key goes to pane's
// program.
func (h *EchoHold) Start(m *workspace.Manager, pane uint64) {
	clk := clock.Or(h.clock)
	now := clk.Now()
	h.mu.Lock()
	if c := h.cur.Load(); c != nil && c.pane != pane {
		h.endLocked(c)
	}
	if h.cur.Load() != nil || now.Before(h.next) {
		h.mu.Unlock()
		return
	}
	c := &held{pane: pane, done: make(chan struct{})}
	h.cur.Store(c)
	h.next = now.Add(2 * echoHoldFor)
	h.mu.Unlock()
	for _, pl := range m.Panes() {
		if sf, ok := m.Surface(pl.ID); ok {
			sf.Terminal().SetOutputGate(holdGate{h, pl.ID})
		}
	}
	clk.AfterFunc(echoHoldFor, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.endLocked(c)
	})
}

// endLocked ends hold c if it is still on. h.mu must be held.
func (h *EchoHold) endLocked(c *held) {
	if h.cur.CompareAndSwap(c, nil) {
		close(c.done)
	}
}

// holdGate is the echo hold's gate on pane id's terminal.
type holdGate struct {
	h  *EchoHold
	id uint64
}

var _ terminal.OutputGate = holdGate{}

// Pass implements terminal.OutputGate: it waits while a hold for another
// pane is on (at most echoHoldFor).
func (g holdGate) Pass() {
	if c := g.h.cur.Load(); c != nil && c.pane != g.id {
		g.h.waits.Add(1)
		<-c.done
	}
}
