//go:build !windows

package app

import (
	"slices"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
)

// TestWorkspaceTabs: the tab strip shows each workspace's title with the
// active one highlighted, once there are two; a click selects a
// workspace, a middle click closes it (with the undo note), Ctrl+Shift+T
// brings it back, + asks for a folder for a new one.
func TestWorkspaceTabs(t *testing.T) {
	h := newHarness(t, nil)
	h.waitFor("one workspace: the strip hidden", func() bool {
		return len(h.s.chrome.tabs.shown) == 1 && h.s.chrome.tabs.shown[0].active && !h.s.chrome.tabs.root.Visible()
	})
	if _, err := h.c.Workspaces.CreateWorkspace("second", t.TempDir(), nil, true); err != nil {
		t.Fatal(err)
	}
	h.waitFor("two tabs shown, the second active", func() bool {
		s := h.s.chrome.tabs.shown
		return len(s) == 2 && s[1].title == "2  second" && s[1].active && !s[0].active &&
			h.s.chrome.tabs.root.Visible() && h.s.chrome.tabs.tabs[0].label.Text == "1  Terminal"
	})
	var first *tabItem
	h.s.guard(func() { first = h.s.chrome.tabs.tabs[0] })
	h.tap(first) // the tab's callbacks take the shell's lock
	h.waitFor("the first workspace active", func() bool {
		s := h.s.chrome.tabs.shown
		return len(s) == 2 && s[0].active && !s[1].active && h.s.activeIndexLocked() == 0
	})
	var second *tabItem
	h.s.guard(func() { second = h.s.chrome.tabs.tabs[1] })
	second.MouseDown(&desktop.MouseEvent{Button: desktop.MouseButtonTertiary})
	h.waitFor("one workspace left, the strip hidden, and the undo note", func() bool {
		return len(h.s.chrome.tabs.shown) == 1 && !h.s.chrome.tabs.root.Visible() && h.s.chrome.toast.visible() && h.s.chrome.toast.text.Text == "Workspace closed (Ctrl+Shift+T reopens it)"
	})
	h.s.guard(func() { h.key(fyne.KeyT, fyne.KeyModifierShortcutDefault|fyne.KeyModifierShift) })
	h.waitFor("the second tab back, active", func() bool {
		s := h.s.chrome.tabs.shown
		return len(s) == 2 && s[1].title == "2  second" && s[1].active
	})
	// + asks for the new workspace's folder, as Ctrl+Shift+N does.
	press(t, h, h.s.chrome.tabs.add)
	h.waitFor("the folder dialog", func() bool { return h.s.w.Canvas().Overlays().Top() != nil })
}

// TestWorkspaceTabsMoveRename: a tab dragged onto another moves its
// workspace there (the tab it would land on outlined meanwhile),
// Ctrl+Shift+PageUp and PageDown move the active one, and a double
// click on a tab asks for its title (Enter renames).
func TestWorkspaceTabsMoveRename(t *testing.T) { tabsMoveRename(t, newHarness(t, nil)) }

// TestAttachedWorkspaceTabsMoveRename: the same in a window attached to
// the server (workspace.move, workspace.rename, workspace_changed).
func TestAttachedWorkspaceTabsMoveRename(t *testing.T) {
	tabsMoveRename(t, newAttachedHarness(t, nil))
}

func tabsMoveRename(t *testing.T, h *harness) {
	for _, title := range []string{"b", "c"} {
		if _, err := h.c.Workspaces.CreateWorkspace(title, t.TempDir(), nil, false); err != nil {
			t.Fatal(err)
		}
	}
	titles := func(want ...string) func() bool { return tabTitles(h, want...) }
	h.waitFor("three tabs", titles("Terminal", "b", "c"))
	// Drag the first tab to the third: the third is outlined, then the
	// first workspace is last (and still the active one).
	var tabs []*tabItem
	h.s.guard(func() { tabs = slices.Clone(h.s.chrome.tabs.tabs) })
	var third fyne.Position
	h.s.guard(func() { third = tabs[2].Position().AddXY(tabs[2].Size().Width/2, 5) })
	h.s.guard(func() {
		tabs[0].Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: third.Subtract(tabs[0].Position())}})
		if !tabs[2].target || tabs[0].target || tabs[1].target {
			t.Fatalf("outlined: %v %v %v, want the third only", tabs[0].target, tabs[1].target, tabs[2].target)
		}
	})
	tabs[0].DragEnd() // the shell's lock is taken by the move
	h.waitFor("Terminal moved last", titles("b", "c", "Terminal"))
	h.s.guard(func() {
		if tabs[2].target {
			t.Fatal("the drop left the outline")
		}
		if !h.s.chrome.tabs.shown[2].active {
			t.Fatal("the moved workspace is no longer the active one")
		}
	})
	// The keyboard: the active one a place left, and right again.
	keys := func(k fyne.KeyName) {
		t.Helper()
		h.s.guard(func() {
			if !h.key(k, fyne.KeyModifierShortcutDefault|fyne.KeyModifierShift) {
				t.Fatalf("Ctrl+Shift+%s is not bound", k)
			}
		})
	}
	keys(fyne.KeyPageUp)
	h.waitFor("Terminal a place left", titles("b", "Terminal", "c"))
	keys(fyne.KeyPageDown)
	h.waitFor("Terminal last again", titles("b", "c", "Terminal"))
	// A double click on the first tab: the dialog, its field holding the
	// title; a new one and Enter renames the workspace.
	var first *tabItem
	h.s.guard(func() {
		first = h.s.chrome.tabs.tabs[0]
		h.s.chrome.tabs.now = func() time.Time { return time.Unix(100, 0) } // both clicks at one instant
	})
	h.tap(first)
	h.waitFor("b active", func() bool { return h.s.chrome.tabs.shown[0].active })
	h.tap(first)
	h.waitFor("the rename dialog", func() bool {
		e, ok := h.s.w.Canvas().Focused().(*keyEntry)
		return ok && e.Text == "b"
	})
	h.s.guard(func() { h.s.w.Canvas().Focused().(*keyEntry).SetText("api server") })
	pressKey(h, fyne.KeyReturn)
	h.waitFor("the tab renamed", titles("api server", "c", "Terminal"))
	if ws := h.c.Workspaces.Workspaces(); ws[0].Title != "api server" || ws[2].Title != "Terminal" {
		t.Fatalf("the model: %+v", ws)
	}
	// Two clicks further apart than a double click select twice.
	h.s.guard(func() {
		n := int64(200)
		h.s.chrome.tabs.now = func() time.Time { n += 10; return time.Unix(n, 0) }
	})
	h.tap(first)
	h.tap(first)
	h.s.guard(func() {
		if _, ok := h.s.w.Canvas().Focused().(*keyEntry); ok {
			t.Fatal("two slow clicks opened the rename dialog")
		}
	})
}
