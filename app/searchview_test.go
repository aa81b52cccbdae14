//go:build !windows

package app

import (
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"

	"github.com/paneflow-go/paneflow/proto"
)

// historyPanes prepares two panes for the search: the first prints a
// line with "NEEDLE" and then 300 more, so that it is in the scrollback;
// the second runs a full-screen program whose first screen says
// "NEEDLEHIST" and whose second does not, then leaves the full screen,
// so that the first screen is only in the pane's screen history. Neither
// command line has the word (the shell echoes them). It returns both
// panes' ids.
func historyPanes(h *harness) (first, second uint64) {
	h.t.Helper()
	first, second = h.twoPanes()
	fillHistory(h, first, second)
	return first, second
}

// fillHistory is historyPanes' output, in panes first and second.
func fillHistory(h *harness, first, second uint64) {
	h.t.Helper()
	if err := h.s.b.Paste(first, `echo "alpha NEE""DLE one"; i=0; while [ $i -lt 300 ]; do echo filler $i; i=$((i+1)); done; echo printed-all`, true); err != nil {
		h.t.Fatal(err)
	}
	if err := h.s.b.Paste(second, `printf '\033[?1049h\033[HNEE%sHIST on screen one\n' DLE; read a; printf '\033[2J\033[Hscreen two\n'; read b; printf '\033[?1049lleft-full-screen\n'`, true); err != nil {
		h.t.Fatal(err)
	}
	h.waitFor("the first screen held", func() bool { return heldScreens(h, second) == 1 })
	if err := h.s.b.Paste(second, "", true); err != nil {
		h.t.Fatal(err)
	}
	h.waitFor("the second screen held", func() bool { return heldScreens(h, second) == 2 })
	if err := h.s.b.Paste(second, "", true); err != nil {
		h.t.Fatal(err)
	}
	waitPane(h.t, h.c.SocketPath, first, "printed-all")
	waitPane(h.t, h.c.SocketPath, second, "left-full-screen")
}

// heldScreens is how many screens pane id's history holds (0 when it
// cannot be read).
func heldScreens(h *harness, id uint64) int {
	sf, ok := h.c.Workspaces.Surface(id)
	if !ok {
		return 0
	}
	return sf.Terminal().Emulator().ScreenHistory().Len()
}

// searchFor opens the search view with its shortcut, types q and waits
// for n rows.
func searchFor(h *harness, q string, n int) *searchView {
	h.t.Helper()
	var v *searchView
	h.s.guard(func() {
		if !h.key(fyne.KeyS, ctrlShift) {
			h.t.Fatal("Ctrl+Shift+S is not bound")
		}
		v = shownPanelAs[*searchView](h.s)
	})
	if v == nil {
		h.t.Fatal("Ctrl+Shift+S did not open the search view")
	}
	typeInto(h, v.list.query, q)
	// Each rune typed searches: wait for the answer to the whole query.
	h.waitFor(fmt.Sprintf("%d rows for %q", n, q), func() bool { return v.shown == q && len(v.rows) == n })
	return v
}

func TestSearchViewJumps(t *testing.T) { searchViewJumps(t, newHarness(t, nil)) }

// TestAttachedSearchViewJumps: the same through a window attached to the
// server over its socket.
func TestAttachedSearchViewJumps(t *testing.T) { searchViewJumps(t, newAttachedHarness(t, nil)) }

