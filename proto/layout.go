package proto

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// Node types of a [LayoutNode].
const (
	NodePane  = "pane"
	NodeSplit = "split"
)

// Layout limits applied by [LayoutNode.Normalize] (spec ipc.md §12, §14).
const (
	MaxSplitChildren = 32   // children kept per split
	MaxPaneSurfaces  = 64   // surface definitions kept per pane
	minRatio         = 0.01 // floor of a normalized ratio
	legacyRatioMin   = 0.1  // clamp of the legacy two-child "ratio"
	legacyRatioMax   = 0.9
)

// LayoutNode is the layout tree's JSON form (spec ipc.md §14): a tagged
// union on "type", either a pane holding surface definitions or a split
// holding children with ratios. It is what workspace.create and
// workspace.restore_layout accept, workspace.current returns and the
// desktop app's session file keeps (package workspace's LayoutNode is
// this type).
//
// Decoding rejects a missing or unknown "type" and badly typed fields;
// everything else is repaired by [LayoutNode.Normalize], which never
// fails. The zero value is a pane-less node whose Type is "" and is not
// valid JSON input; Normalize turns it into a single default pane.
//
// A LayoutNode is plain data, not safe for concurrent mutation.
type LayoutNode struct {
	// Type is NodePane or NodeSplit.
	Type string
	// Surfaces are a pane's terminals. Paneflow has no tabs, so only the
	// first one is used when a layout is applied; the rest are kept for
	// round trips.
	Surfaces []SurfaceDefinition
	// Direction is a split's "horizontal" (stacked) or "vertical" (side
	// by side); anything else means horizontal.
	Direction string
	// Ratio is the legacy two-child ratio (first child's share); only
	// read when Ratios is absent.
	Ratio *float64
	// Ratios are the children's shares of a split, summing to 1.
	Ratios []float64
	// Children are a split's nodes, in order (top to bottom or left to
	// right).
	Children []LayoutNode
}

// SurfaceDefinition describes one terminal in a pane (spec ipc.md §14). On
// input only the tree shape matters to Paneflow (the fields are kept for
// round trips); on output Paneflow fills SurfaceType, SurfaceID, Name (the
// title), CustomName, Cwd, Focus and Scrollback.
type SurfaceDefinition struct {
	SurfaceType string `json:"surface_type,omitempty"`
	// SurfaceID is the surface's process-lifetime id (output only; an
	// addition to the original format, ignored on input).
	SurfaceID  uint64            `json:"surface_id,omitempty"`
	Name       string            `json:"name,omitempty"`
	CustomName string            `json:"custom_name,omitempty"`
	Command    string            `json:"command,omitempty"`
	Prompt     string            `json:"prompt,omitempty"`
	Cwd        string            `json:"cwd,omitempty"`
	Env        map[string]string `json:"env,omitempty"`
	Focus      bool              `json:"focus,omitempty"`
	Scrollback string            `json:"scrollback,omitempty"`
	Agent      string            `json:"agent,omitempty"`
	FontSize   *float64          `json:"font_size,omitempty"`
}

// layoutJSON is the wire shape of a LayoutNode with every field optional.
type layoutJSON struct {
	Type      *string             `json:"type"`
	Surfaces  []SurfaceDefinition `json:"surfaces,omitempty"`
	Direction *string             `json:"direction,omitempty"`
	Ratio     *float64            `json:"ratio,omitempty"`
	Ratios    []float64           `json:"ratios,omitempty"`
	Children  []LayoutNode        `json:"children,omitempty"`
}

// UnmarshalJSON decodes the tagged union; a missing or unknown "type" is an
// error.
func (n *LayoutNode) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return fmt.Errorf("layout node is null")
	}
	var w layoutJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.Type == nil {
		return fmt.Errorf(`missing field "type"`)
	}
	switch *w.Type {
	case NodePane:
		*n = LayoutNode{Type: NodePane, Surfaces: w.Surfaces}
	case NodeSplit:
		*n = LayoutNode{Type: NodeSplit, Ratio: w.Ratio, Ratios: w.Ratios, Children: w.Children}
		if w.Direction != nil {
			n.Direction = *w.Direction
		}
	default:
		return fmt.Errorf("unknown variant %q, expected %q or %q", *w.Type, NodePane, NodeSplit)
	}
	return nil
}

// MarshalJSON encodes a pane as {"type":"pane","surfaces":[…]} and a split
// as {"type":"split","direction":…,"ratios":[…],"children":[…]} (plus
// "ratio" when set).
func (n LayoutNode) MarshalJSON() ([]byte, error) {
	if n.Type == NodeSplit {
		children := n.Children
		if children == nil {
			children = []LayoutNode{}
		}
		return json.Marshal(struct {
			Type      string       `json:"type"`
			Direction string       `json:"direction"`
			Ratio     *float64     `json:"ratio,omitempty"`
			Ratios    []float64    `json:"ratios,omitempty"`
			Children  []LayoutNode `json:"children"`
		}{NodeSplit, n.Direction, n.Ratio, n.Ratios, children})
	}
	surfaces := n.Surfaces
	if surfaces == nil {
		surfaces = []SurfaceDefinition{}
	}
	return json.Marshal(struct {
		Type     string              `json:"type"`
		Surfaces []SurfaceDefinition `json:"surfaces"`
	}{NodePane, surfaces})
}

