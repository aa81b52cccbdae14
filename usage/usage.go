package usage

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/internal/clock"
	"github.com/paneflow-go/paneflow/subsystem"
)

// Panes is what the usage subsystem needs of the workspace model; core
// implements it over the model. Its methods are called from the
// subsystem's goroutine, never with its lock held.
type Panes interface {
	// Pane describes an open pane; ok is false for one that is closed.
	Pane(surfaceID uint64) (info PaneInfo, ok bool)
	// Interactive reports whether the pane's program reads keys as a
	// full-screen program does (its terminal has bracketed paste on): an
	// agent's TUI, not its print mode.
	Interactive(surfaceID uint64) bool
	// Press types keys, each named as `paneflow key` names them, into
	// the pane. It is Paneflow's own action (a budget's pause), so the
	// scripting gate does not apply.
	Press(surfaceID uint64, keys ...string) error
}

// PaneInfo is what [Panes.Pane] tells of a pane.
type PaneInfo struct {
	WorkspaceID uint64
	Workspace   string // the workspace's title
}

// Limit is a budget's limits: tokens (all kinds, Tokens.Total) and cost.
// A zero field is no limit on that; the zero Limit limits nothing.
type Limit struct {
	Tokens int64
	Cost   Nanos
}

// none reports whether l limits nothing.
func (l Limit) none() bool { return l.Tokens <= 0 && l.Cost <= 0 }

// reached reports whether t has used frac (1: all) of l in tokens or in
// cost.
func (l Limit) reached(t Totals, frac float64) bool {
	return l.Tokens > 0 && float64(t.Total()) >= frac*float64(l.Tokens) ||
		l.Cost > 0 && t.Priced && float64(t.Cost) >= frac*float64(l.Cost)
}

// Defaults of [Options].
const (
	// hotFor is how long after an agent's hook frame or state change its
	// records are polled every hotEvery: agents write a response's usage
	// around the hooks it fires (Codex writes its token count after the
	// tool call the response asked for).
	hotFor    = 4 * time.Second
	hotEvery  = 500 * time.Millisecond
	workEvery = time.Second     // while an agent works
	idleEvery = 5 * time.Second // while a session lasts
	// endGrace is how long an ended session's records are still read:
	// an agent's last lines follow its last hook.
	endGrace = 3 * time.Second
	// saveEvery bounds how often the day files are written.
	saveEvery = 5 * time.Second
	// pollBudget is how much of one file a poll reads: a large backlog
	// is read over several polls, never in one long pass.
	pollBudget = 4 << 20
	// sinceSlack widens a session's start for records stamped by another
	// clock's rounding (agents stamp milliseconds).
	sinceSlack = time.Second
)

// Options configures [New].
type Options struct {
	// Bus is where the subsystem learns of agents (the conductor's ai.*
	// and agent_state events, pane closes) and publishes usage_changed and
	// budget_alert; nil means the host's.
	Bus *bus.Bus
	// Panes reaches the model; required.
	Panes Panes
	// Prices prices the tokens; the zero value means NewPrices(nil), the
	// defaults.
	Prices Prices
	// Dir holds the day files (<Dir>/<YYYY-MM-DD>.json); "" keeps the
	// usage in memory only.
	Dir string
	// Daily is the day's budget (the configuration's
	// [usage.daily_budget]): a warning at 80 %, and at 100 % the working
	// agents are paused when DailyPause is set.
	Daily      Limit
	DailyPause bool
	// Clock times the polls and stamps usage without a time of its own;
	// nil means the host's, else the system clock.
	Clock clock.Clock
	// Location is where days begin; nil means time.Local.
	Location *time.Location
	// Logf receives diagnostics; nil means the host's.
	Logf func(format string, args ...any)
}

// Usage is the usage subsystem: it follows the record of every agent
// session the conductor reports a transcript for, counts the tokens per
// pane, workspace, flow run and day, prices them, keeps the days on disk,
// enforces budgets and serves the usage.* methods. Create it with [New];
// the core starts it through the subsystem contract. All methods are safe
// for concurrent use.
type Usage struct {
	o      Options
	clock  clock.Clock
	prices Prices

	// Owned by the loop goroutine.
	sessions map[sessionKey]*session
	sources  map[string]*source // by path
	// working holds the panes whose agent works (thinking, stalled,
	// waiting for its user), as agent_state says: a budget pauses those.
	working map[uint64]bool
	timer   clock.Timer
	timerAt time.Time

	wake chan struct{}
	stop chan struct{}
	wg   sync.WaitGroup

	mu       sync.Mutex
	panes    map[uint64]*paneUsage // by surface id
	spaces   map[uint64]Totals     // by workspace id, this server's lifetime
	runs     map[string]*run       // by run id
	paneRuns map[uint64]*run       // by surface id
	ledger   *ledger
	savedAt  time.Time
	daily    dailyState
	closed   bool
}

