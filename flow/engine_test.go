package flow

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/internal/clock"
	"github.com/paneflow-go/paneflow/proto"
)

// codedErr is a JSON-RPC error reply.
type codedErr struct {
	code int
	msg  string
}

func (e codedErr) Error() string { return fmt.Sprintf("paneflow error %d: %s", e.code, e.msg) }
func (e codedErr) RPCCode() int  { return e.code }

// fakeInstance plays the server for the engine: panes are numbered from
// 1; each pane's "output" is what its name maps to in out (a pane that
// has none never prints anything, so its barrier times out), and a pane
// named in block never answers a wait until the call is cancelled.
type fakeInstance struct {
	mu    sync.Mutex
	out   map[string]string // pane name → its output
	block map[string]bool
	// splitBlock: panes whose surface.split makes the pane, then never
	// answers until the call is cancelled (a reply slow to come back).
	splitBlock map[string]bool
	gate       bool // send_text refused with -32601
	// notReady: panes whose agent never reads its input (a submitted
	// send_text answers input_ready false).
	notReady map[string]bool
	names    map[uint64]string
	next     uint64
	log      []string
	sent     map[string]string // pane name → text fed
	// sendsViaWaits counts send_text calls made through waitsOf.
	sendsViaWaits int
	waited        chan string // pane names whose wait started (blocking ones)
	// tracked logs usage.track calls: "<pane> run=<label> step=<step>
	// budget=<json> run_budget=<json>"; run is the run id the engine
	// made up. alerts are handed to usage.budget_wait, one batch per
	// call.
	tracked []string
	run     string
	alerts  chan []proto.BudgetAlert
	noUsage bool // usage.* answer -32601 (an older instance)
}

// waitsOf is f as RunOptions.Waits: it counts the send_text calls made
// through it (a submitted one may wait long on the server).
type waitsOf struct{ f *fakeInstance }

func (w waitsOf) Call(ctx context.Context, method string, params, result any) error {
	if method == "surface.send_text" {
		w.f.mu.Lock()
		w.f.sendsViaWaits++
		w.f.mu.Unlock()
	}
	return w.f.Call(ctx, method, params, result)
}

// inputWait is how the fake logs a send's input_wait_ms.
func inputWait(ms *int64) string {
	if ms == nil {
		return ""
	}
	return fmt.Sprintf(" input_wait_ms=%d", *ms)
}

func newFake(out map[string]string) *fakeInstance {
	return &fakeInstance{out: out, block: map[string]bool{}, splitBlock: map[string]bool{}, notReady: map[string]bool{}, names: map[uint64]string{},
		sent: map[string]string{}, waited: make(chan string, 10), alerts: make(chan []proto.BudgetAlert, 4)}
}

