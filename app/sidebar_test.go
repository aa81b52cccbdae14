package app

import (
	"fmt"
	"image"
	"image/color"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// agentCards is two workspace cards of n agent panes each, all thinking.
func agentCards(n int) []workspaceCard {
	cards := make([]workspaceCard, 2)
	for i := range cards {
		cards[i] = workspaceCard{Index: i, ID: uint64(i + 1), Title: fmt.Sprintf("ws%d", i+1), Cwd: "/src", Active: i == 0, Agents: n}
		for j := range n {
			id := uint64(100*(i+1) + j)
			cards[i].Panes = append(cards[i].Panes, paneRow{ID: id, Name: fmt.Sprintf("agent%d", id), Cmd: "claude", Glyph: "◐", Status: "thinking"})
		}
	}
	return cards
}

// cloneCards copies cards deeply enough to change a pane row.
func cloneCards(cards []workspaceCard) []workspaceCard {
	out := slices.Clone(cards)
	for i := range out {
		out[i].Panes = slices.Clone(out[i].Panes)
	}
	return out
}

// shownObjects is the widget of each shown card and of each of its body's
// lines (header lines, then pane rows), by workspace ID.
func shownObjects(sb *sidebar) map[uint64][]fyne.CanvasObject {
	out := map[uint64][]fyne.CanvasObject{}
	for _, o := range sb.list.Objects {
		for id, cv := range sb.views {
			if cv.box == o {
				out[id] = append([]fyne.CanvasObject{cv.box}, cv.body.Objects...)
			}
		}
	}
	return out
}

// sidebarTexts is every canvas text drawn in o, in order.
func sidebarTexts(o fyne.CanvasObject) []*canvas.Text { return canvasTexts(o) }

// TestSidebarRebuildsOnlyChangedRows checks that an agent state change
// rebuilds that pane's row only: the other card, the card's own widget
// and the other rows are the same objects as before, and the changed row
// is laid out where the old one was, pushing the rows below it down.
func TestSidebarRebuildsOnlyChangedRows(t *testing.T) {
	test.NewTempApp(t)
	var tappedWS []int
	sb := newSidebar(func(i int) { tappedWS = append(tappedWS, i) }, func(uint64) {}, func() {}, func() {}, "")
	w := test.NewWindow(sb.root)
	defer w.Close()
	w.Resize(fyne.NewSize(sidebarWidth, 4000))

	cards := agentCards(50)
	sb.update(cards)
	before := shownObjects(sb)
	if len(before) != 2 || len(before[1]) != 1+2+50 || len(before[2]) != 1+2+50 {
		t.Fatalf("shown: %d cards", len(before))
	}
	rowY := func(ws uint64, i int) float32 { return sb.views[ws].body.Objects[2+i].Position().Y }
	nextY := rowY(1, 8)

	// Pane 7 of the first workspace starts waiting: its row gets a bold
	// status line in another colour.
	changed := cloneCards(cards)
	changed[0].Panes[7].Glyph, changed[0].Panes[7].Status, changed[0].Panes[7].Waiting = "?", "waiting: Allow edit?", true
	sb.update(changed)
	after := shownObjects(sb)
	if !slices.Equal(after[2], before[2]) {
		t.Error("the unchanged card's widgets were rebuilt")
	}
	for i, o := range after[1] {
		if same := o == before[1][i]; same != (i != 1+2+7) {
			t.Errorf("card 1 line %d: same object = %v", i, same)
		}
	}
	var status *canvas.Text
	for _, tx := range sidebarTexts(after[1][1+2+7]) {
		if tx.Text == "    ? waiting: Allow edit?" {
			status = tx
		}
	}
	if status == nil || !status.TextStyle.Bold {
		t.Fatalf("the changed row does not show the waiting status: %v", status)
	}
	if got := rowY(1, 7); got != before[1][1+2+7].Position().Y {
		t.Errorf("the new row is at y=%v, the old one was at %v", got, before[1][1+2+7].Position().Y)
	}
	if rowY(1, 8) != nextY {
		// Same line count (the status line only changed text): nothing moves.
		t.Errorf("row 8 moved from %v to %v", nextY, rowY(1, 8))
	}

	// A pane row losing its status line shrinks; the rows below move up,
	// and the second card follows the first one's new height.
	card2Y := sb.views[2].box.Position().Y
	shrunk := cloneCards(changed)
	shrunk[0].Panes[3].Glyph, shrunk[0].Panes[3].Status = "", ""
	sb.update(shrunk)
	if got := rowY(1, 8); got >= nextY {
		t.Errorf("row 8 did not move up after row 3 shrank: y=%v, was %v", got, nextY)
	}
	if got := sb.views[2].box.Position().Y; got >= card2Y {
		t.Errorf("card 2 did not move up: y=%v, was %v", got, card2Y)
	}
	if got, want := sb.views[1].body.Size().Height, sb.views[1].body.MinSize().Height; got != want {
		t.Errorf("card 1's body is %v high, its content needs %v", got, want)
	}

	// The first workspace closes: the second keeps its rows, its header
	// says 1, and a tap on it selects index 0.
	sb.update([]workspaceCard{func() workspaceCard { c := shrunk[1]; c.Index = 0; return c }()})
	last := shownObjects(sb)
	if !slices.Equal(last[2][3:], before[2][3:]) || last[2][0] != before[2][0] {
		t.Error("the remaining card's pane rows were rebuilt")
	}
	if tx := sidebarTexts(last[2][1]); len(tx) != 1 || tx[0].Text != "1  ws2  ●" {
		t.Errorf("header = %v", tx)
	}
	test.Tap(sb.views[2].box)
	if !slices.Equal(tappedWS, []int{0}) {
		t.Errorf("tapped workspaces = %v", tappedWS)
	}

	// reset (a theme change) builds everything anew.
	sb.reset()
	sb.update(shrunk)
	for id, objs := range shownObjects(sb) {
		for i, o := range objs {
			if slices.Contains(before[id], o) || slices.Contains(last[id], o) {
				t.Errorf("card %d line %d survived reset", id, i)
			}
		}
	}
}

// culledRows returns, for the pane rows of workspace ws in order,
// whether each is culled, checked through what its renderer gives Fyne's
// walks.
func culledRows(sb *sidebar, ws uint64) []bool {
	var out []bool
	for _, o := range sb.views[ws].body.Objects {
		if b, ok := o.(*tapBox); ok {
			out = append(out, len(test.WidgetRenderer(b).Objects()) == 0)
		}
	}
	return out
}

// colourPixels counts the pixels of img that are exactly c.
func colourPixels(img image.Image, c color.Color) int {
	want := color.NRGBAModel.Convert(c).(color.NRGBA)
	n := 0
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			if color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA) == want {
				n++
			}
		}
	}
	return n
}

