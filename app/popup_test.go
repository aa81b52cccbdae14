//go:build !windows

package app

import (
	"bytes"
	"image"
	"runtime"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"

	"github.com/paneflow-go/paneflow/app/keymap"
)

// TestPopupDoesNotDim: the shell's overlays (here the command palette)
// leave the window around them as it was, with no dimming layer over it:
// software OpenGL would shade that layer over the whole window on every
// frame (showPopupLocked).
func TestPopupDoesNotDim(t *testing.T) {
	h := newHarness(t, nil)
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	h.s.guard(func() { h.s.w.Resize(fyne.NewSize(1000, 700)) })
	// The pane redraws for its new size on a posted frame.
	before := stillPicture(h)
	h.s.guard(func() {
		if !h.key(fyne.KeyP, ctrlShift) || shownPanelAs[*palette](h.s) == nil {
			t.Fatal("Ctrl+Shift+P did not open the palette")
		}
	})
	var after image.Image
	h.s.guard(func() { after = h.s.w.Canvas().Capture() })
	b := after.Bounds()
	if b != before.Bounds() || b.Dx() < 1000 || b.Dy() < 700 {
		t.Fatalf("captures of %v and %v, want 1000x700", before.Bounds(), b)
	}
	// The palette is 560x460 in the middle: the bands 60 px wide along
	// the bottom and the right edge are outside it.
	diff := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if x < b.Max.X-60 && y < b.Max.Y-60 {
				continue
			}
			r0, g0, b0, _ := before.At(x, y).RGBA()
			r1, g1, b1, _ := after.At(x, y).RGBA()
			if r0 != r1 || g0 != g1 || b0 != b1 {
				diff++
			}
		}
	}
	if diff != 0 {
		t.Errorf("%d pixels outside the palette changed when it opened (dimmed)", diff)
	}
	// The palette itself is drawn: the middle changed.
	if sameIn(before, after, image.Rect(300, 200, 700, 500)) {
		t.Error("the middle of the window did not change when the palette opened")
	}
}

// TestPopupKeepsNoFonts: opening and closing an overlay (the command
// palette, its texts drawn each time) does not grow the Go heap by the
// text faces Fyne parses for a theme override's scope and keeps for good
// (12.7 MB per opening when the overlay's content was under one).
func TestPopupKeepsNoFonts(t *testing.T) {
	h := newHarness(t, nil)
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	// Big enough for the palette (560×460), no bigger: each capture
	// paints the window in software, and at the test driver's 1280×800
	// under -race the twelve took 98-135 s, at 600×480 12 s.
	h.s.guard(func() { h.s.w.Resize(fyne.NewSize(600, 480)) })
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	cycle := func() {
		h.s.guard(func() {
			h.s.runActionLocked(keymap.CommandPalette)
			if shownPanelAs[*palette](h.s) == nil {
				t.Fatal("the palette did not open")
			}
			h.s.w.Canvas().Capture() // draws the palette's texts
			h.s.closeOverlayLocked()
			h.s.w.Canvas().Capture()
		})
	}
	cycle() // the first opening may fill caches kept for the app's life
	before := heap()
	const opens, perOpen = 5, 1 << 20
	for range opens {
		cycle()
	}
	if grew := int64(heap()) - int64(before); grew > opens*perOpen {
		t.Errorf("%d openings of the palette grew the Go heap by %d bytes, want at most %d each", opens, grew, perOpen)
	}
}

// sameIn reports whether a and b have the same pixels in r; captures
// (*image.NRGBA or *image.RGBA of the same layout) compare as bytes.
func sameIn(a, b image.Image, r image.Rectangle) bool {
	if pa, pb := pixBytes(a, r), pixBytes(b, r); pa != nil && pb != nil {
		for i := range pa {
			if !bytes.Equal(pa[i], pb[i]) {
				return false
			}
		}
		return true
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if a.At(x, y) != b.At(x, y) {
				return false
			}
		}
	}
	return true
}

// pixBytes is each row of r's pixel bytes in m, or nil when m is not an
// *image.NRGBA or *image.RGBA holding r.
func pixBytes(m image.Image, r image.Rectangle) [][]byte {
	var pix []byte
	var stride int
	switch m := m.(type) {
	case *image.NRGBA:
		if !r.In(m.Rect) {
			return nil
		}
		pix, stride = m.Pix[m.PixOffset(r.Min.X, r.Min.Y):], m.Stride
	case *image.RGBA:
		if !r.In(m.Rect) {
			return nil
		}
		pix, stride = m.Pix[m.PixOffset(r.Min.X, r.Min.Y):], m.Stride
	default:
		return nil
	}
	rows := make([][]byte, r.Dy())
	for y := range rows {
		rows[y] = pix[y*stride : y*stride+4*r.Dx()]
	}
	return rows
}

// TestPopupSplitDividerShown: a split inside one of the shell's overlays
// (the launch pad's list and plan) shows its divider along its whole
// length; under the popup's transparent-shadow theme only the divider's
// handle showed, a stray I-beam in the middle of the view.
func TestPopupSplitDividerShown(t *testing.T) {
	h := newHarness(t, nil)
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	h.s.guard(func() { h.s.w.Resize(fyne.NewSize(1000, 700)) })
	openPad(t, h)
	h.s.guard(func() {
		sp := findSplit(h.s.w.Canvas().Overlays().Top())
		if sp == nil {
			t.Fatal("no split in the launch pad")
		}
		pic := h.s.w.Canvas().Capture()
		d := fyne.CurrentApp().Driver()
		lead := d.AbsolutePositionForObject(sp.Leading).Add(fyne.NewPos(sp.Leading.Size().Width, 0))
		trail := d.AbsolutePositionForObject(sp.Trailing)
		// A point of the divider a quarter of the way down (the handle is
		// in the middle) against the view's background beside it.
		x := int((lead.X + trail.X) / 2)
		y := int(lead.Y + sp.Size().Height/4)
		if sameColour(pic.At(x, y), pic.At(int(trail.X)+30, y)) {
			t.Errorf("the divider at (%d, %d) has the view's background colour %v: only its handle shows", x, y, pic.At(x, y))
		}
	})
}

// findObject is the first object under o (o included) for which match
// holds, walking containers and widgets' renderers; nil when none does.
func findObject(o fyne.CanvasObject, match func(fyne.CanvasObject) bool) fyne.CanvasObject {
	if match(o) {
		return o
	}
	var kids []fyne.CanvasObject
	switch o := o.(type) {
	case *fyne.Container:
		kids = o.Objects
	case fyne.Widget:
		kids = test.WidgetRenderer(o).Objects()
	}
	for _, k := range kids {
		if f := findObject(k, match); f != nil {
			return f
		}
	}
	return nil
}

// findSplit is the first split under o; nil when there is none.
func findSplit(o fyne.CanvasObject) *container.Split {
	sp, _ := findObject(o, func(c fyne.CanvasObject) bool { _, ok := c.(*container.Split); return ok }).(*container.Split)
	return sp
}
