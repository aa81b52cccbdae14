//go:build !windows

package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/paneflow-go/paneflow/workspace"
)

// testDeadline bounds every wait for a real program; tests never assert
// on timing, only that things happen before it.
const testDeadline = 15 * time.Second

func newManager(t *testing.T, o workspace.Options) *workspace.Manager {
	t.Helper()
	o.Shell = []string{"/bin/sh"}
	m := workspace.NewManager(o)
	t.Cleanup(m.Close)
	return m
}

func realDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// waitText waits until the pane's text contains want.
func waitText(t *testing.T, s *workspace.Surface, want string) {
	t.Helper()
	emu := s.Terminal().Emulator()
	deadline := time.After(testDeadline)
	for {
		_, ch := emu.Watch()
		w, _ := emu.ReadText(4000, 0)
		if strings.Contains(w.Text, want) {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("pane %d never showed %q; it shows:\n%s", s.ID(), want, w.Text)
		}
	}
}

// surfacesOf returns the surfaces of workspace index in layout order.
func surfacesOf(t *testing.T, m *workspace.Manager, index int) []*workspace.Surface {
	t.Helper()
	var out []*workspace.Surface
	for _, p := range m.Panes() {
		if p.Workspace == index {
			s, ok := m.Surface(p.ID)
			if !ok {
				t.Fatalf("surface %d vanished", p.ID)
			}
			out = append(out, s)
		}
	}
	return out
}

