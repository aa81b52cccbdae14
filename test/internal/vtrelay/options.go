package vtrelay

import (
	"io"
	"os"
)

// Options configures [Run].
type Options struct {
	// Argv is vttest and its arguments; required.
	Argv []string
	// Env is vttest's environment; nil means the relay's own.
	Env []string
	// Control is the harness's socket ([Listener.Path]); required.
	Control string
	// In and Out are the terminal under test; nil means os.Stdin and
	// os.Stdout.
	In, Out *os.File
	// Cols and Rows size the inner terminal; zero means 80×24.
	Cols, Rows int
	// Log receives a line per step, for a harness to show when a run
	// fails; nil discards them.
	Log io.Writer
}
