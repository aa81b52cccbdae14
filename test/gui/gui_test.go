//go:build linux

package gui

import (
	"fmt"
	"image"
	"math"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/test/internal/proctest"
)

// sidebarPx is the sidebar's width (spec gui.md §1) at scale 1; the split
// area starts right of it.
const sidebarPx = 240

// promptRe matches a pane whose shell waits at its prompt (sh shows "# "
// to root whatever PS1 says).
const promptRe = `[$#]\s*$`

// step runs one stage of a scenario as a subtest that drives a. The stages
// build on each other, so the scenario stops at the first that fails.
func step(t *testing.T, a *app, name string, f func(t *testing.T)) {
	t.Helper()
	ok := t.Run(name, func(t *testing.T) {
		parent := a.t
		a.t = t
		defer func() { a.t = parent }()
		f(t)
	})
	if !ok {
		t.FailNow()
	}
}

// findPanesInRow returns where row y of img crosses the panes of the split
// area: the stretches of the terminal background bg, right of the sidebar,
// at least 60 px long. Between two panes side by side lies the divider.
func findPanesInRow(img image.Image, y int, bg rgb) []run {
	return longRuns(rowRuns(img, y, sidebarPx, img.Bounds().Dx(), bg, 6), 60)
}

// terminalBg is the terminal background: the commonest colour of the
// lower right quarter of the window when its pane shows only a prompt.
func terminalBg(img image.Image) rgb {
	b := img.Bounds()
	return mostCommon(img, image.Rect(b.Dx()/2, b.Dy()/2, b.Dx()-20, b.Dy()-20))
}

// stable takes screenshots until two in a row show the same pixels in r,
// and returns the last: output has been drawn and nothing moves.
func (a *app) stable(name string, r image.Rectangle) image.Image {
	a.t.Helper()
	prev := a.screenshot(name)
	deadline := time.Now().Add(pollTimeout)
	for {
		time.Sleep(300 * time.Millisecond)
		img := a.screenshot(name)
		n := changed(prev, img, r, 0)
		if n == 0 {
			return img
		}
		if bar, ok := cursorBar(prev, img, r); ok {
			a.t.Logf("%s: only a text cursor blinks (%v)", name, bar)
			return img
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("the window never stopped changing: %d pixels of %v differ between the last two screenshots", n, r)
		}
		prev = img
	}
}

// waitChange waits until more than min pixels of r in a screenshot
// named name differ from before (what the change shows is what, for the
// failure), and returns that screenshot.
func (a *app) waitChange(what, name string, before image.Image, r image.Rectangle, min int) image.Image {
	a.t.Helper()
	var img image.Image
	a.eventually(what, func() (bool, string) {
		img = a.screenshot(name)
		n := changed(before, img, r, 0)
		return n > min, fmt.Sprintf("%d pixels of %v changed (more than %d wanted)", n, r, min)
	})
	return img
}

// openDiff opens the focused pane's Diff view with Ctrl+Shift+G, waits
// until the window shows more than min green pixels more than before
// (the diff's added lines), and returns the settled view.
func (a *app) openDiff(min int) image.Image {
	a.t.Helper()
	g := a.geometry()
	full := image.Rect(0, 0, g.W, g.H)
	greenBefore := find(a.stable("before", full), full, isGreen).N
	a.xdo("windowfocus", "--sync", a.win)
	a.xdo("key", "ctrl+shift+g")
	a.eventually("the diff on screen", func() (bool, string) {
		green := find(a.screenshot("diff"), full, isGreen)
		return green.N > greenBefore+min, fmt.Sprintf("%d green pixels (%d before)", green.N, greenBefore)
	})
	return a.stable("diff", full)
}

// Where the search view's list (below its query field, whose caret
// blinks), and the replay's screen and buttons are in a window of
// geometry g.
func searchList(g geometry) image.Rectangle {
	return image.Rect(g.W/2-350, g.H/2-120, g.W/2+350, g.H/2+220)
}

func replayGrid(g geometry) image.Rectangle {
	return image.Rect(g.W/2-480, g.H/2-300, g.W/2+480, g.H/2+250)
}

