package app

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/config"
	"github.com/paneflow-go/paneflow/notify"
	"github.com/paneflow-go/paneflow/proto"
)

// Agent wire states as the conductor publishes them (spec conductor.md §3).
const (
	stateThinking = string(proto.StateThinking)
	stateWaiting  = string(proto.StateWaitingForInput)
	stateFinished = string(proto.StateFinished)
	stateErrored  = string(proto.StateErrored)
	stateStalled  = string(proto.StateStalled)
	stateRunning  = string(proto.StateUnknownRunning)
	stateIdle     = string(proto.StateIdle)
)

// agentKey names one agent in a pane: hooked sessions and scanned
// processes are told apart by tool and pid.
type agentKey struct {
	tool string
	pid  int
}

// agentBoard is what the window knows about the agents in its panes and
// the checks of their worktrees, built from AgentState and ChecksChanged
// events: the state the sidebar and the agents overview list. The zero
// value is empty and ready; it is used on the UI goroutine only.
type agentBoard struct {
	// checks is each worktree's last checks_changed, by root.
	checks map[string]bus.ChecksChanged
	panes  map[uint64]map[agentKey]bus.AgentState
	// since is when each agent entered its current state, as apply saw
	// it; now is the clock (nil: time.Now).
	since map[uint64]map[agentKey]time.Time
	now   func() time.Time
}

// applyChecks records a worktree's checks.
func (b *agentBoard) applyChecks(ev bus.ChecksChanged) {
	if b.checks == nil {
		b.checks = map[string]bus.ChecksChanged{}
	}
	b.checks[ev.Worktree] = ev
}

// apply records ev. An idle (or empty) state without hooks says the
// agent is gone: the conductor publishes it when a session ends or the
// process scan no longer sees the agent. A hooked session that is idle is
// there and listed (fleet.list and `paneflow ps` show it): an agent whose
// hooks announced it and that has had no prompt yet, as every agent with
// a session-start hook is right after it starts (the overview and sidebar
// missed a quick-launched opencode that ps listed).
func (b *agentBoard) apply(ev bus.AgentState) {
	if ev.SurfaceID == 0 {
		return // not bound to a pane: nothing in the window shows it
	}
	if b.panes == nil {
		b.panes = map[uint64]map[agentKey]bus.AgentState{}
	}
	if b.since == nil {
		b.since = map[uint64]map[agentKey]time.Time{}
	}
	k := agentKey{ev.Tool, ev.PID}
	m := b.panes[ev.SurfaceID]
	since := b.since[ev.SurfaceID]
	if ev.State == "" || ev.State == stateIdle && !ev.Hooked {
		delete(m, k)
		delete(since, k)
		if len(m) == 0 {
			delete(b.panes, ev.SurfaceID)
			delete(b.since, ev.SurfaceID)
		}
		return
	}
	if m == nil {
		m = map[agentKey]bus.AgentState{}
		b.panes[ev.SurfaceID] = m
	}
	if since == nil {
		since = map[agentKey]time.Time{}
		b.since[ev.SurfaceID] = since
	}
	// A hooked session replaces what the process scan said about the same
	// tool in the pane.
	if ev.Hooked {
		for key, old := range m {
			if !old.Hooked && key.tool == ev.Tool {
				delete(m, key)
				delete(since, key)
			}
		}
	}
	if old, ok := m[k]; !ok || old.State != ev.State {
		since[k] = b.clock()
	}
	m[k] = ev
}

// clock is the board's time.
func (b *agentBoard) clock() time.Time {
	if b.now != nil {
		return b.now()
	}
	return time.Now()
}

// forget drops the agents of a closed pane.
func (b *agentBoard) forget(surface uint64) {
	delete(b.panes, surface)
	delete(b.since, surface)
}

// salience orders states by how much they need the user.
func salience(state string) int {
	switch state {
	case stateErrored:
		return 6
	case stateWaiting:
		return 5
	case stateStalled:
		return 4
	case stateThinking:
		return 3
	case stateFinished:
		return 2
	case stateRunning:
		return 1
	}
	return 0
}

