package flow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/paneflow-go/paneflow/internal/clock"
	"github.com/paneflow-go/paneflow/internal/fence"
	"github.com/paneflow-go/paneflow/internal/vis"
	"github.com/paneflow-go/paneflow/proto"
)

// Unit states as the report shows them.
const (
	StatusPending = "PENDING"
	StatusRunning = "RUNNING"
	StatusReady   = "READY"
	StatusFailed  = "FAILED"
	StatusSkipped = "SKIPPED"
)

// Exit codes of a flow run (package cli owns the list; these match it).
const (
	exitOK      = 0
	exitFailure = 1
	exitTimeout = 4
)

// JSON-RPC error codes the engine tells apart.
const (
	codeMethodNotFound = -32601 // the scripting gate is closed
	codeTimeout        = -32002 // surface.wait gave up
)

// CodedError is an error that carries a JSON-RPC error code; the CLI's
// errors for error replies implement it. Errors without a code are
// transport failures (the instance is unreachable).
type CodedError interface {
	error
	RPCCode() int
}

// rpcCode returns err's JSON-RPC code, if it has one.
func rpcCode(err error) (int, bool) {
	var ce CodedError
	if errors.As(err, &ce) {
		return ce.RPCCode(), true
	}
	return 0, false
}

// Settle rule, before a submitting spawn unit's prompt is fed to the pane
// it just opened: settleFloor from its start for its program to come up,
// then its output quiet for settleQuiet; after settleCap the prompt is fed
// anyway. Send units feed at once.
var (
	settleFloor = 1800 * time.Millisecond
	settleQuiet = 300 * time.Millisecond
	settleCap   = 8 * time.Second
	// inputReadyCap bounds the wait for an agent to read its input before
	// a submitted text is fed to it: surface.send_text's input_wait_ms
	// (the server waits; the call goes through Waits, which allows it).
	inputReadyCap = 30 * time.Second
)

// RunOptions is what [Run] works with. Calls and Waits must be set.
type RunOptions struct {
	// Calls makes the short requests (workspace.up, surface.split,
	// surface.send_text without submit, surface.read,
	// system.capabilities).
	Calls Caller
	// Waits makes the blocking requests: surface.wait, and a submitted
	// surface.send_text, which may wait up to inputReadyCap for the
	// agent to read its input; its calls must be allowed to last as long
	// as the longest barrier plus that, and may run side by side.
	Waits Caller
	// Worktrees creates the planned worktrees; nil makes a flow with
	// worktrees fail.
	Worktrees Worktrees
	// Resolve finds a pane by any CLI selector, for a send target that
	// names no pane of the flow.
	Resolve func(ctx context.Context, target string) (uint64, error)
	// Progress receives one line per unit transition; nil discards them.
	Progress io.Writer
	// LiveWidth, when positive, makes Progress a terminal that many
	// columns wide: instead of a line per transition it gets a table of
	// every unit, redrawn in place (ANSI cursor movement) at each one.
	LiveWidth int
	// Warn receives diagnostics; nil discards them.
	Warn func(string)
	// OnStatus, when set, is called with a unit's id, new status and
	// message ("" or why it failed or was skipped) at each transition, on
	// Run's goroutine, after the Progress line; it must not block.
	OnStatus func(id, status, msg string)
	// Clock times the run (durations, progress) and the settle floor;
	// nil means the system clock. Tests give a clock.Fake.
	Clock clock.Clock
}

// StepReport is one unit in a [Report].
type StepReport struct {
	ID         string  `json:"id"`
	Status     string  `json:"status"`
	DurationMS *int64  `json:"duration_ms"`
	SurfaceID  *uint64 `json:"surface_id"`
	Error      *string `json:"error"`
}