func replayButtons(g geometry) image.Rectangle {
	return image.Rect(g.W/2-480, g.H/2+280, g.W/2+480, g.H/2+330)
}

// replaySearch opens the search view over before (the window as it is,
// settled) with Ctrl+Shift+S, types query, opens the first match's
// replay with Enter and waits until the match is highlighted in it: the
// replay has no text field, so its only primary blue is the match's
// cells. It returns where the replay's screen is.
func (a *app) replaySearch(before image.Image, query string) image.Rectangle {
	a.t.Helper()
	g := a.geometry()
	list := searchList(g)
	a.xdo("key", "ctrl+shift+s")
	a.waitChange("the search view on screen", "search", before, list, 5000)
	empty := a.stable("search-empty", list)
	a.xdo("type", "--delay", "40", query)
	a.waitChange("the match of "+query+" listed", "search-match", empty, list, 1500)
	searched := a.stable("search-match", list)
	a.xdo("key", "Return")
	a.waitChange("the replay on screen", "replay", searched, replayButtons(g), 1000)
	grid := replayGrid(g)
	a.eventually("the match highlighted in the replay", func() (bool, string) {
		blue := find(a.screenshot("replay"), grid, isPrimaryBlue)
		return blue.N > 400, fmt.Sprintf("%d primary-blue pixels at %v", blue.N, blue.Rectangle)
	})
	return grid
}

// click moves the pointer to window coordinates (x, y) and clicks.
func (a *app) click(x, y int) {
	a.t.Helper()
	g := a.geometry()
	a.xdo("mousemove", "--sync", strconv.Itoa(g.X+x), strconv.Itoa(g.Y+y), "sleep", "0.1", "click", "1")
}

// typeText focuses the window and types text then Return with the
// keyboard (XTEST, as a user would).
func (a *app) typeText(text string) {
	a.t.Helper()
	a.xdo("windowfocus", "--sync", a.win)
	a.xdo("type", "--delay", "30", text)
	a.xdo("key", "Return")
}

// typeLine types text into the focused pane, waits until pane target shows
// it, and only then presses Return. An agent's TUI reads keys that reach it
// in one burst as a paste, and takes an Enter inside a paste for a line
// break: on a loaded machine the program can be descheduled while xdotool
// types, and the text and its Return then arrive in one read (Claude Code
// kept "run the two commands please" in its input box, a newline after it).
// A person sees the text before pressing Return; so does this.
func (a *app) typeLine(target, text string) {
	a.t.Helper()
	a.xdo("windowfocus", "--sync", a.win)
	a.xdo("type", "--delay", "30", text)
	a.eventually(fmt.Sprintf("pane %s to echo %q", target, text), func() (bool, string) {
		raw := a.readRaw(target)
		return strings.Contains(raw, text), raw
	})
	a.xdo("key", "Return")
}

