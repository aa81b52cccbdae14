//go:build !windows

package terminal

import (
	"fmt"
	"os"
	"os/signal"

	"golang.org/x/sys/unix"
)

func init() {
	// size: print the terminal size as "COLSxROWS", then again on every
	// SIGWINCH, until killed.
	helpers["size"] = func([]string) int {
		winch := make(chan os.Signal, 1)
		signal.Notify(winch, unix.SIGWINCH)
		for {
			ws, err := unix.IoctlGetWinsize(int(os.Stdin.Fd()), unix.TIOCGWINSZ)
			if err != nil {
				fmt.Fprintln(os.Stderr, "size:", err)
				return 1
			}
			fmt.Printf("%dx%d\n", ws.Col, ws.Row)
			<-winch
		}
	}
}

// ignoreTermSignals makes the helper ignore SIGHUP and SIGTERM, so that
// only SIGKILL ends it.
func ignoreTermSignals() {
	signal.Ignore(unix.SIGHUP, unix.SIGTERM)
}
