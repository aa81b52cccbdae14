package termview

import (
	"fyne.io/fyne/v2"

	"github.com/paneflow-go/paneflow/terminal"
)

// Pane is the terminal a View shows and drives. The desktop app adapts a
// workspace surface to it in-process; a socket-backed implementation can
// serve a window attached to a remote core later without touching the
// widget.
//
// Implementations must be safe for concurrent use: the View calls them from
// the Fyne UI goroutine and from its own watcher goroutine.
type Pane interface {
	// Snapshot copies the screen into s, scrolled back by offset lines
	// (0 is the live screen; offsets beyond the scrollback are clamped).
	Snapshot(s *terminal.Snapshot, offset int)
	// HistoryLen is the number of scrollback lines.
	HistoryLen() int
	// Lines returns rows [from, to) of the main buffer as text, row 0 the
	// oldest scrollback line (see terminal.Emulator.Lines).
	Lines(from, to int) []string
	// Watch returns the output generation and a channel closed when it
	// moves past it.
	Watch() (gen uint64, changed <-chan struct{})
	// Bells counts the bells (BEL) the program rang so far.
	Bells() int
	// SendInput queues bytes for the program; it never blocks for long.
	SendInput(p []byte) error
	// Resize sets the terminal size in cells (and the PTY's).
	Resize(cols, rows int) error
	// ClearScrollback drops the scrollback (terminal.Emulator.ClearScrollback).
	ClearScrollback()
	// Reset brings the terminal back to its power-on state
	// (terminal.Emulator.Reset); the program is not told.
	Reset()
}

// KeyHandler sees a key press before the View encodes it for the program.
// It returns true when it consumed the key (an application keybinding such as
// split or focus-left); the View then sends nothing. It is called on the Fyne
// UI goroutine.
type KeyHandler func(key fyne.KeyName, mods fyne.KeyModifier) bool
