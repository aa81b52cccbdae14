package app

import (
	"github.com/paneflow-go/paneflow/app/termview"
	"github.com/paneflow-go/paneflow/terminal"
	"github.com/paneflow-go/paneflow/workspace"
)

// surfacePane shows a workspace surface to a terminal view: reads go to
// the surface's emulator, input and size to its terminal. It is safe for
// concurrent use, as termview.Pane requires.
type surfacePane struct {
	m *workspace.Manager
	s *workspace.Surface
}

var _ termview.Pane = surfacePane{}

// Snapshot copies the screen scrolled back by offset lines.
func (p surfacePane) Snapshot(s *terminal.Snapshot, offset int) {
	p.s.Terminal().Emulator().SnapshotAt(s, offset)
}

// HistoryLen is the number of scrollback lines.
func (p surfacePane) HistoryLen() int { return p.s.Terminal().Emulator().HistoryLen() }

// Lines returns rows [from, to) of the main buffer as text.
func (p surfacePane) Lines(from, to int) []string {
	return p.s.Terminal().Emulator().Lines(from, to)
}

// Watch returns the output generation and its change channel.
func (p surfacePane) Watch() (uint64, <-chan struct{}) { return p.s.Terminal().Emulator().Watch() }

// Bells counts the bells rung so far.
func (p surfacePane) Bells() int { return p.s.Terminal().Emulator().Bells() }

// ClearScrollback drops the surface's scrollback.
func (p surfacePane) ClearScrollback() { p.s.Terminal().Emulator().ClearScrollback() }

// Reset resets the surface's terminal (not its program).
func (p surfacePane) Reset() { p.s.Terminal().Emulator().Reset() }

// SendInput queues bytes for the program.
func (p surfacePane) SendInput(b []byte) error { return p.s.Terminal().SendInput(b) }

// Resize sets the pane's size in cells, clamped to the model's limits (a
// pane whose program exited still reflows).
func (p surfacePane) Resize(cols, rows int) error {
	cols = min(max(cols, 1), workspace.MaxPaneDim)
	rows = min(max(rows, 1), workspace.MaxPaneDim)
	return p.m.Resize(p.s.ID(), cols, rows)
}

// SetOutputGate installs the view's paint gate on the pane's terminal.
func (p surfacePane) SetOutputGate(g terminal.OutputGate) { p.s.Terminal().SetOutputGate(g) }

// ClearOutputGate removes g from the pane's terminal if it is installed.
func (p surfacePane) ClearOutputGate(g terminal.OutputGate) { p.s.Terminal().ClearOutputGate(g) }
