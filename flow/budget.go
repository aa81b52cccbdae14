package flow

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/paneflow-go/paneflow/proto"
)

// Budget is a spec's `budget = { tokens = …, cost = … }`: the most tokens
// (of every kind: input, cached, output) and the most dollars the agents
// it covers may use, either or both. On a flow it covers the whole run,
// on a step that step's panes; on a workspace spec the whole workspace,
// on one of its [[panes]] that pane. The server counts what the agents
// recorded; crossing a limit pauses the agents still working and fails
// the flow step with "budget exceeded". A cost limit is crossed by
// tokens of priced models only.
type Budget struct {
	Tokens *int64   `toml:"tokens" json:"tokens,omitempty"`
	Cost   *float64 `toml:"cost" json:"cost_usd,omitempty"`
}

// check validates b; where names it in the message.
func (b *Budget) check(where string) error {
	if b == nil {
		return nil
	}
	switch {
	case b.Tokens == nil && b.Cost == nil:
		return fmt.Errorf("%s needs `tokens` or `cost`", where)
	case b.Tokens != nil && *b.Tokens <= 0:
		return fmt.Errorf("%s.tokens must be positive, got %d", where, *b.Tokens)
	case b.Cost != nil && (!(*b.Cost > 0) || math.IsInf(*b.Cost, 0) || *b.Cost > 1e9):
		return fmt.Errorf("%s.cost must be a positive number of dollars, got %v", where, *b.Cost)
	}
	return nil
}

// wire is b as usage.track's params carry it; nil for nil.
func (b *Budget) wire() *proto.UsageLimitParams {
	if b == nil {
		return nil
	}
	return &proto.UsageLimitParams{Tokens: b.Tokens, CostUSD: b.Cost}
}

// String says what b limits, for plans.
func (b *Budget) String() string {
	var parts []string
	if b.Tokens != nil {
		parts = append(parts, fmt.Sprintf("%d tokens", *b.Tokens))
	}
	if b.Cost != nil {
		parts = append(parts, fmt.Sprintf("$%g", *b.Cost))
	}
	return strings.Join(parts, " or ")
}

// newRunID returns a run id for usage.track: the flow's name, the time,
// and random bits, so two runs of one flow never share one.
func newRunID(name string, now time.Time) string {
	var b [4]byte
	rand.Read(b[:])
	name = strings.Map(func(r rune) rune {
		if r < 0x21 || r > 0x7e {
			return '-'
		}
		return r
	}, name)
	if len(name) > 64 {
		name = name[:64]
	}
	return fmt.Sprintf("%s-%s-%s", name, now.UTC().Format("20060102T150405"), hex.EncodeToString(b[:]))
}

// tracker tells the server which panes a run's are, and with which
// budgets (usage.track). An instance without the method is told once
// that it enforces no budget.
type tracker struct {
	c     Caller
	run   string
	label string
	whole *Budget // the run's; sent with every call (the server keeps the first)
	warn  func(string)
	// missing: the instance has no usage.track (older than budgets).
	missing bool
	// tracked: a pane was told to the server.
	tracked bool
}

// track tags pane sid as the run's, part of step with its budget (nil:
// none). A refusal other than a missing method is returned.
func (t *tracker) track(ctx context.Context, sid uint64, step string, b *Budget) error {
	if t == nil || t.missing {
		return nil
	}
	p := proto.UsageTrackParams{SurfaceID: sid, Run: t.run, Label: t.label, Step: step, Budget: b.wire(), RunBudget: t.whole.wire()}
	err := t.c.Call(ctx, proto.MethodUsageTrack, p, nil)
	if code, ok := rpcCode(err); ok && code == codeMethodNotFound {
		t.missing = true
		if t.whole != nil || b != nil {
			t.warn("the instance has no usage.track (it is older than budgets): the budgets are not enforced")
		}
		return nil
	}
	t.tracked = t.tracked || err == nil
	return err
}

// usedTimeout bounds used's call: the run is over, its report waits.
const usedTimeout = 5 * time.Second

// used returns the run's id and what its agents have used by now (the
// run's group of usage.summary by flow since start), or "" and nil when
// no pane of it was tracked or the server cannot say. It is called once
// the run is over, also when ctx was cancelled (Ctrl-C): the report
// still says what the run used.
func (t *tracker) used(ctx context.Context, start time.Time) (string, *proto.Usage) {
	if t == nil || !t.tracked {
		return "", nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), usedTimeout)
	defer cancel()
	var res proto.UsageSummary
	if err := t.c.Call(ctx, proto.MethodUsageSummary, proto.UsageSummaryParams{Since: start.Format(time.RFC3339), By: "flow"}, &res); err != nil {
		t.warn("the run's usage is unknown: " + err.Error())
		return t.run, nil
	}
	for _, g := range res.Groups {
		if g.Key == t.run {
			return t.run, &g.Usage
		}
	}
	return t.run, &proto.Usage{}
}

// watchBudgets hands each budget of run the server reports crossed to
// out, until ctx ends. It runs on a goroutine of its own; its calls go
// through waits, which allows them to last.
func watchBudgets(ctx context.Context, waits Caller, run string, out chan<- []proto.BudgetAlert, warn func(string)) {
	after := 0
	for ctx.Err() == nil {
		var res proto.UsageBudgetWaitResult
		err := waits.Call(ctx, proto.MethodUsageBudgetWait, proto.UsageBudgetWaitParams{Run: run, After: after}, &res)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			var ce CodedError
			if !errors.As(err, &ce) || ce.RPCCode() != codeMethodNotFound {
				warn("budgets are no longer watched: " + err.Error())
			}
			return
		}
		after = res.Next
		select {
		case out <- res.Alerts:
		case <-ctx.Done():
			return
		}
	}
}