// Report is the outcome of a flow run.
type Report struct {
	Flow    string       `json:"flow"`
	Status  string       `json:"status"` // "ready", "failed" or "aborted"
	Aborted *string      `json:"aborted"`
	Steps   []StepReport `json:"steps"`
	// Run is the id under which the server counts the run's usage (a flow
	// group of `paneflow usage --by flow`); "" when the instance counts
	// none. Usage is what the run's agents had used when the run ended, as
	// far as the server had read their records then (nil: unknown); the
	// agents may go on, and `paneflow usage --by flow` has the later
	// figure.
	Run   string       `json:"run,omitempty"`
	Usage *proto.Usage `json:"usage,omitempty"`
	// Exit is the process exit code: 0 all READY, 4 a barrier timed out,
	// 1 otherwise (or aborted).
	Exit int `json:"-"`
}

// WriteText prints the report as a table, then what the run used when
// its agents used any.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString("---\n")
	for _, s := range r.Steps {
		e := ""
		if s.Error != nil {
			e = *s.Error
		}
		fmt.Fprintf(&b, "%-24s %-8s %s\n", s.ID, s.Status, e)
	}
	if u := r.Usage; u != nil && u.Total > 0 {
		fmt.Fprintf(&b, "used %d tokens", u.Total)
		switch {
		case u.CostUSD != nil && u.UnpricedTokens > 0:
			fmt.Fprintf(&b, ", $%.4f (%d tokens unpriced)", *u.CostUSD, u.UnpricedTokens)
		case u.CostUSD != nil:
			fmt.Fprintf(&b, ", $%.4f", *u.CostUSD)
		case u.Total > 0:
			b.WriteString(", cost unknown")
		}
		fmt.Fprintf(&b, " so far (run %s: paneflow usage --by flow)\n", r.Run)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// unitState is a unit as the engine tracks it; owned by Run's goroutine.
type unitState struct {
	u        *Unit
	status   string
	start    time.Time
	end      time.Time
	sid      uint64
	err      string
	timedOut bool
	// cancel stops the unit's worker (a crossed budget); overBudget is
	// then why it failed.
	cancel     context.CancelFunc
	overBudget string
}

// outcome is what a unit's worker hands back.
type outcome struct {
	i        int
	sid      uint64
	err      error
	timedOut bool
	abort    string // non-empty: the whole flow stops with this reason
}

// engine is one run of a plan.
type engine struct {
	plan    *FlowPlan
	o       RunOptions
	start   time.Time
	units   []*unitState
	anchor  uint64
	results chan outcome

	// The live table (LiveWidth > 0): drawn is how many lines it took
	// last time, table its text; warnings from the workers print above
	// it, hence drawMu.
	drawMu sync.Mutex
	drawn  int
	table  string

	mu       sync.Mutex
	captures map[string]captured
	panes    map[string]uint64 // pane name → surface id, once spawned
	splits   int               // split calls so far (directions alternate)

	// The run's panes and budgets, told to the server (usage.track);
	// runOver is why the whole run's budget stopped it ("": it did not).
	usage   *tracker
	runOver string
}

// CheckGate asks the instance whether the scripting gate is open, as a
// flow that submits needs it: an error when it is closed, nil when it is
// open or the instance predates the field.
func CheckGate(ctx context.Context, c Caller) error {
	var caps struct {
		Scripting *bool `json:"scripting"`
	}
	if err := c.Call(ctx, "system.capabilities", struct{}{}, &caps); err != nil {
		return err
	}
	if caps.Scripting != nil && !*caps.Scripting {
		return ErrGateClosed
	}
	return nil
}

// ErrGateClosed is CheckGate's answer for a closed scripting gate.
var ErrGateClosed = errors.New("this flow submits prompts: relaunch Paneflow with PANEFLOW_IPC_SCRIPTING=1 (or drop the `submit = true` flags)")

// interrupted is why a run whose context was cancelled (Ctrl-C, the
// launch pad's Stop) ended.
const interrupted = "interrupted (panes left running)"

// Run carries a plan out: the root units open the workspace in one
// workspace.up, the others start as their needs become READY. It returns
// the report, or an error when the bootstrap failed (nothing to report).
// Cancelling ctx (Ctrl-C) stops the orchestration; panes, agents and
// worktrees are never closed by the engine.
func Run(ctx context.Context, plan *FlowPlan, o RunOptions) (*Report, error) {
	o.Clock = clock.Or(o.Clock)
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	e := &engine{plan: plan, o: o, start: o.Clock.Now(), results: make(chan outcome),
		captures: map[string]captured{}, panes: map[string]uint64{}}
	for _, u := range plan.Units {
		e.units = append(e.units, &unitState{u: u, status: StatusPending})
	}
	if o.LiveWidth > 0 {
		warn := o.Warn
		e.o.Warn = func(msg string) { e.warnAbove(warn, msg) }
	}
	e.usage = &tracker{c: o.Calls, run: newRunID(plan.Name, e.start), label: plan.Name, whole: plan.Budget, warn: e.o.Warn}
	if err := e.bootstrap(ctx); err != nil {
		return nil, err
	}
	wctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	budgets := make(chan []proto.BudgetAlert)
	if plan.budgeted() && !e.usage.missing {
		wg.Go(func() { watchBudgets(wctx, o.Waits, e.usage.run, budgets, e.o.Warn) })
	}
	running := 0
	// launch starts a unit: a spawn unit's pane is opened here, in unit
	// order, so that the layout does not depend on goroutine scheduling;
	// the rest of its work runs on a goroutine of its own.
	launch := func(i int) string {
		st := e.units[i]
		if st.u.Kind == "spawn" && st.sid == 0 {
			sid, err := e.spawn(wctx, i)
			if err != nil {
				if ctx.Err() != nil {
					// Interrupted while its pane was being opened (the
					// server may have made it already): the split's
					// failure is the interruption, not the unit's outcome.
					return interrupted
				}
				out := e.failure(wctx, outcome{i: i}, err)
				if out.abort == "" {
					e.finish(out)
				}
				return out.abort
			}
			st.sid = sid
			if err := e.usage.track(wctx, sid, st.u.Step, st.u.Budget); err != nil {
				e.o.Warn(fmt.Sprintf("unit '%s': its usage is not tracked: %v", st.u.ID, err))
			}
		}
		running++
		uctx, ucancel := context.WithCancel(wctx)
		st.cancel = ucancel
		wg.Go(func() {
			defer ucancel()
			out := e.runUnit(uctx, i)
			select {
			case e.results <- out:
			case <-wctx.Done():
			}
		})
		return ""
	}
	aborted := ""
	for i, st := range e.units {
		if st.status == StatusRunning && aborted == "" {
			aborted = launch(i)
		}
	}
	for aborted == "" {
		done, abort := e.schedule(launch)
		if aborted = abort; done || aborted != "" {
			break
		}
		if running == 0 {
			break // nothing runs and nothing can start: every unit is terminal
		}
		select {
		case <-ctx.Done():
		case alerts := <-budgets:
			e.overBudget(alerts)
		case out := <-e.results:
			running--
			switch {
			case ctx.Err() != nil:
				// Interrupted: what the unit did last (likely failing
				// because of the interruption) is not its outcome.
			case e.units[out.i].overBudget != "":
				// Its budget stopped it, and it failed then.
			case out.abort != "":
				aborted = out.abort
			default:
				e.finish(out)
			}
		}
		if ctx.Err() != nil {
			aborted = interrupted
		}
	}
	cancel()
	wg.Wait()
	rep := e.report(aborted)
	rep.Run, rep.Usage = e.usage.used(ctx, e.start)
	return rep, nil
}

// progress prints a unit's transition.
func (e *engine) progress(st *unitState) {
	if e.o.LiveWidth > 0 {
		e.redraw()
	} else {
		line := fmt.Sprintf("[%7.1fs] %s → %s", e.o.Clock.Now().Sub(e.start).Seconds(), st.u.ID, st.status)
		if st.err != "" {
			line += " (" + st.err + ")"
		}
		fmt.Fprintln(e.o.Progress, line)
	}
	if e.o.OnStatus != nil {
		e.o.OnStatus(st.u.ID, st.status, st.err)
	}
}

// redraw replaces the live table: one line per unit (id, status, time
// in that status or its duration, error), each cut to the terminal's
// width so that none wraps and the next redraw finds the table's top.
func (e *engine) redraw() {
	var b strings.Builder
	now := e.o.Clock.Now()
	for _, st := range e.units {
		t := ""
		switch {
		case !st.end.IsZero() && !st.start.IsZero():
			t = fmt.Sprintf("%.1fs", st.end.Sub(st.start).Seconds())
		case !st.start.IsZero():
			t = fmt.Sprintf("%.1fs…", now.Sub(st.start).Seconds())
		}
		line := fmt.Sprintf("%-24s %-8s %8s %s", st.u.ID, st.status, t, st.err)
		b.WriteString(cutToWidth(strings.TrimRight(line, " "), e.o.LiveWidth-1))
		b.WriteByte('\n')
	}
	e.drawMu.Lock()
	defer e.drawMu.Unlock()
	e.clearTable()
	e.drawn, e.table = len(e.units), b.String()
	io.WriteString(e.o.Progress, e.table)
}

// clearTable moves to the live table's first line and clears from there
// down; drawMu is held.
func (e *engine) clearTable() {
	if e.drawn > 0 {
		fmt.Fprintf(e.o.Progress, "\x1b[%dF\x1b[J", e.drawn)
	}
}

// warnAbove prints a warning (with warn, onto the same terminal) above the
// live table, then the table again below it. Any goroutine.
func (e *engine) warnAbove(warn func(string), msg string) {
	e.drawMu.Lock()
	defer e.drawMu.Unlock()
	e.clearTable()
	warn(msg)
	io.WriteString(e.o.Progress, e.table)
}

// cutToWidth cuts s to at most w runes (each unit's line is plain text;
// a rune counts one column), ending a cut line with "…"; control
// characters become spaces.
func cutToWidth(s string, w int) string {
	r := []rune(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s))
	if w < 1 {
		w = 1
	}
	if len(r) <= w {
		return string(r)
	}
	return string(r[:w-1]) + "…"
}

