package app

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"

	"github.com/paneflow-go/paneflow/app/keymap"
	"github.com/paneflow-go/paneflow/workspace"
)

// msgUnzoomFirst is shown when a split is asked for while a pane is
// zoomed (spec gui.md §4).
const msgUnzoomFirst = "Unzoom before splitting panes"

// onViewKey is the views' key handler: it runs the app action bound to
// the key, if any, and reports whether it did. Views call it on the UI
// goroutine without holding their own lock.
func (s *shell) onViewKey(key fyne.KeyName, mods fyne.KeyModifier) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.handleKeyLocked(key, mods)
}

// handleKeyLocked looks key up in the keymap and runs its action.
func (s *shell) handleKeyLocked(key fyne.KeyName, mods fyne.KeyModifier) bool {
	if s.conf.keys == nil {
		return false
	}
	a, ok := s.conf.keys.Lookup(key, mods)
	if !ok {
		return false
	}
	s.runActionLocked(a)
	return true
}

// installCanvasKeysLocked routes keys that reach the window canvas (no
// widget has the keyboard focus) through the keymap. The desktop driver
// reports modifiers only as key presses, so they are tracked.
func (s *shell) installCanvasKeysLocked() {
	c := s.w.Canvas()
	k := s.canvasKeys()
	c.SetOnTypedKey(k.typed)
	if dc, ok := c.(desktop.Canvas); ok {
		dc.SetOnKeyDown(k.down)
		dc.SetOnKeyUp(k.up)
	}
}

// canvasKeys are the shell's handlers of the keys that reach the canvas,
// for the canvas and for the passButtons of its views.
func (s *shell) canvasKeys() *canvasKeys {
	return &canvasKeys{typed: s.canvasTypedKey, down: s.canvasKeyDown, up: s.canvasKeyUp}
}

// canvasTypedKey is a key that no widget took: a dialog on top takes
// Enter and Escape; Escape closes the open overlay (the Diff view takes
// no keyboard focus, and a click in another view may have left none
// focused); the Diff view's keys act while it is on top; then the
// keymap's.
func (s *shell) canvasTypedKey(ev *fyne.KeyEvent) {
	var answer func()
	s.guard(func() {
		if s.kb.mods() == 0 {
			if answer = s.dialogKeyLocked(ev.Name); answer != nil {
				return
			}
			if ev.Name == fyne.KeyEscape && s.escapeLocked() {
				return
			}
			if s.diffKeyLocked(ev.Name, 0) {
				return
			}
			s.handleKeyLocked(ev.Name, 0)
		}
	})
	if answer != nil {
		answer() // without the lock: it may hide the dialog, whose callback takes it
	}
}

// canvasKeyDown notes a modifier pressed, and runs the action bound to a
// key pressed with modifiers held.
func (s *shell) canvasKeyDown(ev *fyne.KeyEvent) {
	s.guard(func() {
		mods := s.kb.mods()
		if s.kb.down(ev.Name) {
			return
		}
		if mods != 0 && !s.diffKeyLocked(ev.Name, mods) {
			s.handleKeyLocked(ev.Name, mods)
		}
	})
}

// canvasKeyUp notes a modifier released.
func (s *shell) canvasKeyUp(ev *fyne.KeyEvent) {
	s.guard(func() { s.kb.up(ev.Name) })
}

// presetOf maps the layout actions to the model's presets.
var presetOf = map[keymap.Action]string{
	keymap.LayoutEvenHorizontal: workspace.PresetEvenH,
	keymap.LayoutEvenVertical:   workspace.PresetEvenV,
	keymap.LayoutMainVertical:   workspace.PresetMainVertical,
	keymap.LayoutTiled:          workspace.PresetTiled,
}

// focusDir maps the focus actions to directions.
var focusDir = map[keymap.Action]direction{
	keymap.FocusLeft: dirLeft, keymap.FocusRight: dirRight, keymap.FocusUp: dirUp, keymap.FocusDown: dirDown,
}

