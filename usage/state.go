package usage

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/proto"
)

// paneUsage is what one pane's agent used: its current session and its
// current or last turn. Guarded by Usage.mu.
type paneUsage struct {
	workspaceID uint64
	key         sessionKey // the session counted in session
	model       string
	session     Totals
	turn        Totals
	dirty       bool // a usage_changed is due
}

// run is a flow run (or workspace spec) whose panes usage.track tagged,
// with its budgets. Guarded by Usage.mu.
type run struct {
	id, label string
	steps     map[uint64]string // surface → step ("" for none)
	total     Totals
	budget    *budget            // the whole run's; nil: none
	stepCaps  map[string]*budget // by step
	// alerts are the budgets of the run that were exceeded, in order;
	// usage.budget_wait hands them out.
	alerts  []bus.BudgetAlert
	changed chan struct{} // closed and replaced when alerts grows or at shutdown
}

// wake wakes the run's budget waiters.
func (r *run) wake() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// budget is one limit over some panes' usage. Guarded by Usage.mu.
type budget struct {
	limit    Limit
	used     Totals
	exceeded bool
}

// dailyState is where the day's budget stands. Guarded by Usage.mu.
type dailyState struct {
	day      string
	warned   bool
	exceeded bool
}

// action is a pause a budget decided: the panes whose agents are to be
// interrupted, and the alert to publish once they were.
type action struct {
	panes []uint64
	alert bus.BudgetAlert
	run   *run // the run whose waiters get the alert, if any
}

// sessionStartedLocked makes s the session a pane's figures count: a new
// agent process in the pane starts from zero.
func (u *Usage) sessionStartedLocked(s *session) {
	if s.key.surface == 0 {
		return
	}
	p := u.paneLocked(s.key.surface)
	if p.key != s.key {
		p.key, p.model, p.session, p.turn, p.dirty = s.key, "", Totals{}, Totals{}, true
	}
	if s.workspaceID != 0 {
		p.workspaceID = s.workspaceID
	}
}

func (u *Usage) paneLocked(id uint64) *paneUsage {
	p := u.panes[id]
	if p == nil {
		p = &paneUsage{}
		u.panes[id] = p
	}
	return p
}

