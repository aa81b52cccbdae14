//go:build !windows

package app

import (
	"context"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/config"
	"github.com/paneflow-go/paneflow/core"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
	"github.com/paneflow-go/paneflow/workspace"
)

// testDeadline bounds every wait; nothing asserts on how long things take.
const testDeadline = 20 * time.Second

// harness is a window over a real core with /bin/sh panes, on Fyne's
// test driver.
type harness struct {
	t  *testing.T
	a  fyne.App
	c  *core.Core
	s  *shell
	cl *ipc.Client
	// worktrees is the core's worktree registry file.
	worktrees string
	// describe, when set, tells what a timed-out waitFor saw (run
	// holding the UI lock), so a failure says more than what it waited
	// for.
	describe func() string
}

// newHarness starts a core and a shell over it; mod may change the
// options first.
func newHarness(t *testing.T, mod func(*Options)) *harness {
	t.Helper()
	return startHarness(t, mod, false)
}

// newAttachedHarness starts a core serving its socket and a shell
// attached to it over that socket (the attached backend).
func newAttachedHarness(t *testing.T, mod func(*Options)) *harness {
	t.Helper()
	return startHarness(t, mod, true)
}

// startHarness is newHarness, attached when attach.
func startHarness(t *testing.T, mod func(*Options), attach bool) *harness {
	t.Helper()
	return startHarnessCore(t, mod, attach, nil)
}

// startHarnessCore is startHarness whose core options coreMod may change
// first (nil: none).
func startHarnessCore(t *testing.T, mod func(*Options), attach bool, coreMod func(*core.Options)) *harness {
	t.Helper()
	tmp := t.TempDir()
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR"} {
		d := filepath.Join(tmp, strings.ToLower(k))
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		t.Setenv(k, d)
	}
	t.Setenv("SHELL", "/bin/sh")
	goos = "linux"
	cfg := config.Default()
	cfg.DefaultShell = "/bin/sh"
	co := core.Options{
		SocketPath: ipctest.NewPath(t), Cols: 80, Rows: 24, Config: &cfg,
		Getenv: func(k string) string {
			switch k {
			case "PANEFLOW_IPC_SCRIPTING":
				return "1" // surface.send_text types into panes
			case "XDG_STATE_HOME":
				return filepath.Join(tmp, "state") // review comments, the day's usage
			}
			return ""
		},
		NoInitialWorkspace: true, Logf: t.Logf, WorktreeRegistry: filepath.Join(tmp, "worktrees.json"),
	}
	if coreMod != nil {
		coreMod(&co)
	}
	c, err := core.New(co)
	if err != nil {
		t.Fatal(err)
	}
	b := NewLocal(c)
	if attach {
		b = attachTo(t, c)
	}
	o := Options{Backend: b, Config: cfg, Logf: t.Logf}
	if mod != nil {
		mod(&o)
	}
	a := test.NewApp()
	s, err := start(a, o)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, a: a, c: c, s: s, cl: &ipc.Client{Path: c.SocketPath}, worktrees: filepath.Join(tmp, "worktrees.json")}
	t.Cleanup(func() { h.quit() })
	return h
}

// quit quits the app and waits for the shell to stop.
func (h *harness) quit() {
	h.s.guard(h.s.quitLocked)
	if err := h.s.stop(); err != nil {
		h.t.Errorf("stop: %v", err)
	}
}