// selectIndex maps select_workspace_N to N-1.
var selectIndex = map[keymap.Action]int{
	keymap.SelectWorkspace1: 0, keymap.SelectWorkspace2: 1, keymap.SelectWorkspace3: 2,
	keymap.SelectWorkspace4: 3, keymap.SelectWorkspace5: 4, keymap.SelectWorkspace6: 5,
	keymap.SelectWorkspace7: 6, keymap.SelectWorkspace8: 7, keymap.SelectWorkspace9: 8,
}

// runActionLocked runs an app action on the UI goroutine. Model changes
// go to the worker; the window follows from their events.
func (s *shell) runActionLocked(a keymap.Action) {
	if a.Scope() == keymap.DiffView {
		if dv := shownPanelAs[*diffView](s); dv != nil {
			dv.action(a)
		}
		return
	}
	if p, ok := presetOf[a]; ok {
		index := s.activeIndexLocked()
		s.pos.zoom = 0
		s.work.mutate("layout", func() error { return s.b.ApplyPreset(index, p) })
		return
	}
	if d, ok := focusDir[a]; ok {
		s.moveFocusLocked(d)
		return
	}
	if i, ok := selectIndex[a]; ok {
		s.selectWorkspaceLocked(i)
		return
	}
	v := s.focusedViewLocked()
	switch a {
	case keymap.SplitHorizontally:
		s.splitLocked(workspace.Horizontal)
	case keymap.SplitVertically:
		s.splitLocked(workspace.Vertical)
	case keymap.ClosePane:
		if id := s.pos.focus; id != 0 {
			s.closePaneLocked(id)
		}
	case keymap.NewWorkspace:
		s.newWorkspaceLocked()
	case keymap.CloseWorkspace:
		s.closeWorkspaceLocked(s.activeIndexLocked())
	case keymap.NextWorkspace:
		if n := len(s.pos.snap.Workspaces); n > 0 {
			s.selectWorkspaceLocked((s.activeIndexLocked() + 1) % n)
		}
	case keymap.PrevWorkspace:
		if n := len(s.pos.snap.Workspaces); n > 0 {
			s.selectWorkspaceLocked((s.activeIndexLocked() + n - 1) % n)
		}
	case keymap.ToggleZoom:
		s.toggleZoomLocked()
	case keymap.ToggleSidebar:
		s.chrome.sidePanel.setCollapsed(!s.chrome.sidePanel.collapsed)
	case keymap.SplitEqualize:
		index := s.activeIndexLocked()
		s.work.mutate("equalize", func() error { return s.b.Equalize(index) })
	case keymap.JumpNextWaiting:
		s.jumpNextWaitingLocked()
	case keymap.RenamePane:
		if s.pos.focus != 0 {
			s.renameLocked(s.pos.focus)
		}
	case keymap.MoveWorkspaceLeft:
		i := s.activeIndexLocked()
		s.moveWorkspaceLocked(i, i-1)
	case keymap.MoveWorkspaceRight:
		i := s.activeIndexLocked()
		s.moveWorkspaceLocked(i, i+1)
	case keymap.RenameWorkspace:
		s.renameWorkspaceLocked(s.activeIndexLocked())
	case keymap.FontSizeIncrease:
		s.setFontSizeLocked(s.conf.look.size + 1)
	case keymap.FontSizeDecrease:
		s.setFontSizeLocked(s.conf.look.size - 1)
	case keymap.FontSizeReset:
		s.setFontSizeLocked(s.conf.cfg.FontSize)
	case keymap.Quit:
		s.quitRequestedLocked()
	case keymap.CommandPalette:
		togglePanelLocked(s, func(h shellHost) *palette {
			s.chrome.hideHint() // the hint's main advice is taken
			return newPalette(h, s.conf.keys)
		}, fyne.NewSize(560, 460))
	case keymap.OpenAgentsView:
		s.openOverviewLocked()
	case keymap.OpenComposer:
		s.openComposerLocked()
	case keymap.OpenDiffView:
		s.openDiffLocked()
	case keymap.ToggleBroadcastMember:
		s.toggleBroadcastLocked()
	case keymap.OpenLaunchPad:
		s.toggleLaunchPadLocked()
	case keymap.QuickLaunch:
		togglePanelLocked(s, func(h shellHost) *quickLaunch {
			dir := s.focusedCwdLocked()
			return newQuickLaunch(h, dir, s.chrome.side.shortPath(dir), s.views.launch.installed())
		}, fyne.NewSize(620, 380))
	case keymap.NewFromTemplate:
		togglePanelLocked(s, func(h shellHost) *templateView {
			return newTemplateView(h, s.focusedCwdLocked(), s.views.launch.installed())
		}, fyne.NewSize(620, 440))
	case keymap.OpenMCPInstall:
		togglePanelLocked(s, func(h shellHost) *mcpView { return newMCPView(h) }, fyne.NewSize(760, 420))
	case keymap.AddHost:
		s.addHostLocked()
	case keymap.RemoveHost:
		s.removeHostLocked("")
	case keymap.SearchAllPanes:
		togglePanelLocked(s, func(h shellHost) *searchView { return newSearchView(h) }, fyne.NewSize(900, 600))
	case keymap.OpenPaneHistory:
		// The focused pane's (none: nothing opens, an open one closes).
		if id := s.pos.focus; id != 0 || shownPanelAs[*timelineView](s) != nil {
			togglePanelLocked(s, func(h shellHost) *timelineView { return newTimelineView(h, id, s.pos.paneName(id, fmt.Sprint(id))) }, fyne.NewSize(900, 600))
		}
	case keymap.OpenWebAccess:
		togglePanelLocked(s, func(h shellHost) *webView { return newWebView(h) }, fyne.NewSize(780, 560))
	case keymap.OpenSettings:
		s.openSettingsLocked()
	case keymap.ShowShortcuts:
		s.openShortcutsLocked()
	case keymap.TerminalCopy:
		if v != nil {
			v.Copy()
		}
	case keymap.TerminalPaste:
		if v != nil {
			v.Paste()
		}
	case keymap.ScrollPageUp:
		if v != nil {
			v.ScrollPages(-1)
		}
	case keymap.ScrollPageDown:
		if v != nil {
			v.ScrollPages(1)
		}
	case keymap.ToggleSearch:
		if v != nil {
			v.Find()
		}
	case keymap.ReopenClosed:
		s.reopenLocked()
	case keymap.CopyMode:
		if v != nil {
			v.EnterCopyMode()
		}
	case keymap.ClearScrollHistory:
		if v != nil {
			v.ClearScrollback()
		}
	case keymap.ResetTerminal:
		if v != nil {
			v.ResetTerminal()
		}
	default:
		s.chrome.banner.show(fmt.Sprintf("%s is not available in this version", s.conf.keys.Label(a)))
	}
}