// Leaves reports the number of panes in the tree.
func (n *LayoutNode) Leaves() int {
	if n.Type != NodeSplit {
		return 1
	}
	c := 0
	for i := range n.Children {
		c += n.Children[i].Leaves()
	}
	return c
}

// Normalize repairs the tree in place so it can be applied (spec ipc.md
// §14): unknown types become panes; a pane keeps at most MaxPaneSurfaces
// surfaces and gets one default surface when it has none; a split's
// direction becomes "horizontal" unless it is "vertical"; a split keeps at
// most MaxSplitChildren children and is padded with default panes up to
// two; at most maxLeaves panes are kept in depth-first order (whole
// subtrees are dropped once the budget is spent, and a split left with one
// child is replaced by it); ratios are made finite, one per child, each
// at least 0.01, summing to 1 (a legacy two-child "ratio" is clamped to
// [0.1, 0.9] and converted). maxLeaves < 1 means 1.
func (n *LayoutNode) Normalize(maxLeaves int) {
	budget := max(maxLeaves, 1)
	n.normalize(&budget)
}

func (n *LayoutNode) normalize(budget *int) {
	if n.Type != NodeSplit {
		n.Type = NodePane
		n.Direction, n.Ratio, n.Ratios, n.Children = "", nil, nil, nil
		if len(n.Surfaces) > MaxPaneSurfaces {
			n.Surfaces = n.Surfaces[:MaxPaneSurfaces]
		}
		if len(n.Surfaces) == 0 {
			n.Surfaces = []SurfaceDefinition{{SurfaceType: "terminal"}}
		}
		*budget--
		return
	}
	n.Surfaces = nil
	if n.Direction != "vertical" {
		n.Direction = "horizontal"
	}
	if len(n.Children) > MaxSplitChildren {
		n.Children = n.Children[:MaxSplitChildren]
	}
	// Pad first so the ratio list below describes the final children.
	for len(n.Children) < 2 {
		n.Children = append(n.Children, LayoutNode{Type: NodePane})
	}
	ratios := n.Ratios
	if ratios == nil && n.Ratio != nil && len(n.Children) == 2 {
		r := *n.Ratio
		if math.IsNaN(r) || math.IsInf(r, 0) {
			r = 0.5
		}
		r = min(max(r, legacyRatioMin), legacyRatioMax)
		ratios = []float64{r, 1 - r}
	}
	kept := n.Children[:0]
	var keptRatios []float64
	for i := range n.Children {
		if *budget <= 0 {
			break
		}
		c := n.Children[i]
		c.normalize(budget)
		kept = append(kept, c)
		if i < len(ratios) {
			keptRatios = append(keptRatios, ratios[i])
		} else {
			keptRatios = append(keptRatios, math.NaN()) // becomes 1/n below
		}
	}
	n.Children = kept
	n.Ratio = nil
	if len(kept) == 1 {
		*n = kept[0]
		return
	}
	n.Ratios = NormalizeRatios(keptRatios, len(kept))
}

// NormalizeRatios returns n shares from r: missing or non-finite entries
// become 1/n, each is clamped to [0.01, 1], the list is scaled to sum 1
// when it is off by more than 1e-6, and shares are floored at 0.01 again.
func NormalizeRatios(r []float64, n int) []float64 {
	out := make([]float64, n)
	even := 1 / float64(n)
	sum := 0.0
	for i := range out {
		v := even
		if i < len(r) && !math.IsNaN(r[i]) && !math.IsInf(r[i], 0) {
			v = r[i]
		}
		v = min(max(v, minRatio), 1)
		out[i] = v
		sum += v
	}
	if math.Abs(sum-1) > 1e-6 {
		for i := range out {
			out[i] = max(out[i]/sum, minRatio)
		}
	}
	return out
}

// EachSurface calls f for every surface definition in the tree, depth
// first.
func (n *LayoutNode) EachSurface(f func(*SurfaceDefinition)) {
	for i := range n.Surfaces {
		f(&n.Surfaces[i])
	}
	for i := range n.Children {
		n.Children[i].EachSurface(f)
	}
}

// Layout presets: workspace.up's "layout", and a workspace spec's.
const (
	PresetEvenH        = "even_h"
	PresetEvenV        = "even_v"
	PresetMainVertical = "main_vertical"
	PresetTiled        = "tiled"
)

// Presets lists the preset names, default first. The caller owns the
// returned slice.
func Presets() []string {
	return []string{PresetEvenH, PresetEvenV, PresetMainVertical, PresetTiled}
}
