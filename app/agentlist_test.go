//go:build !windows

package app

import (
	"fmt"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/proto"
)

// TestIdleAgentListed: an agent whose hooks announced it and that has
// had no prompt yet (a quick-launched opencode before its first turn) is
// in the agents overview and on its pane's sidebar row, as fleet.list
// (`paneflow ps`) lists it; the window dropped every idle state as
// "no agent", so the overview said "0 listed" while ps said idle.
func TestIdleAgentListed(t *testing.T) { idleAgentListed(t, newHarness(t, nil)) }

// TestAttachedIdleAgentListed: the same for a window attached to the
// server, whose agents start from fleet.list's rows and follow events.
func TestAttachedIdleAgentListed(t *testing.T) {
	idleAgentListed(t, newAttachedHarness(t, nil))
}

func idleAgentListed(t *testing.T, h *harness) {
	_, second := h.twoPanes()
	var ws uint64
	h.waitFor("the pane's workspace", func() bool { ws = h.s.pos.snap.Open[second]; return ws != 0 })
	pid := h.panePID(second) // a live process: the conductor drops the sessions of dead ones
	h.call("ai.session_start", rawParams(fmt.Sprintf(`{"surface_id":%d,"workspace_id":%d,"tool":"opencode","pid":%d}`, second, ws, pid)), nil)
	var fleet proto.FleetListResult
	h.call("fleet.list", nil, &fleet)
	if len(fleet.Agents) != 1 || fleet.Agents[0].State != proto.StateIdle || fleet.Agents[0].SurfaceID == nil || *fleet.Agents[0].SurfaceID != second {
		t.Fatalf("fleet.list = %+v, want opencode idle in pane %d", fleet.Agents, second)
	}
	h.waitFor("the sidebar row's state", func() bool {
		for _, c := range h.cards() {
			for _, p := range c.Panes {
				if p.ID == second {
					return p.Glyph == "○" && p.Status == "OpenCode idle"
				}
			}
		}
		return false
	})
	h.s.guard(func() {
		h.s.openOverviewLocked()
		ov := h.s.chrome.ov
		if len(ov.rows) != 1 || ov.rows[0].Surface != second || ov.rows[0].State != string(proto.StateIdle) || ov.rows[0].Tool != "OpenCode" {
			t.Fatalf("overview rows = %+v, want OpenCode idle in pane %d", ov.rows, second)
		}
		if got := ov.header.Text; got != "Agents — 1 listed" {
			t.Errorf("overview header = %q, want %q", got, "Agents — 1 listed")
		}
		if head, _, _ := ov.rowText(ov.rows[0]); !strings.Contains(head, "OpenCode — idle (no prompt yet)") {
			t.Errorf("overview row heading = %q, want OpenCode idle (no prompt yet)", head)
		}
		if h.s.chrome.side.agents.Text != "Agents (1)" {
			t.Errorf("sidebar Agents entry = %q, want %q", h.s.chrome.side.agents.Text, "Agents (1)")
		}
		h.s.closeOverviewLocked()
	})
}
