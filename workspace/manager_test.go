//go:build !windows

package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/terminal"
)

// testDeadline bounds every wait for a real program; tests never assert
// on timing, only that things happen before it.
const testDeadline = 15 * time.Second

// newManager returns a manager whose panes run no process: each is a
// terminal.Detached that echoes its input, as a terminal in cooked mode
// does. Tests that need a real program use newProcessManager.
func newManager(t *testing.T, o Options) (*Manager, *eventLog) {
	t.Helper()
	if o.Start == nil {
		o.Start = startDetached
	}
	return newProcessManager(t, o)
}

// startDetached is the model tests' Options.Start: a terminal with no
// program that echoes its input to its screen.
func startDetached(o terminal.Options) (*terminal.Terminal, error) {
	var t *terminal.Terminal
	ready := make(chan struct{})
	t = terminal.Detached(o, func(p []byte) {
		<-ready
		t.Emulator().Write(p)
	})
	close(ready)
	return t, nil
}

// newProcessManager returns a manager whose panes run /bin/sh.
func newProcessManager(t *testing.T, o Options) (*Manager, *eventLog) {
	t.Helper()
	if o.Shell == nil {
		o.Shell = []string{"/bin/sh"}
	}
	b := bus.New()
	o.Bus = b
	sub := b.Subscribe("test", nil, 1<<14)
	m := NewManager(o)
	t.Cleanup(func() {
		m.Close()
		b.Close()
	})
	return m, &eventLog{sub: sub}
}

// waitText waits until the pane's text contains want.
func waitText(t *testing.T, s *Surface, want string) string {
	t.Helper()
	emu := s.Terminal().Emulator()
	deadline := time.After(testDeadline)
	for {
		_, ch := emu.Watch()
		w, _ := emu.ReadText(4000, 0)
		if strings.Contains(w.Text, want) {
			return w.Text
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("pane %d never showed %q; it shows:\n%s", s.ID(), want, w.Text)
		}
	}
}

// eventLog reads a test subscription, keeping events not consumed yet.
type eventLog struct {
	sub     *bus.Subscription
	pending []bus.Event
}

// waitEvent consumes events until one satisfies ok and returns it.
func waitEvent(t *testing.T, l *eventLog, ok func(bus.Event) bool) bus.Event {
	t.Helper()
	deadline := time.After(testDeadline)
	for {
		for len(l.pending) > 0 {
			e := l.pending[0]
			l.pending = l.pending[1:]
			if ok(e) {
				return e
			}
		}
		evs, _ := l.sub.Drain(nil)
		l.pending = evs
		if len(evs) > 0 {
			continue
		}
		select {
		case <-l.sub.Ready():
		case <-deadline:
			t.Fatalf("event never arrived")
		}
	}
}

func layoutShape(l *LayoutNode) string {
	if l == nil {
		return "<nil>"
	}
	if l.Type != NodeSplit {
		return "p"
	}
	var parts []string
	for i := range l.Children {
		parts = append(parts, layoutShape(&l.Children[i]))
	}
	d := "H"
	if l.Direction == "vertical" {
		d = "V"
	}
	return d + "[" + strings.Join(parts, " ") + "]"
}

func currentShape(m *Manager) string {
	_, l, _ := m.CurrentLayout()
	return layoutShape(l)
}

func surfaceIDs(m *Manager) []uint64 {
	var ids []uint64
	for _, in := range m.Surfaces() {
		ids = append(ids, in.ID)
	}
	return ids
}

