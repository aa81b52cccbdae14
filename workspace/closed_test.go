//go:build !windows

package workspace

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/internal/clock"
)

// ratiosOf returns the root split's ratios of the active workspace.
func ratiosOf(m *Manager) []float64 {
	_, l, _ := m.CurrentLayout()
	if l == nil {
		return nil
	}
	return l.Ratios
}

// A closed pane keeps its program: Reopen puts the same process back in
// its place, and its output goes on.
func TestReopenPaneKeepsProcess(t *testing.T) {
	fake := clock.NewFake(time.Time{})
	m, _ := newProcessManager(t, Options{Clock: fake})
	if _, err := m.CreateWorkspace("main", t.TempDir(), nil, false); err != nil {
		t.Fatal(err)
	}
	first := surfaceIDs(m)[0]
	b, _, err := m.Split(first, Vertical, PaneSpec{})
	if err != nil {
		t.Fatal(err)
	}
	ws := m.Workspaces()[0]
	if err := m.SetRatios(ws.ID, nil, []float64{0.3, 0.7}); err != nil {
		t.Fatal(err)
	}
	s, _ := m.Surface(b.ID)
	s.Terminal().SendInput([]byte("echo before-$((1+1))\n"))
	waitText(t, s, "before-2")
	pid := s.Terminal().Pid()

	if err := m.CloseSurface(b.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Surface(b.ID); ok {
		t.Fatal("the closed pane is still listed")
	}
	if got := currentShape(m); got != "p" {
		t.Errorf("layout after close = %s, want p", got)
	}
	if n := m.Closed(); n != 1 {
		t.Errorf("Closed() = %d, want 1", n)
	}
	select {
	case <-s.Terminal().Done():
		t.Fatal("closing killed the program within the undo window")
	default:
	}

	r, err := m.Reopen()
	if err != nil {
		t.Fatal(err)
	}
	if r.Workspace || !slices.Equal(r.SurfaceIDs, []uint64{b.ID}) || r.WorkspaceID != ws.ID {
		t.Errorf("Reopen = %+v, want pane %d in workspace %d", r, b.ID, ws.ID)
	}
	if got := currentShape(m); got != "V[p p]" {
		t.Errorf("layout after reopen = %s, want V[p p]", got)
	}
	if got := surfaceIDs(m); !slices.Equal(got, []uint64{first, b.ID}) {
		t.Errorf("panes after reopen = %v, want %v (back in its place)", got, []uint64{first, b.ID})
	}
	if got := ratiosOf(m); len(got) != 2 || math.Abs(got[0]-0.3) > 1e-9 || math.Abs(got[1]-0.7) > 1e-9 {
		t.Errorf("ratios after reopen = %v, want [0.3 0.7]", got)
	}
	if id, _ := m.FocusedSurface(ws.ID); id != b.ID {
		t.Errorf("focused pane = %d, want the reopened %d", id, b.ID)
	}
	s2, ok := m.Surface(b.ID)
	if !ok {
		t.Fatal("the reopened pane is not listed")
	}
	if got := s2.Terminal().Pid(); got != pid {
		t.Errorf("reopened pane's pid = %d, want %d (the same process)", got, pid)
	}
	s2.Terminal().SendInput([]byte("echo after-$((2+2))\n"))
	waitText(t, s2, "after-4")
	if n := m.Closed(); n != 0 {
		t.Errorf("Closed() after reopen = %d, want 0", n)
	}
	// Its undo timer was stopped: time passing kills nothing.
	fake.Advance(2 * DefaultUndoWindow)
	select {
	case <-s2.Terminal().Done():
		t.Fatal("the reopened pane's program was killed when its undo window passed")
	default:
	}
}

// After the undo window the program is killed and nothing is left to
// reopen.
func TestClosedPaneExpires(t *testing.T) {
	fake := clock.NewFake(time.Time{})
	m, _ := newProcessManager(t, Options{Clock: fake})
	if _, err := m.CreateWorkspace("main", t.TempDir(), nil, false); err != nil {
		t.Fatal(err)
	}
	b, _, err := m.Split(0, Vertical, PaneSpec{})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := m.Surface(b.ID)
	if err := m.CloseSurface(b.ID); err != nil {
		t.Fatal(err)
	}
	fake.Advance(DefaultUndoWindow - time.Second)
	if m.Closed() != 1 {
		t.Fatalf("Closed() = %d a second before the window ends, want 1", m.Closed())
	}
	fake.Advance(time.Second)
	select {
	case <-s.Terminal().Done():
	case <-time.After(testDeadline):
		t.Fatal("the program still runs after the undo window")
	}
	if _, err := m.Reopen(); !errors.Is(err, ErrNotFound) || !errors.Is(err, ErrNothingToReopen) {
		t.Errorf("Reopen after the window = %v, want ErrNothingToReopen", err)
	}
}

func TestReopenNothing(t *testing.T) {
	m, _ := newManager(t, Options{})
	_, err := m.Reopen()
	if !errors.Is(err, ErrNotFound) || err.Error() != "Nothing to reopen: no pane or workspace was closed in the last minute" {
		t.Errorf("Reopen with nothing closed = %v", err)
	}
}

// With undo off, closing kills at once.
func TestUndoOff(t *testing.T) {
	m, _ := newProcessManager(t, Options{UndoWindow: -1})
	if _, err := m.CreateWorkspace("main", t.TempDir(), nil, false); err != nil {
		t.Fatal(err)
	}
	b, _, err := m.Split(0, Vertical, PaneSpec{})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := m.Surface(b.ID)
	if err := m.CloseSurface(b.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Terminal().Done():
	case <-time.After(testDeadline):
		t.Fatal("the program still runs after a close with undo off")
	}
	if _, err := m.Reopen(); !errors.Is(err, ErrNothingToReopen) {
		t.Errorf("Reopen with undo off = %v, want ErrNothingToReopen", err)
	}
}

// Reopen puts a pane back where it was in the layout.
func TestReopenPlaces(t *testing.T) {
	tests := []struct {
		name  string
		build func(m *Manager, ids []uint64) []uint64 // splits; returns the pane ids in order
		close int                                     // index in the order
		shape string
	}{
		{"first of two", func(m *Manager, ids []uint64) []uint64 {
			b, _, _ := m.Split(ids[0], Vertical, PaneSpec{})
			return []uint64{ids[0], b.ID}
		}, 0, "V[p p]"},
		{"middle of three", func(m *Manager, ids []uint64) []uint64 {
			b, _, _ := m.Split(ids[0], Vertical, PaneSpec{})
			c, _, _ := m.Split(b.ID, Vertical, PaneSpec{})
			return []uint64{ids[0], b.ID, c.ID}
		}, 1, "V[p p p]"},
		{"beside a split", func(m *Manager, ids []uint64) []uint64 {
			b, _, _ := m.Split(ids[0], Vertical, PaneSpec{})
			c, _, _ := m.Split(b.ID, Horizontal, PaneSpec{})
			return []uint64{ids[0], b.ID, c.ID}
		}, 0, "V[p H[p p]]"},
		{"in a nested split", func(m *Manager, ids []uint64) []uint64 {
			b, _, _ := m.Split(ids[0], Vertical, PaneSpec{})
			c, _, _ := m.Split(b.ID, Horizontal, PaneSpec{})
			return []uint64{ids[0], b.ID, c.ID}
		}, 2, "V[p H[p p]]"},
		{"the only pane", func(m *Manager, ids []uint64) []uint64 { return ids }, 0, "p"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := newManager(t, Options{Clock: clock.NewFake(time.Time{})})
			if _, err := m.CreateWorkspace("main", t.TempDir(), nil, false); err != nil {
				t.Fatal(err)
			}
			ids := tc.build(m, surfaceIDs(m))
			if got := currentShape(m); got != tc.shape {
				t.Fatalf("layout = %s, want %s", got, tc.shape)
			}
			if err := m.CloseSurface(ids[tc.close]); err != nil {
				t.Fatal(err)
			}
			if _, err := m.Reopen(); err != nil {
				t.Fatal(err)
			}
			if got := currentShape(m); got != tc.shape {
				t.Errorf("layout after reopen = %s, want %s", got, tc.shape)
			}
			if got := surfaceIDs(m); !slices.Equal(got, ids) {
				t.Errorf("panes after reopen = %v, want %v", got, ids)
			}
		})
	}
}