// set moves a unit to a state and reports it.
func (e *engine) set(st *unitState, status, msg string) {
	st.status, st.err = status, msg
	switch status {
	case StatusRunning:
		st.start = e.o.Clock.Now()
	case StatusReady, StatusFailed, StatusSkipped:
		st.end = e.o.Clock.Now()
	}
	e.progress(st)
}

// finish applies a worker's outcome.
func (e *engine) finish(out outcome) {
	st := e.units[out.i]
	if out.sid != 0 {
		st.sid = out.sid
	}
	if out.err != nil {
		st.timedOut = out.timedOut
		e.set(st, StatusFailed, out.err.Error())
		return
	}
	e.set(st, StatusReady, "")
}

// groups summarises each step: every unit READY, any FAILED or SKIPPED.
func (e *engine) groups() (ready, bad map[string]bool) {
	ready, bad = map[string]bool{}, map[string]bool{}
	for _, st := range e.units {
		id := st.u.Step
		if _, ok := ready[id]; !ok {
			ready[id] = true
		}
		ready[id] = ready[id] && st.status == StatusReady
		bad[id] = bad[id] || st.status == StatusFailed || st.status == StatusSkipped
	}
	return ready, bad
}

// overBudget fails the units whose budget the server reports crossed (the
// server paused their agents already) and stops their workers: a step's
// units (running or pending), or with the whole run's every running unit,
// the pending ones then skipped.
func (e *engine) overBudget(alerts []proto.BudgetAlert) {
	for _, a := range alerts {
		msg := "budget exceeded"
		if a.Message != "" {
			msg = a.Message
		}
		if a.Scope == proto.BudgetScopeRun && e.runOver == "" {
			e.runOver = msg
		}
		for _, st := range e.units {
			if a.Scope == proto.BudgetScopeStep && st.u.Step != a.Step || st.overBudget != "" {
				continue
			}
			switch st.status {
			case StatusRunning:
				// Failed at once (not when its worker returns): fail_fast
				// may end the run before the worker's answer counts.
				st.overBudget = msg
				if st.cancel != nil {
					st.cancel()
				}
				e.set(st, StatusFailed, msg)
			case StatusPending:
				if a.Scope == proto.BudgetScopeStep {
					e.set(st, StatusFailed, msg)
				}
			}
		}
	}
}