func TestCreateSplitClose(t *testing.T) {
	m, sub := newManager(t, Options{})
	dir := t.TempDir()
	info, err := m.CreateWorkspace("main", dir, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if info.Index != 0 || info.Panes != 1 || !info.Active || info.Cwd != real || info.Title != "main" {
		t.Errorf("CreateWorkspace = %+v, want index 0, 1 pane, active (first workspace), cwd %s", info, real)
	}
	first := surfaceIDs(m)[0]
	a, n, err := m.Split(0, Vertical, PaneSpec{})
	if err != nil || n != 2 {
		t.Fatalf("Split = %v, %d, %v; want 2 panes", a, n, err)
	}
	b, n, err := m.Split(a.ID, Horizontal, PaneSpec{Name: "  lower  "})
	if err != nil || n != 3 {
		t.Fatalf("Split = %v, %d, %v; want 3 panes", b, n, err)
	}
	if b.Name != "lower" {
		t.Errorf("split pane name = %q, want %q", b.Name, "lower")
	}
	if got := currentShape(m); got != "V[p H[p p]]" {
		t.Errorf("layout = %s, want V[p H[p p]]", got)
	}
	if diff := cmp.Diff([]uint64{first, a.ID, b.ID}, surfaceIDs(m)); diff != "" {
		t.Errorf("surface order mismatch (-want +got):\n%s", diff)
	}
	if err := m.CloseSurface(a.ID); err != nil {
		t.Fatal(err)
	}
	if got := currentShape(m); got != "V[p p]" {
		t.Errorf("layout after close = %s, want V[p p]", got)
	}
	if err := m.CloseSurface(a.ID); !errors.Is(err, ErrNotFound) || err.Error() != "Surface not found" {
		t.Errorf("closing twice: %v, want %q", err, "Surface not found")
	}
	waitEvent(t, sub, func(e bus.Event) bool {
		c, ok := e.(bus.SurfaceClosed)
		return ok && c.SurfaceID == a.ID && c.WorkspaceID == info.ID
	})
	// The only workspace keeps existing when its last pane closes; a split
	// then gives it a pane again.
	for _, id := range surfaceIDs(m) {
		if err := m.CloseSurface(id); err != nil {
			t.Fatal(err)
		}
	}
	if ws := m.Workspaces(); len(ws) != 1 || ws[0].Panes != 0 {
		t.Fatalf("workspaces after closing every pane = %+v, want one empty", ws)
	}
	if _, n, err := m.Split(0, Vertical, PaneSpec{}); err != nil || n != 1 {
		t.Fatalf("Split into empty workspace = %d, %v; want 1 pane", n, err)
	}
}

func TestCaps(t *testing.T) {
	m, _ := newManager(t, Options{MaxPanes: 2, MaxWorkspaces: 2})
	if _, err := m.CreateWorkspace("a", "", nil, true); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.Split(0, Vertical, PaneSpec{}); err != nil {
		t.Fatal(err)
	}
	_, _, err := m.Split(0, Vertical, PaneSpec{})
	if !errors.Is(err, ErrLimit) || err.Error() != "Maximum pane count reached (2)" {
		t.Errorf("third pane: %v, want ErrLimit %q", err, "Maximum pane count reached (2)")
	}
	if _, err := m.CreateWorkspace("b", "", nil, false); err != nil {
		t.Fatal(err)
	}
	_, err = m.CreateWorkspace("c", "", nil, false)
	if !errors.Is(err, ErrLimit) || err.Error() != "Workspace limit reached" {
		t.Errorf("third workspace: %v, want %q", err, "Workspace limit reached")
	}
	big, _ := PresetLayout(PresetEvenH, 5, 0)
	if _, err := m.RestoreLayout(big); err != nil {
		t.Fatal(err)
	}
	if ws, _ := m.ActiveWorkspace(); ws.Panes != 2 {
		t.Errorf("restoring 5 panes with a cap of 2 gave %d panes, want 2", ws.Panes)
	}
	_, _, err = m.Up(UpSpec{Panes: make([]PaneSpec, 3)})
	if !errors.Is(err, ErrLimit) || err.Error() != "layout exceeds maximum pane count (2)" {
		t.Errorf("Up with 3 panes: %v", err)
	}
}

func TestWorkspaceSelectClose(t *testing.T) {
	m, sub := newManager(t, Options{})
	for _, title := range []string{"a", "b", "c"} {
		if _, err := m.CreateWorkspace(title, "", nil, false); err != nil {
			t.Fatal(err)
		}
	}
	active := func() int { ws, _ := m.ActiveWorkspace(); return ws.Index }
	if got := active(); got != 0 {
		t.Errorf("active after creating without activate = %d, want 0", got)
	}
	if err := m.SelectWorkspace(2); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, sub, func(e bus.Event) bool { s, ok := e.(bus.WorkspaceSelected); return ok && s.Index == 2 })
	if err := m.SelectWorkspace(3); !errors.Is(err, ErrNotFound) || err.Error() != "Index out of bounds" {
		t.Errorf("SelectWorkspace(3) = %v, want %q", err, "Index out of bounds")
	}
	if err := m.CloseWorkspace(0); err != nil { // before the active one: c stays active
		t.Fatal(err)
	}
	if ws := m.Workspaces(); len(ws) != 2 || ws[active()].Title != "c" {
		t.Errorf("after closing a: %+v, active %d; want c active", ws, active())
	}
	if err := m.CloseWorkspace(1); err != nil { // the active one: clamps to the new last
		t.Fatal(err)
	}
	if ws := m.Workspaces(); len(ws) != 1 || active() != 0 || ws[0].Title != "b" {
		t.Errorf("after closing c: %+v, active %d", ws, active())
	}
	if err := m.CloseWorkspace(0); !errors.Is(err, ErrLastWorkspace) || err.Error() != "Cannot close last workspace" {
		t.Errorf("closing the last workspace: %v", err)
	}
	// Closing the last pane of a workspace that is not the only one
	// closes the workspace.
	if _, err := m.CreateWorkspace("d", "", nil, true); err != nil {
		t.Fatal(err)
	}
	s, _ := m.ActiveSurface()
	if err := m.CloseSurface(s.ID()); err != nil {
		t.Fatal(err)
	}
	if ws := m.Workspaces(); len(ws) != 1 || ws[0].Title != "b" {
		t.Errorf("after closing d's only pane: %+v, want only b", ws)
	}
}