// buildSession makes two workspaces: "alpha" (split V[p H[p p]] with
// custom ratios, a renamed pane, a pane running a command in a
// subdirectory, focus on the last pane) and "beta" (one pane, active).
func buildSession(t *testing.T, m *workspace.Manager) (dirA, sub, dirB string) {
	t.Helper()
	dirA, dirB = realDir(t), realDir(t)
	sub = filepath.Join(dirA, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	infoA, err := m.CreateWorkspace("alpha", dirA, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	first := surfacesOf(t, m, 0)[0]
	right, _, err := m.Split(first.ID(), workspace.Vertical, workspace.PaneSpec{Cwd: sub, Command: "echo cmd-ran; exec sleep 600"})
	if err != nil {
		t.Fatal(err)
	}
	low, _, err := m.Split(right.ID, workspace.Horizontal, workspace.PaneSpec{Name: "logs", Cwd: dirA})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.SetRatios(infoA.ID, nil, []float64{0.3, 0.7}); err != nil {
		t.Fatal(err)
	}
	if err := m.SetRatios(infoA.ID, []int{1}, []float64{0.6, 0.4}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Rename(first.ID(), "editor"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Focus(low.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateWorkspace("beta", dirB, nil, true); err != nil {
		t.Fatal(err)
	}
	rs, _ := m.Surface(right.ID)
	waitText(t, rs, "cmd-ran")
	return dirA, sub, dirB
}

func TestCaptureSaveLoadRestore(t *testing.T) {
	src := newManager(t, workspace.Options{})
	dirA, sub, dirB := buildSession(t, src)

	got := Capture(src)
	pane := func(name, cwd, cmd string, focus bool) workspace.LayoutNode {
		return workspace.LayoutNode{Type: workspace.NodePane, Surfaces: []workspace.SurfaceDefinition{{
			SurfaceType: "terminal", CustomName: name, Cwd: cwd, Command: cmd, Focus: focus,
		}}}
	}
	want := Session{
		Version: Version, Active: 1,
		Workspaces: []Workspace{
			{Title: "alpha", Cwd: dirA, Layout: workspace.LayoutNode{
				Type: workspace.NodeSplit, Direction: "vertical", Ratios: []float64{0.3, 0.7},
				Children: []workspace.LayoutNode{
					pane("editor", dirA, "", false),
					{Type: workspace.NodeSplit, Direction: "horizontal", Ratios: []float64{0.6, 0.4}, Children: []workspace.LayoutNode{
						pane("", sub, "echo cmd-ran; exec sleep 600", false),
						pane("logs", dirA, "", true),
					}},
				},
			}},
			{Title: "beta", Cwd: dirB, Layout: pane("", dirB, "", true)},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Capture (-want +got):\n%s", diff)
	}

	path := filepath.Join(t.TempDir(), "state", "paneflow", FileName)
	if err := Save(path, got); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, loaded); diff != "" {
		t.Fatalf("Load after Save (-saved +loaded):\n%s", diff)
	}

	dst := newManager(t, workspace.Options{})
	warns, err := Restore(dst, loaded)
	if err != nil || len(warns) != 0 {
		t.Fatalf("Restore = %q, %v; want no warnings", warns, err)
	}
	if diff := cmp.Diff(want, Capture(dst)); diff != "" {
		t.Errorf("Capture after Restore (-want +got):\n%s", diff)
	}
	// The command pane ran its command again, fresh.
	waitText(t, surfacesOf(t, dst, 0)[1], "cmd-ran")
	if a, _ := dst.ActiveWorkspace(); a.Title != "beta" {
		t.Errorf("active workspace = %q, want beta", a.Title)
	}
}

func TestRestoreMissingDirectories(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "gone")
	alsoGone := filepath.Join(gone, "deeper")
	home := realDir(t)
	t.Setenv("HOME", home)
	kept := realDir(t)
	s := Session{Version: Version, Workspaces: []Workspace{
		{Title: "moved", Cwd: gone, Layout: workspace.LayoutNode{
			Type: workspace.NodeSplit, Direction: "vertical",
			Children: []workspace.LayoutNode{
				{Type: workspace.NodePane, Surfaces: []workspace.SurfaceDefinition{{Cwd: alsoGone}}},
				{Type: workspace.NodePane, Surfaces: []workspace.SurfaceDefinition{{Cwd: kept, Focus: true}}},
			},
		}},
	}}
	m := newManager(t, workspace.Options{})
	warns, err := Restore(m, s)
	if err != nil {
		t.Fatal(err)
	}
	wantWarns := []string{
		`workspace "moved": directory ` + gone + ` no longer exists; using ` + home,
		`workspace "moved": pane directory ` + alsoGone + ` no longer exists; using ` + home,
	}
	if diff := cmp.Diff(wantWarns, warns); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	got := Capture(m)
	if len(got.Workspaces) != 1 {
		t.Fatalf("restored %d workspaces, want 1", len(got.Workspaces))
	}
	w := got.Workspaces[0]
	var cwds []string
	var focus []bool
	w.Layout.EachSurface(func(d *workspace.SurfaceDefinition) {
		cwds = append(cwds, d.Cwd)
		focus = append(focus, d.Focus)
	})
	if w.Cwd != home || !cmp.Equal(cwds, []string{home, kept}) || !cmp.Equal(focus, []bool{false, true}) {
		t.Errorf("restored cwd %s, panes %v, focus %v; want %s, [%s %s], [false true]", w.Cwd, cwds, focus, home, home, kept)
	}
	if s.Workspaces[0].Layout.Children[0].Surfaces[0].Cwd != alsoGone {
		t.Error("Restore changed the session it was given")
	}
}

func TestRestoreLimitsAndErrors(t *testing.T) {
	dir := realDir(t)
	one := func(title string) Workspace {
		return Workspace{Title: title, Cwd: dir, Layout: workspace.LayoutNode{Type: workspace.NodePane}}
	}
	m := newManager(t, workspace.Options{MaxWorkspaces: 2})
	if _, err := m.CreateWorkspace("existing", dir, nil, true); err != nil {
		t.Fatal(err)
	}
	warns, err := Restore(m, Session{Version: Version, Active: 2, Workspaces: []Workspace{one("a"), one("b"), one("c")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 2 || !strings.Contains(warns[0], `workspace "b"`) || !strings.Contains(warns[1], `workspace "c"`) {
		t.Errorf("warnings = %q, want b and c not restored", warns)
	}
	var titles []string
	for _, w := range m.Workspaces() {
		titles = append(titles, w.Title)
	}
	if !cmp.Equal(titles, []string{"existing", "a"}) {
		t.Errorf("workspaces = %q, want existing, a", titles)
	}
	if a, _ := m.ActiveWorkspace(); a.Title != "existing" {
		t.Errorf("active = %q; the saved active workspace was not restored, so the active one stays", a.Title)
	}

	full := newManager(t, workspace.Options{MaxWorkspaces: 1})
	if _, err := full.CreateWorkspace("x", dir, nil, true); err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(full, Session{Version: Version, Workspaces: []Workspace{one("a")}}); err == nil {
		t.Error("restoring into a full manager: no error")
	}

	closed := newManager(t, workspace.Options{})
	closed.Close()
	if _, err := Restore(closed, Session{Version: Version, Workspaces: []Workspace{one("a")}}); !errors.Is(err, workspace.ErrClosed) {
		t.Errorf("restoring into a closed manager: %v, want ErrClosed", err)
	}

	empty := newManager(t, workspace.Options{})
	if warns, err := Restore(empty, Session{Version: Version}); err != nil || warns != nil || len(empty.Workspaces()) != 0 {
		t.Errorf("restoring an empty session = %q, %v, %d workspaces", warns, err, len(empty.Workspaces()))
	}
}

func TestRestoreEmptyWorkspaceGetsAShell(t *testing.T) {
	m := newManager(t, workspace.Options{})
	dir := realDir(t)
	if _, err := m.CreateWorkspace("only", dir, nil, true); err != nil {
		t.Fatal(err)
	}
	if err := m.CloseSurface(surfacesOf(t, m, 0)[0].ID()); err != nil {
		t.Fatal(err)
	}
	s := Capture(m)
	path := filepath.Join(t.TempDir(), FileName)
	if err := Save(path, s); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	dst := newManager(t, workspace.Options{})
	if _, err := Restore(dst, loaded); err != nil {
		t.Fatal(err)
	}
	if ws := dst.Workspaces(); len(ws) != 1 || ws[0].Panes != 1 || ws[0].Title != "only" {
		t.Errorf("restored %+v, want one workspace with one pane", ws)
	}
}