// schedule skips what can no longer run, starts what can, and applies
// fail_fast; it reports whether the run is over, or why it must abort.
func (e *engine) schedule(launch func(int) string) (bool, string) {
	if e.runOver != "" {
		for _, st := range e.units {
			if st.status == StatusPending {
				e.set(st, StatusSkipped, "the run's "+e.runOver)
			}
		}
	}
	failed := false
	for _, st := range e.units {
		failed = failed || st.status == StatusFailed
	}
	if failed && e.plan.OnFailure != "continue" {
		for _, st := range e.units {
			if st.status == StatusPending {
				e.set(st, StatusSkipped, "fail_fast: an earlier step failed")
			}
		}
		return true, ""
	}
	for changed := true; changed; {
		changed = false
		ready, bad := e.groups()
		for i, st := range e.units {
			if st.status != StatusPending {
				continue
			}
			allReady, skip := true, ""
			for _, d := range st.u.Needs {
				if bad[d] && skip == "" {
					skip = d
				}
				allReady = allReady && ready[d]
			}
			switch {
			case skip != "":
				e.set(st, StatusSkipped, fmt.Sprintf("dependency '%s' failed or was skipped", skip))
				changed = true
			case allReady:
				e.set(st, StatusRunning, "")
				if abort := launch(i); abort != "" {
					return true, abort
				}
				changed = true
			}
		}
	}
	return false, ""
}