func TestFocusRenameResize(t *testing.T) {
	m, sub := newManager(t, Options{Cols: 100, Rows: 30})
	if _, err := m.CreateWorkspace("a", "", nil, true); err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateWorkspace("b", "", nil, false); err != nil {
		t.Fatal(err)
	}
	ids := surfaceIDs(m)
	ws, err := m.Focus(ids[1])
	if err != nil || ws != 1 {
		t.Fatalf("Focus = %d, %v; want workspace 1", ws, err)
	}
	if a, _ := m.ActiveWorkspace(); a.Index != 1 {
		t.Errorf("active after focus = %d, want 1", a.Index)
	}
	if _, err := m.Focus(999); !errors.Is(err, ErrNotFound) {
		t.Errorf("Focus(999) = %v, want ErrNotFound", err)
	}
	name, err := m.Rename(ids[0], " build\x1b ")
	if err != nil || name != "build" {
		t.Fatalf("Rename = %q, %v; want build", name, err)
	}
	waitEvent(t, sub, func(e bus.Event) bool { r, ok := e.(bus.SurfaceRenamed); return ok && r.Name == "build" })
	s, _ := m.Surface(ids[0])
	if in, _ := s.Info(); in.Name != "build" || in.CustomName != "build" {
		t.Errorf("Info after rename = %+v", in)
	}
	if name, _ := m.Rename(ids[0], " \t"); name != "" || s.CustomName() != "" {
		t.Errorf("blank rename = %q, custom %q; want the name cleared", name, s.CustomName())
	}
	if cols, rows := s.Terminal().Emulator().Size(); cols != 100 || rows != 30 {
		t.Errorf("pane size = %dx%d, want 100x30", cols, rows)
	}
	if err := m.Resize(ids[0], 40, 10); err != nil {
		t.Fatal(err)
	}
	if cols, rows := s.Terminal().Emulator().Size(); cols != 40 || rows != 10 {
		t.Errorf("pane size after resize = %dx%d, want 40x10", cols, rows)
	}
	for _, bad := range [][2]int{{0, 10}, {10, 0}, {MaxPaneDim + 1, 10}} {
		if err := m.Resize(ids[0], bad[0], bad[1]); !errors.Is(err, ErrInvalid) {
			t.Errorf("Resize(%v) = %v, want ErrInvalid", bad, err)
		}
	}
}

func TestPaneEnvironmentAndExit(t *testing.T) {
	m, sub := newProcessManager(t, Options{SocketPath: "/tmp/pf.sock", Env: []string{"FOO=global", "TERM=dumb"}})
	if _, err := m.CreateWorkspace("a", "", nil, true); err != nil {
		t.Fatal(err)
	}
	cmd := `printf 'ENV[%s|%s|%s|%s|%s|%s]\n' "$PANEFLOW_SURFACE_ID" "$PANEFLOW_WORKSPACE" "$TERM" "$FOO" "$BAR" "$PANEFLOW_SOCKET_PATH"; exit 3`
	in, _, err := m.Split(0, Vertical, PaneSpec{Command: cmd, Env: map[string]string{"BAR": "pane", "TERM": "vt52"}})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := m.Surface(in.ID)
	want := "ENV[" + strconv.FormatUint(in.ID, 10) + "|0|xterm-256color|global|pane|/tmp/pf.sock]"
	waitText(t, s, want)
	// Output is on the bus, before the exit.
	waitEvent(t, sub, func(e bus.Event) bool { c, ok := e.(bus.SurfaceChanged); return ok && c.SurfaceID == in.ID })
	ev := waitEvent(t, sub, func(e bus.Event) bool { x, ok := e.(bus.SurfaceExited); return ok && x.SurfaceID == in.ID })
	if x := ev.(bus.SurfaceExited); x.ExitCode != 3 || x.Signal != "" {
		t.Errorf("SurfaceExited = %+v, want exit code 3", x)
	}
	// The exited pane stays listed.
	var got SurfaceInfo
	for _, i := range m.Surfaces() {
		if i.ID == in.ID {
			got = i
		}
	}
	if !got.Exited || got.ExitCode == nil || *got.ExitCode != 3 || got.Cmd != nil {
		t.Errorf("exited pane info = %+v, want exited with code 3 and no cmd", got)
	}
	if !strings.HasPrefix(got.Name, "printf") {
		t.Errorf("exited pane name = %q, want it named after its command", got.Name)
	}
	if ws, _ := m.ActiveWorkspace(); ws.Panes != 2 {
		t.Errorf("panes after exit = %d, want 2", ws.Panes)
	}
}