// turnStarted starts a pane's last turn from zero (on the loop).
func (u *Usage) turnStarted(s *session) {
	if s == nil || s.key.surface == 0 {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if p := u.panes[s.key.surface]; p != nil && p.key == s.key {
		p.turn, p.dirty = Totals{}, true
	}
}

// forgetPaneLocked drops what is kept per pane once it closed; its
// workspace, run and day keep its usage.
func (u *Usage) forgetPaneLocked(id uint64) {
	delete(u.panes, id)
}

// countLocked counts one record of session p.s, whose pane is info.
func (u *Usage) countLocked(p pending, info PaneInfo, now time.Time) {
	s, rec := p.s, p.rec
	if !rec.At.IsZero() && rec.At.Before(s.since.Add(-sinceSlack)) {
		return // from before the session: a resumed session's history
	}
	t := Totals{Tokens: rec.Tokens, Calls: 1}
	if price, ok := u.prices.Lookup(rec.Model); ok {
		t.Cost, t.Priced = price.cost(rec.Tokens), true
	} else if rec.AgentCost > 0 {
		t.Cost, t.Priced = rec.AgentCost, true // what the agent itself reckoned
	} else {
		t.Unpriced = rec.Tokens.Total()
	}
	at := rec.At
	if at.IsZero() {
		at = now
	}
	wsID := info.WorkspaceID
	if wsID == 0 {
		wsID = s.workspaceID
	}
	if id := s.key.surface; id != 0 {
		pu := u.paneLocked(id)
		if pu.key != s.key {
			// The pane's figures follow its latest session; an older
			// one's late records count for the workspace and the day.
			if pu.key == (sessionKey{}) {
				pu.key = s.key
			}
		}
		if pu.key == s.key {
			pu.session, pu.turn = pu.session.add(t), pu.turn.add(t)
			if rec.Model != "" {
				pu.model = rec.Model
			}
			pu.dirty = true
		}
		if wsID != 0 {
			pu.workspaceID = wsID
		}
	}
	if wsID != 0 {
		u.spaces[wsID] = u.spaces[wsID].add(t)
	}
	k := key{Tool: s.key.tool, Model: rec.Model, Workspace: info.Workspace}
	if r := u.paneRuns[s.key.surface]; r != nil && s.key.surface != 0 {
		k.Flow, k.Run = r.label, r.id
		r.total = r.total.add(t)
		if r.budget != nil {
			r.budget.used = r.budget.used.add(t)
		}
		if b := r.stepCaps[r.steps[s.key.surface]]; b != nil {
			b.used = b.used.add(t)
		}
	}
	u.ledger.add(at, k, t)
}

// checkLocked finds the budgets crossed by what was counted: each run's
// and step's, and the day's.
func (u *Usage) checkLocked(now time.Time) []action {
	var acts []action
	for _, r := range u.runs {
		if b := r.budget; b != nil && !b.exceeded && b.limit.reached(b.used, 1) {
			b.exceeded = true
			panes := slices.Sorted(maps.Keys(r.steps))
			acts = append(acts, action{panes: panes, run: r, alert: bus.BudgetAlert{
				Level: bus.BudgetExceeded, Scope: bus.BudgetScopeRun, Run: r.id, Label: r.label, SurfaceIDs: panes,
				Used: b.used.Wire(), LimitTokens: b.limit.Tokens, LimitCostUSD: b.limit.Cost.USD(),
				Message: fmt.Sprintf("budget exceeded: %s used %s of its %s", runName(r), describe(b.used), describeLimit(b.limit)),
			}})
		}
		for _, step := range slices.Sorted(maps.Keys(r.stepCaps)) {
			b := r.stepCaps[step]
			if b.exceeded || !b.limit.reached(b.used, 1) {
				continue
			}
			b.exceeded = true
			var panes []uint64
			for id, st := range r.steps {
				if st == step {
					panes = append(panes, id)
				}
			}
			slices.Sort(panes)
			acts = append(acts, action{panes: panes, run: r, alert: bus.BudgetAlert{
				Level: bus.BudgetExceeded, Scope: bus.BudgetScopeStep, Run: r.id, Step: step, Label: r.label, SurfaceIDs: panes,
				Used: b.used.Wire(), LimitTokens: b.limit.Tokens, LimitCostUSD: b.limit.Cost.USD(),
				Message: fmt.Sprintf("budget exceeded: step '%s' of %s used %s of its %s", step, runName(r), describe(b.used), describeLimit(b.limit)),
			}})
		}
	}
	if u.o.Daily.none() {
		return acts
	}
	today := u.ledger.dayName(now)
	if u.daily.day != today {
		u.daily = dailyState{day: today}
	}
	used := u.ledger.total(today)
	alert := bus.BudgetAlert{Scope: bus.BudgetScopeDay, Label: today, Used: used.Wire(), LimitTokens: u.o.Daily.Tokens, LimitCostUSD: u.o.Daily.Cost.USD()}
	switch {
	case !u.daily.exceeded && u.o.Daily.reached(used, 1):
		u.daily.exceeded, u.daily.warned = true, true
		alert.Level = bus.BudgetExceeded
		alert.Message = fmt.Sprintf("daily budget exceeded: %s used %s of its %s", today, describe(used), describeLimit(u.o.Daily))
		a := action{alert: alert}
		if u.o.DailyPause {
			a.panes = []uint64{0} // every working agent, decided on the loop
			a.alert.Message += "; working agents paused"
		}
		acts = append(acts, a)
	case !u.daily.warned && u.o.Daily.reached(used, 0.8):
		u.daily.warned = true
		alert.Level = bus.BudgetWarning
		alert.Message = fmt.Sprintf("daily budget at 80 %%: %s used %s of its %s", today, describe(used), describeLimit(u.o.Daily))
		acts = append(acts, action{alert: alert})
	}
	return acts
}

// act carries out the budgets' decisions (on the loop, unlocked):
// interrupts the agents still working in their panes, then publishes the
// alerts and hands them to the runs' waiters.
func (u *Usage) act(acts []action) {
	for _, a := range acts {
		var paused []uint64
		targets := a.panes
		if len(targets) == 1 && targets[0] == 0 {
			targets = nil
			targets = slices.Sorted(maps.Keys(u.working))
		}
		for _, id := range targets {
			if s := u.workingIn(id); s != nil {
				if err := u.o.Panes.Press(id, proto.InterruptKeys(s.key.tool, u.o.Panes.Interactive(id))...); err != nil {
					u.o.Logf("paneflow: usage: pausing the agent in pane %d: %v", id, err)
					continue
				}
				paused = append(paused, id)
			}
		}
		a.alert.Paused = paused
		u.o.Logf("paneflow: %s", a.alert.Message)
		if a.run != nil {
			u.mu.Lock()
			a.run.alerts = append(a.run.alerts, a.alert)
			a.run.wake()
			u.mu.Unlock()
		}
		if u.o.Bus != nil {
			u.o.Bus.Publish(a.alert)
		}
	}
}

// workingIn returns a session at work in pane id: the one a pause
// interrupts.
func (u *Usage) workingIn(id uint64) *session {
	if !u.working[id] {
		return nil
	}
	for _, s := range u.sessions {
		if s.key.surface == id && !s.ending {
			return s
		}
	}
	return nil
}

// flushEventsLocked returns the usage_changed events due, one per pane
// whose figures changed.
func (u *Usage) flushEventsLocked() []bus.Event {
	var evs []bus.Event
	for _, id := range slices.Sorted(maps.Keys(u.panes)) {
		p := u.panes[id]
		if !p.dirty {
			continue
		}
		p.dirty = false
		evs = append(evs, bus.UsageChanged{SurfaceID: id, WorkspaceID: p.workspaceID, Tool: p.key.tool, Model: p.model,
			Session: p.session.Wire(), LastTurn: p.turn.Wire(), Workspace: u.spaces[p.workspaceID].Wire()})
	}
	return evs
}

// ledgerDueLocked reports whether the day files should be written now.
func (u *Usage) ledgerDueLocked(now time.Time) bool {
	return now.Sub(u.savedAt) >= saveEvery
}

// runName is how an alert names a run.
func runName(r *run) string {
	if r.label != "" {
		return fmt.Sprintf("'%s' (run %s)", r.label, r.id)
	}
	return "run " + r.id
}

// describe says what t used, briefly: tokens, and cost when known.
func describe(t Totals) string {
	s := fmt.Sprintf("%d tokens", t.Total())
	if t.Priced {
		s += fmt.Sprintf(" ($%.4f)", t.Cost.USD())
	}
	return s
}

// describeLimit says what l limits.
func describeLimit(l Limit) string {
	var parts []string
	if l.Tokens > 0 {
		parts = append(parts, fmt.Sprintf("%d tokens", l.Tokens))
	}
	if l.Cost > 0 {
		parts = append(parts, fmt.Sprintf("$%.4f", l.Cost.USD()))
	}
	return "limit of " + strings.Join(parts, " or ")
}
