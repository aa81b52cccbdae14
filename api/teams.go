package api

import (
	"encoding/json"

	"github.com/paneflow-go/paneflow/proto"
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

// withTeams sets team, team_name and teammate of the surfaces in a team.
func (s *server) withTeams(res *proto.SurfaceListResult) {
	if s.o.Teams == nil {
		return
	}
	tm := s.o.Teams.Teams()
	if len(tm) == 0 {
		return
	}
	for i := range res.Surfaces {
		m := tm[res.Surfaces[i].ID]
		res.Surfaces[i].Team, res.Surfaces[i].TeamName, res.Surfaces[i].Teammate = m.Team, m.TeamName, m.Teammate
	}
}

// fleetRows sets, on the fleet.list rows of a pane, the team members of
// a pane in a team and the usage of the agent's session there (when it is
// the row's agent). With neither teams nor usage, or with a result it
// cannot read as a [proto.FleetListResult], the fleet is returned as it is.
func (s *server) fleetRows(fleet any) any {
	var tm map[uint64]TeamMember
	if s.o.Teams != nil {
		tm = s.o.Teams.Teams()
	}
	if len(tm) == 0 && s.o.Usage == nil {
		return fleet
	}
	res, ok := fleet.(proto.FleetListResult)
	if !ok {
		// A reporter of another type: read its answer as the wire's.
		raw, err := json.Marshal(fleet)
		if err != nil || json.Unmarshal(raw, &res) != nil {
			return fleet
		}
	}
	for i := range res.Agents {
		r := &res.Agents[i]
		if r.SurfaceID == nil {
			continue
		}
		if m, ok := tm[*r.SurfaceID]; ok {
			r.Team, r.TeamName, r.Teammate = m.Team, m.TeamName, m.Teammate
		}
		if s.o.Usage != nil {
			if u, ok := s.o.Usage.SurfaceUsage(*r.SurfaceID); ok && u.Tool == r.Tool {
				r.Usage = &u
			}
		}
	}
	return res
}