func (f *fakeInstance) Call(ctx context.Context, method string, params, result any) error {
	raw, _ := json.Marshal(params)
	var p struct {
		Panes      []wirePane `json:"panes"`
		Name       string     `json:"name"`
		SurfaceID  uint64     `json:"surface_id"`
		SurfaceIDs []uint64   `json:"surface_ids"`
		Text       string     `json:"text"`
		Submit     bool       `json:"submit"`
		Pattern    string     `json:"pattern"`
		IdleMS     int64      `json:"idle_ms"`
		FromStart  bool       `json:"from_start"`
		Direction  string     `json:"direction"`
		Lines      int        `json:"lines"`
		InputWait  *int64     `json:"input_wait_ms"`
		Send       *struct {
			Text      string `json:"text"`
			Submit    bool   `json:"submit"`
			InputWait *int64 `json:"input_wait_ms"`
		} `json:"send"`
		Run       string          `json:"run"`
		Label     string          `json:"label"`
		Step      string          `json:"step"`
		Budget    json.RawMessage `json:"budget"`
		RunBudget json.RawMessage `json:"run_budget"`
		After     int             `json:"after"`
	}
	json.Unmarshal(raw, &p)
	f.mu.Lock()
	reply := func(v any) error {
		f.mu.Unlock()
		if result == nil {
			return nil
		}
		b, _ := json.Marshal(v)
		return json.Unmarshal(b, result)
	}
	switch method {
	case "workspace.up":
		var ids []uint64
		for _, pn := range p.Panes {
			f.next++
			f.names[f.next] = pn.Name
			ids = append(ids, f.next)
			f.log = append(f.log, fmt.Sprintf("up %s prompt=%q", pn.Name, pn.Prompt))
		}
		return reply(UpResult{SurfaceIDs: ids})
	case "surface.split":
		f.next++
		f.names[f.next] = p.Name
		f.log = append(f.log, fmt.Sprintf("split %s %s of %d", p.Name, p.Direction, p.SurfaceID))
		if f.splitBlock[p.Name] {
			f.mu.Unlock()
			f.waited <- p.Name
			<-ctx.Done()
			return ctx.Err()
		}
		return reply(map[string]any{"surface_id": f.next})
	case "surface.send_text":
		if f.gate {
			f.mu.Unlock()
			return codedErr{-32601, "surface.send_text disabled; set PANEFLOW_IPC_SCRIPTING=1 to enable"}
		}
		name := f.names[p.SurfaceID]
		f.sent[name] = p.Text
		f.log = append(f.log, fmt.Sprintf("send %s %q submit=%t", name, p.Text, p.Submit)+inputWait(p.InputWait))
		return reply(map[string]any{"sent": true, "input_ready": !f.notReady[name]})
	case "surface.wait":
		name := f.names[p.SurfaceIDs[0]]
		if p.IdleMS > 0 {
			return reply(map[string]any{"idle": true})
		}
		if f.block[name] {
			f.mu.Unlock()
			f.waited <- name
			<-ctx.Done()
			return ctx.Err()
		}
		f.log = append(f.log, fmt.Sprintf("wait %s /%s/ from_start=%t", name, p.Pattern, p.FromStart))
		var sent any
		if p.Send != nil {
			if f.gate {
				f.mu.Unlock()
				return codedErr{-32601, "surface.send_text disabled; set PANEFLOW_IPC_SCRIPTING=1 to enable"}
			}
			f.sent[name] = p.Send.Text
			f.log = append(f.log, fmt.Sprintf("send %s %q submit=%t", name, p.Send.Text, p.Send.Submit)+inputWait(p.Send.InputWait))
			sent = map[string]any{"sent": true, "input_ready": !f.notReady[name]}
		}
		out, ok := f.out[name]
		if !ok {
			f.mu.Unlock()
			return codedErr{-32002, "wait timed out"}
		}
		if out == "CLOSED" {
			f.mu.Unlock()
			return codedErr{-32602, "all target panes closed before the pattern appeared"}
		}
		if !regexp.MustCompile("(?m)" + p.Pattern).MatchString(out) {
			f.mu.Unlock()
			return codedErr{-32002, "wait timed out"}
		}
		return reply(map[string]any{"matched": true, "sent": sent})
	case "surface.read":
		return reply(map[string]any{"text": f.out[f.names[p.SurfaceID]]})
	case "usage.summary":
		// The run has used 1234 tokens, 34 of an unpriced model.
		cost := 0.5
		return reply(proto.UsageSummary{By: "flow", Groups: []proto.UsageGroup{
			{Key: "other-run", Usage: proto.Usage{Total: 9}},
			{Key: f.run, Flow: "p", Usage: proto.Usage{Total: 1234, CostUSD: &cost, UnpricedTokens: 34}},
		}})
	case "usage.track", "usage.budget_wait":
		if f.noUsage {
			f.mu.Unlock()
			return codedErr{-32601, "Method not found"}
		}
		if method == "usage.track" {
			f.run = p.Run
			f.tracked = append(f.tracked, fmt.Sprintf("%s run=%s step=%s budget=%s run_budget=%s", f.names[p.SurfaceID], p.Label, p.Step, p.Budget, p.RunBudget))
			return reply(map[string]bool{"ok": true})
		}
		if p.Run != f.run {
			f.mu.Unlock()
			return codedErr{-32602, "no run " + p.Run}
		}
		f.mu.Unlock()
		select {
		case a := <-f.alerts:
			f.mu.Lock()
			return reply(map[string]any{"alerts": a, "next": p.After + len(a)})
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	f.mu.Unlock()
	return fmt.Errorf("unexpected %s", method)
}

// resolveSpec parses and resolves the flow spec on a test host.
func resolveSpec(t *testing.T, spec string) *FlowPlan {
	t.Helper()
	fl, err := ParseFlow([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	h, _ := testHost(t, &fakeWorktrees{})
	plan, err := ResolveFlow(context.Background(), fl, h)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// runFake runs spec against f with no settle floor and returns the report
// and the progress output, checking that OnStatus's last word on each
// unit is the report's.
func runFake(t *testing.T, spec string, f *fakeInstance, ctx context.Context) (*Report, string) {
	t.Helper()
	return runFakeWith(t, spec, f, ctx, nil)
}

// runFakeWith is runFake with mod, when not nil, changing the run's
// options first.
func runFakeWith(t *testing.T, spec string, f *fakeInstance, ctx context.Context, mod func(*RunOptions)) (*Report, string) {
	t.Helper()
	settleFloor = 0
	plan := resolveSpec(t, spec)
	var progress bytes.Buffer
	last := map[string]string{} // OnStatus's last word on each unit
	o := RunOptions{Calls: f, Waits: waitsOf{f}, Worktrees: &fakeWorktrees{}, Progress: &progress,
		OnStatus: func(id, status, msg string) { last[id] = status + " " + msg }}
	if mod != nil {
		mod(&o)
	}
	rep, err := Run(ctx, plan, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range rep.Steps {
		want := st.Status + " "
		if st.Error != nil {
			want += *st.Error
		}
		if _, ok := last[st.ID]; !ok {
			last[st.ID] = StatusPending + " " // never moved
		}
		if last[st.ID] != want {
			t.Errorf("OnStatus last said %q of %s, the report %q", last[st.ID], st.ID, want)
		}
	}
	return rep, progress.String()
}

func statuses(r *Report) string {
	var s []string
	for _, st := range r.Steps {
		x := st.ID + "=" + st.Status
		if st.Error != nil {
			x += "(" + *st.Error + ")"
		}
		s = append(s, x)
	}
	return strings.Join(s, " ")
}

const pipeline = `name = "p"
[defaults]
timeout_secs = 5

[[step]]
id = "impl"
pane = { command = "impl" }
ready = { pattern = "^DONE:" }
capture = { var = "summary", lines = 2 }

[[step]]
id = "test"
needs = ["impl"]
foreach = ["a", "b"]
pane = { command = "t" }
ready = { pattern = "^ok ${item}$" }
capture = { var = "out", lines = 1 }

[[step]]
id = "review"
needs = ["test"]
submit = true
pane = { command = "r", prompt = "review ${summary} ${out.a}" }

[[step]]
id = "tell"
needs = ["review"]
send = { target = "impl", text = "b said ${out.b}", submit = true }
ready = { pattern = "^thanks" }
`

func TestEngineRunsTheDAG(t *testing.T) {
	f := newFake(map[string]string{
		"impl":   "working\nDONE: fixed it\nthanks",
		"test-a": "ok a",
		"test-b": "ok b",
	})
	rep, progress := runFake(t, pipeline, f, context.Background())
	if want := "impl=READY test[a]=READY test[b]=READY review=READY tell=READY"; statuses(rep) != want || rep.Exit != 0 || rep.Status != "ready" {
		t.Fatalf("report %s (exit %d, %s), want %s", statuses(rep), rep.Exit, rep.Status, want)
	}
	if got := f.sent["review"]; got != "review working\nDONE: fixed it\nthanks ok a" {
		t.Errorf("review was fed %q", got)
	}
	if got := f.sent["impl"]; got != "b said ok b" {
		t.Errorf("tell sent %q", got)
	}
	log := strings.Join(f.log, "\n")
	for _, want := range []string{
		`up impl prompt=""`,
		"wait impl /^DONE:/ from_start=true",
		"split test-a vertical of 1", "split test-b horizontal of 1",
		"wait test-a /^ok a$/ from_start=true",
		`split review vertical of 1`,
		"wait impl /^thanks/ from_start=false",
		// A submitted text has the server wait for its pane to read
		// input (input_wait_ms), alone or with a wait.
		`send review "review working\nDONE: fixed it\nthanks ok a" submit=true input_wait_ms=30000`,
		"wait impl /^thanks/ from_start=false\n" + `send impl "b said ok b" submit=true input_wait_ms=30000`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("no %q in the calls:\n%s", want, log)
		}
	}
	if f.sendsViaWaits != 1 {
		t.Errorf("%d send_text calls through Waits, want the submitted one (it may wait 30 s on the server)", f.sendsViaWaits)
	}
	if !regexp.MustCompile(`(?m)^\[ +\d+\.\ds\] test\[a\] → READY$`).MatchString(progress) {
		t.Errorf("progress lines:\n%s", progress)
	}
}

// TestEngineFailures: a failed step's report under fail_fast (a barrier
// timing out: exit 4) and on_failure = "continue" (a pane closing: its
// dependents skipped, the rest run; exit 1).
func TestEngineFailures(t *testing.T) {
	for _, c := range []struct {
		name string
		spec string
		out  map[string]string // panes' output; a pane without any never prints
		want string            // the statuses, a regular expression
		exit int
	}{
		{
			name: "fail_fast after a barrier timeout", spec: pipeline,
			out: map[string]string{"impl": "DONE: x", "test-a": "ok a"},
			// test[a] may still be RUNNING when fail_fast ends the run.
			want: `impl=READY test\[a\]=(READY|RUNNING) test\[b\]=FAILED\(timed out after 5s waiting for /\^ok b\$/\) review=SKIPPED\(fail_fast: an earlier step failed\) tell=SKIPPED\(fail_fast: an earlier step failed\)`,
			exit: 4,
		},
		{
			name: "continue after a pane closed",
			spec: strings.Replace(pipeline, "timeout_secs = 5", "timeout_secs = 5\non_failure = \"continue\"", 1) +
				"\n[[step]]\nid = \"side\"\nneeds = [\"impl\"]\npane = { command = \"s\" }\nready = { pattern = \"side\" }\n",
			out:  map[string]string{"impl": "DONE: x", "test-a": "ok a", "test-b": "CLOSED", "side": "side"},
			want: regexp.QuoteMeta("impl=READY test[a]=READY test[b]=FAILED(pane closed before the pattern appeared) review=SKIPPED(dependency 'test' failed or was skipped) tell=SKIPPED(dependency 'review' failed or was skipped) side=READY"),
			exit: 1,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep, _ := runFake(t, c.spec, newFake(c.out), context.Background())
			if !regexp.MustCompile("^"+c.want+"$").MatchString(statuses(rep)) || rep.Exit != c.exit || rep.Status != "failed" {
				t.Fatalf("report %s (exit %d, %s)\nwant %s (exit %d, failed)", statuses(rep), rep.Exit, rep.Status, c.want, c.exit)
			}
		})
	}
}

// cancelOnWait is a context cancelled once the engine first waits on f.
func cancelOnWait(f *fakeInstance) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-f.waited
		cancel()
	}()
	return ctx
}

func TestEngineInterrupt(t *testing.T) {
	f := newFake(map[string]string{})
	f.block["impl"] = true
	rep, _ := runFake(t, pipeline, f, cancelOnWait(f))
	if rep.Aborted == nil || *rep.Aborted != "interrupted (panes left running)" || rep.Exit != 1 || rep.Status != "aborted" {
		t.Fatalf("report %+v", rep)
	}
	if got := statuses(rep); got != "impl=RUNNING test[a]=PENDING test[b]=PENDING review=PENDING tell=PENDING" {
		t.Fatalf("statuses %s", got)
	}
	for _, l := range f.log {
		if strings.HasPrefix(l, "close") {
			t.Fatal("the engine closed a pane")
		}
	}
}

// TestEngineInterruptDuringSplit stops a run while a unit's pane is being
// opened: the run is interrupted, not failed, and the unit is not blamed
// (the launch pad's Stop pressed once the server showed the new pane
// but before the split's reply reached the engine).
func TestEngineInterruptDuringSplit(t *testing.T) {
	f := newFake(map[string]string{"impl": "DONE: x"})
	f.splitBlock["test-a"] = true
	rep, _ := runFake(t, pipeline, f, cancelOnWait(f))
	if rep.Aborted == nil || *rep.Aborted != "interrupted (panes left running)" || rep.Exit != 1 || rep.Status != "aborted" {
		t.Fatalf("report %+v, want interrupted; statuses %s", rep, statuses(rep))
	}
	if got := statuses(rep); strings.Contains(got, "FAILED") || strings.Contains(got, "SKIPPED") {
		t.Fatalf("statuses %s: the interruption was taken for a unit's failure", got)
	}
}

func TestEngineGateAborts(t *testing.T) {
	f := newFake(map[string]string{"impl": "DONE: x", "test-a": "ok a", "test-b": "ok b"})
	f.gate = true
	rep, _ := runFake(t, pipeline, f, context.Background())
	if rep.Aborted == nil || !strings.HasPrefix(*rep.Aborted, "scripting gate is off on the instance") || rep.Exit != 1 {
		t.Fatalf("report %+v", rep)
	}
}

func TestCheckGate(t *testing.T) {
	for _, c := range []struct {
		caps string
		want error
	}{{`{"scripting":false}`, ErrGateClosed}, {`{"scripting":true}`, nil}, {`{}`, nil}} {
		err := CheckGate(context.Background(), capsCaller(c.caps))
		if err != c.want {
			t.Errorf("%s: %v, want %v", c.caps, err, c.want)
		}
	}
}

type capsCaller string

func (c capsCaller) Call(_ context.Context, _ string, _, result any) error {
	return json.Unmarshal([]byte(c), result)
}

// TestEngineSettleOnClock: on a fake clock, a submitting unit's prompt is
// not fed before the settle floor has passed on that clock, and the
// report's duration is exactly the clock's.
func TestEngineSettleOnClock(t *testing.T) {
	old := settleFloor
	settleFloor = 1800 * time.Millisecond
	t.Cleanup(func() { settleFloor = old })
	plan := resolveSpec(t, "name = \"s\"\n[[step]]\nid = \"ask\"\nsubmit = true\npane = { command = \"agent\", prompt = \"hello\" }\nready = { pattern = \"^answer$\", timeout_secs = 5 }\n")
	f := newFake(map[string]string{"ask": "answer"})
	fc := clock.NewFake(time.Unix(1000, 0))
	done := make(chan *Report, 1)
	go func() {
		rep, err := Run(context.Background(), plan, RunOptions{Calls: f, Waits: f, Worktrees: &fakeWorktrees{}, Clock: fc})
		if err != nil {
			t.Error(err)
		}
		done <- rep
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := fc.BlockUntil(ctx, 1); err != nil {
		t.Fatalf("the engine never armed its settle floor: %v", err)
	}
	fc.Advance(settleFloor - time.Millisecond)
	if n := fc.Pending(); n != 1 {
		t.Fatalf("1 ms before the floor: %d timers pending, want the floor's", n)
	}
	f.mu.Lock()
	log := strings.Join(f.log, "\n")
	f.mu.Unlock()
	if strings.Contains(log, "send") {
		t.Fatalf("fed before the settle floor passed:\n%s", log)
	}
	fc.Advance(time.Millisecond)
	rep := <-done
	if statuses(rep) != "ask=READY" || rep.Steps[0].DurationMS == nil || *rep.Steps[0].DurationMS != 1800 {
		t.Fatalf("report %s, duration %v; want READY in exactly 1800 ms", statuses(rep), rep.Steps[0].DurationMS)
	}
	if log := strings.Join(f.log, "\n"); !strings.Contains(log, "wait ask /^answer$/ from_start=false\nsend ask \"hello\" submit=true input_wait_ms=30000") {
		t.Fatalf("calls:\n%s", log)
	}
}

// TestEngineLiveTable: with LiveWidth the progress is a table of every
// unit, redrawn in place at each transition (cursor up to its first line,
// clear below), each line cut to the width; the last one drawn shows the
// final states.
func TestEngineLiveTable(t *testing.T) {
	f := newFake(map[string]string{"impl": "working\nDONE: fixed it\nthanks", "test-a": "ok a", "test-b": "ok b"})
	_, s := runFakeWith(t, pipeline, f, context.Background(), func(o *RunOptions) { o.LiveWidth = 50 })
	if strings.Contains(s, "→") {
		t.Fatalf("transition lines in the live view:\n%q", s)
	}
	const clear = "\x1b[5F\x1b[J" // 5 units
	if !strings.Contains(s, clear) {
		t.Fatalf("no redraw of the 5-line table:\n%q", s)
	}
	last := strings.Split(strings.TrimSuffix(s[strings.LastIndex(s, clear)+len(clear):], "\n"), "\n")
	if len(last) != 5 {
		t.Fatalf("last table has %d lines:\n%q", len(last), s)
	}
	for i, id := range []string{"impl", "test[a]", "test[b]", "review", "tell"} {
		if !regexp.MustCompile(`^`+regexp.QuoteMeta(id)+` +READY +\d+\.\ds$`).MatchString(last[i]) || len([]rune(last[i])) > 49 {
			t.Errorf("table line %d = %q, want %s READY with its duration, at most 49 columns", i, last[i], id)
		}
	}
	if got := cutToWidth("review   FAILED  timed out\x1b[31m", 12); got != "review   FA…" {
		t.Errorf("cutToWidth = %q", got)
	}
	if got := cutToWidth("a\x1bb", 10); got != "a b" {
		t.Errorf("cutToWidth keeps a control character: %q", got)
	}
}

// TestEngineFeedsAnAgentThatNeverReadsInput: when the server typed a
// submitted text although the agent had not read its input within
// input_wait_ms, the engine warns and goes on.
func TestEngineFeedsAnAgentThatNeverReadsInput(t *testing.T) {
	f := newFake(map[string]string{"impl": "DONE: x\nthanks", "test-a": "ok a", "test-b": "ok b"})
	f.notReady["review"] = true
	var warns []string
	var mu sync.Mutex
	rep, _ := runFakeWith(t, pipeline, f, context.Background(), func(o *RunOptions) {
		o.Warn = func(m string) { mu.Lock(); warns = append(warns, m); mu.Unlock() }
	})
	if statuses(rep) != "impl=READY test[a]=READY test[b]=READY review=READY tell=READY" {
		t.Fatalf("report %s", statuses(rep))
	}
	if f.sent["review"] == "" {
		t.Fatal("the prompt was not fed")
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "had not turned on bracketed paste (read its input) after 30s; its text was typed anyway") {
		t.Fatalf("warnings %q", warns)
	}
}

// budgeted is the pipeline with a whole run's budget and one on impl.
var budgeted = strings.Replace(strings.Replace(pipeline, `name = "p"`, "name = \"p\"\nbudget = { cost = 2.5 }", 1),
	"capture = { var = \"summary\", lines = 2 }", "capture = { var = \"summary\", lines = 2 }\nbudget = { tokens = 1000 }", 1)

// TestEngineBudgets: the run's panes are told to the server with their
// budgets; a step whose budget the server reports crossed fails with its
// message while it waits (its dependents are skipped); the run's budget
// crossed fails what runs and skips what waits to start.
func TestEngineBudgets(t *testing.T) {
	t.Run("step", func(t *testing.T) {
		f := newFake(map[string]string{})
		f.block["impl"] = true
		go func() {
			<-f.waited
			f.alerts <- []proto.BudgetAlert{{Scope: "step", Step: "impl", Message: "budget exceeded: step 'impl' used 1390 tokens of its limit of 1000 tokens"}}
		}()
		rep, _ := runFake(t, budgeted, f, context.Background())
		want := "impl=FAILED(budget exceeded: step 'impl' used 1390 tokens of its limit of 1000 tokens) test[a]=SKIPPED(fail_fast: an earlier step failed) " +
			"test[b]=SKIPPED(fail_fast: an earlier step failed) review=SKIPPED(fail_fast: an earlier step failed) tell=SKIPPED(fail_fast: an earlier step failed)"
		if got := statuses(rep); got != want || rep.Exit != 1 {
			t.Errorf("report %s (exit %d), want %s", got, rep.Exit, want)
		}
		if want := []string{`impl run=p step=impl budget={"tokens":1000} run_budget={"cost_usd":2.5}`}; !slices.Equal(f.tracked, want) {
			t.Errorf("usage.track calls %q, want %q", f.tracked, want)
		}
		if !strings.HasPrefix(f.run, "p-") {
			t.Errorf("run id %q", f.run)
		}
		// The report says what the run used.
		var text strings.Builder
		rep.WriteText(&text)
		if want := "used 1234 tokens, $0.5000 (34 tokens unpriced) so far (run " + f.run + ": paneflow usage --by flow)\n"; rep.Run != f.run || rep.Usage == nil ||
			rep.Usage.Total != 1234 || !strings.HasSuffix(text.String(), want) {
			t.Errorf("report run %q usage %+v, text:\n%s\nwant it to end with %q", rep.Run, rep.Usage, text.String(), want)
		}
	})
	t.Run("run", func(t *testing.T) {
		f := newFake(map[string]string{"impl": "DONE: x"})
		f.block["test-a"], f.block["test-b"] = true, true
		go func() {
			<-f.waited
			<-f.waited
			f.alerts <- []proto.BudgetAlert{{Scope: "run", Message: "budget exceeded: 'p' used $2.60"}}
		}()
		rep, _ := runFake(t, budgeted, f, context.Background())
		want := "impl=READY test[a]=FAILED(budget exceeded: 'p' used $2.60) test[b]=FAILED(budget exceeded: 'p' used $2.60) " +
			"review=SKIPPED(the run's budget exceeded: 'p' used $2.60) tell=SKIPPED(the run's budget exceeded: 'p' used $2.60)"
		if got := statuses(rep); got != want || rep.Exit != 1 {
			t.Errorf("report %s (exit %d), want %s", got, rep.Exit, want)
		}
		if len(f.tracked) != 3 || !strings.HasPrefix(f.tracked[1], "test-a run=p step=test budget=") {
			t.Errorf("usage.track calls %q", f.tracked)
		}
	})
	t.Run("older instance", func(t *testing.T) {
		f := newFake(map[string]string{"impl": "DONE: x", "test-a": "ok a", "test-b": "ok b", "impl2": ""})
		f.out["impl"] += "\nthanks"
		f.noUsage = true
		var warns []string
		rep, _ := runFakeWith(t, budgeted, f, context.Background(), func(o *RunOptions) { o.Warn = func(m string) { warns = append(warns, m) } })
		if rep.Exit != 0 || len(warns) != 1 || !strings.Contains(warns[0], "the budgets are not enforced") {
			t.Errorf("report %s, warnings %q", statuses(rep), warns)
		}
		if rep.Run != "" || rep.Usage != nil {
			t.Errorf("an instance without usage.*: report run %q usage %+v", rep.Run, rep.Usage)
		}
	})
}

// TestCapturesFencedForAgentsPlainForPrograms: a capture goes into an
// agent's text fenced as untrusted output, into a program's as plain text
// with its control characters shown (issue 25 item 9: a `cat` pane got
// "got <untrusted_terminal_output …>RESULT-77</…>"), and a step's
// `captures` overrides either way.
func TestCapturesFencedForAgentsPlainForPrograms(t *testing.T) {
	const spec = `[defaults]
timeout_secs = 5

[[step]]
id = "src"
pane = { command = "src" }
ready = { pattern = "^RESULT" }
capture = { var = "v", lines = 1 }

[[step]]
id = "prog"
needs = ["src"]
submit = true
pane = { command = "cat", prompt = "got ${v}" }

[[step]]
id = "agent"
needs = ["src"]
submit = true
pane = { agent = "claude", prompt = "summarise ${v}" }

[[step]]
id = "forced"
needs = ["src"]
submit = true
captures = "fenced"
pane = { command = "cat", prompt = "x ${v}" }

[[step]]
id = "agent-plain"
needs = ["src"]
submit = true
captures = "plain"
pane = { agent = "codex", prompt = "y ${v}" }

[[step]]
id = "tell"
needs = ["src"]
send = { target = "src", text = "echo ${v}", submit = true }
`
	f := newFake(map[string]string{"src": "RESULT-77\x1b[31m\n"})
	rep, _ := runFake(t, spec, f, context.Background())
	if rep.Exit != 0 {
		t.Fatalf("report %s", statuses(rep))
	}
	fenced := regexp.MustCompile(`^(\S+ )<untrusted_terminal_output source="surface:[0-9]+" capture="v" id="([0-9a-f]{16})">\nRESULT-77\x1b\[31m\n</untrusted_terminal_output id="([0-9a-f]{16})">$`)
	for step, want := range map[string]string{"prog": `got RESULT-77\x1b[31m`, "agent-plain": `y RESULT-77\x1b[31m`, "src": `echo RESULT-77\x1b[31m`} {
		if got := f.sent[step]; got != want {
			t.Errorf("%s was sent %q, want %q", step, got, want)
		}
	}
	for _, step := range []string{"agent", "forced"} {
		if m := fenced.FindStringSubmatch(f.sent[step]); m == nil || m[2] != m[3] {
			t.Errorf("%s was sent %q, want the capture fenced", step, f.sent[step])
		}
	}
	plan := resolveSpec(t, spec)
	var b bytes.Buffer
	plan.WriteText(&b)
	for _, want := range []string{"spawn prog (needs src) \"prog\"\n  run       cat\n  cwd       (server's directory)\n  prompt    \"got ${v}\" (fed and submitted once the pane settles)\n  submit    yes (after the pane settles)\n  captures  plain text", "spawn agent (needs src) \"agent\"\n  run       claude   (agent claude)\n  cwd       (server's directory)\n  prompt    \"summarise ${v}\" (fed and submitted once the pane settles)\n  submit    yes (after the pane settles)\n  captures  fenced"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("plan text lacks %q:\n%s", want, b.String())
		}
	}
	for _, c := range []struct{ spec, err string }{
		{strings.Replace(spec, `captures = "fenced"`, `captures = "raw"`, 1), "step 'forced': `captures` must be \"fenced\" or \"plain\", got 'raw'"},
		{strings.Replace(spec, `prompt = "x ${v}"`, `prompt = "x"`, 1), "step 'forced': `captures` is set but the step's text"},
	} {
		if _, err := ParseFlow([]byte(c.spec)); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("ParseFlow = %v, want %q", err, c.err)
		}
	}
}