// waitFor polls cond (run holding the shell's UI lock) until it holds.
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(testDeadline)
	for {
		ok := false
		h.s.guard(func() { ok = cond() })
		if ok {
			return
		}
		if time.Now().After(deadline) {
			saw := ""
			if h.describe != nil {
				h.s.guard(func() { saw = "; " + h.describe() })
			}
			h.t.Fatalf("timed out waiting for %s%s", what, saw)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// call makes a socket request.
// twoPanes splits the harness's first pane (once it has the focus) and
// waits until the window has a view for each: it returns both ids.
func (h *harness) twoPanes() (first, second uint64) {
	h.t.Helper()
	h.waitFor("the first pane", func() bool { first = h.s.pos.focus; return first != 0 })
	info, _, err := h.c.Workspaces.Split(first, workspace.Vertical, workspace.PaneSpec{})
	if err != nil {
		h.t.Fatal(err)
	}
	h.waitFor("both views", func() bool {
		return h.s.panes.views[first] != nil && h.s.panes.views[info.ID] != nil && h.s.pos.snap.Open[info.ID] != 0
	})
	return first, info.ID
}

// panePID is the process id of pane id's program. The program starts in
// the background (terminal.Options.Background) and has no pid until it
// started, which on a loaded machine comes after its view shows.
func (h *harness) panePID(id uint64) (pid int) {
	h.t.Helper()
	h.waitFor("the pane's process", func() bool { pid = h.s.b.PanePIDs()[id]; return pid != 0 })
	return pid
}

func (h *harness) call(method string, params any, result any) {
	h.t.Helper()
	if err := h.cl.Call(context.Background(), method, params, result); err != nil {
		h.t.Fatalf("%s: %v", method, err)
	}
}

// key presses a key as a focused pane view reports it; the caller holds
// the shell's UI lock (h.s.guard).
func (h *harness) key(k fyne.KeyName, mods fyne.KeyModifier) bool {
	return h.s.handleKeyLocked(k, mods)
}

// splitKey presses the split shortcut (ctrl+shift+e: new pane to the
// right) and fails the test when the app does not take it.
func (h *harness) splitKey() {
	h.t.Helper()
	var handled bool
	h.s.guard(func() { handled = h.key(fyne.KeyE, fyne.KeyModifierShortcutDefault|fyne.KeyModifierShift) })
	if !handled {
		h.t.Fatal("ctrl+shift+e was not taken as an app shortcut")
	}
}

// shape is the active workspace's layout shape, e.g. "V[p H[p p]]".
func (h *harness) shape() string {
	_, l, _ := h.c.Workspaces.ActiveTree()
	return shapeOf(l)
}

func shapeOf(l *workspace.LayoutNode) string {
	if l == nil {
		return "<nil>"
	}
	if l.Type != workspace.NodeSplit {
		return "p"
	}
	var parts []string
	for i := range l.Children {
		parts = append(parts, shapeOf(&l.Children[i]))
	}
	d := "H"
	if l.Direction == "vertical" {
		d = "V"
	}
	return d + "[" + strings.Join(parts, " ") + "]"
}

// cardTitles lists the sidebar's workspace titles and pane counts.
func (h *harness) cards() []workspaceCard {
	return h.s.chrome.side.shown
}

func TestSidebarFollowsSocket(t *testing.T) { sidebarFollowsSocket(t, newHarness(t, nil)) }

// TestAttachedSidebarFollowsSocket is TestSidebarFollowsSocket through a
// window attached over the socket: the server's events reach it.
func TestAttachedSidebarFollowsSocket(t *testing.T) {
	sidebarFollowsSocket(t, newAttachedHarness(t, nil))
}

func sidebarFollowsSocket(t *testing.T, h *harness) {
	h.waitFor("the default workspace", func() bool {
		c := h.cards()
		return len(c) == 1 && c[0].Title == "Terminal" && len(c[0].Panes) == 1 && c[0].Active
	})
	dir := t.TempDir()
	var created map[string]any
	h.call("workspace.create", map[string]any{"name": "api", "cwd": dir}, &created)
	h.waitFor("the new workspace's card", func() bool {
		c := h.cards()
		return len(c) == 2 && c[1].Title == "api" && c[0].Active && !c[1].Active && len(c[1].Panes) == 1
	})
	h.call("workspace.select", map[string]any{"index": 1}, nil)
	h.waitFor("the new workspace shown", func() bool {
		c := h.cards()
		return c[1].Active && h.s.pos.wsID == c[1].ID && len(h.s.chrome.area.shown()) == 1
	})
	var id uint64
	h.s.guard(func() { id = h.cards()[1].Panes[0].ID })
	h.call("surface.rename", map[string]any{"surface_id": id, "new_name": "server"}, nil)
	h.waitFor("the renamed pane", func() bool {
		c := h.cards()
		return len(c) == 2 && c[1].Panes[0].Name == "server"
	})
	h.call("surface.send_text", map[string]any{"surface_id": id, "text": "exit 3\n"}, nil)
	h.waitFor("the exited pane", func() bool {
		p := h.cards()[1].Panes[0]
		return p.Exited && p.Code == 3
	})
	h.call("workspace.select", map[string]any{"index": 0}, nil)
	h.waitFor("the first workspace shown", func() bool {
		c := h.cards()
		return c[0].Active && h.s.pos.wsID == c[0].ID && len(h.s.chrome.area.shown()) == 1
	})
	h.call("workspace.close", map[string]any{"index": 1}, nil)
	h.waitFor("the card gone and the pane's view closed", func() bool {
		_, viewed := h.s.panes.views[id]
		return len(h.cards()) == 1 && !viewed
	})
}

func TestSplitShortcutAndDividerDrag(t *testing.T) {
	h := newHarness(t, nil)
	h.s.guard(func() { h.s.w.Resize(fyne.NewSize(1000, 600)) })
	var first uint64
	h.waitFor("a view", func() bool { first = h.s.pos.focus; return first != 0 && h.s.panes.views[first] != nil })
	// secondary-shift-e (ctrl on Linux): split_vertically, side by side.
	h.splitKey()
	h.waitFor("two panes, each with a view, the new one focused", func() bool {
		return h.shape() == "V[p p]" && len(h.s.panes.views) == 2 && h.s.pos.focus != first && len(h.s.chrome.area.shown()) == 2
	})
	if h.s.onViewKey(fyne.KeyA, 0) {
		t.Error("a plain key was taken as an app shortcut")
	}

	var d *divider
	var span float32
	h.s.guard(func() {
		d = h.s.chrome.area.dividers[0]
		span = d.at.Span
	})
	if span <= 0 {
		t.Fatalf("divider span = %v", span)
	}
	h.s.guard(func() {
		d.Dragged(&fyne.DragEvent{Dragged: fyne.Delta{DX: span / 8}})
		d.Dragged(&fyne.DragEvent{Dragged: fyne.Delta{DX: span / 8}})
		d.DragEnd()
	})
	// The model (what workspace.current reports over the socket) agrees.
	h.waitFor("the model's ratios after the drag", func() bool {
		_, l, _ := h.c.Workspaces.CurrentLayout()
		return l != nil && len(l.Ratios) == 2 && math.Abs(l.Ratios[0]-0.75) < 0.01
	})
	var cur struct {
		Layout workspace.LayoutNode `json:"layout"`
	}
	h.call("workspace.current", nil, &cur)
	if r := cur.Layout.Ratios; len(r) != 2 || math.Abs(r[0]-0.75) > 0.01 {
		t.Errorf("workspace.current ratios = %v, want [0.75 0.25]", r)
	}
	// The panes are laid out along the new ratio (once the model's last
	// layout event is applied).
	h.waitFor("the left pane at 3/4 of the width", func() bool {
		left := h.s.chrome.area.tiles.Panes[first]
		return math.Abs(float64(left.W-span*0.75)) <= 2
	})
}

func TestFocusMoveZoomAndPresets(t *testing.T) {
	h := newHarness(t, nil)
	m := h.c.Workspaces
	var ids [3]uint64
	h.waitFor("the first pane", func() bool { ids[0] = h.s.pos.focus; return ids[0] != 0 })
	b, _, err := m.Split(ids[0], workspace.Vertical, workspace.PaneSpec{})
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := m.Split(b.ID, workspace.Horizontal, workspace.PaneSpec{})
	if err != nil {
		t.Fatal(err)
	}
	ids[1], ids[2] = b.ID, c.ID
	if _, err := m.Focus(ids[2]); err != nil {
		t.Fatal(err)
	}
	h.waitFor("V[p H[p p]] with the lower right pane focused", func() bool {
		return h.shape() == "V[p H[p p]]" && h.s.pos.focus == ids[2] && len(h.s.panes.views) == 3
	})
	moves := []struct {
		key  fyne.KeyName
		want uint64
	}{
		{fyne.KeyUp, ids[1]},
		{fyne.KeyLeft, ids[0]},
		{fyne.KeyRight, ids[1]}, // the upper of the two right panes
		{fyne.KeyDown, ids[2]},
	}
	for _, mv := range moves {
		h.s.guard(func() { h.key(mv.key, fyne.KeyModifierAlt) })
		h.waitFor("focus on pane after alt+"+string(mv.key), func() bool {
			id, _ := m.FocusedSurface(h.s.pos.wsID)
			return id == mv.want && h.s.pos.focus == mv.want
		})
	}

	// Zoom (secondary-shift-z) shows the focused pane alone; splitting is
	// refused while zoomed.
	h.s.guard(func() { h.key(fyne.KeyZ, fyne.KeyModifierShortcutDefault|fyne.KeyModifierShift) })
	h.s.guard(func() {
		if got := h.s.chrome.area.shown(); len(got) != 1 || got[0] != ids[2] {
			t.Errorf("zoomed area shows %v, want [%d]", got, ids[2])
		}
		h.key(fyne.KeyD, fyne.KeyModifierShortcutDefault|fyne.KeyModifierShift)
		if !strings.Contains(h.s.chrome.banner.text.Text, msgUnzoomFirst) {
			t.Errorf("banner = %q after a split while zoomed, want %q", h.s.chrome.banner.text.Text, msgUnzoomFirst)
		}
		h.key(fyne.KeyZ, fyne.KeyModifierShortcutDefault|fyne.KeyModifierShift)
		if got := h.s.chrome.area.shown(); len(got) != 3 {
			t.Errorf("unzoomed area shows %v, want all 3 panes", got)
		}
	})
	if n := len(m.Surfaces()); n != 3 {
		t.Errorf("%d panes after a refused split, want 3", n)
	}

	// Presets: secondary-alt-1..4.
	presets := []struct {
		key  fyne.KeyName
		want string
	}{
		{fyne.Key2, "H[p p p]"},
		{fyne.Key1, "V[p p p]"},
		{fyne.Key4, "H[V[p p] p]"},
		{fyne.Key3, "V[p H[p p]]"},
	}
	for _, p := range presets {
		h.s.guard(func() { h.key(p.key, fyne.KeyModifierShortcutDefault|fyne.KeyModifierAlt) })
		h.waitFor("layout "+p.want, func() bool { return h.shape() == p.want && len(h.s.chrome.area.shown()) == 3 })
	}
	// main_vertical put the focused pane first.
	if _, l, _ := m.ActiveTree(); l.Children[0].Surfaces[0].SurfaceID != ids[2] {
		t.Errorf("main_vertical main pane = %d, want the focused %d", l.Children[0].Surfaces[0].SurfaceID, ids[2])
	}
	// Equalize (secondary-shift-=).
	if err := m.SetRatios(h.s.pos.wsID, nil, []float64{0.8, 0.2}); err != nil {
		t.Fatal(err)
	}
	h.s.guard(func() { h.key(fyne.KeyEqual, fyne.KeyModifierShortcutDefault|fyne.KeyModifierShift) })
	h.waitFor("equal ratios", func() bool {
		_, l, _ := m.ActiveTree()
		return math.Abs(l.Ratios[0]-0.5) < 1e-9
	})
}

// busy runs sleep in pane id and waits until the backend counts it busy
// (the only busy pane).
func (h *harness) busy(id uint64) {
	h.t.Helper()
	h.call("surface.send_text", map[string]any{"surface_id": id, "text": "sleep 60\n"}, nil)
	deadline := time.Now().Add(testDeadline)
	for h.s.b.BusyPanes() != 1 {
		if time.Now().After(deadline) {
			h.t.Fatal("the pane never showed sleep in the foreground")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestCloseAsksWhenAProgramRuns(t *testing.T) {
	h := newHarness(t, nil)
	var id uint64
	h.waitFor("the first pane", func() bool { id = h.s.pos.focus; return id != 0 })
	if n := h.s.b.BusyPanes(); n != 0 {
		t.Fatalf("BusyPanes = %d with an idle shell, want 0", n)
	}
	h.busy(id)
	h.s.guard(h.s.closeRequestedLocked)
	select {
	case <-h.s.life.quitCh:
		t.Fatal("the app quit without asking while sleep ran")
	default:
	}
	h.s.guard(func() {
		if top := h.s.w.Canvas().Overlays().Top(); top == nil {
			t.Error("no confirmation dialog shown")
		}
	})
}

func TestCloseQuitsWhenIdle(t *testing.T) {
	h := newHarness(t, nil)
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	h.s.guard(h.s.closeRequestedLocked)
	select {
	case <-h.s.life.quitCh:
	default:
		t.Fatal("closing an idle window did not quit")
	}
}

// TestCtrlShiftQQuits: Ctrl+Shift+Q quits, as in GNOME Terminal (it closed
// the workspace); an idle window quits without asking.
func TestCtrlShiftQQuits(t *testing.T) {
	h := newHarness(t, nil)
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	h.s.guard(func() {
		if !h.key(fyne.KeyQ, fyne.KeyModifierControl|fyne.KeyModifierShift) {
			t.Fatal("Ctrl+Shift+Q is not bound")
		}
	})
	select {
	case <-h.s.life.quitCh:
	default:
		t.Fatal("Ctrl+Shift+Q did not quit the idle window")
	}
}

// lifecycleHooks reaches the test app's focus hooks.
type lifecycleHooks interface {
	OnEnteredForeground() func()
	OnExitedForeground() func()
}

func TestNotificationsAndAttention(t *testing.T) {
	h := newHarness(t, nil)
	var id uint64
	h.waitFor("the first pane", func() bool { id = h.s.pos.focus; return id != 0 })
	second, _, err := h.c.Workspaces.Split(id, workspace.Vertical, workspace.PaneSpec{})
	if err != nil {
		t.Fatal(err)
	}
	name := ""
	h.waitFor("the second pane's name", func() bool {
		for _, in := range h.s.pos.snap.Surfaces {
			if in.ID == second.ID {
				name = in.Name
			}
		}
		return name != ""
	})
	lc := h.a.Lifecycle().(lifecycleHooks)
	publish := func(sid uint64, state, prev, msg string) {
		h.c.Bus.Publish(bus.AgentState{SurfaceID: sid, WorkspaceID: h.s.pos.wsID, Tool: "claude", PID: int(sid) + 1000,
			State: state, Previous: prev, Hooked: true, Message: msg})
	}
	// Focused window: no notification, but the title counts the waiting agent.
	lc.OnEnteredForeground()()
	test.AssertNotificationSent(t, nil, func() {
		publish(id, stateWaiting, stateThinking, "Allow Bash?")
		h.waitFor("one waiting", func() bool { return h.s.w.Title() == "Paneflow — 1 waiting" })
	})
	// Unfocused: the question goes to the desktop.
	lc.OnExitedForeground()()
	test.AssertNotificationSent(t, fyne.NewNotification("Claude Code needs input in "+name, "Run the migration?"), func() {
		publish(second.ID, stateWaiting, stateThinking, "Run the migration?")
		h.waitFor("two waiting", func() bool { return h.s.w.Title() == "Paneflow — 2 waiting" })
	})
	h.waitFor("the sidebar's status row", func() bool {
		for _, c := range h.cards() {
			for _, p := range c.Panes {
				if p.ID == second.ID {
					return p.Waiting && p.Status == "needs input: Run the migration?"
				}
			}
		}
		return false
	})
	h.s.guard(func() {
		if !h.s.panes.attention[id] || !h.s.panes.attention[second.ID] {
			t.Errorf("attention = %v, want both panes", h.s.panes.attention)
		}
	})
	publish(id, stateThinking, stateWaiting, "")
	h.waitFor("one waiting again", func() bool { return h.s.w.Title() == "Paneflow — 1 waiting" && !h.s.panes.attention[id] })
}

func TestSessionSavedAndRestored(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session.json")
	h := newHarness(t, func(o *Options) { o.SessionPath = path })
	var id uint64
	h.waitFor("the first pane", func() bool { id = h.s.pos.focus; return id != 0 })
	dir := t.TempDir()
	if _, err := h.c.Workspaces.CreateWorkspace("second", dir, nil, true); err != nil {
		t.Fatal(err)
	}
	if _, _, err := h.c.Workspaces.Split(0, workspace.Horizontal, workspace.PaneSpec{Name: "logs"}); err != nil {
		t.Fatal(err)
	}
	h.waitFor("a save after the changes", func() bool {
		b, err := os.ReadFile(path)
		return err == nil && strings.Contains(string(b), "logs") && strings.Contains(string(b), "second")
	})
	h.quit()

	h2 := newHarness(t, func(o *Options) { o.SessionPath = path })
	h2.waitFor("the restored workspaces", func() bool {
		c := h2.cards()
		if len(c) != 2 || c[0].Title != "Terminal" || c[1].Title != "second" || len(c[1].Panes) != 2 {
			return false
		}
		return c[1].Panes[1].Name == "logs"
	})
}

// rewriteConfig writes body to the configuration file at path until done
// (run holding the shell's lock) holds. The watcher compares with the
// content it read when it started, which may be after a first write: the
// file is rewritten, with a new comment, every 20 polls.
func (h *harness) rewriteConfig(path, what, body string, done func() bool) {
	h.t.Helper()
	n := 0
	h.waitFor(what, func() bool {
		if done() {
			return true
		}
		if n%20 == 0 {
			if err := os.WriteFile(path, []byte(fmt.Sprintf("# %d\n%s", n, body)), 0o600); err != nil {
				h.t.Fatal(err)
			}
		}
		n++
		return false
	})
}

func TestConfigReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "paneflow.toml")
	h := newHarness(t, func(o *Options) { o.ConfigPath = path })
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	body := "theme = \"light\"\nfont_size = 99\n[shortcuts]\n\"ctrl+shift+y\" = \"toggle_zoom\"\n"
	h.rewriteConfig(path, "the reloaded configuration", body, func() bool { return h.s.conf.cfg.Theme == config.ThemeLight })
	h.s.guard(func() {
		if !strings.Contains(h.s.chrome.banner.text.Text, "font_size") {
			t.Errorf("banner = %q, want the bad font_size reported", h.s.chrome.banner.text.Text)
		}
		if !h.key(fyne.KeyY, fyne.KeyModifierControl|fyne.KeyModifierShift) {
			t.Error("the shortcut from the reloaded configuration is not bound")
		}
		if th, ok := h.a.Settings().Theme().(variantTheme); !ok || th.dark {
			t.Errorf("theme = %#v, want the light variant", h.a.Settings().Theme())
		}
	})
}

// TestConfigWarningClearedWhenFixed: a configuration problem leaves the
// banner once the file is fixed (it stayed until dismissed by hand);
// other messages stay.
func TestConfigWarningClearedWhenFixed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "paneflow.toml")
	h := newHarness(t, func(o *Options) { o.ConfigPath = path })
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	h.s.guard(func() { h.s.chrome.banner.show("an unrelated problem") })
	const warning = `unknown key "fontsize"`
	h.rewriteConfig(path, "the warning", "fontsize = 12\n", func() bool { return strings.Contains(h.s.chrome.banner.text.Text, warning) })
	h.rewriteConfig(path, "the warning gone", "font_size = 12\n", func() bool { return !strings.Contains(h.s.chrome.banner.text.Text, warning) })
	h.s.guard(func() {
		if b := h.s.chrome.banner.text.Text; !strings.Contains(b, "an unrelated problem") || !h.s.chrome.banner.root.Visible() {
			t.Errorf("banner %q (shown %v), want the unrelated problem still shown", b, h.s.chrome.banner.root.Visible())
		}
	})
}

func TestFontZoom(t *testing.T) {
	h := newHarness(t, nil)
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	h.s.guard(func() {
		base := h.s.conf.look.size
		h.key(fyne.KeyEqual, fyne.KeyModifierShortcutDefault)
		if h.s.conf.look.size != base+1 {
			t.Errorf("font size after secondary-= is %v, want %v", h.s.conf.look.size, base+1)
		}
		h.key(fyne.KeyMinus, fyne.KeyModifierShortcutDefault)
		h.key(fyne.KeyMinus, fyne.KeyModifierShortcutDefault)
		if h.s.conf.look.size != base-1 {
			t.Errorf("font size after two secondary-- is %v, want %v", h.s.conf.look.size, base-1)
		}
		h.key(fyne.Key0, fyne.KeyModifierShortcutDefault)
		if h.s.conf.look.size != base {
			t.Errorf("font size after secondary-0 is %v, want %v", h.s.conf.look.size, base)
		}
	})
}

// TestScreenshot writes the test window's picture when PANEFLOW_SCREENSHOT
// names a file, for a look at the layout.
func TestScreenshot(t *testing.T) {
	out := os.Getenv("PANEFLOW_SCREENSHOT")
	if out == "" {
		t.Skip("set PANEFLOW_SCREENSHOT=file.png to write the window's picture")
	}
	h := newHarness(t, nil)
	h.s.guard(func() { h.s.w.Resize(fyne.NewSize(1200, 700)) })
	var id uint64
	h.waitFor("the first pane", func() bool { id = h.s.pos.focus; return id != 0 })
	if _, _, err := h.c.Workspaces.Split(id, workspace.Vertical, workspace.PaneSpec{}); err != nil {
		t.Fatal(err)
	}
	h.c.Bus.Publish(bus.AgentState{SurfaceID: id, Tool: "claude", PID: 1, State: stateWaiting, Hooked: true, Message: "Allow Bash: go test ./...?"})
	h.call("surface.send_text", map[string]any{"surface_id": id, "text": "echo hello from paneflow\n"}, nil)
	h.waitFor("two panes", func() bool { return len(h.s.chrome.area.shown()) == 2 })
	time.Sleep(500 * time.Millisecond) // let the views draw; only a picture depends on it
	var f *os.File
	h.s.guard(func() {
		img := h.s.w.Canvas().Capture()
		var err error
		if f, err = os.Create(out); err == nil {
			err = png.Encode(f, img)
			f.Close()
		}
		if err != nil {
			t.Error(err)
		}
	})
}

func TestWorkspaceKeysCloseAndJump(t *testing.T) {
	h := newHarness(t, nil)
	m := h.c.Workspaces
	var first uint64
	h.waitFor("the first pane", func() bool { first = h.s.pos.focus; return first != 0 })
	ws2, err := m.CreateWorkspace("two", t.TempDir(), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	var second uint64
	for _, p := range m.Panes() {
		if p.WorkspaceID == ws2.ID {
			second = p.ID
		}
	}
	extra, _, err := m.Split(first, workspace.Vertical, workspace.PaneSpec{})
	if err != nil {
		t.Fatal(err)
	}
	h.waitFor("two workspaces, three panes", func() bool { return len(h.cards()) == 2 && len(h.s.pos.snap.Open) == 3 })

	// secondary-2 selects the second workspace, secondary-tab cycles back.
	h.s.guard(func() { h.key(fyne.Key2, fyne.KeyModifierShortcutDefault) })
	h.waitFor("workspace two shown", func() bool { return h.s.pos.wsID == ws2.ID && h.s.pos.focus == second })
	h.s.guard(func() { h.key(fyne.KeyTab, fyne.KeyModifierShortcutDefault) })
	h.waitFor("workspace one shown", func() bool { return h.s.pos.wsID != ws2.ID && h.s.pos.wsID != 0 })

	// jump_next_waiting (secondary-shift-j) cycles through waiting panes
	// across workspaces, in sidebar order.
	for _, id := range []uint64{second, first} {
		h.c.Bus.Publish(bus.AgentState{SurfaceID: id, Tool: "codex", PID: int(id), State: stateWaiting, Hooked: true})
	}
	h.waitFor("two waiting", func() bool { return len(h.s.agents.waiting()) == 2 })
	for _, want := range []uint64{first, second, first} {
		h.s.guard(func() { h.key(fyne.KeyJ, fyne.KeyModifierShortcutDefault|fyne.KeyModifierShift) })
		h.waitFor(fmt.Sprintf("pane %d focused by the jump", want), func() bool {
			id, _ := m.FocusedSurface(h.s.pos.wsID)
			return h.s.pos.focus == want && id == want
		})
	}

	// close_pane (secondary-shift-w) closes the focused pane and its view.
	if _, err := m.Focus(extra.ID); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the extra pane focused", func() bool { return h.s.pos.focus == extra.ID && h.s.panes.views[extra.ID] != nil })
	h.s.guard(func() { h.key(fyne.KeyW, fyne.KeyModifierShortcutDefault|fyne.KeyModifierShift) })
	h.waitFor("the pane and its view gone", func() bool {
		_, open := m.Surface(extra.ID)
		return !open && h.s.panes.views[extra.ID] == nil && len(h.s.chrome.area.shown()) == 1
	})
}

// TestQuitRunsLifecycleHooks: the GLFW driver runs the focus hooks inside
// its Quit, which the shell calls holding its lock; they must not take it.
func TestQuitRunsLifecycleHooks(t *testing.T) {
	h := newHarness(t, nil)
	lc := h.a.Lifecycle().(lifecycleHooks)
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.s.guard(func() {
			lc.OnExitedForeground()()
			lc.OnEnteredForeground()()
		})
	}()
	select {
	case <-done:
	case <-time.After(testDeadline):
		t.Fatal("a lifecycle hook blocked on the shell's lock")
	}
}

// TestTakeStoppedHooks: with the desktop driver the shell takes the
// stopped hooks from Fyne's loop and runs them itself once the loop has
// ended (see takeStoppedHooks). Fyne's test app has the same lifecycle
// type as the desktop one, so this also catches a Fyne upgrade that drops
// the methods the shell relies on.
func TestTakeStoppedHooks(t *testing.T) {
	lc := test.NewApp().Lifecycle()
	owner, ok := lc.(stoppedHookOwner)
	if !ok {
		t.Fatalf("Fyne's lifecycle (%T) lacks OnStopped or SetOnStoppedHookExecuted: the desktop app could hang at quit again (see takeStoppedHooks)", lc)
	}
	var ran []string
	lc.SetOnStopped(func() { ran = append(ran, "shell") })
	owner.SetOnStoppedHookExecuted(func() { ran = append(ran, "fyne") })
	l := newLifetime()
	l.takeStoppedHooks(lc)
	if owner.OnStopped() != nil {
		t.Error("Fyne's loop still has a stopped hook to run")
	}
	if len(ran) != 0 {
		t.Fatalf("hooks ran when taken: %v", ran)
	}
	l.runStoppedHooks()
	if got := strings.Join(ran, ","); got != "shell,fyne" {
		t.Errorf("hooks ran as %q, want the shell's, then Fyne's", got)
	}
	select {
	case <-l.quitCh:
	default:
		t.Error("runStoppedHooks did not release Run")
	}
}

// TestThemeSwitchRecoloursSidebar: a reloaded configuration that switches
// the theme repaints the sidebar's background in the new theme (it kept
// the old one, under the new text colours, until a restart).
func TestThemeSwitchRecoloursSidebar(t *testing.T) {
	h := newHarness(t, nil)
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	h.s.guard(func() { h.s.w.Resize(fyne.NewSize(1000, 700)) })
	// A point of the sidebar under its last card: only its background.
	at := func() color.Color {
		var c color.Color
		h.s.guard(func() { c = h.s.w.Canvas().Capture().At(20, 680) })
		return c
	}
	same := func(a, b color.Color) bool {
		r0, g0, b0, _ := a.RGBA()
		r1, g1, b1, _ := b.RGBA()
		return r0 == r1 && g0 == g1 && b0 == b1
	}
	for _, th := range []string{config.ThemeLight, config.ThemeDark} {
		h.s.guard(func() {
			cfg := h.s.conf.cfg
			cfg.Theme = th
			h.s.applyConfigLocked(cfg, nil, false)
		})
		want := variantTheme{dark: th == config.ThemeDark}.Color(theme.ColorNameHeaderBackground, 0)
		if got := at(); !same(got, want) {
			t.Errorf("theme %s: sidebar background %v, want %v", th, got, want)
		}
	}
}

// TestApplyAtTick: what the model reader handed over (an agent's state)
// is applied at the next tick of Fyne's loop, before the flush it posted
// runs (on a loaded machine Fyne's loop often painted the whole window
// once or twice first); that flush then finds nothing left.
func TestApplyAtTick(t *testing.T) {
	h := newHarness(t, nil)
	var id uint64
	h.waitFor("the first pane in the sidebar", func() bool {
		c := h.cards()
		if len(c) == 1 && len(c[0].Panes) == 1 {
			id = c[0].Panes[0].ID
		}
		return id != 0
	})
	// A handover as readEvents makes it, whose posted flush has not run.
	h.s.guard(func() {
		c := *h.s.pos.snap
		h.s.handed.put(&c, []bus.Event{bus.AgentState{SurfaceID: id, Tool: "claude", State: stateWaiting, Previous: stateThinking, Hooked: true}})
	})
	h.s.applyAtTick()
	h.s.handed.mu.Lock()
	left := h.s.handed.snap != nil || h.s.handed.scheduled
	h.s.handed.mu.Unlock()
	if left {
		t.Error("the handover is still pending after the tick")
	}
	h.s.guard(func() {
		if c := h.cards(); len(c) != 1 || len(c[0].Panes) != 1 || c[0].Panes[0].Glyph != "●" {
			t.Errorf("after the tick the sidebar shows %+v, want the pane waiting (●)", c)
		}
	})
	h.s.applyAtTick() // nothing pending: nothing happens
}
