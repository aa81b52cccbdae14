//go:build !windows

package app

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/widget"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/proto"
)

func usd(v float64) *float64 { return &v }

// TestUsageText: tokens always, compactly; the cost only where some
// tokens had a price, marked as a lower bound when others had none.
func TestUsageText(t *testing.T) {
	for _, tt := range []struct {
		u    proto.Usage
		want string
	}{
		{proto.Usage{}, "0 tok"},
		{proto.Usage{Total: 812}, "812 tok"},
		{proto.Usage{Total: 12_400, CostUSD: usd(0.18)}, "12.4k tok · $0.18"},
		{proto.Usage{Total: 99_949}, "99.9k tok"},
		{proto.Usage{Total: 132_400, CostUSD: usd(0.2244)}, "132k tok · $0.22"},
		{proto.Usage{Total: 1_240_000, CostUSD: usd(3.4)}, "1.24M tok · $3.40"},
		{proto.Usage{Total: 2_000_000, CostUSD: usd(123.4)}, "2M tok · $123"},
		{proto.Usage{Total: 1200, CostUSD: usd(0.002)}, "1.2k tok · <$0.01"},
		{proto.Usage{Total: 5000, CostUSD: usd(0)}, "5.0k tok · $0.00"},
		{proto.Usage{Total: 20_000, CostUSD: usd(0.5), UnpricedTokens: 5000}, "20.0k tok · ≥$0.50"},
		{proto.Usage{Total: 3_500_000_000}, "3.5B tok"},
	} {
		if got := usageText(tt.u); got != tt.want {
			t.Errorf("usageText(%d tokens, cost %v) = %q, want %q", tt.u.Total, tt.u.CostUSD, got, tt.want)
		}
	}
}

// TestDayText: the day's total, and the share of its budget (the larger
// of tokens and cost) in the warning colour from 80 %, the danger colour
// once spent.
func TestDayText(t *testing.T) {
	for _, tt := range []struct {
		name string
		sum  proto.UsageSummary
		want string
		imp  widget.Importance
	}{
		{"no budget", proto.UsageSummary{Total: proto.Usage{Total: 1500, CostUSD: usd(0.3)}}, "Today: 1.5k tok · $0.30", widget.MediumImportance},
		{"under 80 %", proto.UsageSummary{Total: proto.Usage{Total: 1500, CostUSD: usd(3)},
			Daily: &proto.UsageDaily{Used: proto.Usage{Total: 1500, CostUSD: usd(3)}, LimitCostUSD: 10}},
			"Today: 1.5k tok · $3.00 — 30 % of the daily budget ($10.00)", widget.MediumImportance},
		{"at 80 % of the tokens", proto.UsageSummary{Total: proto.Usage{Total: 80_000},
			Daily: &proto.UsageDaily{Used: proto.Usage{Total: 80_000}, LimitTokens: 100_000, LimitCostUSD: 50}},
			"Today: 80.0k tok — 80 % of the daily budget (100k tok, $50.00)", widget.WarningImportance},
		{"exceeded", proto.UsageSummary{Total: proto.Usage{Total: 10, CostUSD: usd(12)},
			Daily: &proto.UsageDaily{Used: proto.Usage{Total: 10, CostUSD: usd(12)}, LimitCostUSD: 10}},
			"Today: 10 tok · $12.00 — 120 % of the daily budget ($10.00): exceeded", widget.DangerImportance},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, imp := dayText(tt.sum)
			if got != tt.want || imp != tt.imp {
				t.Errorf("dayText = %q (importance %v), want %q (%v)", got, imp, tt.want, tt.imp)
			}
		})
	}
}

// claudeRecord is one assistant message of a Claude Code transcript with
// its usage, stamped now.
func claudeRecord(n int, model string, input, output int64) string {
	return fmt.Sprintf(`{"type":"assistant","requestId":"r%d","message":{"id":"m%d","model":%q,"usage":{"input_tokens":%d,"output_tokens":%d}},"timestamp":%q}`+"\n",
		n, n, model, input, output, time.Now().UTC().Format(time.RFC3339Nano))
}

