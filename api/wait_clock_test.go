//go:build !windows

package api

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/internal/clock"
	"github.com/paneflow-go/paneflow/terminal"
	"github.com/paneflow-go/paneflow/workspace"
)

// newClockEnv is an env on a fake clock whose panes run no process
// (terminal.Detached): surface.wait's timeout and idle windows move only
// when the test advances the clock, and output is what the test writes.
func newClockEnv(t *testing.T) (*env, *clock.Fake) {
	t.Helper()
	fc := clock.NewFake(time.Time{})
	start := func(o terminal.Options) (*terminal.Terminal, error) { return terminal.Detached(o, nil), nil }
	e := newEnv(t, workspace.Options{Start: start}, Options{Clock: fc}).withWorkspace(t.TempDir())
	return e, fc
}

// armed waits until surface.wait has armed its timer n times in all
// (once per pass of its loop).
func armed(t *testing.T, fc *clock.Fake, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	if err := fc.BlockUntilArmed(ctx, n); err != nil {
		t.Fatalf("surface.wait never armed its timer %d times: %v", n, err)
	}
}

// reply waits for the wait's reply (it must already be decided).
func reply(t *testing.T, ch <-chan waitReply) waitReply {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(testDeadline):
		t.Fatal("surface.wait never returned")
		return waitReply{}
	}
}

func TestWaitTimeoutOnClock(t *testing.T) {
	e, fc := newClockEnv(t)
	sf, _ := e.m.ActiveSurface()
	// Text on screen before the call never matches.
	sf.Terminal().Emulator().Write([]byte("DONE\r\n"))
	ch := e.startWait(`{"surface_ids":[` + itoa(sf.ID()) + `],"pattern":"DONE","timeout_ms":300}`)
	armed(t, fc, 1)
	fc.Advance(299 * time.Millisecond)
	if n := fc.Pending(); n != 1 {
		t.Fatalf("after 299 ms the wait has %d timers armed, want its one timeout still pending", n)
	}
	fc.Advance(time.Millisecond)
	wantTimeout(t, reply(t, ch), "wait timed out after 0.3s")
}

func TestWaitIdleOnClock(t *testing.T) {
	e, fc := newClockEnv(t)
	quiet, _ := e.m.ActiveSurface()
	quiet2, busy := e.split(""), e.split("")

	// all: both quiet panes idle once 50 ms passed.
	ch := e.startWait(`{"surface_ids":[` + itoa(quiet.ID()) + `,` + itoa(quiet2.ID()) + `],"idle_ms":50,"mode":"all"}`)
	armed(t, fc, 1)
	fc.Advance(50 * time.Millisecond)
	r := reply(t, ch)
	if r.err != nil || !r.res.Idle || r.res.Matched || !slices.Equal(r.res.Panes, []uint64{quiet.ID(), quiet2.ID()}) {
		t.Fatalf("idle all = %+v, %v", r.res, r.err)
	}

	// any: output in the busy pane at 200 ms restarts its idle window,
	// so at 300 ms only the quiet pane is idle.
	ch = e.startWait(`{"surface_ids":[` + itoa(busy.ID()) + `,` + itoa(quiet.ID()) + `],"idle_ms":300}`)
	armed(t, fc, 2)
	fc.Advance(200 * time.Millisecond)
	busy.Terminal().Emulator().Write([]byte("tick\r\n"))
	armed(t, fc, 3) // the wait saw the output
	fc.Advance(100 * time.Millisecond)
	r = reply(t, ch)
	if r.err != nil || !r.res.Idle || !slices.Equal(r.res.Panes, []uint64{quiet.ID()}) {
		t.Fatalf("idle any = %+v, %v; want only the quiet pane", r.res, r.err)
	}

	// all: the busy pane holds the wait until it too was quiet for 300 ms.
	ch = e.startWait(`{"surface_ids":[` + itoa(busy.ID()) + `,` + itoa(quiet.ID()) + `],"idle_ms":300,"mode":"all"}`)
	armed(t, fc, 4)
	fc.Advance(200 * time.Millisecond)
	busy.Terminal().Emulator().Write([]byte("tick\r\n"))
	armed(t, fc, 5)
	fc.Advance(100 * time.Millisecond) // quiet is idle, busy is not: the wait goes on
	armed(t, fc, 6)
	fc.Advance(200 * time.Millisecond)
	r = reply(t, ch)
	if r.err != nil || !r.res.Idle || !slices.Equal(r.res.Panes, []uint64{busy.ID(), quiet.ID()}) {
		t.Fatalf("idle all = %+v, %v; want both panes", r.res, r.err)
	}

	// A sentinel ends an idle wait early, with no time passing.
	ch = e.startWait(`{"surface_ids":[` + itoa(quiet.ID()) + `],"idle_ms":60000,"pattern":"SENTINEL"}`)
	armed(t, fc, 7)
	quiet.Terminal().Emulator().Write([]byte("SENTINEL\r\n"))
	r = reply(t, ch)
	if r.err != nil || !r.res.Matched || r.res.Idle {
		t.Fatalf("idle with sentinel = %+v, %v", r.res, r.err)
	}
}
