package usage

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// readAll reads every record of a file with the format of tool, through
// a tail as the subsystem does.
func readAll(t *testing.T, tool, path string) (Tokens, []Record) {
	t.Helper()
	f := formatFor(tool)
	var recs []Record
	var sum Tokens
	tl := newTail(path, time.Time{})
	defer tl.close()
	for {
		more, err := tl.poll(1<<20, func(b []byte) {
			f.line(b, func(r Record) { recs = append(recs, r); sum = sum.add(r.Tokens) })
		}, f.reset)
		if err != nil {
			t.Fatal(err)
		}
		if !more {
			return sum, recs
		}
	}
}

// The testdata are records the pinned agent CLIs wrote against the fake
// model (test/internal/fakemodel) answering each request with TurnUsage of
// its index: Claude Code 2.1.332 (four requests, one of them a subagent's,
// whose transcript is a file of its own), Codex 0.169.0, Gemini CLI 0.61.0
// and opencode 1.18.33 through Paneflow's plugin (two requests each). The
// OpenAI and Gemini APIs have no cache writes: the fake model's count them
// as plain input there.
func TestFormats(t *testing.T) {
	two := Tokens{Input: 1000 + 50 + 1010 + 53, CacheRead: 300 + 307, Output: 40 + 45, Reasoning: 8 + 9}
	tests := []struct {
		tool, file string
		want       Tokens
		calls      int
		model      string
	}{
		{"claude", "claude/session.jsonl", Tokens{Input: 1000 + 1010 + 1030, CacheRead: 300 + 307 + 321, CacheWrite: 50 + 53 + 59, Output: 40 + 45 + 55}, 3, "claude-opus-5-5"},
		{"claude", "claude/session/subagents/agent-a83b355216e119e29.jsonl", Tokens{Input: 1020, CacheRead: 314, CacheWrite: 56, Output: 50}, 1, "claude-opus-5-5"},
		{"codex", "codex/rollout.jsonl", two, 2, "fake-model"},
		{"gemini", "gemini/session.jsonl", two, 2, "gemini-2.5-flash"},
		{"opencode", "opencode/usage.jsonl", two, 2, "fake-model"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, recs := readAll(t, tt.tool, filepath.Join("testdata", tt.file))
			if got != tt.want {
				t.Errorf("tokens = %+v, want %+v", got, tt.want)
			}
			if len(recs) != tt.calls {
				t.Errorf("%d records, want %d: %+v", len(recs), tt.calls, recs)
			}
			for _, r := range recs {
				if r.Model != tt.model || r.At.IsZero() {
					t.Errorf("record %+v: want model %s and a time", r, tt.model)
				}
			}
		})
	}
}

