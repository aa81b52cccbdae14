package usage

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/ipc"
)

// The usage.* methods.
const (
	MethodSummary    = "usage.summary"
	MethodTrack      = "usage.track"
	MethodBudgetWait = "usage.budget_wait"
	MethodPrices     = "usage.prices"
)

// Groupings of usage.summary.
var groupings = []string{"agent", "workspace", "flow", "model", "day"}

func (u *Usage) register(r ipc.Registrar) {
	r.Register(MethodSummary, u.summary)
	r.Register(MethodTrack, u.track)
	r.Register(MethodBudgetWait, u.budgetWait, ipc.Long())
	r.Register(MethodPrices, u.pricesMethod)
}

// decode decodes params strictly: unknown fields are -32602.
func decode(params json.RawMessage, v any) error {
	p := bytes.TrimSpace(params)
	if len(p) == 0 || bytes.Equal(p, []byte("null")) {
		p = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(p))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return ipc.InvalidParams("invalid params: %v", err)
	}
	return nil
}

// SummaryParams are usage.summary's params. Since and Until take "today",
// "yesterday", a date (YYYY-MM-DD, local), an RFC 3339 time, or a span
// back from now ("90m", "36h", "7d"); Since defaults to today's start,
// Until to now. By groups the usage: "agent", "workspace", "flow" (runs),
// "model" or "day"; "" gives the total only.
type SummaryParams struct {
	Since string `json:"since,omitempty"`
	Until string `json:"until,omitempty"`
	By    string `json:"by,omitempty"`
}

// Summary is usage.summary's result: the usage from Since to Until (by
// whole hours: an hour that overlaps the span counts whole), its Groups
// largest first, and the day's budget when one is configured.
type Summary struct {
	Since  time.Time `json:"since"`
	Until  time.Time `json:"until"`
	By     string    `json:"by,omitempty"`
	Total  bus.Usage `json:"total"`
	Groups []Group   `json:"groups"`
	Daily  *Daily    `json:"daily_budget,omitempty"`
}

// Group is one group of a [Summary]: Key is the agent, workspace title,
// model, day (YYYY-MM-DD) or, by flow, the run id with the flow's name in
// Flow; "" is usage outside any (no workspace, no flow run, unknown
// model).
type Group struct {
	Key   string    `json:"key"`
	Flow  string    `json:"flow,omitempty"`
	Usage bus.Usage `json:"usage"`
}

// Daily is where the day's budget stands.
type Daily struct {
	Day          string    `json:"day"`
	Used         bus.Usage `json:"used"`
	LimitTokens  int64     `json:"limit_tokens,omitempty"`
	LimitCostUSD float64   `json:"limit_cost_usd,omitempty"`
	Pause        bool      `json:"pause"`
}

func (u *Usage) summary(_ context.Context, params json.RawMessage) (any, error) {
	var p SummaryParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if p.By != "" && !slices.Contains(groupings, p.By) {
		return nil, ipc.InvalidParams("invalid params: by must be one of %s, got %q", strings.Join(groupings, ", "), p.By)
	}
	now := u.clock.Now()
	since, err := ParseTime(cmp.Or(p.Since, "today"), now, u.o.Location)
	if err != nil {
		return nil, ipc.InvalidParams("invalid params: since: %v", err)
	}
	until := now
	if p.Until != "" {
		if until, err = ParseTime(p.Until, now, u.o.Location); err != nil {
			return nil, ipc.InvalidParams("invalid params: until: %v", err)
		}
	}
	if until.Before(since) {
		return nil, ipc.InvalidParams("invalid params: until (%s) is before since (%s)", until.Format(time.RFC3339), since.Format(time.RFC3339))
	}
	var total Totals
	groups := map[[2]string]Totals{}
	u.mu.Lock()
	err = u.ledger.rows(since, until, func(k key, t Totals) {
		total = total.add(t)
		var g [2]string
		switch p.By {
		case "agent":
			g[0] = k.Tool
		case "workspace":
			g[0] = k.Workspace
		case "flow":
			g = [2]string{k.Run, k.Flow}
		case "model":
			g[0] = k.Model
		case "day":
			g[0] = time.Unix(k.Hour, 0).In(u.o.Location).Format(time.DateOnly)
		default:
			return
		}
		groups[g] = groups[g].add(t)
	})
	res := Summary{Since: since, Until: until, By: p.By, Total: total.Wire(), Groups: []Group{}}
	if !u.o.Daily.none() {
		today := u.ledger.dayName(now)
		res.Daily = &Daily{Day: today, Used: u.ledger.total(today).Wire(), LimitTokens: u.o.Daily.Tokens,
			LimitCostUSD: u.o.Daily.Cost.USD(), Pause: u.o.DailyPause}
	}
	u.mu.Unlock()
	if err != nil {
		u.o.Logf("paneflow: %v", err)
	}
	for _, g := range slices.Collect(maps.Keys(groups)) {
		res.Groups = append(res.Groups, Group{Key: g[0], Flow: g[1], Usage: groups[g].Wire()})
	}
	slices.SortFunc(res.Groups, func(a, b Group) int {
		if p.By == "day" {
			return strings.Compare(a.Key, b.Key)
		}
		return cmp.Or(cmp.Compare(b.Usage.Total, a.Usage.Total), strings.Compare(a.Key, b.Key))
	})
	return res, nil
}