// report builds the final report.
func (e *engine) report(aborted string) *Report {
	r := &Report{Flow: e.plan.Name, Status: "ready"}
	anyTimeout, allReady := false, true
	for _, st := range e.units {
		sr := StepReport{ID: st.u.ID, Status: st.status}
		if !st.start.IsZero() && !st.end.IsZero() {
			ms := st.end.Sub(st.start).Milliseconds()
			sr.DurationMS = &ms
		}
		if st.sid != 0 {
			sid := st.sid
			sr.SurfaceID = &sid
		}
		if st.err != "" {
			msg := st.err
			sr.Error = &msg
		}
		r.Steps = append(r.Steps, sr)
		anyTimeout = anyTimeout || (st.status == StatusFailed && st.timedOut)
		allReady = allReady && st.status == StatusReady
	}
	switch {
	case aborted != "":
		r.Status, r.Aborted, r.Exit = "aborted", &aborted, exitFailure
	case allReady:
		r.Exit = exitOK
	case anyTimeout:
		r.Status, r.Exit = "failed", exitTimeout
	default:
		r.Status, r.Exit = "failed", exitFailure
	}
	return r
}

// bootstrap creates the roots' worktrees and opens the workspace with
// every root unit in one workspace.up.
func (e *engine) bootstrap(ctx context.Context) error {
	var roots []int
	var panes []*PlannedPane
	for i, st := range e.units {
		if st.u.Kind == "spawn" && len(st.u.Needs) == 0 {
			roots = append(roots, i)
			panes = append(panes, st.u.Pane)
		}
	}
	if err := e.createWorktrees(ctx, panes, roots); err != nil {
		return err
	}
	params := upParams{Name: &e.plan.Name, Layout: e.plan.Layout}
	for k, pp := range panes {
		w := pp.wire()
		if e.units[roots[k]].u.Submit {
			w.Prompt = "" // fed by the engine once the pane settled
		}
		params.Panes = append(params.Panes, w)
	}
	var res UpResult
	if err := e.o.Calls.Call(ctx, "workspace.up", params, &res); err != nil {
		return err
	}
	if len(res.SurfaceIDs) != len(roots) {
		return fmt.Errorf("workspace.up returned %d surface ids for %d panes; is the instance older than the flow engine?", len(res.SurfaceIDs), len(roots))
	}
	e.anchor = res.SurfaceIDs[0]
	for k, i := range roots {
		st := e.units[i]
		st.sid = res.SurfaceIDs[k]
		e.panes[st.u.Pane.Name] = st.sid
		if err := e.usage.track(ctx, st.sid, st.u.Step, st.u.Budget); err != nil {
			e.o.Warn(fmt.Sprintf("unit '%s': its usage is not tracked: %v", st.u.ID, err))
		}
		e.set(st, StatusRunning, "")
	}
	return nil
}

