//go:build !windows

package api

import (
	"context"
	"slices"
	"strings"
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

// clockWaits runs surface.wait requests on a clock env one at a time,
// counting the passes of the wait's loop (it arms its timer once per
// pass), so a test knows the wait has seen what it wrote before it moves
// the clock.
type clockWaits struct {
	t    *testing.T
	e    *env
	fc   *clock.Fake
	arms int
}

// start begins a wait and returns once it made its first pass.
func (w *clockWaits) start(params string) <-chan waitReply {
	w.t.Helper()
	ch := w.e.startWait(params)
	w.arms++
	armed(w.t, w.fc, w.arms)
	return ch
}

// write writes output into a pane the running wait watches and does not
// end, and returns once the wait has seen it.
func (w *clockWaits) write(sf *workspace.Surface, out string) {
	w.t.Helper()
	sf.Terminal().Emulator().Write([]byte(out))
	w.arms++
	armed(w.t, w.fc, w.arms)
}

// timeout lets the running wait's timeout pass and checks its error.
func (w *clockWaits) timeout(ch <-chan waitReply, d time.Duration, msg string) {
	w.t.Helper()
	w.fc.Advance(d)
	wantTimeout(w.t, reply(w.t, ch), msg)
}

func TestWaitPattern(t *testing.T) {
	e, fc := newClockEnv(t)
	w := &clockWaits{t: t, e: e, fc: fc}
	sf, _ := e.m.ActiveSurface()
	sf.Terminal().Emulator().Write([]byte("DONE\r\nDONE> "))
	id := itoa(sf.ID())

	// Text on screen before the call never matches, not even left of the
	// cursor on its row.
	w.timeout(w.start(`{"surface_ids":[`+id+`],"pattern":"DONE","timeout_ms":300}`), 300*time.Millisecond, "wait timed out after 0.3s")

	// ^ and $ anchor per line: "xOK" does not match ^OK$.
	ch := w.start(`{"surface_ids":[` + id + `],"pattern":"^OK$","timeout_ms":400}`)
	w.write(sf, "xOK\r\n")
	w.timeout(ch, 400*time.Millisecond, "wait timed out after 0.4s")
	ch = w.start(`{"surface_ids":[` + id + `],"pattern":"^OK$"}`)
	sf.Terminal().Emulator().Write([]byte("OK\r\n"))
	r := reply(t, ch)
	if r.err != nil || !r.res.Matched || r.res.Idle || !slices.Equal(r.res.Panes, []uint64{sf.ID()}) {
		t.Fatalf("wait = %+v, %v; want matched in pane %s", r.res, r.err, id)
	}
	if len(r.res.Matches) != 1 || len(r.res.Matches[0].Lines) == 0 {
		t.Fatalf("matches = %+v", r.res.Matches)
	}
	for _, l := range r.res.Matches[0].Lines {
		if l != "OK" {
			t.Errorf("matching line %q, want only OK lines", l)
		}
	}
}

func TestWaitBaselineRow(t *testing.T) {
	e, fc := newClockEnv(t)
	w := &clockWaits{t: t, e: e, fc: fc}
	sf, _ := e.m.ActiveSurface()
	sf.Terminal().Emulator().Write([]byte("DONE> "))
	id := itoa(sf.ID())
	w.timeout(w.start(`{"surface_ids":[`+id+`],"pattern":"DONE","timeout_ms":300}`), 300*time.Millisecond, "wait timed out after 0.3s")
	// Text echoed on the prompt's row, after the baseline column, matches
	// on that row.
	ch := w.start(`{"surface_ids":[` + id + `],"pattern":"DONE"}`)
	sf.Terminal().Emulator().Write([]byte("DONE"))
	r := reply(t, ch)
	if r.err != nil || !r.res.Matched {
		t.Fatalf("wait = %+v, %v; want a match on the prompt row", r.res, r.err)
	}
	if l := r.res.Matches[0].Lines; len(l) == 0 || !strings.HasPrefix(l[0], "DONE") {
		t.Errorf("matching lines %q, want the new text after the prompt", l)
	}
}

func TestWaitMultiLineAndAltScreen(t *testing.T) {
	e, fc := newClockEnv(t)
	w := &clockWaits{t: t, e: e, fc: fc}
	sf, _ := e.m.ActiveSurface()
	ch := w.start(`{"surface_ids":[` + itoa(sf.ID()) + `],"pattern":"^A1\\nB1$"}`)
	sf.Terminal().Emulator().Write([]byte("A1\r\nB1\r\n"))
	r := reply(t, ch)
	if r.err != nil || !r.res.Matched {
		t.Fatalf("multi-line wait = %+v, %v", r.res, r.err)
	}
	if l := r.res.Matches[0].Lines; len(l) < 2 || l[0] != "A1" || l[1] != "B1" {
		t.Errorf("multi-line matching lines = %q, want [A1 B1 …]", l)
	}

	alt := e.split("")
	alt.Terminal().Emulator().Write([]byte("\x1b[?1049hALTDONE\r\nREADY\r\n"))
	id := itoa(alt.ID())
	w.timeout(w.start(`{"surface_ids":[`+id+`],"pattern":"ALTDONE","timeout_ms":200}`), 200*time.Millisecond, "wait timed out after 0.2s")
	ch = w.start(`{"surface_ids":[` + id + `],"pattern":"ALTDONE"}`)
	alt.Terminal().Emulator().Write([]byte("ALTDONE\r\n"))
	if r = reply(t, ch); r.err != nil || !r.res.Matched {
		t.Fatalf("alt-screen wait = %+v, %v", r.res, r.err)
	}
}

func TestWaitAnyAll(t *testing.T) {
	e, fc := newClockEnv(t)
	w := &clockWaits{t: t, e: e, fc: fc}
	a, b := e.split(""), e.split("")
	ids := itoa(a.ID()) + "," + itoa(b.ID())

	ch := w.start(`{"surface_ids":[` + ids + `],"pattern":"X1","mode":"all","timeout_ms":400}`)
	w.write(a, "X1\r\n")
	w.timeout(ch, 400*time.Millisecond, "wait timed out after 0.4s")

	ch = w.start(`{"surface_ids":[` + ids + `],"pattern":"X2","mode":"all"}`)
	w.write(a, "X2\r\n")
	b.Terminal().Emulator().Write([]byte("X2\r\n"))
	r := reply(t, ch)
	if r.err != nil || !r.res.Matched || !slices.Equal(r.res.Panes, []uint64{a.ID(), b.ID()}) || len(r.res.Matches) != 2 {
		t.Fatalf("all = %+v, %v; want both panes", r.res, r.err)
	}

	ch = w.start(`{"surface_ids":[` + ids + `],"pattern":"X3","mode":"any"}`)
	b.Terminal().Emulator().Write([]byte("X3\r\n"))
	if r = reply(t, ch); r.err != nil || !r.res.Matched || !slices.Equal(r.res.Panes, []uint64{b.ID()}) {
		t.Fatalf("any = %+v, %v; want pane %d", r.res, r.err, b.ID())
	}
}