// appendFile appends text to path, creating it.
func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// paneCard is pane id's row in the sidebar's model, and its workspace's card.
func (h *harness) paneCard(id uint64) (workspaceCard, paneRow, bool) {
	for _, c := range h.cards() {
		for _, p := range c.Panes {
			if p.ID == id {
				return c, p, true
			}
		}
	}
	return workspaceCard{}, paneRow{}, false
}

// shownTexts is every text the sidebar draws.
func (h *harness) shownTexts() []string {
	var out []string
	for _, cv := range h.s.chrome.side.views {
		for _, t := range sidebarTexts(cv.box) {
			out = append(out, t.Text)
		}
	}
	return out
}

func TestSidebarShowsUsage(t *testing.T) { sidebarShowsUsage(t, newHarness(t, nil)) }

// TestAttachedSidebarShowsUsage is TestSidebarShowsUsage in a window
// attached over the socket: the figures come with workspace.view.
func TestAttachedSidebarShowsUsage(t *testing.T) {
	sidebarShowsUsage(t, newAttachedHarness(t, nil))
}

// sidebarShowsUsage: two Claude Code sessions in one workspace, their
// transcripts read by the server's usage subsystem: the sidebar shows
// each pane's session and last turn (the cost only for the model with a
// price), the workspace card their sum, and the agents overview the
// priced agent's figures and the day's total.
func sidebarShowsUsage(t *testing.T, h *harness) {
	first, second := h.twoPanes()
	var ws uint64
	h.s.guard(func() { ws = h.s.pos.snap.Open[first] })
	dir := t.TempDir()
	priced, unpriced := filepath.Join(dir, "priced.jsonl"), filepath.Join(dir, "unpriced.jsonl")
	frame := func(id uint64, path string) bus.AgentFrame {
		return bus.AgentFrame{SurfaceID: id, WorkspaceID: ws, Tool: "claude", PID: 4000 + int(id), TranscriptPath: path, At: time.Now().Add(-time.Minute)}
	}
	// Turn 1 of the priced session: 100k tokens in at $1/M, 20k out at $5/M.
	appendFile(t, priced, claudeRecord(1, "claude-haiku-4-5", 100_000, 20_000))
	appendFile(t, unpriced, claudeRecord(1, "no-such-model-1", 4000, 1000))
	h.c.Bus.Publish(bus.AIPromptSubmit{AgentFrame: frame(first, priced)})
	h.c.Bus.Publish(bus.AIPromptSubmit{AgentFrame: frame(second, unpriced)})
	h.waitFor("both panes' usage in the sidebar", func() bool {
		_, a, _ := h.paneCard(first)
		_, b, _ := h.paneCard(second)
		return a.Usage == "session 120k tok · $0.20" && a.Turn == "turn 120k tok · $0.20" &&
			b.Usage == "session 5.0k tok" && b.Turn == "turn 5.0k tok"
	})
	h.waitFor("the workspace's total", func() bool {
		c, _, _ := h.paneCard(first)
		return c.Usage == "125k tok · ≥$0.20"
	})

	// Turn 2: the turn starts from zero, then counts its own message.
	h.c.Bus.Publish(bus.AIPromptSubmit{AgentFrame: frame(first, priced)})
	h.waitFor("the new turn at zero", func() bool {
		_, a, _ := h.paneCard(first)
		return a.Turn == "turn 0 tok"
	})
	appendFile(t, priced, claudeRecord(2, "claude-haiku-4-5", 10_000, 2_400))
	h.c.Bus.Publish(bus.AIStop{AgentFrame: frame(first, priced)})
	h.waitFor("the second turn", func() bool {
		_, a, _ := h.paneCard(first)
		c, _, _ := h.paneCard(second)
		return a.Usage == "session 132k tok · $0.22" && a.Turn == "turn 12.4k tok · $0.02" && c.Usage == "137k tok · ≥$0.22"
	})
	h.s.guard(func() {
		texts := h.shownTexts()
		for _, want := range []string{"    session 132k tok · $0.22", "    turn 12.4k tok · $0.02", "    session 5.0k tok", "    turn 5.0k tok", "agents used 137k tok · ≥$0.22"} {
			if !slices.Contains(texts, want) {
				t.Errorf("the sidebar does not draw %q; it draws %q", want, texts)
			}
		}
		for _, s := range texts {
			if strings.Contains(s, "5.0k tok ·") {
				t.Errorf("the unpriced session shows a cost: %q", s)
			}
		}
	})

	// The overview: the priced agent's row, and the day's total.
	h.c.Bus.Publish(bus.AgentState{SurfaceID: first, WorkspaceID: ws, Tool: "claude", PID: 4000 + int(first), State: stateFinished, Hooked: true})
	h.waitFor("the agent's state", func() bool { _, ok := h.s.agents.status(first); return ok })
	h.s.guard(h.s.openOverviewLocked)
	h.waitFor("the agent's usage and the day's in the overview", func() bool {
		ov := h.s.chrome.ov
		if ov == nil || len(ov.rows) != 1 {
			return false
		}
		head, _, _ := ov.rowText(ov.rows[0])
		return strings.HasSuffix(head, " · 132k tok · $0.22 (turn 12.4k tok · $0.02)") &&
			ov.today.Visible() && ov.today.Text == "Today: 137k tok · ≥$0.22"
	})
}

