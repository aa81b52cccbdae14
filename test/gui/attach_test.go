//go:build linux

package gui

import (
	"fmt"
	"image"
	"image/color"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAttachedWindow: `paneflow-gui --attach` against a running `paneflow
// serve`. The window shows the server's pane and types into it; closing
// the window (SIGTERM: the app quits) detaches: the program in the pane
// keeps running with its state (a line counter), and a second window
// attaches to it again and types on.
func TestAttachedWindow(t *testing.T) {
	x := display(t)
	srv := startServe(t, "100x30")
	// A program with state in the server's pane: it counts the lines it reads.
	srv.mustCLI(nil, "send", "1", `i=0; while read l; do i=$((i+1)); echo "got $i:$l"; done`, "--submit")
	for round, word := range []string{"alpha", "beta"} {
		w := startAttached(t, x, srv)
		w.typeLine("1", word)
		want := "got " + string(rune('1'+round)) + ":" + word
		srv.waitOutput("1", want)
		if err := w.terminate(); err != nil {
			t.Fatalf("window %d: %v", round+1, err)
		}
		// The server answers and the counter still runs.
		raw := srv.readRaw("1")
		if !strings.Contains(raw, want) {
			t.Fatalf("after window %d closed the pane shows:\n%s", round+1, raw)
		}
	}
}

// TestAttachedInputRefusedBannerX: a key the server refuses reaches the
// attached window's banner end to end. The key is typed (XTest) into a
// pane whose program exited; the window sends it as a screen.input
// notification and the server refuses it ("surface N has exited") on the
// window's screen stream. The banner says so above the window's content:
// the window is laid out again around it (the toolbar's side starts
// below it, the banner is tall enough for its line), and the panes got
// shorter by its height, as the server's other pane sees on its
// terminal (its size, printed on each SIGWINCH).
func TestAttachedInputRefusedBannerX(t *testing.T) {
	_, w, rows := refusedSetup(t, 1)
	gone := rows.gone[0]
	before := rows.windowSized(w)
	shot := w.screenshot("before")
	// The same shown twice: the second time after a dismiss, at the size
	// the banner had (Fyne re-lays a window out by itself only when a
	// minimum size changed: the banner was drawn over the toolbar).
	for _, round := range []string{"first", "again"} {
		b := typeUntilBanner(t, w, round, gone)
		after := rows.shorter(w, round, before)
		by := movedDown(w, shot, b.height, round)
		t.Logf("banner (%s): %q at y=%d, %d px high; the content moved down %d px; pane 1: %d rows before it, %d after",
			round, b.text, b.y, b.height, by, before, after)
		// Dismissed: the panes get their height back.
		w.click(b.closeX, b.closeY)
		w.eventually("pane 1 to get its height back after the dismiss ("+round+")", func() (bool, string) {
			n, raw := rows.last()
			return n == before, fmt.Sprintf("rows %d, %d before the banner:\n%s", n, before, raw)
		})
	}
}

// TestAttachedInputRefusedBannerGrowsX: while the banner shows one
// refusal, a key refused in another pane adds a second line to it: the
// banner grows to its new minimum height, the window's content moves
// down again by the new height and the server's other pane gets shorter
// again. Fyne re-lays a parent out only when a child's minimum size
// changed since it last looked: without the banner's relayout a banner
// that gained a line kept its height, its last line cut off, the content
// where it was.
func TestAttachedInputRefusedBannerGrowsX(t *testing.T) {
	srv, w, rows := refusedSetup(t, 2)
	before := rows.windowSized(w)
	shot := w.screenshot("before")
	first := typeUntilBanner(t, w, "one line", rows.gone[0])
	shorter := rows.shorter(w, "one line", before)
	movedDown(w, shot, first.height, "one line")
	srv.mustCLI(nil, "focus", rows.gone[1])
	second := typeUntilBanner(t, w, "two lines", rows.gone[1])
	if !strings.Contains(second.text, "surface "+rows.gone[0]+" has exited") {
		t.Errorf("banner says %q, want the first refusal still in it", second.text)
	}
	if second.height <= first.height {
		t.Errorf("banner %d px high with two lines, %d with one: want it taller", second.height, first.height)
	}
	after := rows.shorter(w, "two lines", shorter)
	by := movedDown(w, shot, second.height, "two lines")
	t.Logf("banner: %d px high with one line (pane 1: %d rows, %d before it), %d px with two (%d rows); the content moved down %d px",
		first.height, shorter, before, second.height, after, by)
}

// paneRows reads the size the server's pane 1 last printed (its SIGWINCH
// trap) and knows the panes whose shells exited.
type paneRows struct {
	srv  *app
	gone []string
}

var sizeLine = regexp.MustCompile(`SIZE (\d+) (\d+)`)

// last returns pane 1's rows as it last printed them (0: never) and its
// text.
func (r paneRows) last() (int, string) {
	raw := r.srv.readRaw("1")
	m := sizeLine.FindAllStringSubmatch(raw, -1)
	if len(m) == 0 {
		return 0, raw
	}
	n, _ := strconv.Atoi(m[len(m)-1][1])
	return n, raw
}

// windowSized waits until the window gave the panes its size and returns
// pane 1's rows as the window lays them out without a banner.
func (r paneRows) windowSized(w *app) int {
	var n int
	w.eventually("pane 1 to get the window's size", func() (bool, string) {
		var raw string
		n, raw = r.last()
		return n != 0 && n != 30, raw
	})
	return n
}

// shorter waits until pane 1 has fewer rows than than and returns them.
func (r paneRows) shorter(w *app, round string, than int) int {
	var n int
	w.eventually("pane 1 to get shorter by the banner ("+round+")", func() (bool, string) {
		var raw string
		n, raw = r.last()
		return n > 0 && n < than, fmt.Sprintf("rows %d (%d before):\n%s", n, than, raw)
	})
	return n
}

// refusedSetup starts `paneflow serve` (the window's own binary: a server
// of another build, the nogui CLI TestMain builds without make's version
// stamp, gets the window's version banner, and these tests measure the
// refusal's banner) with pane 1 printing its size on each SIGWINCH and
// exited panes split off it (each next one off the one before, so that
// pane 1 keeps its width), the first focused, and a window attached to it
// with PANEFLOW_UI_PROBE=1.
func refusedSetup(t *testing.T, exited int) (srv, w *app, rows paneRows) {
	x := display(t)
	srv = launch(t, nil, guiBin, []string{"serve", "--size", "100x30", "--socket"}, nil)
	srv.waitPing()
	srv.mustCLI(nil, "send", "1", `trap 'echo SIZE $(stty size)' WINCH; while :; do sleep 1 & wait; done`, "--submit")
	rows.srv = srv
	target := "1"
	for range exited {
		gone := srv.splitShell(target)
		srv.mustCLI(nil, "send", gone, "exit", "--submit")
		srv.eventually("pane "+gone+"'s shell to exit", func() (bool, string) {
			var list struct {
				Surfaces []struct {
					ID     uint64 `json:"surface_id"`
					Exited bool   `json:"exited"`
				} `json:"surfaces"`
			}
			srv.rpc(&list, "surface.list", nil)
			for _, s := range list.Surfaces {
				if strconv.FormatUint(s.ID, 10) == gone {
					return s.Exited, fmt.Sprintf("%+v", list)
				}
			}
			return false, fmt.Sprintf("%+v", list)
		})
		rows.gone = append(rows.gone, gone)
		target = gone
	}
	srv.mustCLI(nil, "focus", rows.gone[0])
	w = windowReady(launchOn(t, x, guiBin, []string{"--attach", "--socket"}, []string{"PANEFLOW_UI_PROBE=1"}, srv.sock))
	return srv, w, rows
}

// bannerProbe is the window's `ui-probe banner` line, in window pixels.
type bannerProbe struct {
	y, height, min, below, closeX, closeY int
	text                                  string
}

var bannerLine = regexp.MustCompile(`^ui-probe banner y=(\d+) height=(\d+) min=(\d+) below=(\d+) close=(\d+),(\d+) text="(.*)"$`)

// typeUntilBanner types into the window's focused pane, pane gone, until
// its banner shows a refusal (a refusal repeated within 2 s is not shown
// again), and checks that the banner names gone's refusal, is at least
// its minimum height and has the content below it.
func typeUntilBanner(t *testing.T, w *app, round, gone string) bannerProbe {
	t.Helper()
	from := w.log.count()
	var l logLine
	w.eventually("the banner ("+round+")", func() (bool, string) {
		w.xdo("windowfocus", "--sync", w.win)
		w.xdo("key", "a")
		var err error
		l, err = w.waitLine(bannerLine, from, 500*time.Millisecond)
		return err == nil, fmt.Sprint(err)
	})
	m := bannerLine.FindStringSubmatch(l.text)
	n := make([]int, 6)
	for i := range n {
		n[i], _ = strconv.Atoi(m[i+1])
	}
	b := bannerProbe{y: n[0], height: n[1], min: n[2], below: n[3], closeX: n[4], closeY: n[5], text: m[7]}
	if want := "refused: surface " + gone + " has exited"; !strings.Contains(b.text, want) {
		t.Errorf("banner (%s) says %q, want it to contain %q", round, b.text, want)
	}
	if b.height < b.min || b.min == 0 || b.below < b.y+b.height {
		t.Errorf("banner (%s) at y=%d, %d px high (its minimum %d), the content below it from y=%d: want it "+
			"at least its minimum height, the content under it", round, b.y, b.height, b.min, b.below)
	}
	return b
}

// movedDown waits until the top of the window shows as in shot moved
// down by at least height pixels, and returns by how much (the least of
// its parts): the sidebar's and the toolbar's top, and pane 1's first
// lines (left of the other panes, whose cursor may blink, and above pane
// 1's new lines). Each part is matched on its own, by the shift at which
// it differs least from shot: a banner a fraction of a pixel high puts the
// widgets below it between pixels, drawn with other edges (under 1 % of a
// part's pixels), while the terminal's grid lands on whole pixels.
func movedDown(w *app, shot image.Image, height int, round string) int {
	parts := []image.Rectangle{image.Rect(0, 0, 700, 45), image.Rect(0, 45, 245, 105), image.Rect(255, 50, 700, 105)}
	var least int
	w.eventually("the window's content to move down below the banner ("+round+")", func() (bool, string) {
		img := w.screenshot("banner-" + strings.ReplaceAll(round, " ", "-"))
		least = 3 * height
		for _, r := range parts {
			best, fewest := 0, r.Dx()*r.Dy()
			for by := 0; by <= 3*height && fewest > 0; by++ {
				if n := changed(shot, shifted{img, by}, r, 32); n < fewest {
					best, fewest = by, n
				}
			}
			if best < height || fewest > r.Dx()*r.Dy()/100 {
				return false, fmt.Sprintf("%v matches best moved down %d px (%d pixels differ), want at least %d px "+
					"(screenshot banner-%s)", r, best, fewest, height, round)
			}
			least = min(least, best)
		}
		return true, ""
	})
	return least
}

// shifted is img moved up by dy pixels: shifted{img, dy}.At(x, y) is
// img.At(x, y+dy).
type shifted struct {
	image.Image
	dy int
}

func (s shifted) At(x, y int) color.Color { return s.Image.At(x, y+s.dy) }