// paneMenu is the app's part of a pane's context menu: actions on the
// focused pane, which the right click that opens the menu focuses.
func (s *shell) paneMenu() []*fyne.MenuItem {
	item := func(label string, a keymap.Action) *fyne.MenuItem {
		return fyne.NewMenuItem(label, func() { s.guard(func() { s.runActionLocked(a) }) })
	}
	return []*fyne.MenuItem{
		item("Split Right", keymap.SplitVertically),
		item("Split Down", keymap.SplitHorizontally),
		item("Zoom", keymap.ToggleZoom),
		item("Rename…", keymap.RenamePane),
		fyne.NewMenuItemSeparator(),
		item("Close Pane", keymap.ClosePane),
	}
}

// activeIndexLocked is the index of the workspace shown.
func (s *shell) activeIndexLocked() int {
	if s.pos.snap == nil || !s.pos.snap.HasActive {
		return -1
	}
	return s.pos.snap.Active.Index
}

// selectWorkspaceLocked switches to the workspace at index.
// closeWorkspaceLocked closes the workspace at index, with the undo
// note.
func (s *shell) closeWorkspaceLocked(index int) {
	s.work.mutate("close workspace", func() error { return s.closedToast("Workspace", s.b.CloseWorkspace(index)) })
}

func (s *shell) selectWorkspaceLocked(index int) {
	if s.pos.snap == nil || index < 0 || index >= len(s.pos.snap.Workspaces) {
		return
	}
	s.work.mutate("select workspace", func() error { return s.b.SelectWorkspace(index) })
}