func TestDesktop(t *testing.T) {
	x := display(t)
	a := startApp(t, x)
	var first, second uint64
	var bg rgb
	var start image.Image
	full := func(img image.Image) image.Rectangle { return img.Bounds() }

	step(t, a, "start", func(t *testing.T) {
		l := a.ls()
		if l.PaneCount != 1 || len(l.Surfaces) != 1 {
			t.Fatalf("ls at start: %+v, want one pane", l)
		}
		first = l.Surfaces[0].ID
		a.waitOutput(strconv.FormatUint(first, 10), promptRe)
		g := a.geometry()
		if g.W < 600 || g.H < 400 || g.W > screenW || g.H > screenH {
			t.Errorf("window geometry %+v, want a window between 600x400 and the %dx%d screen", g, screenW, screenH)
		}
		start = a.stable("start", image.Rect(0, 0, g.W, g.H))
		bg = terminalBg(start)
		side := image.Rect(0, 0, sidebarPx, start.Bounds().Dy())
		if n := colours(start, side); n < 3 {
			t.Errorf("the sidebar region %v has %d colours, want text and chrome (≥ 3)", side, n)
		}
		if c := mostCommon(start, side); c.close(bg, 6) {
			t.Errorf("the sidebar's commonest colour %v is the terminal background %v: no sidebar drawn?", c, bg)
		}
		mid := start.Bounds().Dy() * 3 / 4
		if rs := findPanesInRow(start, mid, bg); len(rs) != 1 {
			t.Errorf("row %d shows %d pane(s) of background %v (%v), want 1", mid, len(rs), bg, rs)
		}
	})

	step(t, a, "split over the socket", func(t *testing.T) {
		var res struct {
			Split     bool   `json:"split"`
			SurfaceID uint64 `json:"surface_id"`
			Panes     int    `json:"panes"`
		}
		a.mustCLI(&res, "split", "v", "--target", strconv.FormatUint(first, 10))
		if !res.Split || res.Panes != 2 || res.SurfaceID == 0 {
			t.Fatalf("split: %+v, want a second pane", res)
		}
		second = res.SurfaceID
		if l := a.ls(); l.PaneCount != 2 {
			t.Errorf("ls after split: %+v, want 2 panes", l)
		}
		c := a.current()
		if c.Layout == nil || c.Layout.Type != "split" || c.Layout.Direction != "vertical" || len(c.Layout.Children) != 2 {
			t.Fatalf("workspace.current after split v: %+v, want a vertical split of two panes", c.Layout)
		}
		a.waitOutput(strconv.FormatUint(second, 10), promptRe)
		var img image.Image
		mid := 0
		a.eventually("two panes side by side on screen", func() (bool, string) {
			img = a.screenshot("split")
			mid = img.Bounds().Dy() * 3 / 4
			rs := findPanesInRow(img, mid, bg)
			return len(rs) == 2, fmt.Sprintf("row %d: pane runs %v of background %v", mid, rs, bg)
		})
	})

	step(t, a, "colours drawn", func(t *testing.T) {
		id := strconv.FormatUint(second, 10)
		a.mustCLI(nil, "send", id, `clear; printf '\033[41m    \033[0m\n\033[42m        \033[0m\n'; echo colours-$((1+1))`, "--submit")
		a.waitOutput(id, `(?m)^colours-2$`)
		var img image.Image
		var red, green box
		a.eventually("a red and a green block in the screenshot", func() (bool, string) {
			img = a.screenshot("colours")
			b := img.Bounds()
			red = find(img, image.Rect(sidebarPx, 0, b.Dx(), b.Dy()), isRed)
			green = find(img, image.Rect(sidebarPx, 0, b.Dx(), b.Dy()), isGreen)
			return red.N > 0 && green.N > 0, fmt.Sprintf("red %v (%d px), green %v (%d px)", red.Rectangle, red.N, green.Rectangle, green.N)
		})
		t.Logf("red block %v, green block %v", red.Rectangle, green.Rectangle)
		if red.N != red.Dx()*red.Dy() || green.N != green.Dx()*green.Dy() {
			t.Errorf("the blocks are not solid: red %v has %d px, green %v has %d px", red.Rectangle, red.N, green.Rectangle, green.N)
		}
		// Four cells and eight cells: the same height, twice the width,
		// one row apart, left-aligned, in the right-hand (second) pane.
		if d := green.Dx() - 2*red.Dx(); d < -2 || d > 2 {
			t.Errorf("green block %d px wide, red %d px: want twice the width (8 cells vs 4)", green.Dx(), red.Dx())
		}
		if d := green.Dy() - red.Dy(); d < -1 || d > 1 || red.Dy() < 8 {
			t.Errorf("block heights red %d, green %d px: want one cell row each", red.Dy(), green.Dy())
		}
		if green.Min.Y < red.Max.Y-1 || green.Min.Y > red.Max.Y+1 || absInt(green.Min.X-red.Min.X) > 1 {
			t.Errorf("green block %v is not right below red block %v", green.Rectangle, red.Rectangle)
		}
		rs := findPanesInRow(img, img.Bounds().Dy()*3/4, bg)
		if len(rs) == 2 && (red.Min.X < rs[1].start-4 || red.Max.X > rs[1].end) {
			t.Errorf("red block %v is not in the second pane (columns %v)", red.Rectangle, rs[1])
		}
	})

	step(t, a, "rename shows in the sidebar", func(t *testing.T) {
		id := strconv.FormatUint(second, 10)
		b := start.Bounds()
		side := image.Rect(0, 0, sidebarPx, b.Dy())
		before := a.stable("before-rename", side)
		a.mustCLI(nil, "rename", id, "agent-one")
		found := false
		for _, s := range a.ls().Surfaces {
			if s.ID == second {
				found = true
				if s.Name != "agent-one" {
					t.Errorf("ls after rename: pane %d is named %q, want agent-one", second, s.Name)
				}
			}
		}
		if !found {
			t.Fatalf("pane %d is missing from ls", second)
		}
		a.eventually("the sidebar to change after the rename", func() (bool, string) {
			img := a.screenshot("renamed")
			n := changed(before, img, side, 8)
			return n > 20, fmt.Sprintf("%d sidebar pixels changed", n)
		})
	})

	step(t, a, "typing reaches the focused pane", func(t *testing.T) {
		f := a.current().focused()
		if f != first && f != second {
			t.Fatalf("focused pane %d, want %d or %d", f, first, second)
		}
		a.typeText("echo $((6*7))typed")
		a.waitOutput(strconv.FormatUint(f, 10), `(?m)^42typed$`)
	})

	step(t, a, "click focuses a pane", func(t *testing.T) {
		from := a.current().focused()
		to := first
		if from == first {
			to = second
		}
		img := a.stable("before-click", full(start))
		mid := img.Bounds().Dy() * 3 / 4
		rs := findPanesInRow(img, mid, bg)
		if len(rs) != 2 {
			t.Fatalf("row %d shows pane runs %v, want 2", mid, rs)
		}
		target := rs[0]
		if to == second {
			target = rs[1]
		}
		a.click((target.start+target.end)/2, mid)
		a.eventually(fmt.Sprintf("pane %d to have the focus", to), func() (bool, string) {
			c := a.current()
			return c.focused() == to, fmt.Sprintf("focused %d", c.focused())
		})
		a.typeText("echo $((7*6))clicked")
		a.waitOutput(strconv.FormatUint(to, 10), `(?m)^42clicked$`)
		if strings.Contains(a.readRaw(strconv.FormatUint(from, 10)), "clicked") {
			t.Errorf("the text typed after the click also reached pane %d", from)
		}
		a.screenshot("clicked")
	})

	step(t, a, "drag the divider", func(t *testing.T) {
		img := a.stable("before-drag", full(start))
		mid := img.Bounds().Dy() * 3 / 4
		rs := findPanesInRow(img, mid, bg)
		if len(rs) != 2 {
			t.Fatalf("row %d shows pane runs %v, want 2", mid, rs)
		}
		before := a.current()
		if len(before.Layout.Ratios) != 2 {
			t.Fatalf("ratios before the drag: %v", before.Layout.Ratios)
		}
		span := float64(rs[1].end - rs[0].start - (rs[1].start - rs[0].end))
		divX := (rs[0].end + rs[1].start) / 2
		const moveBy = 200
		g := a.geometry()
		sx, sy := g.X+divX, g.Y+mid
		a.xdo("mousemove", "--sync", strconv.Itoa(sx), strconv.Itoa(sy), "sleep", "0.2", "mousedown", "1", "sleep", "0.2",
			"mousemove", "--sync", strconv.Itoa(sx+20), strconv.Itoa(sy), "sleep", "0.1",
			"mousemove", "--sync", strconv.Itoa(sx+100), strconv.Itoa(sy), "sleep", "0.1",
			"mousemove", "--sync", strconv.Itoa(sx+moveBy), strconv.Itoa(sy), "sleep", "0.2", "mouseup", "1")
		want := before.Layout.Ratios[0] + moveBy/span
		// The app may still be handling the drag's moves when xdotool has
		// sent them all (the ratios follow each move): wait for the last.
		a.eventually("the divider drag to end where the pointer was released", func() (bool, string) {
			got := a.current().Layout.Ratios
			return len(got) == 2 && math.Abs(got[0]-want) <= 0.04,
				fmt.Sprintf("after dragging the divider %d px right over %.0f px: ratios %v (before %v), want first ≈ %.3f",
					moveBy, span, got, before.Layout.Ratios, want)
		})
		after := a.stable("dragged", full(start))
		if rs2 := findPanesInRow(after, mid, bg); len(rs2) != 2 || absInt(rs2[0].end-(rs[0].end+moveBy)) > 8 {
			t.Errorf("pane runs after the drag %v, want the first to end near %d", rs2, rs[0].end+moveBy)
		}
	})

	step(t, a, "wheel scrolls the scrollback", func(t *testing.T) {
		f := a.current().focused()
		id := strconv.FormatUint(f, 10)
		a.mustCLI(nil, "send", id, "seq 1 400", "--submit")
		a.waitOutput(id, `(?m)^400\n`)
		img := a.stable("before-scroll", full(start))
		mid := img.Bounds().Dy() * 3 / 4
		rs := findPanesInRow(a.screenshot("bg-rows"), img.Bounds().Dy()-30, bg)
		var pane image.Rectangle
		for _, r := range rs {
			pane = image.Rect(r.start, 40, r.end, img.Bounds().Dy()-10)
			if f == second && r.start > img.Bounds().Dx()/2 || f == first && r.start < img.Bounds().Dx()/2 {
				break
			}
		}
		if pane.Empty() {
			t.Fatalf("no pane found on the bottom row (runs %v)", rs)
		}
		g := a.geometry()
		a.xdo("mousemove", "--sync", strconv.Itoa(g.X+(pane.Min.X+pane.Max.X)/2), strconv.Itoa(g.Y+mid),
			"sleep", "0.1", "click", "--repeat", "5", "--delay", "50", "4")
		var up image.Image
		a.eventually("the pane to scroll back", func() (bool, string) {
			up = a.screenshot("scrolled-up")
			n := changed(img, up, pane, 8)
			// The lines move by whole rows: glyphs change where digits differ.
			return n > 200, fmt.Sprintf("%d pixels of %v changed", n, pane)
		})
		a.xdo("click", "--repeat", "10", "--delay", "50", "5")
		a.eventually("the pane to scroll back to the bottom", func() (bool, string) {
			down := a.screenshot("scrolled-down")
			n := changed(img, down, pane, 8)
			return n == 0, fmt.Sprintf("%d pixels of %v still differ from before scrolling", n, pane)
		})
	})

	step(t, a, "new workspace", func(t *testing.T) {
		img := a.stable("before-new", full(start))
		side := image.Rect(0, 0, sidebarPx, img.Bounds().Dy())
		var res struct {
			Index int `json:"index"`
		}
		a.mustCLI(&res, "new", "--name", "second-ws")
		if l := a.ls(); l.Workspace != 0 {
			t.Errorf("ls after new: active workspace %d, want 0 (new does not switch)", l.Workspace)
		}
		a.mustCLI(nil, "select", strconv.Itoa(res.Index))
		c := a.current()
		if c.Title != "second-ws" || c.Panes != 1 {
			t.Errorf("workspace.current after new: %+v, want second-ws with one pane", c)
		}
		a.eventually("the sidebar to list the new workspace and one pane to fill the area", func() (bool, string) {
			now := a.screenshot("new-workspace")
			n := changed(img, now, side, 8)
			rs := findPanesInRow(now, now.Bounds().Dy()*3/4, bg)
			return n > 20 && len(rs) == 1, fmt.Sprintf("%d sidebar pixels changed, pane runs %v", n, rs)
		})
		a.mustCLI(nil, "select", "0")
		a.eventually("the first workspace to come back with its two panes", func() (bool, string) {
			now := a.screenshot("selected-first")
			rs := findPanesInRow(now, now.Bounds().Dy()*3/4, bg)
			return len(rs) == 2 && a.current().Panes == 2, fmt.Sprintf("pane runs %v", rs)
		})
	})

	step(t, a, "SIGTERM closes the window, the server keeps the panes", func(t *testing.T) {
		if err := a.terminate(); err != nil {
			t.Errorf("the window exited with %v after SIGTERM, want exit 0", err)
		}
		// The window detached: the server answers with both workspaces
		// and their three panes, which still run their shells (asked
		// through the server's app: the window's has exited).
		srv := a.server
		parent := srv.t
		srv.t = t
		defer func() { srv.t = parent }()
		l := srv.ls()
		if l.Workspace != 0 || l.PaneCount != 2 || len(l.Surfaces) != 3 {
			t.Fatalf("ls after the window closed: %+v, want the 3 panes of both workspaces, the first active with 2", l)
		}
		id := strconv.FormatUint(second, 10)
		srv.mustCLI(nil, "send", id, "echo after-$((20+1))", "--submit")
		srv.waitOutput(id, `(?m)^after-21$`)
	})
}

