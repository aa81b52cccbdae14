package usage

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/bus/bustest"
	"github.com/paneflow-go/paneflow/internal/clock"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/subsystem"
)

// start is the fake clock's start: before the testdata's records
// (2026-12-05T08:06–08:50Z).
var start = time.Date(2026, 12, 5, 8, 0, 0, 0, time.UTC)

// fakePanes is a [Panes] over a fixed set of panes that records the keys
// pressed.
type fakePanes struct {
	mu          sync.Mutex
	info        map[uint64]PaneInfo
	interactive map[uint64]bool
	pressed     map[uint64][]string
}

func (f *fakePanes) Pane(id uint64) (PaneInfo, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	in, ok := f.info[id]
	return in, ok
}

func (f *fakePanes) Interactive(id uint64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.interactive[id]
}

func (f *fakePanes) Press(id uint64, keys ...string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pressed[id] = append(f.pressed[id], keys...)
	return nil
}

func (f *fakePanes) keys(id uint64) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.pressed[id])
}

// harness is one usage subsystem on a bus, a fake clock and a socket.
type harness struct {
	t     *testing.T
	b     *bus.Bus
	clock *clock.Fake
	panes *fakePanes
	u     *Usage
	g     *subsystem.Group
	srv   *ipc.Server
	w     *bustest.Watcher
	dir   string // day files
	data  string // agents' record files
}

func newHarness(t *testing.T, dir string, o Options) *harness {
	t.Helper()
	h := &harness{t: t, b: bustest.NewBus(t), clock: clock.NewFake(start), dir: dir, data: t.TempDir(),
		panes: &fakePanes{
			info: map[uint64]PaneInfo{
				1: {WorkspaceID: 10, Workspace: "Work"}, 2: {WorkspaceID: 10, Workspace: "Work"},
				3: {WorkspaceID: 20, Workspace: "Other"}, 4: {WorkspaceID: 20, Workspace: "Other"},
			},
			interactive: map[uint64]bool{2: true, 4: true},
			pressed:     map[uint64][]string{},
		}}
	h.w = bustest.NewWatcher(t, h.b, bus.MatchTypes(bus.TypeUsageChanged, bus.TypeBudgetAlert))
	o.Panes, o.Dir, o.Location = h.panes, dir, time.UTC
	h.u = New(o)
	reg := ipc.NewRegistry()
	h.g = subsystem.NewGroup(subsystem.Options{Registry: reg, Bus: h.b, Clock: h.clock, Logf: t.Logf})
	if err := h.g.Start(h.u); err != nil {
		t.Fatal(err)
	}
	h.srv = ipctest.Start(t, reg)
	t.Cleanup(func() { h.stop() })
	return h
}

func (h *harness) stop() {
	if err := h.g.Shutdown(context.Background()); err != nil {
		h.t.Error(err)
	}
}

