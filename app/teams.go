package app

import (
	"errors"
	"fmt"
	"image/color"
	"slices"
	"strings"

	"fyne.io/fyne/v2/dialog"

	"github.com/paneflow-go/paneflow/workspace"
)

// groupTeams orders a workspace's pane rows so that each team's teammates
// follow their lead (in their own order); rows outside teams, and
// teammates whose lead is elsewhere, keep their places.
func groupTeams(rows []paneRow) []paneRow {
	leads := map[string]bool{}
	for _, r := range rows {
		if r.Team != "" && r.Teammate == "" {
			leads[r.Team] = true
		}
	}
	if len(leads) == 0 {
		return rows
	}
	out := make([]paneRow, 0, len(rows))
	for _, r := range rows {
		if r.Teammate != "" && leads[r.Team] {
			continue // placed under its lead
		}
		out = append(out, r)
		if r.Team != "" && r.Teammate == "" {
			for _, m := range rows {
				if m.Teammate != "" && m.Team == r.Team {
					out = append(out, m)
				}
			}
			leads[r.Team] = true
		}
	}
	return slices.Clip(out)
}

// teamColors are Claude Code's agent colour names.
var teamColors = map[string]color.NRGBA{
	"red":    {0xe0, 0x6c, 0x75, 0xff},
	"blue":   {0x61, 0xaf, 0xef, 0xff},
	"green":  {0x98, 0xc3, 0x79, 0xff},
	"yellow": {0xe5, 0xc0, 0x7b, 0xff},
	"purple": {0xc6, 0x78, 0xdd, 0xff},
	"orange": {0xd1, 0x9a, 0x66, 0xff},
	"pink":   {0xff, 0x79, 0xc6, 0xff},
	"cyan":   {0x56, 0xb6, 0xc2, 0xff},
}

// teamColor is the colour of a teammate's name in the sidebar.
func teamColor(name string) (color.Color, bool) {
	c, ok := teamColors[name]
	return c, ok
}

// teammatesLocked returns the open panes of the team pane id leads,
// sorted; nil when id leads none.
func (s *shell) teammatesLocked(id uint64) (team string, mates []uint64, names []string) {
	if s.pos.snap == nil {
		return "", nil, nil
	}
	lead, ok := s.pos.snap.Teams[id]
	if !ok || lead.Team == "" || lead.Teammate != "" {
		return "", nil, nil
	}
	for sid, m := range s.pos.snap.Teams {
		if m.Teammate != "" && m.Team == lead.Team {
			if _, open := s.pos.snap.Open[sid]; open {
				mates = append(mates, sid)
			}
		}
	}
	slices.Sort(mates)
	for _, sid := range mates {
		names = append(names, s.pos.snap.Teams[sid].Teammate)
	}
	return lead.Team, mates, names
}

// closePaneLocked closes pane id. A Claude Code lead with open teammates
// asks first, and closes its teammates with it.
func (s *shell) closePaneLocked(id uint64) {
	team, mates, names := s.teammatesLocked(id)
	if len(mates) == 0 {
		s.work.mutate("close pane", func() error { return s.closedToast("Pane", s.b.CloseSurface(id)) })
		return
	}
	what := "1 teammate"
	if len(mates) > 1 {
		what = fmt.Sprintf("%d teammates", len(mates))
	}
	msg := fmt.Sprintf("This pane leads the agent team %s with %s (%s).\nClose the lead and its teammates?", team, what, strings.Join(names, ", "))
	d := dialog.NewConfirm("Close the team?", msg, func(ok bool) {
		if ok {
			s.guard(func() { s.closeTeamLocked(id, mates) })
		}
	}, s.w)
	s.showDialogLocked(d, nil, d.Confirm, d.Hide)
}

// closeTeamLocked closes a lead's teammates, then the lead.
func (s *shell) closeTeamLocked(lead uint64, mates []uint64) {
	s.work.mutate("close team", func() error {
		for _, id := range mates {
			if err := s.b.CloseSurface(id); err != nil && !errors.Is(err, workspace.ErrNotFound) {
				return err
			}
		}
		return s.b.CloseSurface(lead)
	})
}