// splitLocked splits the focused pane in dir; the new pane starts in the
// focused pane's working directory.
func (s *shell) splitLocked(dir workspace.Direction) {
	if s.pos.zoom != 0 {
		s.chrome.banner.show(msgUnzoomFirst)
		return
	}
	target := s.pos.focus
	s.work.mutate("split", func() error {
		spec := workspace.PaneSpec{}
		if in, ok := s.b.SurfaceInfo(target); !ok {
			target = 0
		} else if in.Cwd != nil {
			if fi, err := os.Stat(*in.Cwd); hostSlot(target) != 0 || err == nil && fi.IsDir() {
				spec.Cwd = *in.Cwd // another host's directory is checked there
			}
		}
		id, err := s.b.Split(target, dir, spec)
		if err != nil {
			return err
		}
		return s.b.Focus(id)
	})
}

// toggleZoomLocked shows the focused pane alone, or the whole layout
// again.
func (s *shell) toggleZoomLocked() {
	if s.pos.zoom != 0 {
		s.pos.zoom = 0
	} else if s.pos.focus != 0 && s.pos.snap != nil && s.pos.snap.Tree != nil && s.pos.snap.Tree.Leaves() > 1 {
		s.pos.zoom = s.pos.focus
	}
	s.chrome.area.setTree(s.chrome.area.tree, s.chrome.area.views, s.pos.zoom, s.pos.focus)
	s.hideOffscreenLocked()
	s.focusViewLocked(s.pos.focus)
}

// moveFocusLocked focuses the pane next to the focused one in dir.
func (s *shell) moveFocusLocked(d direction) {
	if s.pos.snap == nil || s.pos.snap.Tree == nil || s.pos.zoom != 0 {
		return
	}
	t := tile(s.pos.snap.Tree, rect{W: 1000, H: 1000}, 0)
	if id, ok := neighbour(t.Panes, t.Order, s.pos.focus, d); ok {
		s.work.mutate("focus", func() error { return s.b.Focus(id) })
	}
}

// jumpNextWaitingLocked focuses the next pane (in sidebar order, across
// workspaces) whose agent waits for input.
func (s *shell) jumpNextWaitingLocked() {
	waiting := s.agents.waiting()
	if len(waiting) == 0 || s.pos.snap == nil {
		return
	}
	var order []uint64
	for _, id := range s.pos.snap.Order {
		if slices.Contains(waiting, id) {
			order = append(order, id)
		}
	}
	if len(order) == 0 {
		return
	}
	next := order[0]
	if i := slices.Index(order, s.pos.jumpCursor); i >= 0 {
		next = order[(i+1)%len(order)]
	}
	s.pos.jumpCursor = next
	s.work.mutate("focus", func() error { return s.b.Focus(next) })
}

// newWorkspaceLocked asks for a folder and opens a workspace there.
func (s *shell) newWorkspaceLocked() {
	dialog.ShowFolderOpen(func(dir fyne.ListableURI, err error) {
		if err != nil {
			s.guard(func() { s.chrome.banner.show("new workspace: " + err.Error()) })
			return
		}
		if dir == nil {
			return // cancelled
		}
		s.createWorkspace(dir.Path())
	}, s.w)
}

// createWorkspace opens a workspace in dir, titled after the folder.
func (s *shell) createWorkspace(dir string) {
	s.work.mutate("new workspace", func() error {
		err := s.b.CreateWorkspace(filepath.Base(dir), dir, true)
		return err
	})
}
