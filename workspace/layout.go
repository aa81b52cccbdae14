package workspace

import (
	"slices"

	"github.com/paneflow-go/paneflow/proto"
)

// Direction is how a split arranges its children. The zero value is
// [Horizontal].
type Direction int

const (
	// Horizontal stacks children top to bottom (a horizontal divider; a
	// new pane goes below).
	Horizontal Direction = iota
	// Vertical places children side by side (a vertical divider; a new
	// pane goes to the right).
	Vertical
)

// String returns the wire name: "horizontal" or "vertical".
func (d Direction) String() string {
	if d == Vertical {
		return "vertical"
	}
	return "horizontal"
}

// ParseDirection parses the wire names "horizontal" and "vertical"; ok is
// false for anything else.
func ParseDirection(s string) (d Direction, ok bool) {
	switch s {
	case "horizontal":
		return Horizontal, true
	case "vertical":
		return Vertical, true
	}
	return Horizontal, false
}

// The layout tree's JSON form is part of the wire protocol, so its types
// are package proto's; these names keep the model's code reading as its
// own.
type (
	// LayoutNode is [proto.LayoutNode]: a pane or a split of the tree.
	LayoutNode = proto.LayoutNode
	// SurfaceDefinition is [proto.SurfaceDefinition]: one terminal of a
	// pane.
	SurfaceDefinition = proto.SurfaceDefinition
)

// Node types of a [LayoutNode].
const (
	NodePane  = proto.NodePane
	NodeSplit = proto.NodeSplit
)

// Layout limits applied by [LayoutNode.Normalize] (spec ipc.md §12, §14).
const (
	MaxSplitChildren = proto.MaxSplitChildren
	MaxPaneSurfaces  = proto.MaxPaneSurfaces
)

// Layout presets accepted by [Manager.ApplyPreset] and [UpSpec.Preset]
// (workspace.up's "layout").
const (
	PresetEvenH        = proto.PresetEvenH
	PresetEvenV        = proto.PresetEvenV
	PresetMainVertical = proto.PresetMainVertical
	PresetTiled        = proto.PresetTiled
)

// Presets lists the preset names, default first.
var Presets = proto.Presets()

// PresetLayout builds the tree of a layout preset for n panes (n ≥ 1) in
// pane order (spec specs.md §4). main is the index of the main pane for
// main_vertical (out of range means 0); the returned order lists pane
// indexes in the depth-first leaf order of the tree. Unknown presets mean
// even_h.
//
//   - even_h: one side-by-side split, 1/n each.
//   - even_v: one stacked split, 1/n each.
//   - main_vertical: main on the left, 0.5/0.5, the others stacked on the
//     right at 1/(n-1) each (a single other pane is a bare leaf).
//   - tiled: the tmux rule (rows = cols = 1; while rows·cols < n grow cols
//     when cols ≤ rows, else rows): stacked rows of side-by-side panes, the
//     last row taking the remainder; a one-pane row is a bare leaf.
func PresetLayout(preset string, n, main int) (tree LayoutNode, order []int) {
	n = max(n, 1)
	order = make([]int, n)
	for i := range order {
		order[i] = i
	}
	pane := LayoutNode{Type: NodePane}
	if n == 1 {
		return pane, order
	}
	row := func(dir string, k int) LayoutNode {
		if k == 1 {
			return pane
		}
		s := LayoutNode{Type: NodeSplit, Direction: dir, Children: make([]LayoutNode, k), Ratios: make([]float64, k)}
		for i := range k {
			s.Children[i] = pane
			s.Ratios[i] = 1 / float64(k)
		}
		return s
	}
	switch preset {
	case PresetEvenV:
		return row("horizontal", n), order
	case PresetMainVertical:
		if main < 0 || main >= n {
			main = 0
		}
		order = append(order[:0], main)
		for i := range n {
			if i != main {
				order = append(order, i)
			}
		}
		return LayoutNode{
			Type: NodeSplit, Direction: "vertical", Ratios: []float64{0.5, 0.5},
			Children: []LayoutNode{pane, row("horizontal", n-1)},
		}, order
	case PresetTiled:
		rows, cols := 1, 1
		for rows*cols < n {
			if cols <= rows {
				cols++
			} else {
				rows++
			}
		}
		if rows == 1 {
			return row("vertical", n), order
		}
		t := LayoutNode{Type: NodeSplit, Direction: "horizontal", Children: make([]LayoutNode, rows), Ratios: make([]float64, rows)}
		for r := range rows {
			k := cols
			if r == rows-1 {
				k = n - cols*(rows-1)
			}
			t.Children[r] = row("vertical", k)
			t.Ratios[r] = 1 / float64(rows)
		}
		return t, order
	default:
		return row("vertical", n), order
	}
}

// ValidPreset reports whether p names a preset exactly.
func ValidPreset(p string) bool {
	return slices.Contains(Presets, p)
}