// createWorktrees creates the planned worktrees of some units' panes
// (never rolled back: the flow's panes stay, so do their worktrees).
func (e *engine) createWorktrees(ctx context.Context, panes []*PlannedPane, idx []int) error {
	need := false
	for _, pp := range panes {
		need = need || (pp.Worktree != nil && pp.Worktree.Action == "create")
	}
	if !need {
		return nil
	}
	if e.o.Worktrees == nil {
		return errors.New("worktrees are not available here")
	}
	_, err := prepareWorktrees(ctx, noRollback{e.o.Worktrees}, panes, func(k int) string { return "unit '" + e.units[idx[k]].u.ID + "'" }, e.o.Warn)
	return err
}

// noRollback keeps worktrees a flow created even when a later one fails.
type noRollback struct{ Worktrees }

func (noRollback) Rollback(context.Context, Worktree) error { return nil }

// runUnit does one unit's work after it started: open its pane (a
// non-root spawn), feed its text, wait for its barrier, capture.
func (e *engine) runUnit(ctx context.Context, i int) outcome {
	st := e.units[i]
	u := st.u
	out := outcome{i: i, sid: st.sid}
	fail := func(err error) outcome { return e.failure(ctx, out, err) }
	spawned := e.o.Clock.Now()
	if u.Kind == "send" {
		sid, err := e.target(ctx, u.Send.Target)
		if err != nil {
			return fail(unitError{fmt.Errorf("cannot resolve send target: %v", err)})
		}
		out.sid = sid
	}
	feed, hasFeed := "", false
	if u.Kind == "send" {
		feed, hasFeed = u.Send.Text, true
	} else if u.Submit && u.Pane.Prompt != "" {
		feed, hasFeed = u.Pane.Prompt, true
	}
	var send map[string]any
	if hasFeed {
		// A pane this unit just opened is let settle before its prompt
		// is fed (its program is starting); a send goes out at once, so
		// a barrier's match reaches the next pane within milliseconds
		// (the server defers a submitted paste's Enter until the program
		// echoed it).
		if u.Kind == "spawn" {
			if err := e.settle(ctx, out.sid, settleFloor-e.o.Clock.Now().Sub(spawned)); err != nil {
				return fail(err)
			}
		}
		text, err := substitute(feed, func(key string) (string, bool) {
			v, ok := e.capture(key)
			if !ok {
				return "", false
			}
			return v.in(key, u.Captures), true
		})
		if err != nil {
			return fail(unitError{err})
		}
		send = map[string]any{"text": text, "submit": u.Submit}
		if u.Submit {
			// The server holds the text until the agent reads its
			// input (its TUI turned bracketed paste on), at most this.
			send["input_wait_ms"] = inputReadyCap.Milliseconds()
		}
	}
	if u.Ready == nil {
		if send != nil {
			send["surface_id"] = out.sid
			calls := e.o.Calls
			if u.Submit {
				calls = e.o.Waits
			}
			var sent json.RawMessage
			if err := calls.Call(ctx, "surface.send_text", send, &sent); err != nil {
				return fail(err)
			}
			e.warnUnread(out.sid, u.Submit, sent)
		}
		return out
	}
	// The barrier counts what the pane prints from here on: a pane this
	// unit opened and types nothing into counts everything it shows; a
	// fed text goes out with the wait, once the server took its baseline,
	// so even an instant answer to it is seen.
	params := map[string]any{"surface_ids": []uint64{out.sid}, "pattern": u.Ready.Pattern, "timeout_ms": u.Ready.TimeoutSecs * 1000, "from_start": u.Kind == "spawn" && send == nil}
	if send != nil {
		params["send"] = send
	}
	var res struct {
		Sent json.RawMessage `json:"sent"`
	}
	if err := e.o.Waits.Call(ctx, "surface.wait", params, &res); err != nil {
		code, coded := rpcCode(err)
		switch {
		case coded && code == codeTimeout:
			out.err, out.timedOut = fmt.Errorf("timed out after %ds waiting for /%s/", u.Ready.TimeoutSecs, u.Ready.Pattern), true
			return out
		case coded && strings.Contains(err.Error(), "closed before"):
			return fail(unitError{errors.New("pane closed before the pattern appeared")})
		}
		return fail(err)
	}
	if send != nil && len(res.Sent) == 0 {
		return fail(unitError{errors.New("the instance did not send the text with its wait; is it older than the flow engine?")})
	}
	if send != nil {
		e.warnUnread(out.sid, u.Submit, res.Sent)
	}
	if c := u.Capture; c != nil {
		var page struct {
			Text string `json:"text"`
		}
		if err := e.o.Calls.Call(ctx, "surface.read", map[string]any{"surface_id": out.sid, "lines": c.Lines, "fenced": false}, &page); err != nil {
			return fail(err)
		}
		e.mu.Lock()
		e.captures[c.Var] = captured{text: page.Text, surface: out.sid}
		e.mu.Unlock()
	}
	return out
}

