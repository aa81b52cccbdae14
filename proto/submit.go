package proto

import (
	"context"
	"fmt"
	"time"
)

// Submit confirmation (spec cli.md §6, made stricter): after a prompt is
// submitted to an agent pane (surface.send_text with submit), the client
// polls surface.status until the agent starts its turn. An agent with
// hooks must say so itself (turn_seq); for one without, output after the
// Enter counts (never the echo of the text, which a TUI prints even when
// the Enter only added a newline). A hook runs as a process the agent
// starts (Gemini CLI's take a second on an idle machine), so a hooked
// agent gets longer. The limit counts from the submit or from the pane's
// last output since then, whichever is later, up to [SubmitConfirmMax]
// in all: an agent still redrawing its screen is still at work on the
// submit (on a machine at load 26, opencode 1.18.33 cleared its input
// box 6.5 s after the Enter and drew its session view 0.3 s later, and
// its hook had not spoken 10 s after the submit). An agent whose
// processes keep a CPU busy is at work too, printing or not: a second in
// which they ran or waited runnable for at least [BusyShare] of it counts
// as output does (opencode 1.18.33 held to 15 % of a CPU took 19 s from
// the Enter to clearing its input box and 28 s more to its first hook,
// printing nothing for 16 s). `paneflow send --submit`, the review verbs
// and the web page's composer all confirm this way.
const (
	SubmitPollInterval = 60 * time.Millisecond
	SubmitConfirmLimit = 3000 * time.Millisecond
	HookConfirmLimit   = 10 * time.Second
	SubmitConfirmMax   = 60 * time.Second
	// BusyWindow is how long a stretch of the agent's CPU demand is
	// judged over; BusyShare the demand per second of it (0.5: half a
	// CPU) that counts as work. A TUI waiting for input wakes for
	// timers and redraws, far below it.
	BusyWindow = time.Second
	BusyShare  = 0.5
)

// The start reasons of a confirmed submit (send's start_reason).
const (
	// StartHookTurn: a hooked agent of the pane started a turn by its
	// own hook (a submitted prompt, or a tool call waking it).
	StartHookTurn = "hook_turn_started"
	// StartOutputAfterEnter: an agent without hooks printed after the
	// Enter.
	StartOutputAfterEnter = "output_after_enter"
)

// TurnStarted reports how now shows a turn started since before (the
// status read before the text was sent): [StartHookTurn],
// [StartOutputAfterEnter] or "". A hooked agent (before or now) counts
// only its own signal; any other agent, output after an Enter sent since
// before.
func TurnStarted(before, now SurfaceStatusResult) string {
	switch {
	case now.TurnSeq > before.TurnSeq:
		return StartHookTurn
	case before.Hooked || now.Hooked:
		return ""
	case now.EnterCount > before.EnterCount && now.OutputGeneration > now.EnterGeneration:
		return StartOutputAfterEnter
	}
	return ""
}

// NoTurnStartError is [Client.ConfirmTurnStart]'s error when the text was
// delivered but the agent showed no turn start within the limit.
type NoTurnStartError struct {
	SurfaceID uint64
	// Limit is the quiet limit that ran out ([SubmitConfirmLimit] or
	// [HookConfirmLimit]): no start within it of the submit or of the
	// pane's last output or busy second after it.
	Limit time.Duration
	// Hooked: the limit was a hooked agent's, whose hooks reported no new
	// turn; else the agent printed nothing after the Enter.
	Hooked bool
}

// Reason is the machine-readable cause: "no_hook_turn_start" or
// "no_output_after_enter".
func (e *NoTurnStartError) Reason() string {
	if e.Hooked {
		return "no_hook_turn_start"
	}
	return "no_output_after_enter"
}

func (e *NoTurnStartError) Error() string {
	why := "it printed nothing after the Enter"
	if e.Hooked {
		why = "its hooks reported no new turn"
	}
	return fmt.Sprintf("submit was written to agent pane %d, but no turn start was confirmed within %dms (%s: %s)", e.SurfaceID, e.Limit.Milliseconds(), e.Reason(), why)
}

// turnWait is [Client.ConfirmTurnStart]'s deadline: limit after the
// submit or after the last change of the pane's output generation seen
// since, whichever is later, and never past [SubmitConfirmMax] after the
// submit. The zero value is not usable: make one with newTurnWait.
type turnWait struct {
	start, deadline time.Time
	limit           time.Duration
	gen             uint64
	hooked          bool
	// The CPU demand (cpu_demand_ms) read at cpuAt, the start of the
	// stretch being judged; cpuAt is zero until a read carried one.
	cpuAt time.Time
	cpu   uint64
}

