//go:build !windows

package terminal

import (
	"strings"
	"testing"
	"time"
)

// TestIdleTerminalDropsBurstBuffer holds every parse slot while a program
// writes a burst, so the reader's buffer grows past keepBuffer, then lets
// the output be parsed, has the program print one more line and checks
// that once the pane is idle neither buffer is of that size any more: the
// burst's buffers were dropped, not handed back and forth.
func TestIdleTerminalDropsBurstBuffer(t *testing.T) {
	for range cap(parseSlots) {
		parseSlots <- struct{}{}
	}
	held := cap(parseSlots)
	release := func() {
		for ; held > 0; held-- {
			<-parseSlots
		}
	}
	defer release()
	term, err := Start(Options{Argv: []string{"/bin/sh", "-c", `head -c 400000 /dev/zero | tr '\0' a; echo; echo END-OF-BURST; read x; echo SECOND-$x; exec sleep 100`}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { term.Close() })
	<-term.Started()
	deadline := time.Now().Add(30 * time.Second)
	for {
		term.outMu.Lock()
		n := len(term.out)
		term.outMu.Unlock()
		if n > keepBuffer {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the reader's buffer holds %d bytes after 30 s, want more than %d", n, keepBuffer)
		}
		time.Sleep(5 * time.Millisecond)
	}
	release()
	waitScreen(t, term, "the end of the burst", func(s string) bool { return strings.Contains(s, "END-OF-BURST") })
	if err := term.SendInput([]byte("LINE\r")); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, term, "the second line", func(s string) bool { return strings.Contains(s, "SECOND-LINE") })
	// The buffers go once the pane has been idle for keepIdle.
	deadline = time.Now().Add(30 * time.Second)
	for {
		term.outMu.Lock()
		c, sp := cap(term.out), cap(term.spare)
		term.outMu.Unlock()
		if c <= keepBuffer && sp <= keepBuffer {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("an idle terminal still keeps %d- and %d-byte output buffers after 30 s, want at most %d", c, sp, keepBuffer)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
