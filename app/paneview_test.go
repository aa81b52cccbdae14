//go:build !windows

package app

import (
	"image"
	"image/color"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// blockPane prints a full block in the first cell of the shown pane's
// screen and waits until the window shows it, unchanging. It returns the
// window's picture, the pane view's rectangle in it and the pane's
// background colour.
func blockPane(t *testing.T, h *harness) (id uint64, pic image.Image, r image.Rectangle, bg color.Color) {
	t.Helper()
	h.waitFor("the first pane", func() bool { id = h.s.pos.focus; return id != 0 && h.s.panes.views[id] != nil })
	h.s.guard(func() { h.s.w.Resize(fyne.NewSize(900, 600)) })
	h.call("surface.send_text", map[string]any{"surface_id": id, "text": "printf '\\033[H\\033[2J\\342\\226\\210\\n'; sleep 60\n"}, nil)
	h.waitFor("the block on the screen", func() bool { return strings.Contains(h.screen(id), "█") })
	pic = stillPicture(h)
	h.s.guard(func() {
		v := h.s.panes.views[id]
		p := fyne.CurrentApp().Driver().AbsolutePositionForObject(v)
		r = image.Rect(int(p.X), int(p.Y), int(p.X+v.Size().Width), int(p.Y+v.Size().Height))
		bg = h.s.conf.look.palette.Background
	})
	return id, pic, r, bg
}

// stillPicture waits until two captures of the window in a row agree (the
// pane draws on posted frames) and returns the last. Only the capture
// holds the shell's UI lock: the comparison runs outside it and compares
// pixel bytes, so the test's own work neither holds up the frames and
// snapshots the window still has to apply nor spends the deadline (under
// -race at load 20 a capture took 1.1-1.6 s and the At-by-At comparison
// another 0.3-0.7 s, all under the lock, with one or two captures in a
// row differing for a frame or a sidebar tick the lock had held back).
func stillPicture(h *harness) image.Image {
	h.t.Helper()
	deadline := time.Now().Add(testDeadline)
	var before image.Image
	for {
		var pic image.Image
		h.s.guard(func() { pic = h.s.w.Canvas().Capture() })
		if before != nil && before.Bounds() == pic.Bounds() && sameIn(before, pic, pic.Bounds()) {
			return pic
		}
		if time.Now().After(deadline) {
			h.t.Fatal("timed out waiting for a still window")
		}
		before = pic
		time.Sleep(10 * time.Millisecond)
	}
}

func sameColour(a, b color.Color) bool {
	r0, g0, b0, _ := a.RGBA()
	r1, g1, b1, _ := b.RGBA()
	return r0 == r1 && g0 == g1 && b0 == b1
}

// TestPaneTextInset: a pane's text keeps a gap from the pane's edges (it
// touched them): the first cell's full block starts a few pixels in.
func TestPaneTextInset(t *testing.T) {
	h := newHarness(t, nil)
	_, pic, r, bg := blockPane(t, h)
	corner := r.Min.Add(image.Pt(3, 3))
	if got := pic.At(corner.X, corner.Y); !sameColour(got, bg) {
		t.Errorf("pixel %v, 3 px inside the pane's corner, is %v: text reaches the edge (want the background %v)", corner, got, bg)
	}
	drawn := false
	for y := r.Min.Y; y < r.Min.Y+24; y++ {
		for x := r.Min.X; x < r.Min.X+24; x++ {
			if !sameColour(pic.At(x, y), bg) {
				drawn = true
			}
		}
	}
	if !drawn {
		t.Error("the block is not drawn near the pane's corner")
	}
}

// TestBroadcastStripeSparesText: the broadcast group's stripe along the
// pane's left edge covers no text ("?? new_file.py" showed as
// "? new_file.py"): the pixels it changes were background.
func TestBroadcastStripeSparesText(t *testing.T) {
	h := newHarness(t, nil)
	id, before, r, bg := blockPane(t, h)
	h.s.guard(func() { h.s.setGroupLocked(id, "api") })
	after := stillPicture(h)
	covered, striped := 0, 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Min.X+20; x++ {
			if sameColour(before.At(x, y), after.At(x, y)) {
				continue
			}
			striped++
			if !sameColour(before.At(x, y), bg) {
				covered++
			}
		}
	}
	if striped == 0 {
		t.Fatal("no stripe drawn at the pane's left edge")
	}
	if covered > 0 {
		t.Errorf("the stripe covers %d pixels of text", covered)
	}
}

// TestSidebarShowsGroup: a pane's broadcast group is named on its sidebar
// row (it showed nowhere but the stripe), and goes when the pane leaves it.
func TestSidebarShowsGroup(t *testing.T) {
	h := newHarness(t, nil)
	var id uint64
	h.waitFor("the first pane", func() bool { id = h.s.pos.focus; return id != 0 && h.s.pos.snap != nil })
	shows := func() bool {
		for _, tx := range sidebarTexts(h.s.chrome.side.list) {
			if strings.Contains(tx.Text, "api") {
				return true
			}
		}
		return false
	}
	h.s.guard(func() {
		h.s.setGroupLocked(id, "api")
		if !shows() {
			t.Error("the sidebar does not name the pane's group")
		}
		h.s.setGroupLocked(id, "")
		if shows() {
			t.Error("the sidebar still names the group the pane left")
		}
	})
}

// TestPortChipLooksLikeAButton: a sidebar port chip is drawn on a
// background of its own, not as bare text until hovered.
func TestPortChipLooksLikeAButton(t *testing.T) {
	test.NewTempApp(t)
	sb := newSidebar(func(int) {}, func(uint64) {}, func() {}, func() {}, "")
	sb.onPort = func(uint64, string) {}
	row := sb.paneRow(paneRow{ID: 1, Name: "dev", Ports: "3000"})
	w := test.NewTempWindow(t, row)
	w.Resize(fyne.NewSize(sidebarWidth, row.MinSize().Height))
	chip, _ := findObject(row, func(o fyne.CanvasObject) bool { _, ok := o.(*widget.Button); return ok }).(*widget.Button)
	if chip == nil {
		t.Fatal("no port chip")
	}
	pic := w.Canvas().Capture()
	p := fyne.CurrentApp().Driver().AbsolutePositionForObject(chip)
	// Just inside the chip's left edge, at mid height (no text there),
	// against the row just left of the chip.
	y := int(p.Y + chip.Size().Height/2)
	if in, out := pic.At(int(p.X)+3, y), pic.At(int(p.X)-2, y); sameColour(in, out) {
		t.Errorf("the chip's edge has the row's background %v: it looks like text", out)
	}
}

// TestSidebarShowsBranch: a pane in a git worktree shows its branch on its
// sidebar row (it showed only the path).
func TestSidebarShowsBranch(t *testing.T) {
	wt := gitRepo(t)
	h := newHarness(t, nil)
	var id uint64
	h.waitFor("the first pane", func() bool { id = h.s.pos.focus; return id != 0 })
	h.call("surface.send_text", map[string]any{"surface_id": id, "text": "cd " + wt + "\n"}, nil)
	h.waitFor("the branch on the pane's row", func() bool {
		for _, tx := range sidebarTexts(h.s.chrome.side.list) {
			if strings.Contains(tx.Text, "⎇ feat (worktree)") {
				return true
			}
		}
		return false
	})
}
