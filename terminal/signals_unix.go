//go:build !windows

package terminal

import (
	"os"
	"os/signal"
	"sync"

	"golang.org/x/sys/unix"
)

// childSignals are the signals that a Go program started with them
// ignored leaves ignored (os/signal: SIGHUP and SIGINT), and that its
// children would therefore inherit ignored. For every other signal the
// runtime installs its own handler, which fork resets to the default.
var childSignals = []os.Signal{unix.SIGHUP, unix.SIGINT}

var childSignalsOnce sync.Once

// defaultChildSignals makes every program a PTY starts begin with the
// default action for hangup and interrupt, even when Paneflow itself was
// started with them ignored (by nohup, or in the background by a
// non-interactive shell, which ignores SIGINT). An ignored signal stays
// ignored across fork and exec, while a signal the runtime handles is
// reset to the default in the child; so each signal ignored here is
// handled instead, by a channel nobody reads. Deliveries to Paneflow are
// dropped, as they were while ignored. Without this a pane started under
// nohup ignored SIGHUP (closing it waited for the SIGKILL after the grace
// period), and with SIGINT ignored Ctrl+C did nothing in it. It runs once
// per process, before the first program starts; it is safe for concurrent
// use.
func defaultChildSignals() {
	childSignalsOnce.Do(func() {
		var ignored []os.Signal
		for _, s := range childSignals {
			if signal.Ignored(s) {
				ignored = append(ignored, s)
			}
		}
		if len(ignored) > 0 {
			signal.Notify(make(chan os.Signal, 1), ignored...)
		}
	})
}
