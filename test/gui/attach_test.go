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
	x := display(t)
	// The window's own binary serves: a server of another build (the
	// nogui CLI TestMain builds, without make's version stamp) gets the
	// window's version banner, and this test measures the banner.
	srv := launch(t, nil, guiBin, []string{"serve", "--size", "100x30", "--socket"}, nil)
	srv.waitPing()
	srv.mustCLI(nil, "send", "1", `trap 'echo SIZE $(stty size)' WINCH; while :; do sleep 1 & wait; done`, "--submit")
	gone := srv.splitShell("1")
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
	srv.mustCLI(nil, "focus", gone)
	w := windowReady(launchOn(t, x, guiBin, []string{"--attach", "--socket"}, []string{"PANEFLOW_UI_PROBE=1"}, srv.sock))
	// The window gave the panes its size: pane 1's rows as it lays them
	// out without a banner.
	sizes := regexp.MustCompile(`SIZE (\d+) (\d+)`)
	lastRows := func() (int, string) {
		raw := srv.readRaw("1")
		m := sizes.FindAllStringSubmatch(raw, -1)
		if len(m) == 0 {
			return 0, raw
		}
		n, _ := strconv.Atoi(m[len(m)-1][1])
		return n, raw
	}
	var before int
	w.eventually("pane 1 to get the window's size", func() (bool, string) {
		n, raw := lastRows()
		before = n
		return n != 0 && n != 30, raw
	})
	shot := w.screenshot("before")
	// The same shown twice: the second time after a dismiss, at the size
	// the banner had (Fyne re-lays a window out by itself only when a
	// minimum size changed: the banner was drawn over the toolbar).
	re := regexp.MustCompile(`^ui-probe banner y=(\d+) height=(\d+) min=(\d+) below=(\d+) close=(\d+),(\d+) text="(.*)"$`)
	for _, round := range []string{"first", "again"} {
		from := w.log.count()
		var l logLine
		// A refusal repeated within 2 s is not shown again: typing goes
		// on until it is.
		w.eventually("the banner ("+round+")", func() (bool, string) {
			w.xdo("windowfocus", "--sync", w.win)
			w.xdo("key", "a")
			var err error
			l, err = w.waitLine(re, from, 500*time.Millisecond)
			return err == nil, fmt.Sprint(err)
		})
		m := re.FindStringSubmatch(l.text)
		n := make([]int, 6)
		for i := range n {
			n[i], _ = strconv.Atoi(m[i+1])
		}
		y, height, minH, below, text := n[0], n[1], n[2], n[3], m[7]
		if want := "refused: surface " + gone + " has exited"; !strings.Contains(text, want) {
			t.Errorf("banner (%s) says %q, want it to contain %q", round, text, want)
		}
		if height < minH || minH == 0 || below < y+height {
			t.Errorf("banner (%s) at y=%d, %d px high (its minimum %d), the content below it from y=%d: want it "+
				"at least its minimum height, the content under it", round, y, height, minH, below)
		}
		var after int
		w.eventually("pane 1 to get shorter by the banner ("+round+")", func() (bool, string) {
			n, raw := lastRows()
			after = n
			return n > 0 && n < before, fmt.Sprintf("rows %d (before the banner %d):\n%s", n, before, raw)
		})
		// On screen: the top of the sidebar, the toolbar and pane 1's
		// first lines (left of pane 2, whose cursor blinks; above pane
		// 1's new lines) moved down together, by at least the banner's
		// height.
		top := image.Rect(0, 0, 700, 105)
		var by int
		w.eventually("the window's content to move down below the banner ("+round+")", func() (bool, string) {
			img := w.screenshot("banner-" + round)
			for by = height; by <= 3*height; by++ {
				if changed(shot, shifted{img, by}, top, 0) == 0 {
					return true, ""
				}
			}
			return false, "no shift matches (screenshot banner-" + round + ")"
		})
		t.Logf("banner (%s): %q at y=%d, %d px high; the content moved down %d px; pane 1: %d rows before it, %d after",
			round, text, y, height, by, before, after)
		// Dismissed: the panes get their height back.
		w.click(n[4], n[5])
		w.eventually("pane 1 to get its height back after the dismiss ("+round+")", func() (bool, string) {
			n, raw := lastRows()
			return n == before, fmt.Sprintf("rows %d, %d before the banner:\n%s", n, before, raw)
		})
	}
}

// shifted is img moved up by dy pixels: shifted{img, dy}.At(x, y) is
// img.At(x, y+dy).
type shifted struct {
	image.Image
	dy int
}

func (s shifted) At(x, y int) color.Color { return s.Image.At(x, y+s.dy) }
