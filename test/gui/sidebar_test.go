//go:build linux

package gui

import (
	"fmt"
	"image"
	"image/color"
	"regexp"
	"strconv"
	"testing"
)

// sizeRe matches the pane's answer to `echo size-$(stty size | tr ' ' x)`.
var sizeRe = regexp.MustCompile(`(?m)^size-(\d+)x(\d+)\s*$`)

// ptyCols asks pane id's shell for its terminal's width (stty size) and
// returns it: the answer after the n it had given before.
func (a *app) ptyCols(id string, n int) int {
	a.t.Helper()
	a.mustCLI(nil, "send", id, `echo size-$(stty size | tr ' ' x)`, "--submit")
	var cols int
	a.eventually(fmt.Sprintf("pane %s's answer %d to stty size", id, n+1), func() (bool, string) {
		raw := a.readRaw(id)
		m := sizeRe.FindAllStringSubmatch(raw, -1)
		if len(m) <= n {
			return false, raw
		}
		cols, _ = strconv.Atoi(m[n][2])
		return true, ""
	})
	return cols
}

// TestSidebarResizeAndCollapse drags the sidebar's right edge with the
// pointer and collapses the sidebar with its keystroke: the pane's left
// edge follows on screen and the shell in it sees its terminal narrower,
// then wider.
func TestSidebarResizeAndCollapse(t *testing.T) {
	x := display(t)
	a := startApp(t, x)
	l := a.ls()
	if len(l.Surfaces) != 1 {
		t.Fatalf("ls at start: %+v, want one pane", l)
	}
	id := strconv.FormatUint(l.Surfaces[0].ID, 10)
	a.waitOutput(id, promptRe)
	g := a.geometry()
	start := a.stable("start", image.Rect(0, 0, g.W, g.H))
	bg := terminalBg(start)
	mid := start.Bounds().Dy() * 3 / 4
	paneStart := func(img image.Image) (int, string) {
		rs := longRuns(rowRuns(img, mid, 0, img.Bounds().Dx(), bg, 6), 60)
		if len(rs) != 1 {
			return -1, fmt.Sprintf("row %d: pane runs %v, want one", mid, rs)
		}
		return rs[0].start, ""
	}
	x0, why := paneStart(start)
	if x0 < sidebarPx || x0 > sidebarPx+20 {
		t.Fatalf("the pane starts at x = %d (%s), want right of the %d px sidebar", x0, why, sidebarPx)
	}
	cols0 := a.ptyCols(id, 0)

	// The grip is the separator-coloured stretch left of the padding
	// between the sidebar and the pane.
	at := func(x int) color.Color { return start.At(x, mid) }
	same := func(c, d color.Color) bool {
		r1, g1, b1, _ := c.RGBA()
		r2, g2, b2, _ := d.RGBA()
		return r1 == r2 && g1 == g2 && b1 == b2
	}
	gripEnd := x0 - 1
	for gripEnd > 0 && same(at(gripEnd), at(x0-1)) {
		gripEnd--
	}
	gripStart := gripEnd
	for gripStart > 0 && same(at(gripStart-1), at(gripEnd)) {
		gripStart--
	}
	if w := gripEnd - gripStart + 1; w < 3 || w > 10 {
		t.Fatalf("the grip left of the pane is %d px wide (x %d to %d), want about 5", w, gripStart, gripEnd)
	}
	const moveBy = 200
	sx, sy := g.X+(gripStart+gripEnd)/2, g.Y+mid
	t.Logf("window %+v, pane from x = %d, pressing at %d,%d", g, x0, sx, sy)
	a.xdo("mousemove", "--sync", strconv.Itoa(sx), strconv.Itoa(sy), "sleep", "0.2", "mousedown", "1", "sleep", "0.2",
		"mousemove", "--sync", strconv.Itoa(sx+20), strconv.Itoa(sy), "sleep", "0.1",
		"mousemove", "--sync", strconv.Itoa(sx+100), strconv.Itoa(sy), "sleep", "0.1",
		"mousemove", "--sync", strconv.Itoa(sx+moveBy), strconv.Itoa(sy), "sleep", "0.2", "mouseup", "1")
	a.eventually("the pane's edge to follow the drag", func() (bool, string) {
		x1, why := paneStart(a.screenshot("dragged"))
		return absInt(x1-(x0+moveBy)) <= 4, fmt.Sprintf("pane starts at %d (%s), want %d", x1, why, x0+moveBy)
	})
	if cols := a.ptyCols(id, 1); cols >= cols0 {
		t.Errorf("stty size after widening the sidebar by %d px: %d columns, want fewer than %d", moveBy, cols, cols0)
	}

	a.xdo("windowfocus", "--sync", a.win)
	a.xdo("key", "ctrl+shift+backslash")
	a.eventually("the sidebar collapsed to its strip", func() (bool, string) {
		x2, why := paneStart(a.screenshot("collapsed"))
		return x2 >= 0 && x2 < 60, fmt.Sprintf("pane starts at %d (%s), want left of 60", x2, why)
	})
	if cols := a.ptyCols(id, 2); cols <= cols0 {
		t.Errorf("stty size with the sidebar collapsed: %d columns, want more than %d", cols, cols0)
	}
	a.xdo("key", "ctrl+shift+backslash")
	a.eventually("the sidebar back at its dragged width", func() (bool, string) {
		x3, why := paneStart(a.screenshot("expanded"))
		return absInt(x3-(x0+moveBy)) <= 4, fmt.Sprintf("pane starts at %d (%s), want %d", x3, why, x0+moveBy)
	})
}
