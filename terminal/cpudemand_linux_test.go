package terminal

import (
	"strings"
	"testing"
	"time"
)

// TestForegroundCPUDemand: a program blocked reading its input adds
// nothing to the demand; once it spins, the demand grows, whether it runs
// or waits for a CPU on a loaded machine.
func TestForegroundCPUDemand(t *testing.T) {
	term, err := Start(Options{Argv: []string{"/bin/sh", "-c", "echo ready; read x; while :; do :; done"}, Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { term.Close() })
	waitScreen(t, term, "ready", func(s string) bool { return strings.Contains(s, "ready") })
	demand := func() time.Duration {
		t.Helper()
		d, ok := term.ForegroundCPUDemand()
		if !ok {
			t.Fatal("ForegroundCPUDemand: not reported")
		}
		return d
	}
	// Blocked in read (once it got there: "ready" comes first), the shell
	// neither runs nor waits to: a 200 ms stretch without growth.
	deadline := time.Now().Add(30 * time.Second)
	for {
		before := demand()
		time.Sleep(200 * time.Millisecond)
		grew := demand() - before
		if grew < time.Millisecond {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("blocked in read: the demand still grew by %v in 200 ms", grew)
		}
	}
	term.SendInput([]byte("go\n"))
	start := demand()
	deadline = time.Now().Add(30 * time.Second)
	for demand()-start < 300*time.Millisecond {
		if time.Now().After(deadline) {
			t.Fatalf("spinning: the demand grew by %v in 30 s", demand()-start)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
