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

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

func (u *Usage) register(r ipc.Registrar) {
	r.Register(proto.MethodUsageSummary, u.summary)
	r.Register(proto.MethodUsageTrack, u.track)
	r.Register(proto.MethodUsageBudgetWait, u.budgetWait, ipc.Long())
	r.Register(proto.MethodUsagePrices, u.pricesMethod)
}

// decode decodes params strictly: unknown members are -32602 too.
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

func (u *Usage) summary(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.UsageSummaryParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if p.By != "" && !slices.Contains(proto.UsageGroupings[:], p.By) {
		return nil, ipc.InvalidParams("invalid params: by must be one of %s, got %q", strings.Join(proto.UsageGroupings[:], ", "), p.By)
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
	res := proto.UsageSummary{Since: since.Format(time.RFC3339), Until: until.Format(time.RFC3339), By: p.By, Total: total.Wire(), Groups: []proto.UsageGroup{}}
	if !u.o.Daily.none() {
		today := u.ledger.dayName(now)
		res.Daily = &proto.UsageDaily{Day: today, Used: u.ledger.total(today).Wire(), LimitTokens: u.o.Daily.Tokens,
			LimitCostUSD: u.o.Daily.Cost.USD(), Pause: u.o.DailyPause}
	}
	u.mu.Unlock()
	if err != nil {
		u.o.Logf("paneflow: %v", err)
	}
	for _, g := range slices.Collect(maps.Keys(groups)) {
		res.Groups = append(res.Groups, proto.UsageGroup{Key: g[0], Flow: g[1], Usage: groups[g].Wire()})
	}
	slices.SortFunc(res.Groups, func(a, b proto.UsageGroup) int {
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

// limitOf checks and converts a budget's params.
func limitOf(l *proto.UsageLimitParams, what string) (*Limit, error) {
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

// maxRunID bounds a run id's and a step's length.
const maxRunID = 128

func (u *Usage) track(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.UsageTrackParams
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
	step, err := limitOf(p.Budget, "budget")
	if err != nil {
		return nil, err
	}
	whole, err := limitOf(p.RunBudget, "run_budget")
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
	return proto.OKResult{OK: true}, nil
}

// budgetWait returns once one of run's budgets is exceeded (or was, after
// the alerts the caller has seen): `paneflow flow run` fails the step.
func (u *Usage) budgetWait(ctx context.Context, params json.RawMessage) (any, error) {
	var p proto.UsageBudgetWaitParams
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
		var res proto.UsageBudgetWaitResult
		if r != nil {
			ch = r.changed
			if len(r.alerts) > p.After {
				res = proto.UsageBudgetWaitResult{Alerts: slices.Clone(r.alerts[p.After:]), Next: len(r.alerts)}
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

func (u *Usage) pricesMethod(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.NoParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	res := proto.UsagePricesResult{Prices: []proto.UsagePrice{}}
	for _, m := range u.prices.Models() {
		pr, _ := u.prices.Lookup(m)
		res.Prices = append(res.Prices, pr.wire(m))
	}
	return res, nil
}

// SurfaceUsage returns the usage of the agent session in pane id, for
// surface.status; ok is false when no agent with a record Paneflow reads
// ran there.
func (u *Usage) SurfaceUsage(id uint64) (proto.UsageStatus, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	p := u.panes[id]
	if p == nil || p.key == (sessionKey{}) {
		return proto.UsageStatus{}, false
	}
	return proto.UsageStatus{Tool: p.key.tool, Model: p.model, Session: p.session.Wire(), LastTurn: p.turn.Wire()}, true
}

// WorkspaceUsage returns what every agent of workspace id used since the
// server started (the figure [bus.UsageChanged] carries as Workspace), for
// workspace.view; ok is false when none of them used any.
func (u *Usage) WorkspaceUsage(id uint64) (proto.Usage, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	t, ok := u.spaces[id]
	if !ok {
		return proto.Usage{}, false
	}
	return t.Wire(), true
}