// spanRE is a span back from now in days or Go duration units.
var spanRE = regexp.MustCompile(`^(\d+(?:\.\d+)?)d$`)

// ParseTime reads a point in time for usage.summary: "today" and
// "yesterday" (their local start), "now", a local date (YYYY-MM-DD), an
// RFC 3339 time, or a span back from now: "7d" (days of 24 hours) or a Go
// duration ("90m", "36h").
func ParseTime(s string, now time.Time, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	day := func(t time.Time, back int) time.Time {
		t = t.In(loc)
		y, m, d := t.Date()
		return time.Date(y, m, d-back, 0, 0, 0, 0, loc)
	}
	switch strings.ToLower(s) {
	case "today":
		return day(now, 0), nil
	case "yesterday":
		return day(now, 1), nil
	case "now":
		return now, nil
	}
	if t, err := time.ParseInLocation(time.DateOnly, s, loc); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if m := spanRE.FindStringSubmatch(s); m != nil {
		days, _ := strconv.ParseFloat(m[1], 64)
		return now.Add(-time.Duration(days * 24 * float64(time.Hour))), nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("%q is not today, yesterday, a date (YYYY-MM-DD), an RFC 3339 time or a span such as 36h or 7d", s)
}

// LimitParams is a budget on the wire: tokens, dollars, either or both.
type LimitParams struct {
	Tokens  *int64   `json:"tokens,omitempty"`
	CostUSD *float64 `json:"cost_usd,omitempty"`
}

// limit checks and converts l.
func (l *LimitParams) limit(what string) (*Limit, error) {
	if l == nil {
		return nil, nil
	}
	var out Limit
	if l.Tokens != nil {
		if *l.Tokens <= 0 {
			return nil, ipc.InvalidParams("invalid params: %s.tokens must be positive, got %d", what, *l.Tokens)
		}
		out.Tokens = *l.Tokens
	}
	if l.CostUSD != nil {
		if !(*l.CostUSD > 0) || math.IsInf(*l.CostUSD, 0) || *l.CostUSD > 1e9 {
			return nil, ipc.InvalidParams("invalid params: %s.cost_usd must be a positive amount, got %v", what, *l.CostUSD)
		}
		out.Cost = nanosOf(*l.CostUSD)
	}
	if out.none() {
		return nil, ipc.InvalidParams("invalid params: %s needs tokens or cost_usd", what)
	}
	return &out, nil
}

// TrackParams are usage.track's params: pane SurfaceID belongs to flow run
// Run (an id the caller makes up, unique per run; Label is the flow's or
// spec's name), as part of Step ("" none); Budget limits the step (all of
// its panes together), RunBudget the whole run (the first call that gives
// one sets it).
type TrackParams struct {
	SurfaceID uint64       `json:"surface_id"`
	Run       string       `json:"run"`
	Label     string       `json:"label,omitempty"`
	Step      string       `json:"step,omitempty"`
	Budget    *LimitParams `json:"budget,omitempty"`
	RunBudget *LimitParams `json:"run_budget,omitempty"`
}

// maxRunID bounds a run id's and a step's length.
const maxRunID = 128

func (u *Usage) track(_ context.Context, params json.RawMessage) (any, error) {
	var p TrackParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	switch {
	case p.SurfaceID == 0:
		return nil, ipc.InvalidParams("invalid params: usage.track needs surface_id")
	case p.Run == "" || len(p.Run) > maxRunID || len(p.Step) > maxRunID:
		return nil, ipc.InvalidParams("invalid params: run must be 1 to %d bytes and step at most %d", maxRunID, maxRunID)
	}
	if _, ok := u.o.Panes.Pane(p.SurfaceID); !ok {
		return nil, ipc.InvalidParams("invalid params: surface_id %d is not an open pane", p.SurfaceID)
	}
	step, err := p.Budget.limit("budget")
	if err != nil {
		return nil, err
	}
	whole, err := p.RunBudget.limit("run_budget")
	if err != nil {
		return nil, err
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	r := u.runs[p.Run]
	if r == nil {
		r = &run{id: p.Run, label: p.Label, steps: map[uint64]string{}, stepCaps: map[string]*budget{}, changed: make(chan struct{})}
		u.runs[p.Run] = r
	}
	if old := u.paneRuns[p.SurfaceID]; old != nil && old != r {
		delete(old.steps, p.SurfaceID)
	}
	r.steps[p.SurfaceID] = p.Step
	u.paneRuns[p.SurfaceID] = r
	if whole != nil && r.budget == nil {
		r.budget = &budget{limit: *whole}
	}
	if step != nil && r.stepCaps[p.Step] == nil {
		r.stepCaps[p.Step] = &budget{limit: *step}
	}
	return map[string]bool{"ok": true}, nil
}

// BudgetWaitParams are usage.budget_wait's params: run Run's alerts after
// the first After.
type BudgetWaitParams struct {
	Run   string `json:"run"`
	After int    `json:"after"`
}

// BudgetWaitResult is usage.budget_wait's result: the run's budget alerts
// after the first After, in order (at least one), and Next, the After of
// the next call.
type BudgetWaitResult struct {
	Alerts []bus.BudgetAlert `json:"alerts"`
	Next   int               `json:"next"`
}

// budgetWait returns once one of run's budgets is exceeded (or was, after
// the alerts the caller has seen): `paneflow flow run` fails the step.
func (u *Usage) budgetWait(ctx context.Context, params json.RawMessage) (any, error) {
	var p BudgetWaitParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if p.After < 0 {
		return nil, ipc.InvalidParams("invalid params: after must not be negative")
	}
	for {
		u.mu.Lock()
		r := u.runs[p.Run]
		closed := u.closed
		var ch chan struct{}
		var res BudgetWaitResult
		if r != nil {
			ch = r.changed
			if len(r.alerts) > p.After {
				res = BudgetWaitResult{Alerts: slices.Clone(r.alerts[p.After:]), Next: len(r.alerts)}
			}
		}
		u.mu.Unlock()
		switch {
		case r == nil:
			return nil, ipc.InvalidParams("invalid params: no run %q (usage.track names its panes first)", p.Run)
		case res.Alerts != nil:
			return res, nil
		case closed:
			return nil, ipc.Errorf(ipc.CodeBusy, "Paneflow is shutting down")
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-ch:
		}
	}
}

// PriceRow is one model of usage.prices.
type PriceRow struct {
	Model string `json:"model"`
	Price
}

func (u *Usage) pricesMethod(_ context.Context, params json.RawMessage) (any, error) {
	var p struct{}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	rows := []PriceRow{}
	for _, m := range u.prices.Models() {
		pr, _ := u.prices.Lookup(m)
		rows = append(rows, PriceRow{Model: m, Price: pr})
	}
	return map[string]any{"prices": rows}, nil
}

// PaneStatus is what surface.status says of a pane's usage: the agent,
// the model of its last response, and what its current session and its
// current or last turn used.
type PaneStatus struct {
	Tool     string    `json:"tool"`
	Model    string    `json:"model"`
	Session  bus.Usage `json:"session"`
	LastTurn bus.Usage `json:"last_turn"`
}

// SurfaceUsage returns the usage of the agent session in pane id, for
// surface.status; ok is false when no agent with a record Paneflow reads
// ran there.
func (u *Usage) SurfaceUsage(id uint64) (any, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	p := u.panes[id]
	if p == nil || p.key == (sessionKey{}) {
		return nil, false
	}
	return PaneStatus{Tool: p.key.tool, Model: p.model, Session: p.session.Wire(), LastTurn: p.turn.Wire()}, true
}
