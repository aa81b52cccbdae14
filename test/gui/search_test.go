//go:build linux

package gui

import (
	"encoding/json"
	"fmt"
	"image"
	"strconv"
	"testing"
)

// isCurrentMatch recognises the background of the current find match
// (render.DarkPalette's CurrentMatch, #e5c07b), which Reveal uses.
func isCurrentMatch(c rgb) bool { return c.close(rgb{0xe5, 0xc0, 0x7b}, 16) }

// isPrimaryBlue recognises Fyne's default primary colour, in which the
// replay highlights a match's cells.
func isPrimaryBlue(c rgb) bool {
	return int(c.B) > 200 && int(c.R) < 110 && int(c.G) > 90 && int(c.G) < 190
}

// TestSearchAllJump drives the search over every pane with the keyboard
// in a window attached to a server: Ctrl+Shift+S opens it, the typed
// query lists a line 300 lines up a pane's scrollback, Enter jumps there
// (the pane's view scrolls to the line and draws it as the current
// match); then a line only an earlier screen of a full-screen program
// held opens in the replay, highlighted.
func TestSearchAllJump(t *testing.T) {
	x := display(t)
	a := startApp(t, x)
	id := strconv.FormatUint(a.ls().Surfaces[0].ID, 10)
	a.waitOutput(id, promptRe)
	// Neither command line holds the word: the shell echoes them.
	a.mustCLI(nil, "send", id, `echo "alpha NEE""DLE one"; seq 1 300; echo printed-$((1+1))`, "--submit")
	a.waitOutput(id, `printed-2`)

	g := a.geometry()
	full := image.Rect(0, 0, g.W, g.H)
	right := image.Rect(sidebarPx, 0, g.W, g.H)
	list := searchList(g)
	before := a.stable("before", full)
	if n := find(before, right, isCurrentMatch).N; n != 0 {
		t.Fatalf("%d pixels of the current match's colour before any search", n)
	}

	a.xdo("windowfocus", "--sync", a.win)
	a.xdo("key", "ctrl+shift+s")
	a.waitChange("the search view on screen", "search", before, list, 5000)
	empty := a.stable("search-empty", list)
	a.xdo("type", "--delay", "40", "needle")
	a.waitChange("the match listed", "search-needle", empty, list, 1500)
	a.stable("search-needle", list)
	a.xdo("key", "Return")
	a.eventually("the jump to the line, highlighted", func() (bool, string) {
		m := find(a.screenshot("jumped"), right, isCurrentMatch)
		return m.N > 150, fmt.Sprintf("%d pixels of the current match's colour at %v", m.N, m.Rectangle)
	})

	// A full-screen program's first screen, then its second, then the
	// shell again: the first is only in the pane's screen history.
	a.mustCLI(nil, "send", id, `clear; printf '\033[?1049h\033[HNEE%sHIST on screen one\n' DLE; read a; printf '\033[2J\033[Hscreen two\n'; read b; printf '\033[?1049lleft-full-screen\n'`, "--submit")
	a.waitScreens(id, 1)
	a.mustCLI(nil, "send", id, "", "--submit")
	a.waitScreens(id, 2)
	a.mustCLI(nil, "send", id, "", "--submit")
	a.waitOutput(id, "left-full-screen")
	shell := a.stable("shell-again", full)
	grid := a.replaySearch(shell, "NEEDLEHIST")
	a.xdo("key", "Right")
	a.eventually("the next screen, nothing highlighted", func() (bool, string) {
		blue := find(a.screenshot("replay-next"), grid, isPrimaryBlue)
		return blue.N < 20, fmt.Sprintf("%d primary-blue pixels at %v", blue.N, blue.Rectangle)
	})
	a.xdo("key", "Escape")
	a.eventually("the replay closed", func() (bool, string) {
		n := changed(shell, a.screenshot("closed"), list, 0)
		return n < 50, fmt.Sprintf("%d pixels differ from the shell before the search", n)
	})

	// The agent timeline of the pane: one turn its hooks told, whose
	// Enter replays the newest screen shown before it.
	pane, _ := strconv.ParseUint(id, 10, 64)
	a.rpc(nil, "ai.session_start", map[string]any{"surface_id": pane, "tool": "claude"})
	a.rpc(nil, "ai.prompt_submit", map[string]any{"surface_id": pane, "tool": "claude"})
	a.rpc(nil, "ai.tool_use", map[string]any{"surface_id": pane, "tool": "claude", "tool_name": "Bash"})
	a.rpc(nil, "ai.stop", map[string]any{"surface_id": pane, "tool": "claude", "last_result": "Printed the screens"})
	var hist struct {
		Turns []json.RawMessage `json:"turns"`
	}
	a.rpc(&hist, "ai.history", map[string]any{"surface_id": pane})
	if len(hist.Turns) != 1 {
		t.Fatalf("ai.history holds %d turns, want 1", len(hist.Turns))
	}
	closed := a.stable("closed", list)
	a.xdo("key", "ctrl+shift+h")
	a.waitChange("the timeline on screen", "timeline", closed, list, 5000)
	timeline := a.stable("timeline", list)
	a.xdo("key", "Return")
	a.waitChange("the replay from the timeline", "timeline-replay", timeline, replayButtons(g), 1000)
	a.xdo("key", "Escape")
}

// waitScreens waits until pane target's screen history holds n screens
// (surface.screens).
func (a *app) waitScreens(target string, n int) {
	a.t.Helper()
	id, err := strconv.ParseUint(target, 10, 64)
	if err != nil {
		a.t.Fatal(err)
	}
	a.eventually(fmt.Sprintf("pane %s to hold %d screens", target, n), func() (bool, string) {
		var res struct {
			Held int `json:"held"`
		}
		a.rpc(&res, "surface.screens", map[string]any{"surface_id": id})
		return res.Held >= n, fmt.Sprintf("%d held", res.Held)
	})
}
