//go:build linux

package agents

import (
	"encoding/json"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/test/internal/fakemodel"
	"github.com/paneflow-go/paneflow/test/internal/proctest"
	"github.com/paneflow-go/paneflow/test/internal/servetest"
)

// usageFigures is a usage object of surface.status and usage.summary.
type usageFigures struct {
	Input          int64    `json:"input"`
	CacheRead      int64    `json:"cache_read"`
	CacheWrite     int64    `json:"cache_write"`
	Output         int64    `json:"output"`
	Reasoning      int64    `json:"reasoning"`
	Total          int64    `json:"total"`
	CostUSD        *float64 `json:"cost_usd"`
	UnpricedTokens int64    `json:"unpriced_tokens"`
	Calls          int64    `json:"calls"`
}

func (u usageFigures) tokens() string {
	return fmt.Sprintf("input %d, cache read %d, cache write %d, output %d, reasoning %d, total %d, calls %d",
		u.Input, u.CacheRead, u.CacheWrite, u.Output, u.Reasoning, u.Total, u.Calls)
}

// price is a model's price as Paneflow's table has it: dollars per
// million input, output, cache-read and cache-write tokens.
type price struct{ in, out, cacheRead, cacheWrite float64 }

// modelPrices are the default prices of the models the tests' agents
// report: Claude Code's default model and the model the Gemini tests
// name; the others' fake-model has none.
var modelPrices = map[string]price{
	"claude": {4, 20, 0.2, 5},       // claude-opus-5-5
	"gemini": {0.3, 2.5, 0.03, 0.3}, // gemini-2.5-flash: no cache writes, plain input
	"codex":  {}, "opencode": {},    // fake-model: unpriced
}

// wantUsage is what tool's records hold of the usage the fake model
// reported to it (its log), as Paneflow counts it: the Anthropic API
// reports cache writes and no reasoning count; the OpenAI and Gemini APIs
// have no cache writes (the fake model counts them as plain input there)
// and report reasoning as part of the output. The cost is priced per
// response, as Paneflow prices each record.
func wantUsage(tool string, m *fakemodel.Server) usageFigures {
	var w usageFigures
	var nanos float64
	p := modelPrices[tool]
	for _, r := range m.Requests() {
		if r.Turn < 0 {
			continue // side requests report no usage (SetSideUsage is not used)
		}
		u := r.Usage
		t := usageFigures{Input: int64(u.Input), CacheRead: int64(u.CacheRead), CacheWrite: int64(u.CacheWrite), Output: int64(u.Output)}
		if tool != "claude" {
			t.Input, t.CacheWrite, t.Reasoning = t.Input+int64(u.CacheWrite), 0, int64(u.Reasoning)
		}
		nanos += math.Round((float64(t.Input)*p.in + float64(t.Output)*p.out + float64(t.CacheRead)*p.cacheRead + float64(t.CacheWrite)*p.cacheWrite) * 1e3)
		w.Input, w.CacheRead, w.CacheWrite, w.Output, w.Reasoning = w.Input+t.Input, w.CacheRead+t.CacheRead, w.CacheWrite+t.CacheWrite, w.Output+t.Output, w.Reasoning+t.Reasoning
		w.Calls++
	}
	w.Total = w.Input + w.CacheRead + w.CacheWrite + w.Output
	if p.in > 0 {
		usd := nanos / 1e9
		w.CostUSD = &usd
	} else {
		w.UnpricedTokens = w.Total
	}
	return w
}

// sameUsage reports whether got has want's tokens and cost.
func sameUsage(got, want usageFigures) bool {
	got.CostUSD, want.CostUSD = nil, nil
	return got == want
}

func sameCost(got, want *float64) bool {
	if got == nil || want == nil {
		return got == want
	}
	return math.Abs(*got-*want) < 1e-9
}

// statusUsage is pane 1's surface.status usage (zero when absent).
func (e *env) statusUsage() (session, turn usageFigures, model string) {
	e.t.Helper()
	var st struct {
		Usage *struct {
			Model    string       `json:"model"`
			Session  usageFigures `json:"session"`
			LastTurn usageFigures `json:"last_turn"`
		} `json:"usage"`
	}
	out := e.mustCLI("status", "1", "--json")
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		e.t.Fatalf("status: %v: %s", err, out)
	}
	if st.Usage == nil {
		return usageFigures{}, usageFigures{}, ""
	}
	return st.Usage.Session, st.Usage.LastTurn, st.Usage.Model
}

