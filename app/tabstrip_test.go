//go:build !windows

package app

import (
	"testing"

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
		return len(h.s.tabs.shown) == 1 && h.s.tabs.shown[0].active && !h.s.tabs.root.Visible()
	})
	if _, err := h.c.Workspaces.CreateWorkspace("second", t.TempDir(), nil, true); err != nil {
		t.Fatal(err)
	}
	h.waitFor("two tabs shown, the second active", func() bool {
		s := h.s.tabs.shown
		return len(s) == 2 && s[1].title == "2  second" && s[1].active && !s[0].active &&
			h.s.tabs.root.Visible() && h.s.tabs.tabs[0].label.Text == "1  Terminal"
	})
	var first *tabItem
	h.s.guard(func() { first = h.s.tabs.tabs[0] })
	h.tap(first) // the tab's callbacks take the shell's lock
	h.waitFor("the first workspace active", func() bool {
		s := h.s.tabs.shown
		return len(s) == 2 && s[0].active && !s[1].active && h.s.activeIndexLocked() == 0
	})
	var second *tabItem
	h.s.guard(func() { second = h.s.tabs.tabs[1] })
	second.MouseDown(&desktop.MouseEvent{Button: desktop.MouseButtonTertiary})
	h.waitFor("one workspace left, the strip hidden, and the undo note", func() bool {
		return len(h.s.tabs.shown) == 1 && !h.s.tabs.root.Visible() && h.s.toast.visible() && h.s.toast.text.Text == "Workspace closed (Ctrl+Shift+T reopens it)"
	})
	h.s.guard(func() { h.key(fyne.KeyT, fyne.KeyModifierShortcutDefault|fyne.KeyModifierShift) })
	h.waitFor("the second tab back, active", func() bool {
		s := h.s.tabs.shown
		return len(s) == 2 && s[1].title == "2  second" && s[1].active
	})
	// + asks for the new workspace's folder, as Ctrl+Shift+N does.
	press(t, h, h.s.tabs.add)
	h.waitFor("the folder dialog", func() bool { return h.s.w.Canvas().Overlays().Top() != nil })
}
