//go:build linux

package gui

import (
	"image"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestPartialPaint checks the echo painted alone (issue 28: PaintRegion in
// cmd/paneflow, under Xvfb's software OpenGL): keys typed one by one are
// painted as partial frames (the app's echo-probe lines say region=1), and
// what they leave on screen is what a whole paint of the window shows: a
// rename changes the sidebar, which repaints the whole window, and the
// pane's pixels must not change. A partial frame painted at the wrong place
// or missing an object over the rows (the focus ring) leaves a difference.
func TestPartialPaint(t *testing.T) {
	x := display(t)
	a := startEmbedded(t, x, "PANEFLOW_RENDER_PROBE=1")
	id := strconv.FormatUint(a.ls().Surfaces[0].ID, 10)
	a.waitOutput(id, promptRe)
	from := a.log.count()
	const text = "echo painted-alone 0123456789"
	a.xdo("windowfocus", "--sync", a.win)
	a.xdo("type", "--delay", "60", text)
	a.eventually("the pane to echo the typed text", func() (bool, string) {
		raw := a.readRaw(id)
		return strings.Contains(raw, text), raw
	})
	g := a.geometry()
	pane := image.Rect(sidebarPx+12, 0, g.W, g.H)
	partial := a.stable("typed", pane)

	lines, _ := a.log.snapshot(from)
	region := regexp.MustCompile(`^echo-probe .* region=1$`)
	alone := 0
	for _, l := range lines {
		if region.MatchString(l.text) {
			alone++
		}
	}
	if alone == 0 {
		t.Fatalf("no echo of the %d keys was painted alone (no echo-probe line with region=1); log:\n%s", len(text), a.log.String())
	}
	t.Logf("%d of %d keys' echoes painted alone", alone, len(text))

	a.mustCLI(nil, "rename", id, "repainted")
	side := image.Rect(0, 0, sidebarPx, g.H)
	a.eventually("the sidebar to show the rename (a whole paint)", func() (bool, string) {
		n := changed(partial, a.screenshot("renamed"), side, 0)
		return n > 0, strconv.Itoa(n) + " sidebar pixels changed"
	})
	whole := a.stable("renamed", pane)
	if n := changed(partial, whole, pane, 0); n != 0 {
		t.Errorf("%d pixels of the pane %v differ between the keys' partial frames and the whole paint after them (artifacts: typed, renamed)", n, pane)
	}
}
