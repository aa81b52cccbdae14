package app

import (
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// TestSplitAreaOwnsItsTree checks that a divider drag changes the split
// area's copy of the tree only: the tree it was given is the event
// reader's snapshot, which that goroutine compares with the next one.
func TestSplitAreaOwnsItsTree(t *testing.T) {
	test.NewTempApp(t)
	t3 := tree3()
	given := &t3
	var told []float64
	a := newSplitArea(func(_ []int, r []float64) { told = r })
	a.Resize(fyne.NewSize(1000, 600))
	a.setTree(given, map[uint64]fyne.CanvasObject{}, 0, 0)
	a.layout(a.Size())
	if len(a.dividers) != 2 {
		t.Fatalf("%d dividers, want 2", len(a.dividers))
	}
	for _, d := range a.dividers {
		if len(d.at.Path) != 0 {
			continue // the nested split's
		}
		d.Dragged(&fyne.DragEvent{Dragged: fyne.Delta{DX: d.at.Span / 4}})
		d.DragEnd()
	}
	if told == nil || told[0] <= 0.5 {
		t.Fatalf("the drag reported ratios %v, want the first pane grown", told)
	}
	if !slices.Equal(a.tree.Ratios, told) {
		t.Errorf("the area's ratios = %v, want %v", a.tree.Ratios, told)
	}
	if !slices.Equal(given.Ratios, []float64{0.5, 0.5}) || !slices.Equal(given.Children[1].Ratios, []float64{0.5, 0.5}) {
		t.Errorf("the drag changed the given tree: %v, %v", given.Ratios, given.Children[1].Ratios)
	}
}
