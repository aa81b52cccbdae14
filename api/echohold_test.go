//go:build !windows

package api

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/internal/clock"
	"github.com/paneflow-go/paneflow/workspace"
)

// passed runs g.Pass on a goroutine and returns a channel closed when it
// returned.
func passed(g holdGate) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		g.Pass()
		close(ch)
	}()
	return ch
}

// TestEchoHold: after a key into one pane the other panes' output waits
// for echoHoldFor (their program's real output, on the terminal's gate),
// the typed pane's does not; a key into another pane ends the hold at
// once; a next hold starts no sooner than 2 × echoHoldFor after the last.
func TestEchoHold(t *testing.T) {
	fc := clock.NewFake(time.Time{})
	e := newEnv(t, workspace.Options{}, Options{}).withWorkspace(t.TempDir())
	typed, _ := e.m.ActiveSurface()
	other := e.split("exec cat")
	waitStarted := func() {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
		defer cancel()
		select {
		case <-other.Terminal().Started():
		case <-ctx.Done():
			t.Fatal("cat never started")
		}
	}
	waitStarted()
	h := &EchoHold{clock: fc}
	ended := func(ch <-chan struct{}, what string) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(testDeadline):
			t.Fatalf("%s never returned", what)
		}
	}
	// running fails unless the pass of ch waits: it has begun to wait
	// (waits grew past w) and has not returned.
	running := func(ch <-chan struct{}, w int64, what string) {
		t.Helper()
		for deadline := time.Now().Add(testDeadline); h.waits.Load() <= w; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s never waited", what)
			}
		}
		select {
		case <-ch:
			t.Fatalf("%s returned during the hold", what)
		default:
		}
	}

	h.Start(e.m, typed.ID())
	ended(passed(holdGate{h, typed.ID()}), "the typed pane's pass")
	// The other pane's program writes: its output waits at the gate.
	if err := other.Terminal().SendInput([]byte("held-out\r")); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(testDeadline); h.waits.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the other pane's output never reached the hold's gate")
		}
	}
	if s := strings.Join(other.Terminal().Emulator().ScreenLines(), "\n"); strings.Contains(s, "held-out") {
		t.Fatalf("the other pane's output reached its screen during the hold:\n%s", s)
	}
	w := h.waits.Load()
	p := passed(holdGate{h, other.ID()})
	fc.Advance(echoHoldFor - time.Millisecond)
	running(p, w, "the other pane's pass")
	fc.Advance(time.Millisecond)
	ended(p, "the other pane's pass at the hold's end")
	waitText(t, other, "held-out")

	// Within 2 × echoHoldFor of the last start: no hold.
	fc.Advance(echoHoldFor - time.Millisecond)
	h.Start(e.m, typed.ID())
	ended(passed(holdGate{h, other.ID()}), "a pass after a key too soon after the last hold")

	// Later: a hold, which a key into the held pane ends at once.
	fc.Advance(time.Millisecond)
	h.Start(e.m, typed.ID())
	w = h.waits.Load()
	p = passed(holdGate{h, other.ID()})
	running(p, w, "the other pane's pass")
	h.Start(e.m, other.ID())
	ended(p, "the pass of a pane typed into during another's hold")
	ended(passed(holdGate{h, typed.ID()}), "the first pane's pass after a key into another")
}
