//go:build !windows

package workspace

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/paneflow-go/paneflow/bus"
)

// threePanes builds V[p H[p p]] in a new active workspace and returns the
// workspace id and the panes in layout order.
func threePanes(t *testing.T, m *Manager) (uint64, []uint64) {
	t.Helper()
	info, err := m.CreateWorkspace("w", t.TempDir(), nil, true)
	if err != nil {
		t.Fatal(err)
	}
	first := surfaceIDs(m)[0]
	b, _, err := m.Split(first, Vertical, PaneSpec{})
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := m.Split(b.ID, Horizontal, PaneSpec{})
	if err != nil {
		t.Fatal(err)
	}
	return info.ID, []uint64{first, b.ID, c.ID}
}

func TestActiveTreeAndPanes(t *testing.T) {
	m, _ := newManager(t, Options{})
	if _, _, ok := m.ActiveTree(); ok {
		t.Fatal("ActiveTree ok with no workspace")
	}
	wsID, ids := threePanes(t, m)
	if _, err := m.Focus(ids[2]); err != nil {
		t.Fatal(err)
	}
	info, l, ok := m.ActiveTree()
	if !ok || info.ID != wsID || info.Panes != 3 {
		t.Fatalf("ActiveTree = %+v, ok %v; want workspace %d with 3 panes", info, ok, wsID)
	}
	if got := layoutShape(l); got != "V[p H[p p]]" {
		t.Errorf("shape = %s, want V[p H[p p]]", got)
	}
	var got []uint64
	var focused uint64
	l.EachSurface(func(d *SurfaceDefinition) {
		got = append(got, d.SurfaceID)
		if d.Focus {
			focused = d.SurfaceID
		}
	})
	if !cmp.Equal(got, ids) || focused != ids[2] {
		t.Errorf("tree panes = %v focused %d, want %v focused %d", got, focused, ids, ids[2])
	}
	if id, ok := m.FocusedSurface(wsID); !ok || id != ids[2] {
		t.Errorf("FocusedSurface = %d, %v; want %d", id, ok, ids[2])
	}
	if _, ok := m.FocusedSurface(wsID + 100); ok {
		t.Error("FocusedSurface of a missing workspace is ok")
	}
	want := []PanePlace{
		{ID: ids[0], WorkspaceID: wsID},
		{ID: ids[1], WorkspaceID: wsID},
		{ID: ids[2], WorkspaceID: wsID, Focused: true},
	}
	if diff := cmp.Diff(want, m.Panes()); diff != "" {
		t.Errorf("Panes (-want +got):\n%s", diff)
	}
}

func TestSetRatios(t *testing.T) {
	m, log := newManager(t, Options{})
	wsID, _ := threePanes(t, m)
	if err := m.SetRatios(wsID, []int{1}, []float64{0.25, 0.75}); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, log, func(e bus.Event) bool {
		lc, ok := e.(bus.LayoutChanged)
		return ok && lc.WorkspaceID == wsID
	})
	if err := m.SetRatios(wsID, nil, []float64{0.7, 0.3}); err != nil {
		t.Fatal(err)
	}
	_, l, _ := m.CurrentLayout()
	if !approx(l.Ratios, []float64{0.7, 0.3}) || !approx(l.Children[1].Ratios, []float64{0.25, 0.75}) {
		t.Errorf("ratios = %v / %v, want [0.7 0.3] / [0.25 0.75]", l.Ratios, l.Children[1].Ratios)
	}
	// Repaired like a layout: floored at 0.01 and summing to 1.
	if err := m.SetRatios(wsID, nil, []float64{0, math.NaN()}); err != nil {
		t.Fatal(err)
	}
	_, l, _ = m.CurrentLayout()
	if sum := l.Ratios[0] + l.Ratios[1]; math.Abs(sum-1) > 1e-9 || l.Ratios[0] < 0.01 {
		t.Errorf("repaired ratios = %v, want each ≥ 0.01 summing to 1", l.Ratios)
	}
	errs := []struct {
		name   string
		ws     uint64
		path   []int
		ratios []float64
		kind   error
	}{
		{"missing workspace", wsID + 1, nil, []float64{0.5, 0.5}, ErrNotFound},
		{"path through a leaf", wsID, []int{0, 0}, []float64{0.5, 0.5}, ErrNotFound},
		{"path to a leaf", wsID, []int{0}, []float64{0.5, 0.5}, ErrNotFound},
		{"index out of range", wsID, []int{2}, []float64{0.5, 0.5}, ErrNotFound},
		{"wrong ratio count", wsID, nil, []float64{0.2, 0.3, 0.5}, ErrInvalid},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			if err := m.SetRatios(tt.ws, tt.path, tt.ratios); !errors.Is(err, tt.kind) {
				t.Errorf("SetRatios = %v, want %v", err, tt.kind)
			}
		})
	}
}

func TestEqualize(t *testing.T) {
	m, _ := newManager(t, Options{})
	wsID, _ := threePanes(t, m)
	if err := m.SetRatios(wsID, nil, []float64{0.9, 0.1}); err != nil {
		t.Fatal(err)
	}
	if err := m.SetRatios(wsID, []int{1}, []float64{0.2, 0.8}); err != nil {
		t.Fatal(err)
	}
	if err := m.Equalize(0); err != nil {
		t.Fatal(err)
	}
	_, l, _ := m.CurrentLayout()
	if layoutShape(l) != "V[p H[p p]]" || !approx(l.Ratios, []float64{0.5, 0.5}) || !approx(l.Children[1].Ratios, []float64{0.5, 0.5}) {
		t.Errorf("after Equalize: %s %v %v, want the same shape with 0.5/0.5 everywhere", layoutShape(l), l.Ratios, l.Children[1].Ratios)
	}
	if err := m.Equalize(3); !errors.Is(err, ErrNotFound) {
		t.Errorf("Equalize(3) = %v, want ErrNotFound", err)
	}
}

func approx(got, want []float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			return false
		}
	}
	return true
}