// TestFlowRunShowsUsage: the launch pad's line about a flow that ended
// says what its agents used, the cost only where known; nothing while
// unknown or none.
func TestFlowRunShowsUsage(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	h := newHarness(t, nil)
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	lp := openPad(t, h)
	for _, tt := range []struct {
		usage *proto.Usage
		want  string
	}{
		{nil, `Flow "review": ready`},
		{&proto.Usage{}, `Flow "review": ready`},
		{&proto.Usage{Total: 12_400, CostUSD: usd(0.18)}, `Flow "review": ready · its agents used 12.4k tok · $0.18`},
		{&proto.Usage{Total: 3_000}, `Flow "review": ready · its agents used 3.0k tok`},
	} {
		h.s.guard(func() {
			h.s.views.launch.run = &flowRun{name: "review", done: true, result: "ready", usage: tt.usage}
			lp.showRun()
			if got := lp.runHead.Text; got != tt.want {
				t.Errorf("usage %+v: head %q, want %q", tt.usage, got, tt.want)
			}
		})
	}
}

// TestHostsUsage: a remote host's agent usage shows under its own pane
// and workspace card in the window (its ids made the window's).
func TestHostsUsage(t *testing.T) {
	h, rc, _ := hostsHarness(t)
	rid := remotePane(t, rc)
	rws := rc.Workspaces.Workspaces()[0].ID
	p := filepath.Join(t.TempDir(), "remote.jsonl")
	appendFile(t, p, claudeRecord(1, "claude-haiku-4-5", 100_000, 20_000))
	rc.Bus.Publish(bus.AIPromptSubmit{AgentFrame: bus.AgentFrame{SurfaceID: rid, WorkspaceID: rws, Tool: "claude", PID: 4242,
		TranscriptPath: p, At: time.Now().Add(-time.Minute)}})
	h.waitFor("the remote pane's and workspace's usage", func() bool {
		c, row, ok := h.paneCard(globalID(1, rid))
		return ok && c.ID == globalID(1, rws) && row.Usage == "session 120k tok · $0.20" && c.Usage == "120k tok · $0.20"
	})
	h.s.guard(func() {
		if c := h.cards()[0]; c.Usage != "" || c.Panes[0].Usage != "" {
			t.Errorf("this machine's card shows usage %q, its pane %q; want none", c.Usage, c.Panes[0].Usage)
		}
	})
}
