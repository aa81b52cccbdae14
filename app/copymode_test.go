//go:build !windows

package app

import (
	"testing"

	"fyne.io/fyne/v2"

	"github.com/paneflow-go/paneflow/app/termview"
)

// TestCopyModeAction: Ctrl+Shift+Y (copy_mode) starts the focused pane's
// copy mode in an attached window, and q leaves it.
func TestCopyModeAction(t *testing.T) {
	h := newAttachedHarness(t, nil)
	var id uint64
	h.waitFor("a view", func() bool { id = h.s.pos.focus; return id != 0 && h.s.panes.views[id] != nil })
	var handled bool
	h.s.guard(func() { handled = h.key(fyne.KeyY, fyne.KeyModifierShortcutDefault|fyne.KeyModifierShift) })
	if !handled {
		t.Fatal("ctrl+shift+y was not taken as an app shortcut")
	}
	var v *termview.View
	h.s.guard(func() { v = h.s.panes.views[id] })
	if !v.CopyMode() {
		t.Fatal("the focused pane is not in copy mode")
	}
	v.TypedRune('q')
	if v.CopyMode() {
		t.Error("q did not leave copy mode")
	}
}
