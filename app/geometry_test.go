package app

import (
	"math"
	"testing"

	"github.com/paneflow-go/paneflow/workspace"
)

func pane(id uint64) workspace.LayoutNode {
	return workspace.LayoutNode{Type: workspace.NodePane, Surfaces: []workspace.SurfaceDefinition{{SurfaceID: id}}}
}

func split(dir string, ratios []float64, children ...workspace.LayoutNode) workspace.LayoutNode {
	return workspace.LayoutNode{Type: workspace.NodeSplit, Direction: dir, Ratios: ratios, Children: children}
}

// tree3 is 1 on the left half, 2 above 3 on the right half.
func tree3() workspace.LayoutNode {
	return split("vertical", []float64{0.5, 0.5}, pane(1), split("horizontal", []float64{0.5, 0.5}, pane(2), pane(3)))
}

func TestTile(t *testing.T) {
	tr := tree3()
	got := tile(&tr, rect{W: 205, H: 105}, 5)
	want := map[uint64]rect{
		1: {0, 0, 100, 105},
		2: {105, 0, 100, 50},
		3: {105, 55, 100, 50},
	}
	for id, r := range want {
		if got.Panes[id] != r {
			t.Errorf("pane %d at %+v, want %+v", id, got.Panes[id], r)
		}
	}
	if len(got.Order) != 3 || got.Order[0] != 1 || got.Order[2] != 3 {
		t.Errorf("order = %v, want [1 2 3]", got.Order)
	}
	if len(got.Dividers) != 2 {
		t.Fatalf("dividers = %+v, want 2", got.Dividers)
	}
	d0, d1 := got.Dividers[0], got.Dividers[1]
	if d0.R != (rect{100, 0, 5, 105}) || !d0.Vertical || len(d0.Path) != 0 || d0.Index != 0 || d0.Span != 200 {
		t.Errorf("root divider = %+v, want a vertical bar at x=100 over the root split, span 200", d0)
	}
	if d1.R != (rect{105, 50, 100, 5}) || d1.Vertical || len(d1.Path) != 1 || d1.Path[0] != 1 || d1.Span != 100 {
		t.Errorf("inner divider = %+v, want a horizontal bar at y=50 on path [1], span 100", d1)
	}
	if got := tile(nil, rect{W: 10, H: 10}, 5); len(got.Panes) != 0 {
		t.Errorf("tile(nil) = %+v, want nothing", got)
	}
}

func TestDragRatios(t *testing.T) {
	tests := []struct {
		name   string
		ratios []float64
		index  int
		delta  float32
		want   []float64 // nil: no move
	}{
		{"right by a quarter", []float64{0.5, 0.5}, 0, 100, []float64{0.75, 0.25}},
		{"left", []float64{0.5, 0.5}, 0, -100, []float64{0.25, 0.75}},
		{"clamped at the minimum", []float64{0.5, 0.5}, 0, 1000, []float64{0.85, 0.15}},
		{"middle of three keeps the others", []float64{0.2, 0.5, 0.3}, 1, 40, []float64{0.2, 0.6, 0.2}},
		{"no room to move", []float64{0.5, 0.1, 0.1}, 1, 10, nil},
		{"bad index", []float64{0.5, 0.5}, 1, 10, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := dragRatios(tt.ratios, tt.index, tt.delta, 400, 60)
			if tt.want == nil {
				if ok {
					t.Errorf("dragRatios = %v, want no move", got)
				}
				return
			}
			if !ok || len(got) != len(tt.want) {
				t.Fatalf("dragRatios = %v, %v; want %v", got, ok, tt.want)
			}
			for i := range got {
				if math.Abs(got[i]-tt.want[i]) > 1e-6 {
					t.Errorf("dragRatios = %v, want %v", got, tt.want)
					break
				}
			}
		})
	}
}

func TestNeighbour(t *testing.T) {
	tr := tree3()
	tl := tile(&tr, rect{W: 1000, H: 1000}, 0)
	tests := []struct {
		from uint64
		dir  direction
		want uint64 // 0: none
	}{
		{1, dirRight, 2}, // both right panes touch 1; the upper one wins the tie
		{1, dirLeft, 0},
		{1, dirUp, 0},
		{2, dirLeft, 1},
		{3, dirLeft, 1},
		{2, dirDown, 3},
		{3, dirUp, 2},
		{3, dirRight, 0},
		{9, dirLeft, 0}, // unknown pane
	}
	for _, tt := range tests {
		got, ok := neighbour(tl.Panes, tl.Order, tt.from, tt.dir)
		if (tt.want == 0) == ok || got != tt.want {
			t.Errorf("neighbour(%d, %d) = %d, %v; want %d", tt.from, tt.dir, got, ok, tt.want)
		}
	}
	// A nearer pane wins over a farther one with more overlap.
	four := split("vertical", []float64{1. / 3, 1. / 3, 1. / 3}, pane(1),
		split("horizontal", []float64{0.8, 0.2}, pane(2), pane(3)), pane(4))
	tl = tile(&four, rect{W: 900, H: 1000}, 0)
	if got, _ := neighbour(tl.Panes, tl.Order, 4, dirLeft); got != 2 {
		t.Errorf("neighbour(4, left) = %d, want 2 (the adjacent pane overlapping most)", got)
	}
	if got, _ := neighbour(tl.Panes, tl.Order, 1, dirRight); got != 2 {
		t.Errorf("neighbour(1, right) = %d, want 2", got)
	}
}

// TestCloneLayout: the split area's copy of a snapshot's tree can change
// its ratios and children without touching the snapshot, which the event
// reader compares on its own goroutine.
func TestCloneLayout(t *testing.T) {
	orig := tree3()
	c := cloneLayout(&orig)
	c.Ratios[0] = 0.7
	c.Children[1].Ratios[1] = 0.9
	c.Children[1].Children[0].Type = "changed"
	if orig.Ratios[0] != 0.5 || orig.Children[1].Ratios[1] != 0.5 || orig.Children[1].Children[0].Type != workspace.NodePane {
		t.Errorf("changing the copy changed the original: %+v", orig)
	}
	if cloneLayout(nil) != nil {
		t.Error("cloneLayout(nil) != nil")
	}
}
