//go:build !windows

package app

import (
	"slices"
	"strconv"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// TestWorkspaceTabMenu (issue 29): a right click on a tab opens its menu
// (Rename…, Move left, Move right, Close, New workspace…; a move off the
// end disabled), worked with the keyboard as a user may: each item does
// what its key does, to the right-clicked workspace, and a dismissed menu
// gives the keyboard back to the pane.
func TestWorkspaceTabMenu(t *testing.T) {
	h := newHarness(t, nil)
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	for _, title := range []string{"b", "c"} {
		if _, err := h.c.Workspaces.CreateWorkspace(title, t.TempDir(), nil, false); err != nil {
			t.Fatal(err)
		}
	}
	titles := func(want ...string) func() bool { return tabTitles(h, want...) }
	h.waitFor("three tabs", titles("Terminal", "b", "c"))
	// open right-clicks tab i and returns its menu, checking its items.
	open := func(i int, wantOff ...string) *widget.PopUpMenu {
		t.Helper()
		var tab *tabItem
		var before *widget.PopUpMenu
		h.s.guard(func() { tab, before = h.s.chrome.tabs.tabs[i], h.s.chrome.tabs.menu })
		tab.TappedSecondary(&fyne.PointEvent{AbsolutePosition: fyne.NewPos(40, 40)}) // as the driver: without the lock
		var m *widget.PopUpMenu
		h.waitFor("the tab's menu", func() bool { m = h.s.chrome.tabs.menu; return m != nil && m != before && m.Visible() })
		h.s.guard(func() {
			if f := h.s.w.Canvas().Focused(); f != m {
				t.Errorf("%T has the keyboard, want the menu", f)
			}
		})
		var got, off []string
		var items []*fyne.MenuItem
		h.s.guard(func() { items = h.s.chrome.tabs.menuItems })
		for _, it := range items {
			got = append(got, it.Label)
			if it.Disabled {
				off = append(off, it.Label)
			}
		}
		if want := []string{"Rename…", "Move left", "Move right", "", "Close", "", "New workspace…"}; !slices.Equal(got, want) {
			t.Errorf("menu items %q, want %q", got, want)
		}
		if !slices.Equal(off, wantOff) {
			t.Errorf("tab %d: disabled %q, want %q", i, off, wantOff)
		}
		return m
	}
	// choose moves the menu's highlight down n items and presses Enter.
	choose := func(n int) {
		t.Helper()
		for range n {
			pressKey(h, fyne.KeyDown)
		}
		pressKey(h, fyne.KeyReturn)
	}

	open(1)
	choose(2) // Rename…, Move left
	h.waitFor("b moved left", titles("b", "Terminal", "c"))
	h.s.guard(func() {
		if v := h.s.focusedViewLocked(); v == nil || h.s.w.Canvas().Focused() != v {
			t.Errorf("after the menu, %T has the keyboard, want the focused pane", h.s.w.Canvas().Focused())
		}
	})

	open(0, "Move left")
	choose(3) // Rename…, Move left (disabled), Move right
	h.waitFor("b moved right", titles("Terminal", "b", "c"))

	m := open(2, "Move right")
	pressKey(h, fyne.KeyEscape)
	h.waitFor("the menu dismissed", func() bool { return !m.Visible() })
	h.s.guard(func() {
		if v := h.s.focusedViewLocked(); v == nil || h.s.w.Canvas().Focused() != v {
			t.Errorf("after Escape, %T has the keyboard, want the focused pane", h.s.w.Canvas().Focused())
		}
	})

	open(2, "Move right")
	choose(1) // Rename…
	h.waitFor("the rename dialog", func() bool {
		e, ok := h.s.w.Canvas().Focused().(*keyEntry)
		return ok && e.Text == "c"
	})
	h.s.guard(func() { h.s.w.Canvas().Focused().(*keyEntry).SetText("docs") })
	pressKey(h, fyne.KeyReturn)
	h.waitFor("c renamed", titles("Terminal", "b", "docs"))

	// The workspace moves after its menu opened (another client, say):
	// the item still acts on it, not on the tab now at its old place.
	open(1)
	if err := h.c.Workspaces.MoveWorkspace(1, 0); err != nil {
		t.Fatal(err)
	}
	h.waitFor("b moved first by the model", titles("b", "Terminal", "docs"))
	choose(4) // Rename…, Move left, Move right, Close
	h.waitFor("b closed", titles("Terminal", "docs"))
	if ws := h.c.Workspaces.Workspaces(); len(ws) != 2 || ws[1].Title != "docs" {
		t.Fatalf("the model after Close: %+v", ws)
	}

	open(0, "Move left")
	choose(5) // … Close, New workspace…
	h.waitFor("the new workspace's folder dialog, as + asks", func() bool {
		return h.s.w.Canvas().Overlays().Top() != nil && h.s.w.Canvas().Overlays().Top() != h.s.chrome.tabs.menu
	})
}

// tabTitles is a condition for waitFor: the tabs show want's titles, in
// order, numbered.
func tabTitles(h *harness, want ...string) func() bool {
	return func() bool {
		s := h.s.chrome.tabs.shown
		if len(s) != len(want) {
			return false
		}
		for i, w := range want {
			if s[i].title != strconv.Itoa(i+1)+"  "+w {
				return false
			}
		}
		return true
	}
}