// searchViewJumps: one query finds a line in one pane's scrollback and a
// line only a full-screen program's earlier screen held in another; the
// matches are listed under their panes; activating the first scrolls its
// pane's view to the line, highlighted, and focuses the pane; activating
// the second opens the replay at that screen with the match highlighted,
// and the replay steps to the next screen.
func searchViewJumps(t *testing.T, h *harness) {
	first, second := historyPanes(h)
	h.s.guard(func() { h.s.focusViewLocked(second) })
	h.s.work.mutate("focus", func() error { return h.s.b.Focus(second) })
	h.waitFor("the second pane focused", func() bool { return h.s.pos.focus == second })

	v := searchFor(h, "needle", 4)
	h.s.guard(func() {
		r := v.rows
		if r[0].match != nil || r[0].pane.SurfaceID != first || r[1].match == nil || r[1].match.Source != proto.SourceScrollback ||
			r[2].match != nil || r[2].pane.SurfaceID != second || r[3].match == nil || r[3].match.Source != proto.SourceHistory ||
			r[3].match.Screen == nil || *r[3].match.Screen != 1 {
			t.Fatalf("rows %s; want pane %d's header and scrollback match, then pane %d's header and history screen 1 match", describeRows(r), first, second)
		}
		if !strings.Contains(v.status.Text, "2 matching lines in 2 of 2 panes, ignoring case") {
			t.Fatalf("status %q", v.status.Text)
		}
	})
	// Smart case: an upper-case letter matches case.
	typeInto(h, v.list.query, "X")
	h.waitFor("no match for needleX", func() bool {
		return v.shown == "needleX" && len(v.rows) == 0 && strings.HasPrefix(v.status.Text, searchNoMatchText)
	})
	clearEntry(h, v.list.query)
	typeInto(h, v.list.query, "NEEDLEHIST")
	h.waitFor("the history match alone", func() bool {
		return v.shown == "NEEDLEHIST" && len(v.rows) == 2 && strings.HasSuffix(v.status.Text, "matching case")
	})
	h.s.guard(func() { h.s.closeOverlayLocked() })

	// The scrollback match: the view scrolls there, highlighted.
	v = searchFor(h, "needle", 4)
	v.list.activate(1)
	h.waitFor("the jump to the scrollback", func() bool { return shownPanelAs[*searchView](h.s) == nil && h.s.pos.focus == first })
	h.s.guard(func() {
		vw := h.s.panes.views[first]
		line, ok := vw.Revealed()
		if !ok || vw.Offset() == 0 || line >= 0 {
			t.Fatalf("revealed line %d (%v), offset %d; want a scrollback line scrolled to", line, ok, vw.Offset())
		}
	})

	// The history match: the replay opens at screen 1, highlighted.
	v = searchFor(h, "needle", 4)
	v.list.activate(3)
	var rv *replayView
	h.waitFor("the replay at screen 1", func() bool {
		rv = shownPanelAs[*replayView](h.s)
		return shownPanelAs[*searchView](h.s) == nil && rv != nil && len(rv.screens) == 2 && rv.at == 0
	})
	h.s.guard(func() {
		if got := rv.grid.RowText(0); got != "NEEDLEHIST on screen one" {
			t.Fatalf("screen 1 row 0 = %q", got)
		}
		for c := range 10 {
			styled := rv.grid.Rows[0].Cells[c].Style != nil
			if want := c < 6; styled != want {
				t.Fatalf("cell %d highlighted: %v, want %v (the match is columns 0-5)", c, styled, want)
			}
		}
		if !strings.HasPrefix(rv.header.Text, "Screen 1 (1 of 2 held)") || !rv.prev.Disabled() || rv.next.Disabled() {
			t.Fatalf("header %q, previous disabled %v, next disabled %v", rv.header.Text, rv.prev.Disabled(), rv.next.Disabled())
		}
	})
	rv.keys.TypedKey(&fyne.KeyEvent{Name: fyne.KeyRight})
	h.waitFor("the step to screen 2", func() bool { return rv.at == 1 && rv.grid.RowText(0) == "screen two" })
	h.s.guard(func() {
		if !strings.HasPrefix(rv.header.Text, "Screen 2 (2 of 2 held)") || rv.prev.Disabled() || !rv.next.Disabled() {
			t.Fatalf("header %q, previous disabled %v, next disabled %v", rv.header.Text, rv.prev.Disabled(), rv.next.Disabled())
		}
		if rv.grid.Rows[0].Cells[0].Style != nil {
			t.Fatal("screen 2 shows screen 1's highlight")
		}
	})
	rv.keys.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	h.s.guard(func() {
		if shownPanelAs[*replayView](h.s) != nil {
			t.Fatal("Escape did not close the replay")
		}
	})
}

// clearEntry empties e as typeInto types: under the shell's lock, with
// its OnChanged run after.
func clearEntry(h *harness, e *keyEntry) {
	var changed func(string)
	h.s.guard(func() {
		changed, e.OnChanged = e.OnChanged, nil
		e.SetText("")
		e.OnChanged = changed
	})
	if changed != nil {
		changed("")
	}
}

// describeRows is the search view's rows for a failure message.
func describeRows(rows []searchRow) string {
	var b strings.Builder
	for _, r := range rows {
		if r.pane == nil {
			fmt.Fprintf(&b, "[host %s] ", r.host)
		} else if r.match == nil {
			fmt.Fprintf(&b, "[pane %d] ", r.pane.SurfaceID)
		} else {
			fmt.Fprintf(&b, "[%s %d %q] ", r.match.Source, r.match.Line, r.match.Text)
		}
	}
	return b.String()
}

