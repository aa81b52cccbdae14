//go:build linux

package gui

import (
	"fmt"
	"image"
	"strconv"
	"testing"
)

// TestCopyModeKeyboard drives copy mode with the keyboard only, in a
// window attached to a server (whose scrollback the window fetches on
// demand): Ctrl+Shift+Y enters it, ? searches up 250 lines into the
// scrollback (the view scrolls there and draws the current match), v e
// selects the word and y yanks it; the clipboard is then pasted into the
// shell with Ctrl+Shift+V (the X clipboard, read back by the app), and
// the shell's echo shows the yanked word.
func TestCopyModeKeyboard(t *testing.T) {
	x := display(t)
	a := startApp(t, x)
	id := strconv.FormatUint(a.ls().Surfaces[0].ID, 10)
	a.waitOutput(id, promptRe)
	// The command line holds neither the word nor the end marker: the
	// shell echoes it.
	a.mustCLI(nil, "send", id, `echo "alpha ne""edle42x beta"; seq 1 250; echo printed-$((1+1))`, "--submit")
	a.waitOutput(id, `printed-2`)

	g := a.geometry()
	right := image.Rect(sidebarPx, 0, g.W, g.H)
	live := a.stable("live", right)
	if n := find(live, right, isCurrentMatch).N; n != 0 {
		t.Fatalf("%d pixels of the current match's colour before any search", n)
	}

	a.xdo("windowfocus", "--sync", a.win)
	a.xdo("key", "ctrl+shift+y")
	a.waitChange("copy mode's indicator", "copy-mode", live, image.Rect(g.W-260, 0, g.W, 60), 100)
	a.xdo("key", "question")
	a.xdo("type", "--delay", "40", "needle")
	a.xdo("key", "Return")
	a.eventually("the view scrolled to the match, highlighted", func() (bool, string) {
		m := find(a.screenshot("copy-found"), right, isCurrentMatch)
		return m.N > 150, fmt.Sprintf("%d pixels of the current match's colour at %v", m.N, m.Rectangle)
	})
	a.xdo("key", "v", "e")
	a.stable("copy-selected", right)
	a.xdo("key", "y")
	a.eventually("copy mode left, the live screen back", func() (bool, string) {
		n := changed(live, a.screenshot("copy-left"), right, 0)
		return n < 2000, fmt.Sprintf("%d pixels differ from the live screen", n)
	})

	a.xdo("type", "--delay", "40", "echo got-")
	a.xdo("key", "ctrl+shift+v")
	a.xdo("key", "Return")
	a.waitOutput(id, `(?m)^got-needle42x\s*$`)
}