// newTurnWait starts the wait at start for a submit whose status before
// was before: [HookConfirmLimit] for a hooked agent, [SubmitConfirmLimit]
// for any other.
func newTurnWait(start time.Time, before SurfaceStatusResult) *turnWait {
	w := &turnWait{start: start, limit: SubmitConfirmLimit, gen: before.OutputGeneration, hooked: before.Hooked}
	if before.Hooked {
		w.limit = HookConfirmLimit
	}
	w.deadline = start.Add(w.limit)
	return w
}

// saw takes a status read at now: a hook that spoke meanwhile gives the
// hooked agent's limit, and output since the last read moves the
// deadline to limit after now (capped).
func (w *turnWait) saw(now time.Time, st SurfaceStatusResult) {
	if st.Hooked && !w.hooked {
		w.hooked = true
		w.deadline = w.deadline.Add(HookConfirmLimit - w.limit)
		w.limit = HookConfirmLimit // a hook spoke meanwhile: wait for its turn
	}
	if st.OutputGeneration != w.gen {
		w.gen = st.OutputGeneration
		w.active(now)
	}
	if w.busy(now, st.CPUDemandMS) {
		w.active(now)
	}
	if end := w.start.Add(SubmitConfirmMax); w.deadline.After(end) {
		w.deadline = end
	}
}

// active moves the deadline to the limit after now, a sign of work seen
// then (saw caps it).
func (w *turnWait) active(now time.Time) {
	if d := now.Add(w.limit); d.After(w.deadline) {
		w.deadline = d
	}
}

// busy takes a read of the agent's CPU demand at now (nil: not
// reported) and reports whether a stretch of at least [BusyWindow] just
// ended in which the demand was [BusyShare] of it or more. A demand that
// went down (a process ended) starts a new stretch.
func (w *turnWait) busy(now time.Time, demandMS *uint64) bool {
	if demandMS == nil {
		return false
	}
	d := *demandMS
	if w.cpuAt.IsZero() || d < w.cpu {
		w.cpuAt, w.cpu = now, d
		return false
	}
	span := now.Sub(w.cpuAt)
	if span < BusyWindow {
		return false
	}
	used := time.Duration(d-w.cpu) * time.Millisecond
	w.cpuAt, w.cpu = now, d
	return used.Seconds() >= BusyShare*span.Seconds()
}

// expired reports whether the wait is over at now.
func (w *turnWait) expired(now time.Time) bool { return !now.Before(w.deadline) }

// ConfirmTurnStart polls surface.status every [SubmitPollInterval] until
// the agent in pane id visibly started its turn after a submit (see
// [TurnStarted]), comparing with before, read just before the text was
// sent. It waits [HookConfirmLimit] for a hooked agent (or one whose hook
// speaks while it waits) and [SubmitConfirmLimit] for any other, counted
// from the submit or from the pane's last output or busy second since
// (see [BusyShare]), at most [SubmitConfirmMax] in all (turnWait). It returns the start reason, a
// *[NoTurnStartError] when none was seen in time, or ctx's error. A
// failed status read counts as no start yet.
func (c Client) ConfirmTurnStart(ctx context.Context, id uint64, before SurfaceStatusResult) (string, error) {
	w := newTurnWait(time.Now(), before)
	t := time.NewTicker(SubmitPollInterval)
	defer t.Stop()
	target := Target{SurfaceID: &id}
	var cpuAt time.Time // when the CPU demand was last asked for
	for {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-t.C:
		}
		// The demand is judged a BusyWindow at a time (turnWait.busy),
		// and reading it scans the server's process table: ask once per
		// window, not on every poll.
		p := SurfaceStatusParams{Target: target}
		if at := time.Now(); cpuAt.IsZero() || at.Sub(cpuAt) >= BusyWindow {
			p.CPU, cpuAt = true, at
		}
		if now, err := call[SurfaceStatusResult](ctx, c.Caller, MethodSurfaceStatus, p); err == nil {
			if reason := TurnStarted(before, now); reason != "" {
				return reason, nil
			}
			w.saw(time.Now(), now)
		}
		if w.expired(time.Now()) {
			return "", &NoTurnStartError{SurfaceID: id, Limit: w.limit, Hooked: w.hooked}
		}
	}
}