// TestNoDisplay checks that the desktop app explains itself and exits 2
// when there is no display, as `make run` on a headless machine shows.
func TestNoDisplay(t *testing.T) {
	need(t)
	dir := tempDir(t)
	env := appEnv(dir, "")
	kept := env[:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "DISPLAY=") {
			kept = append(kept, kv)
		}
	}
	cmd := exec.Command(guiBin)
	cmd.Env = kept
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code != 2 {
		t.Errorf("paneflow-gui without DISPLAY exited %d, want 2; output:\n%s", code, proctest.Indent(string(out)))
	}
	for _, want := range []string{"no display", "paneflow serve"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output without DISPLAY lacks %q:\n%s", want, proctest.Indent(string(out)))
		}
	}
}

func absInt(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// TestIdleSleeps checks that an idle window sleeps in the event wait
// (PANEFLOW_RENDER_PROBE=1 logs each sleep and what ended it) and that
// what happens during a sleep still reaches the screen: output from the
// socket is drawn, typed keys reach the pane.
func TestIdleSleeps(t *testing.T) {
	x := display(t)
	a := startApp(t, x, "PANEFLOW_RENDER_PROBE=1")
	id := strconv.FormatUint(a.ls().Surfaces[0].ID, 10)
	a.waitOutput(id, promptRe)
	g := a.geometry()
	pane := image.Rect(sidebarPx, 0, g.W, g.H)
	asleep := regexp.MustCompile(`^idle-probe slept_ms=\S+ end=timeout$`)

	// during runs prepare, waits until the window sleeps, runs act during
	// the next sleep, then check, and waits until the probe says a sleep
	// ended because of want (post or event). Sleeping and acting race, so
	// it tries a few times.
	during := func(what, want string, prepare, act, check func(round int)) {
		t.Helper()
		ended := regexp.MustCompile(`^idle-probe slept_ms=\S+ end=` + want + `$`)
		for round := range 5 {
			prepare(round)
			if _, err := a.waitLine(asleep, a.log.count(), 20*time.Second); err != nil {
				t.Fatalf("%s: the idle window never slept until a timeout: %v", what, err)
			}
			time.Sleep(200 * time.Millisecond) // into the next sleep
			from := a.log.count()
			act(round)
			check(round)
			if _, err := a.waitLine(ended, from, 5*time.Second); err == nil {
				return
			}
			t.Logf("%s, round %d: no sleep ended by %s; the window was awake, trying again", what, round, want)
		}
		t.Fatalf("%s: in 5 rounds no sleep ended by %s", what, want)
	}

	// Idle, nothing but the sleeps' own timeouts wakes the window (a
	// periodic refresh that finds nothing new posts nothing).
	if _, err := a.waitLine(asleep, 0, 20*time.Second); err != nil {
		t.Fatalf("the idle window never slept until a timeout: %v", err)
	}
	// The next two sleeps, however long a loaded machine takes to log
	// them (a fixed 3 s window could see fewer than two).
	from := a.log.count()
	var sleeps []string
	deadline := time.After(pollTimeout)
	for len(sleeps) < 2 {
		lines, changed := a.log.snapshot(from)
		from += len(lines)
		for _, l := range lines {
			if strings.HasPrefix(l.text, "idle-probe ") {
				sleeps = append(sleeps, l.text)
			}
		}
		if len(sleeps) >= 2 {
			break
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("an idle window logged %d sleep(s) in %v, want 2 (a sleep lasts at most 1 s):\n%s", len(sleeps), pollTimeout, strings.Join(sleeps, "\n"))
		}
	}
	for _, l := range sleeps {
		if !asleep.MatchString(l) {
			t.Errorf("an idle window's sleep ended early: %q, want only timeouts; all sleeps:\n%s", l, strings.Join(sleeps, "\n"))
			break
		}
	}

	var before image.Image
	during("output from the socket", "post", func(round int) {
		before = a.stable(fmt.Sprintf("idle-before-%d", round), pane)
	}, func(round int) {
		a.mustCLI(nil, "send", id, "--submit", fmt.Sprintf("echo woke-$((40+%d))", round))
	}, func(round int) {
		a.waitOutput(id, fmt.Sprintf(`(?m)^woke-%d$`, 40+round))
		a.eventually("the output on screen", func() (bool, string) {
			n := changed(before, a.screenshot(fmt.Sprintf("idle-after-%d", round)), pane, 0)
			return n > 0, fmt.Sprintf("%d pixels of the pane changed", n)
		})
	})

	during("typing", "event", func(int) {}, func(round int) {
		a.xdo("windowfocus", "--sync", a.win)
		a.xdo("type", "--delay", "30", fmt.Sprintf("echo $((%d*2))typed", round+10))
		a.xdo("key", "Return")
	}, func(round int) {
		a.waitOutput(id, fmt.Sprintf(`(?m)^%dtyped$`, 2*(round+10)))
	})
}

// TestContextMenu opens a pane's context menu with a right click in the
// real window, picks Clear Scrollback with the keyboard, and checks that
// the scrollback is gone (the read reports only the screen's lines).
func TestContextMenu(t *testing.T) {
	x := display(t)
	a := startApp(t, x)
	id := strconv.FormatUint(a.ls().Surfaces[0].ID, 10)
	a.waitOutput(id, promptRe)
	a.mustCLI(nil, "send", id, "--submit", "seq 1 300")
	a.waitOutput(id, `(?m)^300$`)
	total := func() int {
		var r struct {
			Total int `json:"total_lines"`
		}
		a.mustCLI(&r, "read", id, "--json", "--lines", "1")
		return r.Total
	}
	before := total()
	if before < 300 {
		t.Fatalf("total_lines %d after seq 1 300, want ≥ 300", before)
	}

	g := a.geometry()
	px, py := sidebarPx+(g.W-sidebarPx)/2, g.H/3
	shot := a.stable("before-menu", image.Rect(0, 0, g.W, g.H))
	a.xdo("mousemove", "--sync", strconv.Itoa(g.X+px), strconv.Itoa(g.Y+py), "sleep", "0.1", "click", "3")
	menu := image.Rect(px, py, min(px+120, g.W), min(py+200, g.H))
	a.eventually("the context menu on screen", func() (bool, string) {
		img := a.screenshot("menu")
		n := changed(shot, img, menu, 0)
		// Light menu text on the dark theme, once Fyne's opening
		// animation is done.
		text := find(img, menu, func(c rgb) bool { return c.R > 180 && c.G > 180 && c.B > 180 })
		return n > 2000 && text.N > 100, fmt.Sprintf("%d pixels changed right below the click (%v), %d light (text) pixels", n, menu, text.N)
	})
	// Copy (disabled without a selection), Paste, Find…, Clear Scrollback.
	a.xdo("key", "--delay", "100", "Down", "Down", "Down", "Down", "Return")
	a.eventually("the scrollback to be cleared", func() (bool, string) {
		n := total()
		return n < 100, fmt.Sprintf("total_lines %d (was %d)", n, before)
	})
	a.eventually("the menu to close", func() (bool, string) {
		n := changed(shot, a.screenshot("after-menu"), menu, 0)
		return n < 200, fmt.Sprintf("%d pixels below the click still differ from before the menu", n)
	})
}
