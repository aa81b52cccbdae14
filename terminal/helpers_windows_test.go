//go:build windows

package terminal

// ignoreTermSignals does nothing on Windows: PTY.Kill terminates the
// process without a signal a program could ignore.
func ignoreTermSignals() {}