// TestSidebarCullsRowsOutOfView checks that the pane rows scrolled out of
// the sidebar's view are left out of Fyne's walks (culled) while those in
// view are not, that scrolling and a taller window show rows again, and
// that a culled row still follows its pane: an agent starting to wait
// there shows its waiting line once scrolled into view.
func TestSidebarCullsRowsOutOfView(t *testing.T) {
	test.NewTempApp(t)
	sb := newSidebar(func(int) {}, func(uint64) {}, func() {}, func() {}, "")
	w := test.NewWindow(sb.root)
	defer w.Close()
	w.Resize(fyne.NewSize(sidebarWidth, 600))

	cards := agentCards(50)
	sb.update(cards)
	first, second := culledRows(sb, 1), culledRows(sb, 2)
	if len(first) != 50 || len(second) != 50 {
		t.Fatalf("rows: %d and %d", len(first), len(second))
	}
	if first[0] || first[1] {
		t.Errorf("the first rows in view are culled: %v", first[:5])
	}
	if !first[49] || slices.Contains(second, false) {
		t.Errorf("rows out of view are drawn: first card's last %v, second card %v", first[49], second)
	}
	inView := slices.Index(first, true)
	if inView < 3 || inView > 20 {
		t.Errorf("%d rows in view of a 600-unit window", inView)
	}

	// An agent of the second card, out of view, starts waiting: its row
	// is rebuilt, culled, and not drawn.
	waiting := cloneCards(cards)
	waiting[1].Panes[30].Glyph, waiting[1].Panes[30].Status, waiting[1].Panes[30].Waiting = "?", "waiting: Allow edit?", true
	sb.update(waiting)
	warn := theme.Color(theme.ColorNameWarning)
	if !culledRows(sb, 2)[30] {
		t.Error("the changed row out of view is drawn")
	}
	if n := colourPixels(w.Canvas().Capture(), warn); n != 0 {
		t.Errorf("%d pixels in the waiting colour before the row is in view", n)
	}

	// Scrolling to it draws it, with its waiting line, and culls the top.
	row := sb.views[2].body.Objects[2+30]
	y := sb.views[2].box.Position().Y + sb.views[2].body.Position().Y + row.Position().Y
	sb.scroll.Scrolled(&fyne.ScrollEvent{Scrolled: fyne.NewDelta(0, -(y - 100))})
	if culledRows(sb, 2)[30] {
		t.Fatalf("row 30 of the second card is culled after scrolling to it (offset %v, row at %v)", sb.scroll.Offset, y)
	}
	if !culledRows(sb, 1)[0] {
		t.Error("the first row, now out of view, is drawn")
	}
	if n := colourPixels(w.Canvas().Capture(), warn); n == 0 {
		t.Error("the waiting line is not drawn once in view")
	}

	// Back to the top, then a taller window shows more rows.
	sb.scroll.Scrolled(&fyne.ScrollEvent{Scrolled: fyne.NewDelta(0, 1e6)})
	before := slices.Index(culledRows(sb, 1), true)
	w.Resize(fyne.NewSize(sidebarWidth, 1200))
	if after := slices.Index(culledRows(sb, 1), true); after <= before {
		t.Errorf("rows in view: %d in a 600-unit window, %d in a 1200-unit one", before, after)
	}
}

// TestSidebarPathKeepsItsEnd: a path too long for the sidebar keeps its
// last directory (the line's end was cut, and with it the directory's name).
func TestSidebarPathKeepsItsEnd(t *testing.T) {
	test.NewTempApp(t)
	sb := newSidebar(func(int) {}, func(uint64) {}, func() {}, func() {}, "")
	for _, p := range []paneRow{
		{ID: 1, Name: "shell", Cmd: "/bin/bash -l", Cwd: "/srv/projects/customer-portal/services/billing-worker"},
		{ID: 2, Name: "claude", Cmd: "claude --dangerously-skip-permissions --model opus", Cwd: "/srv/projects/customer-portal/billing-worker"},
	} {
		found := false
		for _, tx := range sidebarTexts(sb.paneRow(p)) {
			if strings.HasSuffix(tx.Text, "/billing-worker") {
				found = true
			}
		}
		if !found {
			var got []string
			for _, tx := range sidebarTexts(sb.paneRow(p)) {
				got = append(got, tx.Text)
			}
			t.Errorf("row of %q in %s shows %q: the directory's name is cut", p.Cmd, p.Cwd, got)
		}
	}
}