// status returns the most pressing agent of pane surface.
func (b *agentBoard) status(surface uint64) (bus.AgentState, bool) {
	var best bus.AgentState
	found := false
	for _, ev := range b.panes[surface] {
		if !found || salience(ev.State) > salience(best.State) ||
			(salience(ev.State) == salience(best.State) && (ev.Tool < best.Tool || (ev.Tool == best.Tool && ev.PID < best.PID))) {
			best, found = ev, true
		}
	}
	return best, found
}

// waiting lists the panes whose most pressing agent waits for input.
func (b *agentBoard) waiting() []uint64 {
	var ids []uint64
	for id := range b.panes {
		if st, ok := b.status(id); ok && st.State == stateWaiting {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// count is n and the noun for it: "1 spec", "2 specs" (one and many are
// the noun's two forms).
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// statusLine is the glyph and text the sidebar shows for an agent.
func statusLine(ev bus.AgentState) (glyph, text string) {
	switch ev.State {
	case stateThinking:
		if ev.ActiveToolName != "" {
			return "◐", "thinking… (" + ev.ActiveToolName + ")"
		}
		return "◐", "thinking…"
	case stateWaiting:
		if q := notify.FirstLine(ev.Message, 60); q != "" {
			return "●", "needs input: " + q
		}
		return "●", "needs input"
	case stateFinished:
		return "✓", "done"
	case stateErrored:
		if ev.HasExitCode {
			return "✗", fmt.Sprintf("errored (exit %d)", ev.ExitCode)
		}
		return "✗", "errored"
	case stateStalled:
		return "⚠", "stalled"
	case stateRunning:
		return "○", notify.AgentName(ev.Tool) + " running"
	case stateIdle:
		return "○", notify.AgentName(ev.Tool) + " idle"
	}
	return "○", ev.State
}

// notification decides whether an agent state change deserves a desktop
// notification, and builds it: an agent started waiting for input (with
// its question), finished a turn, errored or stalled, while the window is
// not focused and notifications are not turned off (mode
// config.NotifyNever). pane
// names the pane in the text. It is pure so tests can drive it.
func notification(ev bus.AgentState, windowFocused bool, mode, pane string) (*fyne.Notification, bool) {
	if windowFocused || strings.EqualFold(mode, config.NotifyNever) {
		return nil, false
	}
	title, body, ok := notify.Message(ev, pane)
	if !ok {
		return nil, false
	}
	return fyne.NewNotification(title, body), true
}

// budgetNotification builds the desktop notification of a budget alert:
// a flow run's or step's budget exceeded (its agents paused), the day's
// budget at 80 % or exceeded; the body is the alert's own message. It
// notifies while the window has the focus too (nothing in the window
// shows budgets), unless notifications are off (mode config.NotifyNever).
// It is pure so tests can drive it.
func budgetNotification(ev bus.BudgetAlert, mode string) (*fyne.Notification, bool) {
	if strings.EqualFold(mode, config.NotifyNever) || ev.Message == "" {
		return nil, false
	}
	title := "Budget exceeded"
	switch {
	case ev.Scope == bus.BudgetScopeDay && ev.Level == bus.BudgetWarning:
		title = "Daily budget at 80 %"
	case ev.Scope == bus.BudgetScopeDay:
		title = "Daily budget exceeded"
	case ev.Label != "":
		title += ": " + ev.Label
	}
	body := ev.Message
	if n := len(ev.Paused); n > 0 {
		body += " (" + count(n, "agent", "agents") + " paused)"
	}
	return fyne.NewNotification(title, body), true
}

// windowTitle is the window's title for a number of waiting agents.
func windowTitle(waiting int) string {
	if waiting == 0 {
		return "Paneflow"
	}
	return fmt.Sprintf("Paneflow — %d waiting", waiting)
}