// failure turns an error into a unit's outcome: a JSON-RPC error fails
// the unit (a closed scripting gate aborts the flow), a unitError fails
// it, anything else means the instance is unreachable and aborts.
func (e *engine) failure(ctx context.Context, out outcome, err error) outcome {
	if code, ok := rpcCode(err); ok {
		if code == codeMethodNotFound {
			out.abort = "scripting gate is off on the instance; relaunch Paneflow with PANEFLOW_IPC_SCRIPTING=1 (" + err.Error() + ")"
			return out
		}
		out.err = err
		return out
	}
	if ctx.Err() != nil {
		out.err = ctx.Err()
		return out
	}
	var ue unitError
	if errors.As(err, &ue) {
		out.err = err
		return out
	}
	out.abort = "instance unreachable: " + err.Error()
	return out
}

// spawn opens a non-root spawn unit's pane: its worktree, then a split
// of the anchor.
func (e *engine) spawn(ctx context.Context, i int) (uint64, error) {
	u := e.units[i].u
	if err := e.createWorktrees(ctx, []*PlannedPane{u.Pane}, []int{i}); err != nil {
		return 0, unitError{err}
	}
	return e.split(ctx, u)
}

// unitError fails its unit without aborting the flow.
type unitError struct{ err error }

func (u unitError) Error() string { return u.err.Error() }
func (u unitError) Unwrap() error { return u.err }

// captured is a value a step captured: the pane's text as read, and the
// pane it was read from.
type captured struct {
	text    string
	surface uint64
}

