package proto

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"
)

func TestTurnStarted(t *testing.T) {
	st := func(hooked bool, seq, gen, enters, enterGen uint64) SurfaceStatusResult {
		var s SurfaceStatusResult
		s.Hooked, s.TurnSeq, s.OutputGeneration, s.EnterCount, s.EnterGeneration = hooked, seq, gen, enters, enterGen
		return s
	}
	for _, c := range []struct {
		name        string
		before, now SurfaceStatusResult
		want        string
	}{
		{"hooked agent's own turn", st(true, 3, 10, 1, 9), st(true, 4, 10, 1, 9), StartHookTurn},
		{"hooked agent printed but said nothing", st(true, 3, 10, 1, 9), st(true, 3, 50, 2, 11), ""},
		{"an agent that became hooked counts only its hook", st(false, 0, 10, 1, 9), st(true, 0, 50, 2, 11), ""},
		{"unhooked agent printed after the Enter", st(false, 0, 10, 1, 9), st(false, 0, 12, 2, 11), StartOutputAfterEnter},
		{"unhooked agent: only the echo before the Enter", st(false, 0, 10, 1, 9), st(false, 0, 11, 2, 11), ""},
		{"unhooked agent: no Enter yet", st(false, 0, 10, 1, 9), st(false, 0, 30, 1, 9), ""},
	} {
		if got := TurnStarted(c.before, c.now); got != c.want {
			t.Errorf("%s: TurnStarted = %q, want %q", c.name, got, c.want)
		}
	}
}

// statusSeq is a Caller whose surface.status answers come from a list (the
// last one repeats); any other method fails.
type statusSeq struct {
	mu    sync.Mutex
	seq   []SurfaceStatusResult
	calls int
}

func (s *statusSeq) Call(_ context.Context, method string, _, result any) error {
	if method != MethodSurfaceStatus {
		return errors.New("unexpected " + method)
	}
	s.mu.Lock()
	r := s.seq[min(s.calls, len(s.seq)-1)]
	s.calls++
	s.mu.Unlock()
	b, _ := json.Marshal(r)
	return json.Unmarshal(b, result)
}

