//go:build linux

package gui

import (
	"strings"
	"testing"
)

// TestAttachedWindow: `paneflow-gui --attach` against a running `paneflow
// serve`. The window shows the server's pane and types into it; closing
// the window (SIGTERM: the app quits) detaches: the program in the pane
// keeps running with its state (a line counter), and a second window
// attaches to it again and types on.
func TestAttachedWindow(t *testing.T) {
	x := display(t)
	srv := startServe(t, "100x30")
	// A program with state in the server's pane: it counts the lines it reads.
	srv.mustCLI(nil, "send", "1", `i=0; while read l; do i=$((i+1)); echo "got $i:$l"; done`, "--submit")
	for round, word := range []string{"alpha", "beta"} {
		w := startAttached(t, x, srv)
		w.typeLine("1", word)
		want := "got " + string(rune('1'+round)) + ":" + word
		srv.waitOutput("1", want)
		if err := w.terminate(); err != nil {
			t.Fatalf("window %d: %v", round+1, err)
		}
		// The server answers and the counter still runs.
		raw := srv.readRaw("1")
		if !strings.Contains(raw, want) {
			t.Fatalf("after window %d closed the pane shows:\n%s", round+1, raw)
		}
	}
}
