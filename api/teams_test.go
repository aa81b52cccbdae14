//go:build !windows

package api

import (
	"sync"
	"testing"

	"github.com/paneflow-go/paneflow/workspace"
)

// fakeTeams is a TeamReporter and an AgentReporter: its teams, and a
// fleet with claude in each of its panes. Set before the first request.
type fakeTeams struct {
	mu    sync.Mutex
	teams map[uint64]TeamMember
	panes []uint64
}

func (f *fakeTeams) Teams() map[uint64]TeamMember {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.teams
}

func (*fakeTeams) SurfaceStatus(uint64, uint64) (any, bool) { return nil, false }

func (f *fakeTeams) Fleet() any {
	f.mu.Lock()
	defer f.mu.Unlock()
	var rows []map[string]any
	for _, id := range f.panes {
		rows = append(rows, map[string]any{"surface_id": id, "tool": "claude", "pid": 4242})
	}
	return map[string]any{"agents": rows, "detection": "process_tree"}
}

// TestTeamFields: surface.list and fleet.list carry a pane's team, the
// team's name from Claude Code's config.json when it differs, and the
// teammate's name; panes outside teams carry none of them.
func TestTeamFields(t *testing.T) {
	f := &fakeTeams{}
	e := newEnv(t, workspace.Options{}, Options{Teams: f, Agents: f}).withWorkspace(t.TempDir())
	lead := e.m.Surfaces()[0].ID
	mate := e.split("exec cat").ID()
	plain := e.split("exec cat").ID()
	f.mu.Lock()
	f.teams = map[uint64]TeamMember{
		lead: {Team: "session-1", TeamName: "Release crew"},
		mate: {Team: "session-1", TeamName: "Release crew", Teammate: "alpha", Color: "blue"},
	}
	f.panes = []uint64{lead, mate, plain}
	f.mu.Unlock()

	type row struct {
		ID       uint64 `json:"surface_id"`
		Team     string `json:"team"`
		TeamName string `json:"team_name"`
		Teammate string `json:"teammate"`
		PID      int    `json:"pid"`
	}
	want := map[uint64]row{
		lead:  {ID: lead, Team: "session-1", TeamName: "Release crew"},
		mate:  {ID: mate, Team: "session-1", TeamName: "Release crew", Teammate: "alpha"},
		plain: {ID: plain},
	}
	var list struct{ Surfaces []row }
	e.ok("surface.list", `{}`, &list)
	var fleet struct{ Agents []row }
	e.ok("fleet.list", `{}`, &fleet)
	for what, rows := range map[string][]row{"surface.list": list.Surfaces, "fleet.list": fleet.Agents} {
		if len(rows) != 3 {
			t.Fatalf("%s = %+v, want 3 rows", what, rows)
		}
		for _, r := range rows {
			w := want[r.ID]
			if what == "fleet.list" {
				w.PID = 4242 // the rest of the row is kept
			}
			if r != w {
				t.Errorf("%s row %+v, want %+v", what, r, w)
			}
		}
	}
}
