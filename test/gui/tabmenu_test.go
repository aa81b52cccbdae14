//go:build linux

package gui

import (
	"fmt"
	"image"
	"strconv"
	"testing"
)

// TestWorkspaceTabMenuX drives the workspace tabs' context menu in the
// window binary under Xvfb with a right click and the keyboard: Move left
// on the last tab, Move right on the first, Rename… with a typed title,
// Close; Escape dismisses it and the next keys reach the pane. The
// server's workspace.list says what each did.
func TestWorkspaceTabMenuX(t *testing.T) {
	x := display(t)
	a := startApp(t, x)
	first := strconv.FormatUint(a.ls().Surfaces[0].ID, 10)
	a.waitOutput(first, promptRe)
	g := a.geometry()
	a.mustCLI(nil, "new", "--name", "second")
	a.mustCLI(nil, "new", "--name", "third")
	a.eventually("three workspaces", a.workspaceOrder("Terminal", "second", "third"))
	full := image.Rect(0, 0, g.W, g.H)
	a.xdo("windowfocus", "--sync", a.win)
	// menu opens the context menu of the tab at x and picks its item n
	// (1 Rename…, 2 Move left, 3 Move right, 4 Close, 5 New workspace…;
	// Fyne's menu counts disabled items, not separators) with Down and
	// Return; n 0 dismisses it with Escape.
	menu := func(name string, x, n int) {
		t.Helper()
		shot := a.stable(name+"-before", full)
		a.xdo("mousemove", "--sync", strconv.Itoa(g.X+x), strconv.Itoa(g.Y+tabY), "sleep", "0.1", "click", "3")
		below := image.Rect(x, tabY+10, min(x+150, g.W), min(tabY+200, g.H))
		a.eventually("the tab's menu on screen", func() (bool, string) {
			img := a.screenshot(name + "-menu")
			n := changed(shot, img, below, 0)
			text := find(img, below, func(c rgb) bool { return c.R > 180 && c.G > 180 && c.B > 180 })
			return n > 2000 && text.N > 100, fmt.Sprintf("%d pixels changed below the tab, %d light (text) pixels", n, text.N)
		})
		a.stable(name+"-menu", full)
		if n == 0 {
			a.xdo("key", "Escape")
			return
		}
		keys := []string{"key", "--delay", "100"}
		for range n {
			keys = append(keys, "Down")
		}
		a.xdo(append(keys, "Return")...)
	}
	menu("left", tab3X, 2)
	a.eventually("the last workspace moved left", a.workspaceOrder("Terminal", "third", "second"))
	menu("right", tab1X, 3)
	a.eventually("the first workspace moved right", a.workspaceOrder("third", "Terminal", "second"))
	menu("rename", tab1X, 1)
	a.stable("rename-dialog", full)
	a.xdo("key", "ctrl+a")
	a.xdo("type", "--delay", "30", "build")
	a.xdo("key", "Return")
	a.eventually("the first workspace renamed", a.workspaceOrder("build", "Terminal", "second"))
	menu("close", tab1X, 4)
	a.eventually("the first workspace closed", a.workspaceOrder("Terminal", "second"))
	// Dismissed with Escape, the menu gives the keyboard back to the
	// active workspace's pane.
	a.rpc(nil, "workspace.select", map[string]any{"index": 0})
	a.eventually("Terminal active", func() (bool, string) {
		c := a.current()
		return c.Index == 0, fmt.Sprint("workspace ", c.Index)
	})
	menu("escape", tab1X, 0)
	a.stable("dismissed", full)
	a.xdo("type", "--delay", "30", "echo menu-$((6*7))")
	a.xdo("key", "Return")
	a.waitOutput(first, `(?m)^menu-42$`)
}
