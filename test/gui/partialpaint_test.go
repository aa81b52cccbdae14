//go:build linux

package gui

import (
	"fmt"
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
	a.typeEchoed(id, text)
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

	a.wholePaintKeeps(id, pane, partial, "typed")
}

// typeEchoed types text into the window's focused pane, target, key by
// key as a typist would, and waits until the pane shows it.
func (a *app) typeEchoed(target, text string) {
	a.t.Helper()
	a.xdo("windowfocus", "--sync", a.win)
	a.xdo("type", "--delay", "60", text)
	a.eventually("the pane to echo the typed text", func() (bool, string) {
		raw := a.readRaw(target)
		return strings.Contains(raw, text), raw
	})
}

// wholePaintKeeps has the window painted whole (renaming pane target
// changes the sidebar) and fails unless the pixels of area are those of
// partial, the screenshot named shot taken after partial frames.
func (a *app) wholePaintKeeps(target string, area image.Rectangle, partial image.Image, shot string) {
	a.t.Helper()
	a.mustCLI(nil, "rename", target, "repainted")
	side := image.Rect(0, 0, sidebarPx, area.Max.Y)
	a.eventually("the sidebar to show the rename (a whole paint)", func() (bool, string) {
		n := changed(partial, a.screenshot("renamed"), side, 0)
		return n > 0, strconv.Itoa(n) + " sidebar pixels changed"
	})
	whole := a.stable("renamed", area)
	if n := changed(partial, whole, area, 0); n != 0 {
		a.t.Errorf("%d pixels of %v differ between the partial frames and the whole paint after them (artifacts: %s, renamed)", n, area, shot)
	}
}

// TestPartialPaintFlood checks a flooding pane painted alone (issue 28: a
// frame of output that follows no key goes to PaintRegion too, so a key's
// echo in another pane does not wait behind paints of the whole window):
// the flooding pane's frames are painted alone (its render-probe lines say
// alone=N), keys typed into its neighbour meanwhile are echoed, and once
// both are still, a whole paint of the window (the sidebar's rename)
// changes no pixel of the split area: a stale strip of either pane, a
// cursor or a divider left behind by a partial frame would differ.
func TestPartialPaintFlood(t *testing.T) {
	x := display(t)
	a := startEmbedded(t, x, "PANEFLOW_RENDER_PROBE=1")
	first := strconv.FormatUint(a.ls().Surfaces[0].ID, 10)
	a.waitOutput(first, promptRe)
	second := a.splitShell(first)
	a.mustCLI(nil, "focus", first)
	from := a.log.count()

	// Coloured lines, so that a stale or misplaced strip shows.
	a.mustCLI(nil, "send", second,
		`for i in $(seq 1 60000); do printf '\033[3%dm%05d flooding the pane\033[0m\n' $((i%7+1)) $i; done; echo flood-over`, "--submit")
	const text = "typed-beside"
	a.typeEchoed(first, text)
	a.eventually("the flood to end", func() (bool, string) {
		raw := a.readRaw(second)
		return strings.Contains(raw, "\nflood-over"), raw
	})
	g := a.geometry()
	split := image.Rect(sidebarPx+12, 0, g.W, g.H)
	partial := a.stable("flooded", split)

	lines, _ := a.log.snapshot(from)
	probe := regexp.MustCompile(`^render-probe pane=` + second + ` .* frames=(\d+) .* alone=(\d+)$`)
	frames, alone := 0, 0
	for _, l := range lines {
		if m := probe.FindStringSubmatch(l.text); m != nil {
			f, _ := strconv.Atoi(m[1])
			n, _ := strconv.Atoi(m[2])
			frames, alone = frames+f, alone+n
		}
	}
	if alone == 0 {
		t.Fatalf("no frame of the flooding pane %s was painted alone (no render-probe line with alone>0); log:\n%s", second, a.log.String())
	}
	t.Logf("%d of %d frames of the flooding pane painted alone", alone, frames)

	a.wholePaintKeeps(first, split, partial, "flooded")

	// A whole paint draws the textures the partial frames uploaded into;
	// scrolling the flooded pane back and forth with the wheel has Fyne
	// upload its whole image again: the rows the partial frames uploaded
	// must have been all that changed.
	mid := fmt.Sprint(g.X + (split.Min.X+3*split.Max.X)/4)
	a.xdo("mousemove", "--sync", mid, fmt.Sprint(g.Y+g.H/2), "sleep", "0.1", "click", "--repeat", "2", "--delay", "50", "4")
	a.eventually("the flooded pane to scroll back", func() (bool, string) {
		n := changed(partial, a.screenshot("scrolled-up"), split, 0)
		return n > 0, fmt.Sprintf("%d pixels of %v changed", n, split)
	})
	a.xdo("click", "--repeat", "10", "--delay", "50", "5")
	a.eventually("the flooded pane, scrolled to the bottom again, as its partial frames left it", func() (bool, string) {
		n := changed(partial, a.screenshot("scrolled-down"), split, 0)
		return n == 0, fmt.Sprintf("%d pixels of %v differ from the partial frames' (artifacts: flooded, scrolled-down)", n, split)
	})
}