func TestConfirmTurnStart(t *testing.T) {
	var before, working SurfaceStatusResult
	before.Hooked, before.TurnSeq = true, 7
	working = before
	working.TurnSeq = 8
	f := &statusSeq{seq: []SurfaceStatusResult{before, before, working}}
	reason, err := Client{Caller: f}.ConfirmTurnStart(context.Background(), 3, before)
	if err != nil || reason != StartHookTurn {
		t.Errorf("ConfirmTurnStart = %q, %v; want %q", reason, err, StartHookTurn)
	}
	if f.calls != 3 {
		t.Errorf("surface.status read %d times, want 3 (it stops at the start)", f.calls)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (Client{Caller: &statusSeq{seq: []SurfaceStatusResult{before}}}).ConfirmTurnStart(ctx, 3, before); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
}

func TestNoTurnStartError(t *testing.T) {
	e := &NoTurnStartError{SurfaceID: 4, Limit: HookConfirmLimit, Hooked: true}
	want := "submit was written to agent pane 4, but no turn start was confirmed within 10000ms (no_hook_turn_start: its hooks reported no new turn)"
	if e.Error() != want || e.Reason() != "no_hook_turn_start" {
		t.Errorf("hooked: %q (%s), want %q", e.Error(), e.Reason(), want)
	}
	e = &NoTurnStartError{SurfaceID: 4, Limit: 3 * time.Second}
	want = "submit was written to agent pane 4, but no turn start was confirmed within 3000ms (no_output_after_enter: it printed nothing after the Enter)"
	if e.Error() != want || e.Reason() != "no_output_after_enter" {
		t.Errorf("unhooked: %q (%s), want %q", e.Error(), e.Reason(), want)
	}
}

// TestReadsInput: an agent reads its input once bracketed paste is on;
// opencode, which turns it on long before, once its window title says
// its TUI is up (its home screen or a session), never on a shell's title.
func TestReadsInput(t *testing.T) {
	oc, _ := AgentByBinary("opencode")
	cl, _ := AgentByBinary("claude")
	tests := []struct {
		a     Agent
		bp    bool
		title string
		want  bool
	}{
		{Agent{}, true, "", true},
		{Agent{}, false, "", false},
		{cl, true, "", true},
		{cl, false, "Claude Code", false},
		{oc, true, "", false},
		{oc, true, "user@host: ~/src", false},
		{oc, true, "OpenCode", true},
		{oc, true, "OC | Fix the login form", true},
		{oc, false, "OpenCode", false},
	}
	for _, tt := range tests {
		if got := tt.a.ReadsInput(tt.bp, tt.title); got != tt.want {
			t.Errorf("%q.ReadsInput(%v, %q) = %v, want %v", tt.a.Binary, tt.bp, tt.title, got, tt.want)
		}
	}
}

// TestTurnWait: the confirmation's deadline counts from the submit or
// from the pane's last output since, whichever is later, and never runs
// past SubmitConfirmMax.
func TestTurnWait(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 4, 51, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	var before SurfaceStatusResult
	before.Hooked, before.OutputGeneration = true, 30
	st := func(gen uint64) SurfaceStatusResult { s := before; s.OutputGeneration = gen; return s }

	w := newTurnWait(t0, before)
	w.saw(at(5*time.Second), st(30))
	if w.expired(at(HookConfirmLimit-time.Millisecond)) || !w.expired(at(HookConfirmLimit)) {
		t.Errorf("quiet hooked agent: deadline %v after the submit, want %v", w.deadline.Sub(t0), HookConfirmLimit)
	}

	// opencode at load 26: its input box cleared 6.5 s after the submit.
	w = newTurnWait(t0, before)
	w.saw(at(6500*time.Millisecond), st(31))
	w.saw(at(6600*time.Millisecond), st(31))
	if want := 6500*time.Millisecond + HookConfirmLimit; w.deadline.Sub(t0) != want {
		t.Errorf("output 6.5 s after the submit: deadline %v, want %v", w.deadline.Sub(t0), want)
	}
	if w.expired(at(HookConfirmLimit)) {
		t.Error("expired at the plain limit although the screen changed since")
	}

	// A screen that never rests: SubmitConfirmMax at most.
	w = newTurnWait(t0, before)
	for d := time.Second; d < 2*SubmitConfirmMax; d += time.Second {
		w.saw(at(d), st(before.OutputGeneration+uint64(d/time.Second)))
	}
	if w.deadline.Sub(t0) != SubmitConfirmMax {
		t.Errorf("busy screen: deadline %v, want %v", w.deadline.Sub(t0), SubmitConfirmMax)
	}

	// An agent without hooks: SubmitConfirmLimit, then a hook speaks.
	var plain SurfaceStatusResult
	w = newTurnWait(t0, plain)
	if w.expired(at(SubmitConfirmLimit-time.Millisecond)) || !w.expired(at(SubmitConfirmLimit)) || w.hooked {
		t.Errorf("unhooked agent: deadline %v, want %v", w.deadline.Sub(t0), SubmitConfirmLimit)
	}
	hooked := plain
	hooked.Hooked = true
	w.saw(at(time.Second), hooked)
	if !w.hooked || w.limit != HookConfirmLimit || w.deadline.Sub(t0) != HookConfirmLimit {
		t.Errorf("a hook spoke: hooked %v, limit %v, deadline %v; want true, %v, %v", w.hooked, w.limit, w.deadline.Sub(t0), HookConfirmLimit, HookConfirmLimit)
	}
}

// TestTurnWaitBusy: a second in which the agent's processes used (or
// waited for) at least half a CPU moves the deadline as output does; a
// waiting TUI's few milliseconds, a demand that went down (a process
// ended) and a server that reports none do not.
func TestTurnWaitBusy(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 23, 10, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	var before SurfaceStatusResult
	before.Hooked, before.OutputGeneration = true, 30
	st := func(cpuMS uint64) SurfaceStatusResult { s := before; s.CPUDemandMS = &cpuMS; return s }

	// Starved opencode: silent for 16 s, a full CPU's demand all along.
	w := newTurnWait(t0, before)
	for d := time.Duration(0); d <= 16*time.Second; d += SubmitPollInterval {
		w.saw(at(d), st(5000+uint64(d.Milliseconds())))
	}
	if w.expired(at(16 * time.Second)) {
		t.Errorf("busy agent: expired at 16 s, deadline %v after the submit", w.deadline.Sub(t0))
	}
	if got, min := w.deadline.Sub(t0), 15*time.Second+HookConfirmLimit; got < min {
		t.Errorf("busy agent: deadline %v after the submit, want at least %v", got, min)
	}

	// The same at 0.6 of a CPU (what BusyShare lets through) and at 0.4.
	for _, tt := range []struct {
		share float64
		busy  bool
	}{{0.6, true}, {0.4, false}} {
		w = newTurnWait(t0, before)
		for d := time.Duration(0); d <= 12*time.Second; d += 100 * time.Millisecond {
			w.saw(at(d), st(uint64(tt.share*float64(d.Milliseconds()))))
		}
		if got := w.expired(at(12 * time.Second)); got == tt.busy {
			t.Errorf("agent at %.1f of a CPU: expired at 12 s: %v, want %v", tt.share, got, !tt.busy)
		}
	}

	// Idle TUI: 20 ms a second of timers and redraws.
	w = newTurnWait(t0, before)
	for d := time.Duration(0); d <= HookConfirmLimit; d += SubmitPollInterval {
		w.saw(at(d), st(900+uint64(d.Milliseconds()/50)))
	}
	if !w.expired(at(HookConfirmLimit)) {
		t.Errorf("idle agent: not expired at %v, deadline %v", HookConfirmLimit, w.deadline.Sub(t0))
	}

	// A demand that went down starts a new stretch: not a busy one.
	w = newTurnWait(t0, before)
	w.saw(at(0), st(10000))
	w.saw(at(1500*time.Millisecond), st(100))
	w.saw(at(2600*time.Millisecond), st(150))
	if w.deadline.Sub(t0) != HookConfirmLimit {
		t.Errorf("demand went down: deadline %v, want %v", w.deadline.Sub(t0), HookConfirmLimit)
	}

	// No demand reported (another system, an older server): as before.
	w = newTurnWait(t0, before)
	for d := time.Duration(0); d <= HookConfirmLimit; d += time.Second {
		w.saw(at(d), before)
	}
	if !w.expired(at(HookConfirmLimit)) {
		t.Errorf("no demand reported: not expired at %v", HookConfirmLimit)
	}

	// Busy for ever: SubmitConfirmMax at most.
	w = newTurnWait(t0, before)
	for d := time.Duration(0); d < 2*SubmitConfirmMax; d += time.Second {
		w.saw(at(d), st(uint64(d.Milliseconds())))
	}
	if w.deadline.Sub(t0) != SubmitConfirmMax {
		t.Errorf("busy for ever: deadline %v, want %v", w.deadline.Sub(t0), SubmitConfirmMax)
	}
}
