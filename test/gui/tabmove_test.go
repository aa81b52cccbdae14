//go:build linux

package gui

import (
	"fmt"
	"image"
	"strconv"
	"strings"
	"testing"
)

// TestWorkspaceTabsMoveRename drives the tab strip with the mouse and
// keyboard in the window binary under Xvfb: the first tab dragged past
// the third moves its workspace last, Ctrl+Shift+PageUp moves the active
// one a place left, and a double click on a tab, a title and Enter
// rename its workspace (the server's workspace.list says so each time).
func TestWorkspaceTabsMoveRename(t *testing.T) {
	x := display(t)
	a := startApp(t, x)
	a.waitOutput(strconv.FormatUint(a.ls().Surfaces[0].ID, 10), promptRe)
	g := a.geometry()
	a.mustCLI(nil, "new", "--name", "second")
	a.mustCLI(nil, "new", "--name", "third")
	order := a.workspaceOrder
	a.eventually("three workspaces", order("Terminal", "second", "third"))
	full := image.Rect(0, 0, g.W, g.H)
	a.stable("three-tabs", full)
	// The tabs' middles at the test window's size and font: "1 Terminal",
	// "2 second", "3 third" from the panes' left edge, below the toolbar.
	at := func(x int) []string { return []string{strconv.Itoa(g.X + x), strconv.Itoa(g.Y + tabY)} }
	a.xdo("windowfocus", "--sync", a.win)
	a.xdo(append([]string{"mousemove", "--sync"}, at(tab1X)...)...)
	a.xdo("mousedown", "1")
	for _, x := range []int{tab1X + 20, tab2X, tab3X - 20, tab3X} {
		a.xdo(append([]string{"mousemove", "--sync"}, at(x)...)...)
	}
	a.stable("dragging", full) // the third tab outlined
	a.xdo("mouseup", "1")
	a.eventually("the first workspace moved last", order("second", "third", "Terminal"))
	a.stable("dropped", full)
	a.xdo("key", "ctrl+shift+Prior")
	a.eventually("the active workspace a place left", order("second", "Terminal", "third"))
	a.stable("moved-left", full)
	a.xdo(append(append([]string{"mousemove", "--sync"}, at(tab1X)...), "click", "--repeat", "2", "--delay", "120", "1")...)
	a.stable("rename-dialog", full)
	a.xdo("key", "ctrl+a")
	a.xdo("type", "--delay", "30", "api server")
	a.xdo("key", "Return")
	a.eventually("the first workspace renamed", order("api server", "Terminal", "third"))
	a.stable("renamed", full)
}

// workspaceOrder is a condition for eventually: the server's
// workspace.list holds workspaces titled want, in that order.
func (a *app) workspaceOrder(want ...string) func() (bool, string) {
	return func() (bool, string) {
		var l struct {
			Workspaces []struct {
				Title string `json:"title"`
			} `json:"workspaces"`
		}
		a.rpc(&l, "workspace.list", nil)
		var got []string
		for _, w := range l.Workspaces {
			got = append(got, w.Title)
		}
		return strings.Join(got, ",") == strings.Join(want, ","), fmt.Sprint(got)
	}
}

// Where the tabs of TestWorkspaceTabsMoveRename are, in the window.
const (
	tabY  = 62
	tab1X = 300
	tab2X = 430
	tab3X = 545
)