// TestTimelineView: the focused pane's agent turns, newest first, with
// their tools, results and durations; Enter on a turn opens the replay
// at the screen shown in it.
func TestTimelineView(t *testing.T) {
	h := newHarness(t, nil)
	first, second := h.twoPanes()
	// Two turns of an agent in the second pane, told by its hooks: both
	// screens are shown in the first; the second begins after them.
	var ws uint64
	h.waitFor("the pane's workspace", func() bool { ws = h.s.pos.snap.Open[second]; return ws != 0 })
	pid := h.panePID(second) // a live process: the conductor drops the sessions of dead ones
	frame := func(method, extra string) {
		h.t.Helper()
		h.call(method, rawParams(fmt.Sprintf(`{"surface_id":%d,"workspace_id":%d,"tool":"claude","pid":%d%s}`, second, ws, pid, extra)), nil)
	}
	frame("ai.session_start", "")
	frame("ai.prompt_submit", `,"prompt":"run the tests please"`)
	fillHistory(h, first, second)
	frame("ai.tool_use", `,"tool_name":"Bash"`)
	frame("ai.stop", `,"last_result":"Ran the tests"`)
	frame("ai.prompt_submit", "")
	h.s.work.mutate("focus", func() error { return h.s.b.Focus(second) })
	h.waitFor("the second pane focused", func() bool { return h.s.pos.focus == second })

	var v *timelineView
	h.s.guard(func() {
		if !h.key(fyne.KeyH, ctrlShift) {
			t.Fatal("Ctrl+Shift+H is not bound")
		}
		v = shownPanelAs[*timelineView](h.s)
	})
	if v == nil {
		t.Fatal("Ctrl+Shift+H did not open the timeline")
	}
	h.waitFor("two turns", func() bool { return len(v.turns) == 2 })
	h.s.guard(func() {
		newest, oldest := v.turns[0], v.turns[1]
		if newest.Turn <= oldest.Turn || newest.End != "" || oldest.Result != "Ran the tests" || strings.Join(oldest.Tools, ",") != "Bash" ||
			oldest.Prompt != "run the tests please" || newest.Prompt != "" {
			t.Fatalf("turns %+v; want the running one first, then the one that ran Bash with its prompt", v.turns)
		}
		if row := findObject(v.list.rows, func(o fyne.CanvasObject) bool {
			tx, ok := o.(*canvas.Text)
			return ok && tx.Text == "> run the tests please"
		}); row == nil {
			t.Fatal("the turn's row does not show its prompt")
		}
		if title := turnTitle(oldest); !strings.Contains(title, "tools: Bash") || !strings.Contains(title, "claude") {
			t.Fatalf("title %q", title)
		}
		if !strings.Contains(v.status.Text, "2 turns") || !strings.Contains(v.status.Text, "2 screens held") {
			t.Fatalf("status %q", v.status.Text)
		}
	})
	// The filter, on the prompt too.
	typeInto(h, v.list.query, "please")
	h.s.guard(func() {
		if len(v.turns) != 1 || v.turns[0].Result != "Ran the tests" {
			t.Fatalf("filtered turns %+v", v.turns)
		}
	})
	// Enter replays the turn from the first screen shown in it.
	v.list.query.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	var rv *replayView
	h.waitFor("the replay of the turn", func() bool {
		rv = shownPanelAs[*replayView](h.s)
		return shownPanelAs[*timelineView](h.s) == nil && rv != nil && len(rv.screens) == 2 && rv.at == 0
	})
	h.s.guard(func() {
		if !strings.Contains(rv.header.Text, "turn ") || !strings.Contains(rv.header.Text, "(claude)") {
			t.Fatalf("header %q; want the turn's label", rv.header.Text)
		}
	})
	// Quitting with a search in flight: stop cancels it and waits for it
	// (the harness's clean-up quits).
	h.s.guard(func() { h.key(fyne.KeyS, ctrlShift) })
	h.s.guard(func() {
		if shownPanelAs[*searchView](h.s) == nil || shownPanelAs[*replayView](h.s) != nil {
			t.Fatal("Ctrl+Shift+S did not replace the replay with the search")
		}
	})
	typeInto(h, shownPanelAs[*searchView](h.s).list.query, "needle")
}

// rawParams is a JSON object as params.
type rawParams string

// MarshalJSON is the object itself.
func (r rawParams) MarshalJSON() ([]byte, error) { return []byte(r), nil }

// TestMatchSegments: a matching line is cut into its matched and
// unmatched pieces, a long one to a window around its first match; bad
// spans are ignored.
func TestMatchSegments(t *testing.T) {
	long := strings.Repeat("a", 100) + "NEEDLE" + strings.Repeat("b", 100)
	for _, tc := range []struct {
		name  string
		text  string
		spans [][2]int
		most  int
		want  string
	}{
		{"one", "a needle here", [][2]int{{2, 8}}, 80, "a |[needle]| here"},
		{"two", "xx yy xx", [][2]int{{0, 2}, {6, 8}}, 80, "[xx]| yy |[xx]"},
		{"whole", "abc", [][2]int{{0, 3}}, 80, "[abc]"},
		{"out of range", "abc", [][2]int{{2, 9}, {5, 6}}, 80, "ab|[c]"},
		{"not on a rune", "é!", [][2]int{{1, 3}}, 80, "é!"},
		{"long", long, [][2]int{{100, 106}}, 30, "…|" + strings.Repeat("a", 20) + "|[NEEDLE]|" + strings.Repeat("b", 4) + "|…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var parts []string
			for _, sg := range matchSegments(tc.text, tc.spans, tc.most) {
				if sg.hit {
					parts = append(parts, "["+sg.text+"]")
				} else {
					parts = append(parts, sg.text)
				}
			}
			if got := strings.Join(parts, "|"); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
