package termview

import (
	"fmt"
	"testing"

	"fyne.io/fyne/v2"

	"github.com/paneflow-go/paneflow/app/render"
)

// TestReveal: a line found by a search is scrolled into view and its
// match highlighted as the current one, even after more output moved it;
// a key press drops the highlight; a line whose text is gone is not
// shown.
func TestReveal(t *testing.T) {
	h := newHarness(t, 30, 5, Options{})
	h.p.write("first\r\n")
	h.p.write("a needle here\r\n")
	for i := range 20 {
		h.p.write(fmt.Sprintf("filler %d\r\n", i))
	}
	h.p.write("last")
	h.settle()
	// The line as the search saw it: the scrollback's newest is -1.
	hist := h.p.emu.HistoryLen()
	line := 1 - hist
	// More output moves it one line further up before the jump.
	h.output("\r\nmore")

	if !h.v.Reveal(line, "a needle here", [][2]int{{2, 8}}) {
		t.Fatal("Reveal did not find the line")
	}
	if h.v.Offset() == 0 {
		t.Fatal("the view did not scroll back to the line")
	}
	got, ok := h.v.Revealed()
	if want := line - 1; !ok || got != want {
		t.Fatalf("Revealed() = %d, %v; want %d, true (the line moved up one)", got, ok, want)
	}
	h.v.mu.Lock()
	top := h.v.topLineLocked()
	matches, cur := append([]render.Span(nil), h.v.ov.Matches...), h.v.ov.Current
	h.v.mu.Unlock()
	row := h.v.mark.line - top
	want := []render.Span{{Row: row, Col0: 2, Col1: 8}}
	if fmt.Sprint(matches) != fmt.Sprint(want) || cur != 0 {
		t.Fatalf("highlight %v current %d; want %v current 0", matches, cur, want)
	}
	// Nothing left the scrollback: absolute lines are Lines' indexes.
	if l := h.v.pane.Lines(h.v.mark.line, h.v.mark.line+1); len(l) != 1 || l[0] != "a needle here" {
		t.Fatalf("marked line reads %q", l)
	}

	h.v.KeyDown(&fyne.KeyEvent{Name: fyne.KeyA})
	h.v.mu.Lock()
	n := len(h.v.ov.Matches)
	h.v.mu.Unlock()
	if _, ok := h.v.Revealed(); ok || n != 0 {
		t.Fatalf("after a key: marked %v, %d spans highlighted; want none", ok, n)
	}

	// Text that is nowhere near: nothing happens.
	h.v.ScrollToBottom()
	if h.v.Reveal(line, "not in the pane", [][2]int{{0, 3}}) {
		t.Fatal("Reveal found text the pane does not hold")
	}
	if h.v.Offset() != 0 {
		t.Fatal("a failed Reveal scrolled the view")
	}
}