// record copies testdata file rel into the agents' files, stamped
// written after the clock's start, and returns its path.
func (h *harness) record(rel string) string {
	h.t.Helper()
	p := filepath.Join(h.data, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		h.t.Fatal(err)
	}
	src, err := os.Open(filepath.Join("testdata", rel))
	if err != nil {
		h.t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.Create(p)
	if err != nil {
		h.t.Fatal(err)
	}
	io.Copy(dst, src)
	dst.Close()
	mt := start.Add(time.Hour)
	os.Chtimes(p, mt, mt)
	return p
}

// usageOf waits for a usage_changed of pane id whose session total is
// want, and returns it.
func (h *harness) usageOf(id uint64, want int64) bus.UsageChanged {
	h.t.Helper()
	return h.w.WaitFor(func(e bus.Event) bool {
		u, ok := e.(bus.UsageChanged)
		return ok && u.SurfaceID == id && u.Session.Total == want
	}).(bus.UsageChanged)
}

func (h *harness) call(method string, params any, v any) {
	h.t.Helper()
	if err := json.Unmarshal(ipctest.Call(h.t, h.srv, method, params), v); err != nil {
		h.t.Fatal(err)
	}
}

// frame publishes an ai.* event as the conductor does.
func (h *harness) frame(e bus.Event) { h.b.Publish(e) }

func agentFrame(surface uint64, tool string, pid int, path string) bus.AgentFrame {
	return bus.AgentFrame{SurfaceID: surface, Tool: tool, PID: pid, TranscriptPath: path, At: start}
}

// TestFollow: a Claude Code session's transcript and its subagent's are
// followed from the frame that names them; the pane's, workspace's and
// day's figures are the records' sums; the day survives a restart.
func TestFollow(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, dir, Options{})
	main := h.record("claude/session.jsonl")
	h.record("claude/session/subagents/agent-a83b355216e119e29.jsonl")
	h.frame(bus.AISessionStart{AgentFrame: agentFrame(1, "claude", 42, "")})
	h.frame(bus.AIPromptSubmit{AgentFrame: agentFrame(1, "claude", 42, main)})
	want := Tokens{Input: 4060, CacheRead: 1242, CacheWrite: 218, Output: 190}
	ev := h.usageOf(1, want.Total())
	if ev.Tool != "claude" || ev.Model != "claude-opus-5-5" || ev.WorkspaceID != 10 || ev.Session.Calls != 4 ||
		ev.Session.CostUSD == nil || *ev.Session.CostUSD != 0.0213784 || ev.LastTurn.Total != want.Total() || ev.Workspace.Total != want.Total() {
		t.Errorf("usage_changed = %+v", ev)
	}
	st, ok := h.u.SurfaceUsage(1)
	if !ok || st.Session.Input != want.Input || st.Session.CacheWrite != want.CacheWrite {
		t.Errorf("SurfaceUsage = %+v, %v", st, ok)
	}

	// A new turn starts the last turn's figures from zero.
	h.frame(bus.AIPromptSubmit{AgentFrame: agentFrame(1, "claude", 42, main)})
	if ev := h.usageOf(1, want.Total()); ev.LastTurn.Total != 0 {
		t.Errorf("after a new prompt, last turn = %+v", ev.LastTurn)
	}

	var s proto.UsageSummary
	h.call(proto.MethodUsageSummary, proto.UsageSummaryParams{By: "workspace"}, &s)
	if s.Total.Total != want.Total() || len(s.Groups) != 1 || s.Groups[0].Key != "Work" || s.Daily != nil {
		t.Errorf("summary by workspace = %+v", s)
	}
	h.stop()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 1 || filepath.Base(files[0]) != "2026-12-05.json" {
		t.Fatalf("day files %q", files)
	}

	// Restarted: the day is read back.
	h2 := newHarness(t, dir, Options{})
	h2.call(proto.MethodUsageSummary, proto.UsageSummaryParams{By: "agent"}, &s)
	if s.Total.Total != want.Total() || s.Total.CostUSD == nil || *s.Total.CostUSD != 0.0213784 || len(s.Groups) != 1 || s.Groups[0].Key != "claude" {
		t.Errorf("summary after a restart = %+v", s)
	}
	h2.call(proto.MethodUsageSummary, proto.UsageSummaryParams{Since: "2026-12-04", Until: "2026-12-04T22:00:00Z"}, &s)
	if s.Total.Total != 0 {
		t.Errorf("summary of the day before = %+v", s.Total)
	}
}

// TestHistoryNotCounted: records from before the session began (a
// resumed session's transcript) do not count.
func TestHistoryNotCounted(t *testing.T) {
	h := newHarness(t, t.TempDir(), Options{})
	p := h.record("gemini/session.jsonl")
	f := agentFrame(2, "gemini", 0, p)
	f.At = time.Date(2026, 12, 5, 8, 6, 33, 0, time.UTC) // after the first response (08:06:31.972), before the second (08:06:32.245) less the slack
	h.frame(bus.AIToolUse{AgentFrame: f})
	ev := h.usageOf(2, 1063+307+45)
	if ev.Session.Calls != 1 {
		t.Errorf("usage = %+v, want the second response only", ev.Session)
	}
}

