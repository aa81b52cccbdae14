package cli

import (
	"os"

	"golang.org/x/sys/windows"
)

// terminalWidth returns 0 on Windows: the live views (flow progress) are
// not drawn there, plain lines are printed instead.
func terminalWidth(any) int { return 0 }

// isTerminal reports whether v is an *os.File open on a console.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	if !ok {
		return false
	}
	var mode uint32
	return windows.GetConsoleMode(windows.Handle(f.Fd()), &mode) == nil
}