// TestClaudeCost: the cost Paneflow reckons for a Claude Code session is
// the one Claude Code recorded itself (its cost-state line), to the
// billionth of a dollar.
func TestClaudeCost(t *testing.T) {
	main, recs := readAll(t, "claude", filepath.Join("testdata", "claude", "session.jsonl"))
	sub, _ := readAll(t, "claude", filepath.Join("testdata", "claude", "session", "subagents", "agent-a83b355216e119e29.jsonl"))
	prices, _ := NewPrices(nil)
	price, ok := prices.Lookup(recs[0].Model)
	if !ok {
		t.Fatalf("no price for %s", recs[0].Model)
	}
	data, err := os.ReadFile(filepath.Join("testdata", "claude", "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var state struct {
		TotalCostUSD float64 `json:"totalCostUSD"`
	}
	for l := range strings.Lines(string(data)) {
		if strings.Contains(l, `"cost-state"`) {
			json.Unmarshal([]byte(l), &state)
		}
	}
	if got, want := price.cost(main.add(sub)), nanosOf(state.TotalCostUSD); got != want || want == 0 {
		t.Errorf("cost = %d nanos, Claude Code recorded %d", got, want)
	}
}

// TestRewrittenRecords: a record written again counts by its growth; a
// Codex total counts by its growth, and the first one read by its last
// response.
func TestRewrittenRecords(t *testing.T) {
	var got []Record
	emit := func(r Record) { got = append(got, r) }
	f := formatFor("gemini")
	f.line([]byte(`{"id":"a","type":"gemini","model":"m","tokens":{"input":10,"output":2,"cached":4,"thoughts":1,"tool":3}}`), emit)
	f.line([]byte(`{"id":"a","type":"gemini","model":"m","tokens":{"input":10,"output":5,"cached":4,"thoughts":1,"tool":3},"toolCalls":[]}`), emit)
	f.line([]byte(`{"$set":{"lastUpdated":"x"}}`), emit)
	want := []Tokens{{Input: 9, CacheRead: 4, Output: 3, Reasoning: 1}, {Output: 3}}
	if len(got) != 2 || got[0].Tokens != want[0] || got[1].Tokens != want[1] {
		t.Errorf("gemini records = %+v, want %+v", got, want)
	}

	got = nil
	c := formatFor("codex")
	tc := func(total, last int64) []byte {
		return []byte(`{"timestamp":"2026-12-05T08:06:04.120Z","type":"event_msg","payload":{"type":"token_count","info":{` +
			`"total_token_usage":{"input_tokens":` + itoa(total) + `,"output_tokens":1},"last_token_usage":{"input_tokens":` + itoa(last) + `,"output_tokens":1}}}}`)
	}
	c.line(tc(500, 100), emit) // a resumed session: 400 before us
	c.line(tc(500, 100), emit) // the same count again
	c.line(tc(700, 200), emit)
	c.line([]byte(`{"type":"event_msg","payload":{"type":"token_count","info":null}}`), emit)
	if len(got) != 2 || got[0].Tokens.Input != 100 || got[0].Tokens.Output != 1 || got[1].Tokens.Input != 200 || got[1].Tokens.Output != 0 {
		t.Errorf("codex records = %+v", got)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestLookup(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	p, warns := NewPrices(map[string]PriceOverride{
		"my-model":         {Input: f(1), Output: f(2)},
		"Claude-Haiku-5-5": {Input: f(9)},       // the other fields stay built in
		"half-given":       {Input: f(1)},       // unknown model without an output price
		"gpt-5.4":          {LongInput: f(100)}, // one long-context price
	})
	if len(warns) != 1 || !strings.Contains(warns[0], `"half-given"`) {
		t.Errorf("warnings = %q", warns)
	}
	if h, _ := p.Lookup("claude-haiku-5-5"); h.Output != 0.5 || h.CacheRead != 0.01 || h.LongAbove != 100_000 || h.Source != "paneflow.toml" {
		t.Errorf("overridden haiku = %+v", h)
	}
	if g, _ := p.Lookup("gpt-5.4"); g.Input != 2.5 || g.Long.Input != 100 || g.Long.Output != 22.5 {
		t.Errorf("overridden gpt-5.4 = %+v %+v", g, g.Long)
	}
	for _, tt := range []struct {
		model string
		input float64 // 0: unknown
	}{
		{"claude-opus-5-5", 4},
		{"claude-sonnet-4-5-20250929", 3},
		{"anthropic/claude-opus-5-5", 4},
		{"claude-opus-5-5[1m]", 4},
		{"us.anthropic.claude-haiku-4-5-20251001-v1:0", 1},
		{"claude-opus-4-1-20990101", 15}, // an unknown snapshot of a known model
		{"models/gemini-2.5-pro", 1.25},
		{"gpt-6-astra", 10},
		{"MY-MODEL", 1},
		{"claude-haiku-5-5", 9}, // overridden
		{"fake-model", 0},
		{"half-given", 0},
		{"gpt-6.1-sol", 0},
		{"", 0},
	} {
		pr, ok := p.Lookup(tt.model)
		if ok != (tt.input != 0) || pr.Input != tt.input {
			t.Errorf("Lookup(%q) = %+v, %v; want input %v", tt.model, pr, ok, tt.input)
		}
	}
}

func TestCost(t *testing.T) {
	prices, _ := NewPrices(nil)
	pr, _ := prices.Lookup("gemini-2.5-pro")
	short := Tokens{Input: 100_000, CacheRead: 50_000, Output: 10_000}
	long := Tokens{Input: 150_000, CacheRead: 60_000, Output: 10_000}
	if got, want := pr.cost(short), nanosOf((100_000*1.25+50_000*0.125+10_000*10)/1e6); got != want {
		t.Errorf("short prompt: %d, want %d", got, want)
	}
	if got, want := pr.cost(long), nanosOf((150_000*2.5+60_000*0.25+10_000*15)/1e6); got != want {
		t.Errorf("long prompt: %d, want %d", got, want)
	}
	// Anthropic's one-hour cache writes cost more; a model without cache
	// prices charges cached tokens as input.
	op, _ := prices.Lookup("claude-opus-5-5")
	if got, want := op.cost(Tokens{CacheWrite: 1000, CacheWrite1h: 400}), nanosOf((600*5+400*8)/1e6); got != want {
		t.Errorf("cache writes: %d, want %d", got, want)
	}
	plain := Price{Input: 2, Output: 4}
	if got, want := plain.cost(Tokens{CacheRead: 10, CacheWrite: 10, CacheWrite1h: 5}), nanosOf(40.0/1e6); got != want {
		t.Errorf("no cache prices: %d, want %d", got, want)
	}
}
