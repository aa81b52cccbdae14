package cli

// terminalWidth returns 0 on Windows: the live views (flow progress) are
// not drawn there, plain lines are printed instead.
func terminalWidth(any) int { return 0 }