func TestNames(t *testing.T) {
	m, _ := newProcessManager(t, Options{})
	a, b := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(a, "api"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(b, "web"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateWorkspace("a", filepath.Join(a, "api"), nil, true); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.Split(0, Vertical, PaneSpec{Cwd: filepath.Join(b, "web")}); err != nil {
		t.Fatal(err)
	}
	sl, _, err := m.Split(0, Vertical, PaneSpec{Command: "sleep 30"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, in := range m.Surfaces() {
		names = append(names, in.Name)
	}
	// Depth-first: first pane, then the sleep (inserted after it), then web.
	want := []string{"shell@api", "sleep-30", "shell@web"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("names mismatch (-want +got):\n%s", diff)
	}
	if sl.Cmd == nil || *sl.Cmd != "sleep 30" {
		t.Errorf("cmd of the sleep pane = %v, want \"sleep 30\"", sl.Cmd)
	}
	if _, err := m.ResolveTarget(0, "sleep-30"); err != nil {
		t.Errorf("ResolveTarget by name: %v", err)
	}
	_, err = m.ResolveTarget(0, "nope")
	if !errors.Is(err, ErrNotFound) || err.Error() != "no surface named 'nope'; available: [shell@api, sleep-30, shell@web]" {
		t.Errorf("ResolveTarget(nope) = %v", err)
	}
	if _, err := m.ResolveTarget(12345, ""); err == nil || err.Error() != "surface_id 12345 not found" {
		t.Errorf("ResolveTarget(12345) = %v", err)
	}
	if s, err := m.ResolveTarget(0, ""); err != nil || s.ID() != surfaceIDs(m)[0] {
		t.Errorf("ResolveTarget() = %v, %v; want the first pane", s, err)
	}
}

func TestCwdErrors(t *testing.T) {
	m, _ := newManager(t, Options{})
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cwd, want string
	}{
		{filepath.Join(dir, "missing"), "cwd does not exist or is unreadable: " + filepath.Join(dir, "missing") + " (no such file or directory)"},
		{file, "cwd is not a directory: " + file},
	}
	for _, tt := range tests {
		_, err := m.CreateWorkspace("x", tt.cwd, nil, true)
		if !errors.Is(err, ErrInvalid) || err.Error() != tt.want {
			t.Errorf("CreateWorkspace(cwd %s) = %v, want %q", tt.cwd, err, tt.want)
		}
	}
	_, _, err := m.Up(UpSpec{Panes: []PaneSpec{{Cwd: dir}, {Cwd: file}}})
	if want := "pane 1: cwd '" + file + "' does not exist or is not a directory"; err == nil || err.Error() != want {
		t.Errorf("Up with a bad cwd = %v, want %q", err, want)
	}
	if n := len(m.Workspaces()); n != 0 {
		t.Errorf("workspaces after failed creations = %d, want 0", n)
	}
}

func TestRestoreLayoutAndPresets(t *testing.T) {
	m, _ := newManager(t, Options{})
	if _, err := m.RestoreLayout(LayoutNode{Type: NodePane}); err == nil || err.Error() != "No active workspace" {
		t.Errorf("RestoreLayout without workspaces = %v", err)
	}
	if _, err := m.CreateWorkspace("a", "", nil, true); err != nil {
		t.Fatal(err)
	}
	first := surfaceIDs(m)[0]
	l := split("vertical", pane(), split("horizontal", pane(), pane()))
	n, err := m.RestoreLayout(l)
	if err != nil || n != 3 {
		t.Fatalf("RestoreLayout = %d, %v; want 3", n, err)
	}
	ids := surfaceIDs(m)
	if len(ids) != 3 || ids[0] != first {
		t.Fatalf("surfaces after restore = %v, want the first pane kept first", ids)
	}
	if got := currentShape(m); got != "V[p H[p p]]" {
		t.Errorf("shape = %s", got)
	}
	for _, tt := range []struct{ preset, want string }{
		{PresetEvenV, "H[p p p]"},
		{PresetTiled, "H[V[p p] p]"},
		{PresetMainVertical, "V[p H[p p]]"},
		{PresetEvenH, "V[p p p]"},
	} {
		if err := m.ApplyPreset(0, tt.preset); err != nil {
			t.Fatal(err)
		}
		if got := currentShape(m); got != tt.want {
			t.Errorf("ApplyPreset(%s) = %s, want %s", tt.preset, got, tt.want)
		}
		if diff := cmp.Diff(ids, surfaceIDs(m)); diff != "" && tt.preset != PresetMainVertical {
			t.Errorf("ApplyPreset(%s) changed the pane order (-want +got):\n%s", tt.preset, diff)
		}
	}
	if err := m.ApplyPreset(0, "spiral"); !errors.Is(err, ErrInvalid) {
		t.Errorf("ApplyPreset(spiral) = %v, want ErrInvalid", err)
	}
	if _, err := m.Focus(ids[2]); err != nil {
		t.Fatal(err)
	}
	if err := m.ApplyPreset(0, PresetMainVertical); err != nil {
		t.Fatal(err)
	}
	if got := surfaceIDs(m)[0]; got != ids[2] {
		t.Errorf("main_vertical main pane = %d, want the focused %d", got, ids[2])
	}
	n, err = m.RestoreLayout(pane())
	if err != nil || n != 1 {
		t.Fatalf("RestoreLayout(pane) = %d, %v", n, err)
	}
	if got := surfaceIDs(m); len(got) != 1 || got[0] != ids[2] {
		t.Errorf("surfaces after shrinking = %v, want [%d]", got, ids[2])
	}
	info, l2, ok := m.CurrentLayout()
	if !ok || info.Panes != 1 || len(l2.Surfaces) != 1 || !l2.Surfaces[0].Focus || l2.Surfaces[0].SurfaceID != ids[2] || l2.Surfaces[0].SurfaceType != "terminal" {
		t.Errorf("CurrentLayout = %+v, %+v", info, l2)
	}
}

func TestUp(t *testing.T) {
	// Max is short: the detached "cat" pane prints nothing, so its prompt
	// is typed when Max passes (TestPrefillWaitsForFirstOutput).
	m, _ := newManager(t, Options{PromptSettle: Settle{Floor: time.Millisecond, Quiet: 20 * time.Millisecond, Max: 50 * time.Millisecond}})
	dir := t.TempDir()
	info, ss, err := m.Up(UpSpec{
		Title: "team", Preset: PresetMainVertical, Focus: 1,
		Panes: []PaneSpec{
			{Name: "w", Cwd: dir},
			{Name: "w", Command: "cat", Prompt: "hello-prompt"},
			{Name: "x\x07"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if info.Title != "team" || info.Panes != 3 || !info.Active || info.Cwd != real {
		t.Errorf("Up = %+v", info)
	}
	var labels []string
	for _, s := range ss {
		labels = append(labels, s.CustomName())
	}
	if diff := cmp.Diff([]string{"w", "w-2", "x"}, labels); diff != "" {
		t.Errorf("labels mismatch (-want +got):\n%s", diff)
	}
	if got := currentShape(m); got != "V[p H[p p]]" {
		t.Errorf("shape = %s", got)
	}
	if got := surfaceIDs(m)[0]; got != ss[1].ID() {
		t.Errorf("main pane = %d, want the focused pane %d", got, ss[1].ID())
	}
	// cat echoes the prefilled prompt (raw, no Enter).
	waitText(t, ss[1], "hello-prompt")
	if _, _, err := m.Up(UpSpec{}); !errors.Is(err, ErrInvalid) || err.Error() != "`panes` must be a non-empty array" {
		t.Errorf("Up without panes = %v", err)
	}
}

func TestClosedManager(t *testing.T) {
	m, _ := newManager(t, Options{})
	if _, err := m.CreateWorkspace("a", "", nil, true); err != nil {
		t.Fatal(err)
	}
	s, _ := m.ActiveSurface()
	m.Close()
	m.Close()
	select {
	case <-s.Closed():
	default:
		t.Error("surface not closed by Manager.Close")
	}
	if _, ok := s.Terminal().ExitStatus(); !ok {
		t.Error("terminal still running after Manager.Close")
	}
	if _, err := m.CreateWorkspace("b", "", nil, true); !errors.Is(err, ErrClosed) {
		t.Errorf("CreateWorkspace after Close = %v, want ErrClosed", err)
	}
	if m.Go(func(<-chan struct{}) {}) {
		t.Error("Go after Close ran")
	}
}
