//go:build linux

package gui

import (
	"fmt"
	"image"
	"strconv"
	"testing"
)

// TestWorkspaceTabs: with a second workspace a tab strip shows above the
// panes; Ctrl+Tab moves the highlight to the second tab, a click on the
// first tab selects the first workspace again, a middle
// click on it closes it (the undo note shows), and Ctrl+Shift+T brings it
// back.
func TestWorkspaceTabs(t *testing.T) {
	x := display(t)
	a := startApp(t, x)
	a.waitOutput(strconv.FormatUint(a.ls().Surfaces[0].ID, 10), promptRe)
	g := a.geometry()
	strip := image.Rect(sidebarPx, 40, g.W, 90)
	one := a.stable("one-workspace", image.Rect(0, 0, g.W, g.H))
	a.mustCLI(nil, "new", "--name", "second")
	a.waitChange("the tab strip", "two-tabs", one, strip, 1000)
	two := a.stable("two-tabs", image.Rect(0, 0, g.W, g.H))
	a.xdo("windowfocus", "--sync", a.win)
	a.xdo("key", "ctrl+Tab")
	a.eventually("the second workspace active, its tab highlighted", func() (bool, string) {
		c := a.current()
		n := changed(two, a.screenshot("second-active"), strip, 0)
		return c.Index == 1 && n > 500, fmt.Sprintf("active %d, %d pixels changed in the strip", c.Index, n)
	})
	// The first tab starts at the panes' left edge, below the toolbar.
	tx, ty := g.X+sidebarPx+40, g.Y+62
	a.xdo("mousemove", "--sync", strconv.Itoa(tx), strconv.Itoa(ty), "click", "1")
	a.eventually("the first workspace active", func() (bool, string) {
		c := a.current()
		return c.Index == 0, fmt.Sprintf("active %d", c.Index)
	})
	a.screenshot("first-selected")
	a.xdo("mousemove", "--sync", strconv.Itoa(tx), strconv.Itoa(ty), "click", "2")
	a.eventually("one workspace left and the strip gone", func() (bool, string) {
		var l struct {
			Workspaces []struct{} `json:"workspaces"`
		}
		a.rpc(&l, "workspace.list", nil)
		n := changed(two, a.screenshot("closed-first"), strip, 0) // 1000+: the strip's pixels are gone
		return len(l.Workspaces) == 1 && n > 1000, fmt.Sprintf("%d workspaces, %d pixels changed in the strip", len(l.Workspaces), n)
	})
	a.xdo("key", "ctrl+shift+t")
	a.eventually("the first workspace back, active", func() (bool, string) {
		c := a.current()
		return c.Index == 0 && c.Title != "second", fmt.Sprintf("active %d %q", c.Index, c.Title)
	})
	a.stable("reopened", image.Rect(0, 0, g.W, g.H))
}
