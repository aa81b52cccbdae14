//go:build linux

package gui

import (
	"fmt"
	"image"
	"regexp"
	"strconv"
	"testing"
)

// TestUndoCloseKeyboard closes a pane running a program with
// Ctrl+Shift+W in a window attached to a server: the "Pane closed" note
// shows at the bottom right; Ctrl+Shift+T brings the pane back, with the
// same id and the same program, which still answers.
func TestUndoCloseKeyboard(t *testing.T) {
	x := display(t)
	a := startApp(t, x)
	first := strconv.FormatUint(a.ls().Surfaces[0].ID, 10)
	a.waitOutput(first, promptRe)
	id := a.splitShell(first)
	pids := map[string]int{}
	for _, p := range []string{first, id} {
		a.mustCLI(nil, "send", p, `echo shell-$$`, "--submit")
		a.waitOutput(p, `shell-\d+`)
		pids[p] = shellPID(a.readRaw(p))
	}

	g := a.geometry()
	corner := image.Rect(g.W-700, g.H-90, g.W, g.H)
	two := a.stable("two-panes", image.Rect(0, 0, g.W, g.H))
	a.xdo("windowfocus", "--sync", a.win)
	a.xdo("key", "ctrl+shift+w") // closes the focused pane, whichever it is
	var closed string
	a.eventually("one pane listed and the note at the bottom right", func() (bool, string) {
		n := changed(two, a.screenshot("closed"), corner, 0)
		l := a.ls()
		if len(l.Surfaces) == 1 {
			closed = first
			if strconv.FormatUint(l.Surfaces[0].ID, 10) == first {
				closed = id
			}
		}
		return len(l.Surfaces) == 1 && n > 2000, fmt.Sprintf("%d panes, %d pixels changed in the corner", len(l.Surfaces), n)
	})
	a.xdo("key", "ctrl+shift+t")
	a.eventually("the pane back in its place", func() (bool, string) {
		l := a.ls()
		return len(l.Surfaces) == 2 && strconv.FormatUint(l.Surfaces[0].ID, 10) == first && strconv.FormatUint(l.Surfaces[1].ID, 10) == id, fmt.Sprintf("%+v", l)
	})
	a.eventually("the window with both panes again, the note gone", func() (bool, string) {
		n := changed(two, a.screenshot("reopened"), image.Rect(0, 0, g.W, g.H), 0)
		return n < 1500, fmt.Sprintf("%d pixels differ from the window before the close", n)
	})
	// The same shell: its $$ has not changed.
	a.mustCLI(nil, "send", closed, `echo again-$$`, "--submit")
	a.waitOutput(closed, `again-`+strconv.Itoa(pids[closed]))
}

// shellPID is the number after the last "shell-" in text.
func shellPID(text string) int {
	m := shellRe.FindAllStringSubmatch(text, -1)
	if len(m) == 0 {
		return 0
	}
	n, _ := strconv.Atoi(m[len(m)-1][1])
	return n
}

var shellRe = regexp.MustCompile(`shell-(\d+)`)
