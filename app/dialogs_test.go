//go:build !windows

package app

import (
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// pressKey delivers key as the desktop driver does: to the widget with
// the keyboard, else to the window's canvas. Like the driver, it holds
// no lock of the shell's.
func pressKey(h *harness, key fyne.KeyName) {
	ev := &fyne.KeyEvent{Name: key}
	var f fyne.Focusable
	h.s.guard(func() { f = h.s.w.Canvas().Focused() })
	if f != nil {
		f.TypedKey(ev)
		return
	}
	h.s.w.Canvas().OnTypedKey()(ev)
}

// typeFocused types text into the widget with the keyboard, under the
// shell's lock for the reason typeInto gives.
func typeFocused(t *testing.T, h *harness, text string) {
	t.Helper()
	h.s.guard(func() {
		f := h.s.w.Canvas().Focused()
		if f == nil {
			t.Fatal("no field has the keyboard")
		}
		for _, r := range text {
			f.TypedRune(r)
		}
	})
}

// overlayOpen reports whether an overlay (dialog or view) is on the window.
func overlayOpen(h *harness) bool {
	open := false
	h.s.guard(func() { open = h.s.w.Canvas().Overlays().Top() != nil })
	return open
}

// TestRenameDialogKeys: the Rename dialog gives its field the keyboard,
// Enter renames, Escape cancels (it needed the mouse for all three).
func TestRenameDialogKeys(t *testing.T) {
	h := newHarness(t, nil)
	var id uint64
	h.waitFor("the first pane", func() bool { id = h.s.pos.focus; return id != 0 })
	h.s.guard(func() { h.s.renameLocked(id) })
	h.s.guard(func() {
		if e, ok := h.s.w.Canvas().Focused().(*keyEntry); !ok || e.Text != "" {
			t.Fatalf("focused %T, want the (empty) name field", h.s.w.Canvas().Focused())
		}
	})
	typeFocused(t, h, "build")
	pressKey(h, fyne.KeyReturn)
	if overlayOpen(h) {
		t.Fatal("Enter left the Rename dialog open")
	}
	h.waitFor("the pane renamed", func() bool {
		in, _ := h.s.b.SurfaceInfo(id)
		return in.CustomName == "build"
	})

	h.s.guard(func() { h.s.renameLocked(id) })
	typeFocused(t, h, "-not")
	pressKey(h, fyne.KeyEscape)
	if overlayOpen(h) {
		t.Fatal("Escape left the Rename dialog open")
	}
	// A rename would arrive on the worker: a later mutation's effect shows
	// that the worker has run what was queued before it.
	h.s.guard(func() { h.s.setGroupLocked(id, "") })
	if in, _ := h.s.b.SurfaceInfo(id); in.CustomName != "build" {
		t.Errorf("name after Escape = %q, want build", in.CustomName)
	}
}

// TestBroadcastDialogKeys: "Add to broadcast group" takes its name from
// the keyboard, Enter adds, Escape cancels.
func TestBroadcastDialogKeys(t *testing.T) {
	h := newHarness(t, nil)
	var id uint64
	h.waitFor("the first pane", func() bool { id = h.s.pos.focus; return id != 0 })
	h.s.guard(func() {
		if !h.key(fyne.KeyB, ctrlShift) {
			t.Fatal("Ctrl+Shift+B is not bound")
		}
	})
	pressKey(h, fyne.KeyEscape)
	if overlayOpen(h) {
		t.Fatal("Escape left the broadcast dialog open")
	}
	h.s.guard(func() {
		if _, ok := h.s.panes.groups[id]; ok {
			t.Fatal("Escape added the pane to a group")
		}
		h.key(fyne.KeyB, ctrlShift)
	})
	typeFocused(t, h, "api")
	pressKey(h, fyne.KeyEnter)
	h.s.guard(func() {
		if g := h.s.panes.groups[id]; g != "api" {
			t.Errorf("group after Enter = %q, want api", g)
		}
	})
	if overlayOpen(h) {
		t.Error("Enter left the broadcast dialog open")
	}
}

// TestQuitConfirmKeys: the quit confirmation (a program runs) is
// cancelled by Escape and confirmed by Enter.
func TestQuitConfirmKeys(t *testing.T) {
	h := newHarness(t, nil)
	var id uint64
	h.waitFor("the first pane", func() bool { id = h.s.pos.focus; return id != 0 })
	h.busy(id)
	h.s.guard(h.s.closeRequestedLocked)
	if !overlayOpen(h) {
		t.Fatal("no confirmation shown")
	}
	pressKey(h, fyne.KeyEscape)
	if overlayOpen(h) {
		t.Fatal("Escape left the quit confirmation open")
	}
	h.s.guard(h.s.closeRequestedLocked)
	pressKey(h, fyne.KeyReturn)
	select {
	case <-h.s.life.quitCh:
	default:
		t.Fatal("Enter on the quit confirmation did not quit")
	}
}

// TestLaunchPadEscapeAfterClick: Escape closes the launch pad after a
// click took the keyboard from its filter field, whether the click gave
// it to the list of specs or to nothing.
func TestLaunchPadEscapeAfterClick(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	h := newHarness(t, nil)
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	writeFile(t, filepath.Join(libraryDir(t), "demo.workspace.toml"), "[[panes]]\ncommand = \"sh\"\n")
	for _, click := range []string{"a spec's row", "the title"} {
		lp := openPad(t, h)
		var at fyne.Position
		h.s.guard(func() {
			c := h.s.w.Canvas()
			c.Capture() // lays the rows out
			var o fyne.CanvasObject = lp.title
			if click == "a spec's row" {
				o = lp.items[0]
			}
			if o == nil {
				t.Fatalf("%s is not shown", click)
			}
			at = fyne.CurrentApp().Driver().AbsolutePositionForObject(o).Add(fyne.NewPos(5, 5))
		})
		// The click runs under the shell's lock, for the reason typeInto
		// gives; the list's OnSelected, which takes the lock, right after.
		var selected func(widget.ListItemID)
		tapped := -1
		h.s.guard(func() {
			selected, lp.rows.OnSelected = lp.rows.OnSelected, func(id widget.ListItemID) { tapped = id }
			test.TapCanvas(h.s.w.Canvas(), at)
			lp.rows.OnSelected = selected
			if h.s.w.Canvas().Focused() == lp.query {
				t.Fatalf("after a click on %s the filter field still has the keyboard", click)
			}
		})
		if tapped >= 0 {
			selected(tapped)
		}
		pressKey(h, fyne.KeyEscape)
		h.s.guard(func() {
			if shownPanelAs[*launchPad](h.s) != nil {
				t.Errorf("Escape after a click on %s left the launch pad open", click)
				closeShownPanelLocked[*launchPad](h.s)
			}
		})
	}
}
