//go:build !windows

package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// realDir returns a new temp dir with symbolic links resolved, as the
// manager stores directories.
func realDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestLayoutOfAnyWorkspace(t *testing.T) {
	m, _ := newProcessManager(t, Options{})
	dirA, dirB, sub := realDir(t), realDir(t), ""
	sub = filepath.Join(dirB, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateWorkspace("a", dirA, nil, true); err != nil {
		t.Fatal(err)
	}
	infoB, err := m.CreateWorkspace("b", dirB, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	_, l, _ := m.Layout(1)
	first := l.Surfaces[0].SurfaceID
	split, _, err := m.Split(first, Vertical, PaneSpec{Name: "job", Cwd: sub, Command: "echo started; exec sleep 600", Env: map[string]string{"PORT": "3001"}})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := m.Surface(split.ID)
	waitText(t, s, "started")
	if _, err := m.Focus(split.ID); err != nil {
		t.Fatal(err)
	}
	if err := m.SelectWorkspace(0); err != nil { // b is no longer active
		t.Fatal(err)
	}

	info, l, ok := m.Layout(1)
	if !ok || info.ID != infoB.ID || info.Active || info.Panes != 2 || info.Title != "b" {
		t.Fatalf("Layout(1) info = %+v, %v; want workspace b, inactive, 2 panes", info, ok)
	}
	want := &LayoutNode{
		Type: NodeSplit, Direction: "vertical", Ratios: []float64{0.5, 0.5},
		Children: []LayoutNode{
			{Type: NodePane, Surfaces: []SurfaceDefinition{{SurfaceType: "terminal", SurfaceID: first, Cwd: dirB}}},
			{Type: NodePane, Surfaces: []SurfaceDefinition{{
				SurfaceType: "terminal", SurfaceID: split.ID, CustomName: "job", Cwd: sub,
				Command: "echo started; exec sleep 600", Env: map[string]string{"PORT": "3001"}, Focus: true,
			}}},
		},
	}
	if diff := cmp.Diff(want, l, cmpopts.IgnoreFields(SurfaceDefinition{}, "Name")); diff != "" {
		t.Errorf("Layout(1) (-want +got):\n%s", diff)
	}

	// The active workspace's layout agrees with CurrentLayout except for
	// what Layout adds.
	_, cur, _ := m.CurrentLayout()
	_, l0, _ := m.Layout(0)
	cur.EachSurface(func(d *SurfaceDefinition) {
		if d.Cwd == "" {
			d.Cwd = dirA
		}
	})
	if diff := cmp.Diff(cur, l0); diff != "" {
		t.Errorf("Layout(0) differs from CurrentLayout (-current +layout):\n%s", diff)
	}

	for _, i := range []int{-1, 2} {
		if _, l, ok := m.Layout(i); ok || l != nil {
			t.Errorf("Layout(%d) = %v, %v; want not ok", i, l, ok)
		}
	}
}

func TestLayoutEmptyWorkspace(t *testing.T) {
	m, _ := newManager(t, Options{})
	if _, err := m.CreateWorkspace("only", "", nil, true); err != nil {
		t.Fatal(err)
	}
	_, l, _ := m.Layout(0)
	if err := m.CloseSurface(l.Surfaces[0].SurfaceID); err != nil {
		t.Fatal(err)
	}
	info, l, ok := m.Layout(0)
	if !ok || l != nil || info.Panes != 0 {
		t.Errorf("Layout of an empty workspace = %+v, %v, %v; want ok, nil layout", info, l, ok)
	}
}

func TestCreateFromLayout(t *testing.T) {
	m, _ := newProcessManager(t, Options{})
	wsDir, paneDir := realDir(t), realDir(t)
	if _, err := m.CreateWorkspace("first", "", nil, true); err != nil {
		t.Fatal(err)
	}
	in := LayoutNode{
		Type: NodeSplit, Direction: "vertical", Ratios: []float64{0.3, 0.7},
		Children: []LayoutNode{
			{Type: NodePane, Surfaces: []SurfaceDefinition{{CustomName: " left ", SurfaceID: 999, Name: "old title"}}},
			{Type: NodeSplit, Direction: "horizontal", Ratios: []float64{0.25, 0.75}, Children: []LayoutNode{
				{Type: NodePane, Surfaces: []SurfaceDefinition{{Cwd: paneDir, Command: "echo from-command; exec sleep 600"}}},
				{Type: NodePane, Surfaces: []SurfaceDefinition{{CustomName: "focused", Focus: true, Env: map[string]string{"PF_TEST_VAR": "restored"}}}},
			}},
		},
	}
	before := cloneLayout(in)
	info, ss, err := m.CreateFromLayout("restored", wsDir, in, true)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, in); diff != "" {
		t.Errorf("CreateFromLayout changed its argument (-before +after):\n%s", diff)
	}
	if info.Index != 1 || !info.Active || info.Cwd != wsDir || info.Panes != 3 || len(ss) != 3 {
		t.Fatalf("CreateFromLayout = %+v with %d surfaces; want index 1, active, cwd %s, 3 panes", info, len(ss), wsDir)
	}
	waitText(t, ss[1], "from-command")
	ss[2].Terminal().SendInput([]byte("echo \"var=$PF_TEST_VAR\"\n"))
	waitText(t, ss[2], "var=restored")

	_, l, _ := m.Layout(1)
	want := &LayoutNode{
		Type: NodeSplit, Direction: "vertical", Ratios: []float64{0.3, 0.7},
		Children: []LayoutNode{
			{Type: NodePane, Surfaces: []SurfaceDefinition{{SurfaceType: "terminal", SurfaceID: ss[0].ID(), CustomName: "left", Cwd: wsDir}}},
			{Type: NodeSplit, Direction: "horizontal", Ratios: []float64{0.25, 0.75}, Children: []LayoutNode{
				{Type: NodePane, Surfaces: []SurfaceDefinition{{SurfaceType: "terminal", SurfaceID: ss[1].ID(), Cwd: paneDir, Command: "echo from-command; exec sleep 600"}}},
				{Type: NodePane, Surfaces: []SurfaceDefinition{{SurfaceType: "terminal", SurfaceID: ss[2].ID(), CustomName: "focused", Cwd: wsDir, Env: map[string]string{"PF_TEST_VAR": "restored"}, Focus: true}}},
			}},
		},
	}
	if diff := cmp.Diff(want, l, cmpopts.IgnoreFields(SurfaceDefinition{}, "Name")); diff != "" {
		t.Errorf("layout (-want +got):\n%s", diff)
	}
	if id, _ := m.FocusedSurface(info.ID); id != ss[2].ID() {
		t.Errorf("focused pane = %d, want %d", id, ss[2].ID())
	}
}

func TestCreateFromLayoutErrors(t *testing.T) {
	m, _ := newManager(t, Options{MaxPanes: 2})
	missing := filepath.Join(t.TempDir(), "gone")
	bad := LayoutNode{Type: NodeSplit, Children: []LayoutNode{
		{Type: NodePane},
		{Type: NodePane, Surfaces: []SurfaceDefinition{{Cwd: missing}}},
	}}
	if _, _, err := m.CreateFromLayout("x", "", bad, true); !errors.Is(err, ErrInvalid) {
		t.Errorf("missing pane cwd: %v, want ErrInvalid", err)
	}
	if ws := m.Workspaces(); len(ws) != 0 {
		t.Errorf("a failed create left workspaces: %+v", ws)
	}
	// Three panes with a cap of two: normalized to two, no focus given
	// means the first pane.
	three, _ := PresetLayout(PresetEvenH, 3, 0)
	info, ss, err := m.CreateFromLayout("capped", "", three, false)
	if err != nil || info.Panes != 2 || len(ss) != 2 {
		t.Fatalf("capped create = %+v, %d surfaces, %v; want 2 panes", info, len(ss), err)
	}
	if id, _ := m.FocusedSurface(info.ID); id != ss[0].ID() {
		t.Errorf("focused = %d, want the first pane %d", id, ss[0].ID())
	}
	m.Close()
	if _, _, err := m.CreateFromLayout("late", "", three, false); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v, want ErrClosed", err)
	}
	if _, _, ok := m.Layout(0); ok {
		t.Error("Layout after Close is ok")
	}
}
