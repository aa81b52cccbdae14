package mcp

import (
	"fmt"
	"strings"

	"github.com/paneflow-go/paneflow/internal/vis"
)

// Pane is one row of surface.list, as the bridge uses it.
type Pane struct {
	ID        uint64  `json:"surface_id"`
	Name      string  `json:"name"`
	Title     string  `json:"title"`
	Cwd       *string `json:"cwd"`
	Cmd       *string `json:"cmd"`
	Workspace int     `json:"workspace"`
}

// Resolve finds the pane called q among panes (spec mcp-bridge.md §4): an
// exact (case-sensitive) name, else a case-insensitive one, else a unique
// case-insensitive prefix. More than one match in the first tier that has
// any is an error listing the candidates; no match lists the names.
func Resolve(panes []Pane, q string) (Pane, error) {
	lq := strings.ToLower(q)
	tiers := []func(Pane) bool{
		func(p Pane) bool { return p.Name == q },
		func(p Pane) bool { return strings.ToLower(p.Name) == lq },
		func(p Pane) bool { return strings.HasPrefix(strings.ToLower(p.Name), lq) },
	}
	for _, match := range tiers {
		var found []Pane
		for _, p := range panes {
			if match(p) {
				found = append(found, p)
			}
		}
		switch len(found) {
		case 0:
			continue
		case 1:
			return found[0], nil
		}
		cands := make([]string, len(found))
		for i, p := range found {
			cands[i] = fmt.Sprintf("%s (surface_id %d)", vis.String(p.Name), p.ID)
		}
		return Pane{}, fmt.Errorf("surface name '%s' is ambiguous across %d surfaces: [%s]; pass a more specific name or a numeric surface_id",
			vis.String(q), len(found), strings.Join(cands, ", "))
	}
	names := make([]string, len(panes))
	for i, p := range panes {
		names[i] = vis.String(p.Name) // a name holds a cwd a program may have set
	}
	return Pane{}, fmt.Errorf("no surface matches '%s'; available: [%s]", vis.String(q), strings.Join(names, ", "))
}
