//go:build linux

package gui

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// probed waits for the app's "ui-probe <what> x=… y=…" line (the app
// writes them with PANEFLOW_UI_PROBE=1) from log line from on, and
// returns the point in window pixels and the number of log lines so far
// (where to look for the next one: the app writes them only after the
// clicks that follow).
func (a *app) probed(what string, from int) (x, y, next int) {
	a.t.Helper()
	re := regexp.MustCompile(`^ui-probe ` + regexp.QuoteMeta(what) + ` x=(\d+) y=(\d+)$`)
	l, err := a.waitLine(re, from, pollTimeout)
	if err != nil {
		a.t.Fatalf("the app did not say where %s is: %v", what, err)
	}
	m := re.FindStringSubmatch(l.text)
	x, _ = strconv.Atoi(m[1])
	y, _ = strconv.Atoi(m[2])
	return x, y, a.log.count()
}

// TestLaunchPad launches a workspace spec from the launch pad with the
// mouse: the sidebar's Launch pad button, the spec's row (its plan shows),
// then Launch; the two panes appear over the socket and on screen.
func TestLaunchPad(t *testing.T) {
	x := display(t)
	a := startApp(t, x, "PANEFLOW_UI_PROBE=1")
	first := a.ls().Surfaces[0].ID
	a.waitOutput(strconv.FormatUint(first, 10), promptRe)
	lib := filepath.Join(a.dir, "config", "paneflow", "workspaces")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	spec := fmt.Sprintf(`name = "launched"
layout = "even_h"

[[panes]]
name = "one"
command = "echo LAUNCHED-ONE; exec sh"
cwd = %q
focus = true

[[panes]]
name = "two"
command = "echo LAUNCHED-TWO; exec sh"
cwd = %q
`, a.dir, a.dir)
	if err := os.WriteFile(filepath.Join(lib, "gui.workspace.toml"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := "[[panes]]\ncommand = \"sh\"\n\n[[panes]]\nagent = \"no-such-agent\"\n"
	if err := os.WriteFile(filepath.Join(lib, "broken.workspace.toml"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	g := a.geometry()
	full := image.Rect(0, 0, g.W, g.H)
	before := a.stable("before", full)

	bx, by, next := a.probed("sidebar-launch-pad", 0)
	a.click(bx, by)
	rx, ry, _ := a.probed("launchpad-row gui.workspace.toml", next) // the rows come in one batch
	ex, ey, next := a.probed("launchpad-row broken.workspace.toml", next)
	if n := changed(before, a.screenshot("launch-pad"), image.Rect(g.W/4, g.H/4, g.W*3/4, g.H*3/4), 0); n < 5000 {
		t.Fatalf("the launch pad is not on screen: %d pixels changed", n)
	}
	// The broken spec: its offending line on a red band.
	a.click(ex, ey)
	a.eventually("the error at its line", func() (bool, string) {
		red := find(a.screenshot("error"), full, func(c rgb) bool { return c.R > 0x70 && c.R < 0xa0 && c.G < 0x30 && c.B < 0x30 })
		return red.N > 2000, fmt.Sprintf("%d pixels of the error band", red.N)
	})
	// The good one: its plan, then Launch.
	a.click(rx, ry)
	lx, ly, _ := a.probed("launchpad-launch", next)
	// Below the filter field: a click on a row gives the keyboard back to
	// the filter (typing filters, Escape closes), so its caret blinks.
	a.stable("plan", image.Rect(0, min(ry, ey)-20, g.W, g.H))
	a.click(lx, ly)

	// Over the socket: a second workspace with the two panes, running.
	var one, two uint64
	a.eventually("the launched workspace", func() (bool, string) {
		l := a.ls()
		one, two = 0, 0
		for _, s := range l.Surfaces {
			switch s.Name {
			case "one":
				one = s.ID
			case "two":
				two = s.ID
			}
		}
		return one != 0 && two != 0, fmt.Sprintf("%+v", l)
	})
	a.waitOutput(strconv.FormatUint(one, 10), `(?m)^LAUNCHED-ONE$`)
	a.waitOutput(strconv.FormatUint(two, 10), `(?m)^LAUNCHED-TWO$`)
	a.eventually("the launched workspace selected", func() (bool, string) {
		c := a.current()
		return c.Index == 1, fmt.Sprintf("workspace %d", c.Index)
	})
	// On screen: the launch pad closed, two panes side by side.
	a.eventually("two panes on screen", func() (bool, string) {
		img := a.screenshot("launched")
		mid := img.Bounds().Dy() / 2
		rs := findPanesInRow(img, mid, terminalBg(img))
		return len(rs) == 2, fmt.Sprintf("%d pane runs in row %d: %v", len(rs), mid, rs)
	})
}
