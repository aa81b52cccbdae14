//go:build !windows

package app

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSidebarGroupsTeam: a teammate a Claude Code lead opened through the
// tmux surface is listed under its lead, with its team, name and colour,
// the team named as Claude Code's config.json of the team says.
func TestSidebarGroupsTeam(t *testing.T) {
	h := newHarness(t, nil)
	var lead uint64
	h.waitFor("the default pane", func() bool {
		c := h.cards()
		if len(c) == 1 && len(c[0].Panes) == 1 {
			lead = c[0].Panes[0].ID
		}
		return lead != 0
	})
	h.call("surface.split", map[string]any{"surface_id": lead, "direction": "horizontal"}, nil)
	// The lead's Claude Code keeps the team's config.json under its HOME:
	// the sidebar names the team as that file does.
	home := t.TempDir()
	cfg := filepath.Join(home, ".claude", "teams", "t1", "config.json")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(`{"name":"Release crew","members":[{"name":"alpha","color":"green","tmuxPaneId":"%1","backendType":"tmux"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	h.call("teams.attach", map[string]any{"surface_id": lead, "env": []string{"HOME=" + home}}, nil)
	for _, argv := range [][]string{
		{"split-window", "-d", "-t", "%0", "-h", "-l", "70%", "-P", "-F", "#{pane_id}", "--", "cat"},
		{"select-pane", "-t", "%1", "-T", "alpha"},
		{"respawn-pane", "-k", "-t", "%1", "--", ": --agent-name alpha --team-name t1 --agent-color green; exec sleep 600"},
	} {
		var r struct {
			Code   int    `json:"exit_code"`
			Stderr string `json:"stderr"`
		}
		h.call("teams.tmux", map[string]any{"argv": argv, "pane": "%0"}, &r)
		if r.Code != 0 {
			t.Fatalf("tmux %q: %s", argv, r.Stderr)
		}
	}
	var got []string
	defer func() {
		if t.Failed() {
			t.Logf("sidebar rows: %q", got)
		}
	}()
	h.waitFor("the teammate under its lead", func() bool {
		c := h.cards()
		got = nil
		if len(c) != 1 {
			return false
		}
		for _, p := range c[0].Panes {
			got = append(got, p.Name+"|"+p.Team+"|"+p.TeamName+"|"+p.Teammate+"|"+p.Color)
		}
		return len(got) == 3 && strings.HasSuffix(got[0], "|t1|Release crew||") && got[1] == "alpha|t1|Release crew|alpha|green" &&
			!slices.Contains(got[2:], "alpha|t1|Release crew|alpha|green")
	})
}

func TestGroupTeams(t *testing.T) {
	rows := []paneRow{
		{ID: 1, Name: "a", Team: "t", Teammate: "a"},
		{ID: 2, Name: "shell"},
		{ID: 3, Name: "lead", Team: "t"},
		{ID: 4, Name: "b", Team: "t", Teammate: "b"},
		{ID: 5, Name: "orphan", Team: "u", Teammate: "o"},
	}
	var got []uint64
	for _, r := range groupTeams(rows) {
		got = append(got, r.ID)
	}
	if want := []uint64{2, 3, 1, 4, 5}; !slices.Equal(got, want) {
		t.Errorf("groupTeams order = %v, want %v", got, want)
	}
}

// TestCloseLeadAsks: closing a lead with teammates asks first; confirmed,
// it closes the teammates and the lead. A pane outside teams closes at once.
func TestCloseLeadAsks(t *testing.T) {
	h := newHarness(t, nil)
	var lead uint64
	h.waitFor("the default pane", func() bool {
		c := h.cards()
		if len(c) == 1 && len(c[0].Panes) == 1 {
			lead = c[0].Panes[0].ID
		}
		return lead != 0
	})
	var other map[string]any
	h.call("surface.split", map[string]any{"surface_id": lead, "direction": "horizontal"}, &other)
	h.call("teams.attach", map[string]any{"surface_id": lead}, nil)
	for _, argv := range [][]string{
		{"split-window", "-d", "-t", "%0", "-h", "-P", "-F", "#{pane_id}", "--", "cat"},
		{"respawn-pane", "-k", "-t", "%1", "--", ": --agent-name alpha --team-name t1; exec sleep 600"},
	} {
		var r struct {
			Code   int    `json:"exit_code"`
			Stderr string `json:"stderr"`
		}
		h.call("teams.tmux", map[string]any{"argv": argv, "pane": "%0"}, &r)
		if r.Code != 0 {
			t.Fatalf("tmux %q: %s", argv, r.Stderr)
		}
	}
	var mates []uint64
	h.waitFor("the team in the snapshot", func() bool {
		_, mates, _ = h.s.teammatesLocked(lead) // waitFor holds the UI lock
		return len(mates) == 1
	})
	h.s.guard(func() {
		h.s.closePaneLocked(lead)
		if top := h.s.w.Canvas().Overlays().Top(); top == nil {
			t.Error("no confirmation dialog shown for a lead with a teammate")
		}
	})
	if _, ok := h.c.Workspaces.Surface(lead); !ok {
		t.Fatal("the lead closed without asking")
	}
	h.s.guard(func() { h.s.closeTeamLocked(lead, mates) })
	h.waitFor("the lead and its teammate closed", func() bool {
		_, l := h.c.Workspaces.Surface(lead)
		_, m := h.c.Workspaces.Surface(mates[0])
		return !l && !m && len(h.c.Workspaces.Panes()) == 1
	})
	// The remaining pane is in no team: it closes without a dialog.
	rest := h.c.Workspaces.Panes()[0].ID
	h.s.guard(func() { h.s.closePaneLocked(rest) })
	h.waitFor("the last pane closed", func() bool { _, ok := h.c.Workspaces.Surface(rest); return !ok })
}