// TestBudgets: a step's budget crossed pauses its working agent (Escape
// in a TUI) and is handed to usage.budget_wait; a run's budget over
// another pane's print-mode agent gets Ctrl+C; the day's budget warns at
// 80 % and pauses every working agent at 100 %.
func TestBudgets(t *testing.T) {
	// fake-model gets a price: $1 per million tokens of each kind.
	one := 1.0
	prices, _ := NewPrices(map[string]PriceOverride{"fake-model": {Input: &one, Output: &one, CacheRead: &one, CacheWrite: &one}})
	h := newHarness(t, t.TempDir(), Options{Prices: prices, Daily: Limit{Tokens: 6000}, DailyPause: true})
	var ok map[string]bool
	h.call(proto.MethodUsageTrack, proto.UsageTrackParams{SurfaceID: 2, Run: "r1", Label: "review", Step: "build", Budget: &proto.UsageLimitParams{Tokens: ptr(int64(2000))}}, &ok)
	h.call(proto.MethodUsageTrack, proto.UsageTrackParams{SurfaceID: 3, Run: "r1", Label: "review", Step: "test", RunBudget: &proto.UsageLimitParams{CostUSD: ptr(0.003)}}, &ok)
	for _, bad := range []proto.UsageTrackParams{{SurfaceID: 9, Run: "r"}, {SurfaceID: 2}, {SurfaceID: 2, Run: "r", Budget: &proto.UsageLimitParams{}}, {SurfaceID: 2, Run: "r", Budget: &proto.UsageLimitParams{Tokens: ptr(int64(-1))}}} {
		if err := ipctest.Client(h.srv).Call(context.Background(), proto.MethodUsageTrack, bad, nil); err == nil || !strings.Contains(err.Error(), "invalid params") {
			t.Errorf("usage.track %+v: %v, want invalid params", bad, err)
		}
	}
	waited := make(chan proto.UsageBudgetWaitResult, 1)
	go func() {
		var r proto.UsageBudgetWaitResult
		if err := ipctest.Client(h.srv).Call(context.Background(), proto.MethodUsageBudgetWait, proto.UsageBudgetWaitParams{Run: "r1"}, &r); err != nil {
			t.Error(err)
		}
		waited <- r
	}()
	alert := func(match func(bus.BudgetAlert) bool) bus.BudgetAlert {
		t.Helper()
		return h.w.WaitFor(func(e bus.Event) bool { a, ok := e.(bus.BudgetAlert); return ok && match(a) }).(bus.BudgetAlert)
	}

	// Gemini CLI in pane 2, a TUI: 2805 tokens, $0.000865.
	h.frame(bus.AgentState{SurfaceID: 2, Tool: "gemini", State: "thinking"})
	h.frame(bus.AIPromptSubmit{AgentFrame: agentFrame(2, "gemini", 0, h.record("gemini/session.jsonl"))})
	a := alert(func(bus.BudgetAlert) bool { return true })
	if a.Scope != "step" || a.Step != "build" || a.Level != bus.BudgetExceeded || !slices.Equal(a.Paused, []uint64{2}) ||
		a.Used.Total != 2805 || !strings.Contains(a.Message, "step 'build' of 'review' (run r1)") {
		t.Errorf("alert = %+v", a)
	}
	if k := h.panes.keys(2); !slices.Equal(k, []string{"escape"}) {
		t.Errorf("keys pressed in pane 2 = %q, want escape", k)
	}
	r := <-waited
	if len(r.Alerts) != 1 || r.Next != 1 || r.Alerts[0].Step != "build" {
		t.Errorf("budget_wait = %+v", r)
	}
	h.frame(bus.AgentState{SurfaceID: 2, Tool: "gemini", State: "finished"})

	// Codex in pane 3, a print mode: the run's $0.003 is crossed
	// ($0.002805 more); its working agent gets Ctrl+C. The day is at 93 %.
	h.frame(bus.AgentState{SurfaceID: 3, Tool: "codex", State: "thinking"})
	h.frame(bus.AIPromptSubmit{AgentFrame: agentFrame(3, "codex", 7, h.record("codex/rollout.jsonl"))})
	a = alert(func(a bus.BudgetAlert) bool { return a.Scope == "run" })
	if !slices.Equal(a.SurfaceIDs, []uint64{2, 3}) || !slices.Equal(a.Paused, []uint64{3}) || a.LimitCostUSD != 0.003 {
		t.Errorf("run alert = %+v", a)
	}
	if k := h.panes.keys(3); !slices.Equal(k, []string{"ctrl-c"}) {
		t.Errorf("keys pressed in pane 3 = %q, want ctrl-c", k)
	}
	if warn := alert(func(a bus.BudgetAlert) bool { return a.Scope == "day" }); warn.Level != bus.BudgetWarning || warn.Used.Total != 2805*2 {
		t.Errorf("day alert = %+v, want the 80 %% warning", warn)
	}

	// opencode in pane 4: over the day's budget every working agent is
	// paused (pane 2 finished).
	h.frame(bus.AgentState{SurfaceID: 4, Tool: "opencode", State: "thinking"})
	h.frame(bus.AIPromptSubmit{AgentFrame: agentFrame(4, "opencode", 8, h.record("opencode/usage.jsonl"))})
	if over := alert(func(a bus.BudgetAlert) bool { return a.Scope == "day" }); over.Level != bus.BudgetExceeded || !slices.Equal(over.Paused, []uint64{3, 4}) {
		t.Errorf("day alert = %+v, want exceeded with panes 3 and 4 paused", over)
	}
	if k := h.panes.keys(4); !slices.Equal(k, []string{"escape", "escape"}) {
		t.Errorf("keys pressed in pane 4 = %q, want escape escape (opencode's TUI)", k)
	}
	var s proto.UsageSummary
	h.call(proto.MethodUsageSummary, proto.UsageSummaryParams{By: "flow"}, &s)
	if len(s.Groups) != 2 || s.Groups[0].Key != "r1" || s.Groups[0].Flow != "review" || s.Groups[0].Usage.Total != 2805*2 ||
		s.Daily == nil || s.Daily.Used.Total != 2805*3 || !s.Daily.Pause {
		t.Errorf("summary by flow = %+v", s)
	}
}