// checkUsage checks what Paneflow counted for tool's run in pane 1
// against the fake model's log, to the token: surface.status's session
// (and its last turn, when the run was oneTurn: one prompt, no turn the
// agent started itself) and the day's total by agent. The agent has
// exited: its last records are read within the seconds after, so the
// status is polled until it has them all.
func (e *env) checkUsage(tool string, oneTurn bool) {
	e.t.Helper()
	want := wantUsage(tool, e.model)
	var session, turn usageFigures
	var model string
	deadline := time.Now().Add(pollTimeout)
	for {
		session, turn, model = e.statusUsage()
		if sameUsage(session, want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !sameUsage(session, want) || !sameCost(session.CostUSD, want.CostUSD) || oneTurn && !sameUsage(turn, want) ||
		turn.Total == 0 || turn.Total > session.Total {
		e.t.Fatalf("%s's usage in surface.status:\n session   %s, cost %v\n last turn %s\nthe model reported:\n           %s, cost %v",
			tool, session.tokens(), fmtCost(session.CostUSD), turn.tokens(), want.tokens(), fmtCost(want.CostUSD))
	}
	if model == "" {
		e.t.Errorf("%s's usage names no model", tool)
	}
	var sum struct {
		Total  usageFigures `json:"total"`
		Groups []struct {
			Key   string       `json:"key"`
			Usage usageFigures `json:"usage"`
		} `json:"groups"`
	}
	out := e.mustCLI("usage", "--by", "agent", "--json")
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		e.t.Fatalf("paneflow usage: %v: %s", err, out)
	}
	if len(sum.Groups) != 1 || sum.Groups[0].Key != tool || !sameUsage(sum.Groups[0].Usage, want) || !sameCost(sum.Total.CostUSD, want.CostUSD) {
		e.t.Errorf("paneflow usage --by agent = %s; want one group %s with %s", out, tool, want.tokens())
	}
	prove(e.t, tool, "usage", "yes")
}

func fmtCost(c *float64) string {
	if c == nil {
		return "unknown"
	}
	return fmt.Sprintf("$%.9f", *c)
}

// restartServe stops `paneflow serve` and starts it again with the same
// socket and state directory (the pane is restored with a fresh shell,
// the day's usage is kept).
func (e *env) restartServe() {
	e.t.Helper()
	e.watch.Terminate(10 * time.Second)
	e.serve.StopOrFail(e.t, "paneflow serve", servetest.StopTimeout)
	e.startServeAgain()
}

// startServeAgain starts `paneflow serve` and `paneflow watch` again
// after they ended, on the same socket and state directory (the watch's
// new events are added to e.events).
func (e *env) startServeAgain() {
	e.t.Helper()
	e.serve = servetest.Start(e.t, servetest.Config{Bin: filepath.Join(binDir, "paneflow"), Sock: e.sock, Dir: e.project, Env: e.environ, Size: "120x40"}).Proc
	e.t.Cleanup(func() { // before servetest's, which stops this serve
		if e.t.Failed() {
			e.logPanes()
		}
	})
	w := exec.Command(filepath.Join(binDir, "paneflow"), "watch", "--surface", "1")
	w.Env, w.Stdout, w.Stderr = e.environ, &e.events, &e.events
	var err error
	if e.watch, err = proctest.Start(w); err != nil {
		e.t.Fatal(err)
	}
}

// checkDaySurvives restarts the server and checks that the day's usage
// is what it was.
func (e *env) checkDaySurvives(tool string) {
	e.t.Helper()
	before := e.mustCLI("usage", "--json")
	e.restartServe()
	after := e.mustCLI("usage", "--json")
	var b, a struct {
		Total usageFigures `json:"total"`
	}
	json.Unmarshal([]byte(before), &b)
	json.Unmarshal([]byte(after), &a)
	if want := wantUsage(tool, e.model); !sameUsage(a.Total, want) || !sameCost(a.Total.CostUSD, b.Total.CostUSD) {
		e.t.Errorf("the day's usage after a restart = %s; before it %s; the model reported %s", after, before, want.tokens())
	}
	if !strings.Contains(e.mustCLI("usage"), "total") {
		e.t.Errorf("paneflow usage prints no total")
	}
}

// TestClaudeUsageSubagent: a Claude Code 2.1.332 turn that delegates to a
// subagent (the Agent tool): the subagent's requests are recorded in a
// transcript of its own beside the session's, and Paneflow counts them
// with the session's, to the token. `paneflow usage --prices` shows the
// table its cost comes from.
func TestClaudeUsageSubagent(t *testing.T) {
	t.Parallel()
	model := fakemodel.Start(t,
		fakemodel.Turn{Calls: []fakemodel.Call{{Name: "Agent", Args: map[string]any{"description": "look", "prompt": "say hi", "subagent_type": "general-purpose"}}}},
		fakemodel.Turn{Text: "sub done"},
		fakemodel.Turn{Text: "All done."})
	e := newEnv(t, model, options{profile: claudeProfile(model)})
	e.typeLine(`claude -p "delegate please" --allowedTools Agent`)
	e.waitEvent("ai.session_end", func(ev event) bool { return ev.Type == "ai.session_end" })
	subagents, _ := filepath.Glob(filepath.Join(e.home, ".claude", "projects", "*", "*", "subagents", "*.jsonl"))
	if len(subagents) != 1 {
		t.Fatalf("subagent transcripts %q, want one (did Claude Code run the subagent?)", subagents)
	}
	// Claude Code starts a turn of its own when the subagent's result
	// comes back (its UserPromptSubmit hook fires): the last turn is that.
	e.checkUsage("claude", false)
	if out := e.mustCLI("usage", "--prices"); !strings.Contains(out, "claude-opus-5-5") || !strings.Contains(out, "Claude Code 2.1.332 model catalog, 2026-12-05") {
		t.Errorf("paneflow usage --prices:\n%s", out)
	}
}