// A closed workspace comes back at its index with its layout, panes and
// focus; the last pane of a workspace closes the workspace, and Reopen
// brings that back too. The last closed comes back first.
func TestReopenWorkspace(t *testing.T) {
	m, _ := newManager(t, Options{Clock: clock.NewFake(time.Time{})})
	for _, title := range []string{"one", "two", "three"} {
		if _, err := m.CreateWorkspace(title, t.TempDir(), nil, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.SelectWorkspace(1); err != nil {
		t.Fatal(err)
	}
	a := surfaceIDs(m)
	b, _, err := m.Split(0, Horizontal, PaneSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Focus(a[1]); err != nil {
		t.Fatal(err)
	}
	before := surfaceIDs(m)
	ws1 := m.Workspaces()[1]
	if err := m.CloseWorkspace(1); err != nil {
		t.Fatal(err)
	}
	// The last pane of "three" (now at index 1) closes it too.
	if err := m.CloseSurface(surfaceIDs(m)[1]); err != nil {
		t.Fatal(err)
	}
	if n := len(m.Workspaces()); n != 1 {
		t.Fatalf("%d workspaces left, want 1", n)
	}
	if r, err := m.Reopen(); err != nil || !r.Workspace || r.Index != 1 {
		t.Fatalf("first Reopen = %+v, %v; want workspace three at 1", r, err)
	}
	r, err := m.Reopen()
	if err != nil {
		t.Fatal(err)
	}
	if !r.Workspace || r.WorkspaceID != ws1.ID || r.Index != 1 || !slices.Equal(r.SurfaceIDs, []uint64{a[1], b.ID}) {
		t.Errorf("Reopen = %+v, want workspace %d at 1 with panes %v", r, ws1.ID, []uint64{a[1], b.ID})
	}
	var titles []string
	for _, w := range m.Workspaces() {
		titles = append(titles, w.Title)
	}
	if fmt.Sprint(titles) != "[one two three]" {
		t.Errorf("workspaces = %v, want [one two three]", titles)
	}
	if info, _, _ := m.CurrentLayout(); info.ID != ws1.ID {
		t.Errorf("active workspace %d, want the reopened %d", info.ID, ws1.ID)
	}
	if got := currentShape(m); got != "H[p p]" {
		t.Errorf("layout = %s, want H[p p]", got)
	}
	if got := surfaceIDs(m); !slices.Equal(got, before) {
		t.Errorf("panes = %v, want %v", got, before)
	}
	if id, _ := m.FocusedSurface(ws1.ID); id != a[1] {
		t.Errorf("focused = %d, want %d", id, a[1])
	}
	if _, err := m.Reopen(); !errors.Is(err, ErrNothingToReopen) {
		t.Errorf("third Reopen = %v, want ErrNothingToReopen", err)
	}
}