// in is the captured value as it goes into a text whose captures are
// fenced or plain (see [Step.Captures]): fenced in the untrusted-output
// envelope, attributed to its pane as surface.read's fence is
// (source="surface:<id>") and named by its capture key, or its text with
// trailing line breaks dropped and control characters but tab and line
// break shown as \xNN.
func (c captured) in(key, mode string) string {
	if mode == CapturesPlain {
		return vis.Text(strings.TrimRight(c.text, "\n"))
	}
	return fence.Wrap(c.text,
		fence.Attr{Name: "source", Value: "surface:" + strconv.FormatUint(c.surface, 10)},
		fence.Attr{Name: "capture", Value: key})
}

// capture returns a captured value.
func (e *engine) capture(key string) (captured, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	v, ok := e.captures[key]
	return v, ok
}

// split opens a non-root unit's pane next to the anchor; directions
// alternate vertical, horizontal, …
func (e *engine) split(ctx context.Context, u *Unit) (uint64, error) {
	e.mu.Lock()
	dir := "vertical"
	if e.splits%2 == 1 {
		dir = "horizontal"
	}
	e.splits++
	e.mu.Unlock()
	w := u.Pane.wire()
	if u.Submit {
		w.Prompt = ""
	}
	params := struct {
		wirePane
		Direction string `json:"direction"`
		SurfaceID uint64 `json:"surface_id"`
	}{w, dir, e.anchor}
	var res struct {
		SurfaceID uint64 `json:"surface_id"`
	}
	if err := e.o.Calls.Call(ctx, "surface.split", params, &res); err != nil {
		return 0, err
	}
	if res.SurfaceID == 0 {
		return 0, unitError{errors.New("surface.split returned no surface_id")}
	}
	e.mu.Lock()
	e.panes[u.Pane.Name] = res.SurfaceID
	e.mu.Unlock()
	return res.SurfaceID, nil
}

// target resolves a send target: a pane of this flow by name, else any
// selector of the instance.
func (e *engine) target(ctx context.Context, t string) (uint64, error) {
	e.mu.Lock()
	sid, ok := e.panes[t]
	e.mu.Unlock()
	if ok {
		return sid, nil
	}
	if e.o.Resolve == nil {
		return 0, fmt.Errorf("no pane named '%s' in this flow", t)
	}
	return e.o.Resolve(ctx, t)
}

// warnUnread warns when a submitted text went out to an agent that had
// not read its input within inputReadyCap (surface.send_text's result,
// sent, says input_ready false); the text was typed anyway.
func (e *engine) warnUnread(sid uint64, submit bool, sent json.RawMessage) {
	var r struct {
		InputReady *bool `json:"input_ready"`
	}
	if !submit || json.Unmarshal(sent, &r) != nil || r.InputReady == nil || *r.InputReady {
		return
	}
	e.o.Warn(fmt.Sprintf("the agent in pane %d had not turned on bracketed paste (read its input) after %v; its text was typed anyway", sid, inputReadyCap))
}

// settle waits until the pane's output has been quiet for settleQuiet
// (after floor, when positive), at most settleCap; then the text is fed
// whatever the pane does.
func (e *engine) settle(ctx context.Context, sid uint64, floor time.Duration) error {
	capLeft := settleCap
	if floor > 0 {
		passed := make(chan struct{})
		t := e.o.Clock.AfterFunc(floor, func() { close(passed) })
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-passed:
		}
		capLeft -= floor
	}
	params := map[string]any{"surface_ids": []uint64{sid}, "idle_ms": settleQuiet.Milliseconds(), "timeout_ms": max(capLeft, settleQuiet).Milliseconds()}
	err := e.o.Waits.Call(ctx, "surface.wait", params, nil)
	if code, ok := rpcCode(err); ok && code == codeTimeout {
		e.o.Warn(fmt.Sprintf("pane %d did not go quiet within %v; feeding it anyway", sid, settleCap))
		return nil
	}
	if code, ok := rpcCode(err); ok && code != codeMethodNotFound {
		return unitError{errors.New("pane closed before the text could be fed")}
	}
	return err
}
