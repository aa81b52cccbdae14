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
// agent gets longer. `paneflow send --submit`, the review verbs and the
// web page's composer all confirm this way.
const (
	SubmitPollInterval = 60 * time.Millisecond
	SubmitConfirmLimit = 3000 * time.Millisecond
	HookConfirmLimit   = 10 * time.Second
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
	Limit     time.Duration
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

// ConfirmTurnStart polls surface.status every [SubmitPollInterval] until
// the agent in pane id visibly started its turn after a submit (see
// [TurnStarted]), comparing with before, read just before the text was
// sent. It waits [HookConfirmLimit] for a hooked agent (or one whose hook
// speaks while it waits) and [SubmitConfirmLimit] for any other. It
// returns the start reason, a *[NoTurnStartError] when none was seen in
// time, or ctx's error. A failed status read counts as no start yet.
func (c Client) ConfirmTurnStart(ctx context.Context, id uint64, before SurfaceStatusResult) (string, error) {
	limit := SubmitConfirmLimit
	if before.Hooked {
		limit = HookConfirmLimit
	}
	deadline := time.Now().Add(limit)
	t := time.NewTicker(SubmitPollInterval)
	defer t.Stop()
	target := Target{SurfaceID: &id}
	for {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-t.C:
		}
		if now, err := c.SurfaceStatus(ctx, target); err == nil {
			if reason := TurnStarted(before, now); reason != "" {
				return reason, nil
			}
			if now.Hooked && !before.Hooked && limit < HookConfirmLimit {
				limit = HookConfirmLimit // a hook spoke meanwhile: wait for its turn
				deadline = deadline.Add(HookConfirmLimit - SubmitConfirmLimit)
			}
		}
		if !time.Now().Before(deadline) {
			return "", &NoTurnStartError{SurfaceID: id, Limit: limit, Hooked: limit == HookConfirmLimit}
		}
	}
}