// New returns the subsystem for o. It panics if o.Panes is nil.
func New(o Options) *Usage {
	if o.Panes == nil {
		panic("usage: Options.Panes is nil")
	}
	if o.Prices.m == nil {
		o.Prices, _ = NewPrices(nil)
	}
	if o.Location == nil {
		o.Location = time.Local
	}
	u := &Usage{
		o: o, prices: o.Prices, clock: clock.Or(o.Clock),
		sessions: map[sessionKey]*session{}, sources: map[string]*source{}, working: map[uint64]bool{},
		wake: make(chan struct{}, 1), stop: make(chan struct{}),
		panes: map[uint64]*paneUsage{}, spaces: map[uint64]Totals{}, runs: map[string]*run{}, paneRuns: map[uint64]*run{},
	}
	u.ledger = newLedger(o.Dir, o.Location, func(format string, args ...any) {
		if u.o.Logf != nil {
			u.o.Logf(format, args...)
		}
	})
	return u
}

var _ subsystem.Subsystem = (*Usage)(nil)

// Name is the subsystem's name and method namespace, "usage".
func (u *Usage) Name() string { return "usage" }

// Init registers the usage.* methods, reads today's day file and starts
// following the agents. The core starts it after the conductor (whose
// events it reads) and before the model, so it sees the panes close at
// quit.
func (u *Usage) Init(h *subsystem.Host) error {
	if u.o.Bus == nil {
		u.o.Bus = h.Bus
	}
	if u.o.Clock == nil {
		u.o.Clock = h.Clock
	}
	u.clock = clock.Or(u.o.Clock)
	if u.o.Logf == nil {
		u.o.Logf = h.Logf
	}
	if u.o.Logf == nil {
		u.o.Logf = func(string, ...any) {}
	}
	u.register(h.Methods)
	u.mu.Lock()
	u.ledger.day(u.ledger.dayName(u.clock.Now()))
	u.savedAt = u.clock.Now()
	u.mu.Unlock()
	if u.o.Bus != nil {
		sub := u.o.Bus.Subscribe("usage", bus.MatchTypes(
			bus.TypeAISessionStart, bus.TypeAIPromptSubmit, bus.TypeAIToolUse, bus.TypeAINotification,
			bus.TypeAIStop, bus.TypeAIExit, bus.TypeAISessionEnd, bus.TypeAgentState, bus.TypeSurfaceClosed), 0)
		u.wg.Add(1)
		go u.loop(sub)
	}
	return nil
}

// Shutdown stops following the agents, reads what they wrote last and
// writes the day files.
func (u *Usage) Shutdown(ctx context.Context) error {
	u.mu.Lock()
	if u.closed {
		u.mu.Unlock()
		return nil
	}
	u.closed = true
	u.mu.Unlock()
	close(u.stop)
	if err := subsystem.Wait(ctx, &u.wg); err != nil {
		return err
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, r := range u.runs {
		r.wake()
	}
	return u.ledger.save()
}

// loop handles the bus events and the polls until Shutdown.
func (u *Usage) loop(sub *bus.Subscription) {
	defer u.wg.Done()
	defer sub.Close()
	defer func() {
		u.poll(true) // the last lines, before the day files are written
		for _, src := range u.sources {
			src.close()
		}
		if u.timer != nil {
			u.timer.Stop()
		}
	}()
	var buf []bus.Event
	for {
		select {
		case <-u.stop:
			return
		case <-sub.Done():
			return
		case <-sub.Ready():
			evs, _ := sub.Drain(buf)
			for _, e := range evs {
				u.handle(e)
			}
			clear(evs)
			buf = evs[:0]
		case <-u.wake:
			u.timerAt = time.Time{}
			u.poll(false)
		}
		u.schedule()
	}
}

// kick makes the loop poll at once (from the loop's own handlers).
func (u *Usage) kick() {
	select {
	case u.wake <- struct{}{}:
	default:
	}
}

// interval is how long until session s is polled again: every hotEvery
// while hot or ending, workEvery while its agent works, else idleEvery.
func (u *Usage) interval(s *session, now time.Time) time.Duration {
	switch {
	case now.Before(s.hotUntil) || s.ending:
		return hotEvery
	case u.working[s.key.surface]:
		return workEvery
	}
	return idleEvery
}

// schedule arms the poll timer for the session due soonest; none when no
// session is followed.
func (u *Usage) schedule() {
	var at time.Time
	for _, s := range u.sessions {
		if at.IsZero() || s.nextPoll.Before(at) {
			at = s.nextPoll
		}
	}
	if at.IsZero() && len(u.sessions) == 0 {
		return
	}
	if !u.timerAt.IsZero() && !u.timerAt.After(at) {
		return // an earlier poll is armed
	}
	if u.timer != nil {
		u.timer.Stop()
	}
	u.timerAt = at
	u.timer = u.clock.AfterFunc(max(at.Sub(u.clock.Now()), 0), u.kick)
}

// toolOf returns the tool of an agent event in lower case.
func toolOf(tool string) string { return strings.ToLower(tool) }
