package api

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/paneflow-go/paneflow/workspace"
)

// TeamReporter tells surface.list and fleet.list which Claude Code agent
// team a pane belongs to (package teams implements it through core; the
// api does not import it). Its method is called from request goroutines,
// concurrently, and must not block for long.
type TeamReporter interface {
	// Teams returns the panes that belong to a team, by surface id: a
	// lead with its team's name, a teammate with the team's and its own.
	Teams() map[uint64]TeamMember
}

// TeamMember is one pane's place in a team.
type TeamMember struct {
	Team     string // the team's name ("" when not known yet)
	Teammate string // the teammate's name; "" for the lead
	Color    string // the teammate's colour name (Claude's: blue, green, …); "" when none
	// TeamName is the team's name as Claude Code's config.json of the
	// team says; "" when it is the same as Team or not known.
	TeamName string
}

// teamSurface is a surface.list entry with its team.
type teamSurface struct {
	workspace.SurfaceInfo
	Team     string `json:"team,omitempty"`
	TeamName string `json:"team_name,omitempty"`
	Teammate string `json:"teammate,omitempty"`
}

// teamSurfaceList is surface.list's result when some pane is in a team.
type teamSurfaceList struct {
	PaneCount int           `json:"pane_count"`
	Workspace *int          `json:"workspace"`
	Surfaces  []teamSurface `json:"surfaces"`
}

// withTeams adds team, team_name and teammate to the surfaces in a team;
// without teams the result is unchanged.
func (s *server) withTeams(res surfaceListResult) any {
	if s.o.Teams == nil {
		return res
	}
	tm := s.o.Teams.Teams()
	if len(tm) == 0 {
		return res
	}
	out := teamSurfaceList{PaneCount: res.PaneCount, Workspace: res.Workspace, Surfaces: make([]teamSurface, len(res.Surfaces))}
	for i, in := range res.Surfaces {
		m := tm[in.ID]
		out.Surfaces[i] = teamSurface{SurfaceInfo: in, Team: m.Team, TeamName: m.TeamName, Teammate: m.Teammate}
	}
	return out
}

// fleetWithTeams adds team and teammate to the fleet.list rows of panes
// in a team; without teams (or with a result it cannot read) the fleet is
// returned as it is.
func (s *server) fleetWithTeams(fleet any) any {
	if s.o.Teams == nil {
		return fleet
	}
	tm := s.o.Teams.Teams()
	if len(tm) == 0 {
		return fleet
	}
	raw, err := json.Marshal(fleet)
	if err != nil {
		return fleet
	}
	var obj map[string]json.RawMessage
	var rows []map[string]any
	if json.Unmarshal(raw, &obj) != nil {
		return fleet
	}
	dec := json.NewDecoder(bytes.NewReader(obj["agents"]))
	dec.UseNumber() // pids and ids come back out exactly as they went in
	if dec.Decode(&rows) != nil {
		return fleet
	}
	for _, r := range rows {
		n, ok := r["surface_id"].(json.Number)
		if !ok {
			continue
		}
		id, err := strconv.ParseUint(n.String(), 10, 64)
		if err != nil {
			continue
		}
		if m, ok := tm[id]; ok {
			if m.Team != "" {
				r["team"] = m.Team
			}
			if m.TeamName != "" {
				r["team_name"] = m.TeamName
			}
			if m.Teammate != "" {
				r["teammate"] = m.Teammate
			}
		}
	}
	b, err := json.Marshal(rows)
	if err != nil {
		return fleet
	}
	obj["agents"] = b
	return obj
}
