package app

import (
	"image/color"
	"slices"

	"github.com/paneflow-go/paneflow/core"
)

// teams returns the panes in a Claude Code agent team (package teams
// through the core); nil when the shell hosts no core.
func (s *shell) teams() map[uint64]core.TeamMember {
	if s.o.Core == nil {
		return nil
	}
	return s.o.Core.Teams()
}

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