func ptr[T any](v T) *T { return &v }

// TestSummaryParams: the grammar of since and until, and bad params.
func TestSummaryParams(t *testing.T) {
	now := time.Date(2026, 12, 5, 15, 4, 5, 0, time.UTC)
	for _, tt := range []struct{ in, want string }{
		{"today", "2026-12-05T00:00:00Z"}, {"yesterday", "2026-12-04T00:00:00Z"}, {"2026-11-30", "2026-11-30T00:00:00Z"},
		{"7d", "2026-11-28T15:04:05Z"}, {"36h", "2026-12-04T03:04:05Z"}, {"2026-12-01T10:00:00+01:00", "2026-12-01T09:00:00Z"},
	} {
		got, err := ParseTime(tt.in, now, time.UTC)
		if err != nil || !got.Equal(mustTime(tt.want)) {
			t.Errorf("ParseTime(%q) = %v, %v; want %s", tt.in, got, err, tt.want)
		}
	}
	if _, err := ParseTime("last week", now, time.UTC); err == nil {
		t.Error("ParseTime(last week) succeeded")
	}
	h := newHarness(t, t.TempDir(), Options{})
	for _, p := range []string{`{"by":"color"}`, `{"since":"soon"}`, `{"since":"today","until":"yesterday"}`, `{"sinse":"today"}`} {
		err := ipctest.Client(h.srv).Call(context.Background(), proto.MethodUsageSummary, json.RawMessage(p), nil)
		if err == nil || !strings.Contains(err.Error(), "invalid params") {
			t.Errorf("usage.summary %s: %v, want invalid params", p, err)
		}
	}
	var prices proto.UsagePricesResult
	h.call(proto.MethodUsagePrices, nil, &prices)
	if len(prices.Prices) < 40 || prices.Prices[0].Source == "" || prices.Prices[0].AsOf != pricesAsOf {
		t.Errorf("usage.prices = %+v", prices)
	}
}

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestHistoryNotCountedClaude: a Claude Code transcript written before
// the session began (a resumed session's) but touched since is read, and
// none of its records count; those written after do.
func TestHistoryNotCountedClaude(t *testing.T) {
	h := newHarness(t, t.TempDir(), Options{})
	p := filepath.Join(h.data, "resumed.jsonl")
	line := func(n int, at time.Time) string {
		return fmt.Sprintf(`{"type":"assistant","requestId":"r%d","message":{"id":"m%d","model":"claude-opus-5-5","usage":{"input_tokens":10,"output_tokens":5}},"timestamp":%q}`+"\n",
			n, n, at.Format(time.RFC3339Nano))
	}
	var old strings.Builder
	for n := range 100 {
		old.WriteString(line(n, start.Add(-time.Hour)))
	}
	if err := os.WriteFile(p, []byte(old.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(p, start.Add(time.Minute), start.Add(time.Minute))
	h.frame(bus.AIPromptSubmit{AgentFrame: agentFrame(1, "claude", 9, p)})
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(line(1000, start.Add(time.Minute)))
	f.Close()
	h.frame(bus.AIToolUse{AgentFrame: agentFrame(1, "claude", 9, p)})
	if ev := h.usageOf(1, 15); ev.Session.Calls != 1 {
		t.Errorf("usage = %+v, want the new record only", ev.Session)
	}
}
