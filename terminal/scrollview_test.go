package terminal

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// rowTexts returns every row of s as text (right-trimmed).
func rowTexts(s *Snapshot) []string {
	out := make([]string, s.Rows)
	for y := range out {
		out[y] = s.RowText(y)
	}
	return out
}

func TestSnapshotAt(t *testing.T) {
	// 10×3 screen after "1\r\n" … "10\r\n": scrollback holds 1–8, the
	// screen shows 9, 10 and an empty row with the cursor.
	tests := []struct {
		offset     int
		wantOffset int
		want       []string
	}{
		{-5, 0, []string{"9", "10", ""}},
		{0, 0, []string{"9", "10", ""}},
		{1, 1, []string{"8", "9", "10"}},
		{2, 2, []string{"7", "8", "9"}},
		{3, 3, []string{"6", "7", "8"}},
		{5, 5, []string{"4", "5", "6"}},
		{8, 8, []string{"1", "2", "3"}},
		{9, 8, []string{"1", "2", "3"}},
		{1 << 30, 8, []string{"1", "2", "3"}},
	}
	e := newEmu(t, 10, 3)
	feedSeq(e, 1, 10)
	var s Snapshot
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.offset), func(t *testing.T) {
			e.SnapshotAt(&s, tc.offset)
			if diff := cmp.Diff(tc.want, rowTexts(&s)); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
			if s.Offset != tc.wantOffset {
				t.Errorf("Offset = %d, want %d", s.Offset, tc.wantOffset)
			}
			if got, want := s.Cursor.Visible, tc.wantOffset == 0; got != want {
				t.Errorf("Cursor.Visible = %v, want %v", got, want)
			}
			if s.Cols != 10 || s.Rows != 3 || len(s.Cells) != 30 || len(s.Wrapped) != 3 {
				t.Errorf("size %dx%d, %d cells, %d wrapped flags", s.Cols, s.Rows, len(s.Cells), len(s.Wrapped))
			}
			// Rows past the text are blank cells, not leftovers of the
			// previous (longer) snapshot.
			for y := range s.Rows {
				for x, c := range s.Row(y)[len(s.RowText(y)):] {
					if c.Char != 0 && c.Char != ' ' {
						t.Errorf("row %d col %d = %q, want blank", y, x+len(s.RowText(y)), c.Char)
					}
				}
			}
		})
	}
}

func TestSnapshotAtCells(t *testing.T) {
	e := newEmu(t, 8, 2)
	e.feed("\x1b[1;31mred\x1b[0m \x1b[4:3;48;2;1;2;3m中\x1b[0mx\r\n") // styled + wide
	e.feed("e\u0301 \U0001F469\u200d\U0001F4BB\r\n")                 // combining mark + ZWJ emoji
	e.feed("abcdefghij\r\n")                                         // wraps: two rows
	e.feed("live")
	var s Snapshot
	e.SnapshotAt(&s, 4)
	if got, want := rowTexts(&s), []string{"red 中x", "e\u0301 👩\u200d💻"}; !cmp.Equal(got, want) {
		t.Fatalf("rows = %q, want %q", got, want)
	}
	r0 := s.Row(0)
	if c := r0[0]; c.Fg != IndexedColor(1) || c.Attrs&AttrBold == 0 {
		t.Errorf("cell 0,0 style = %+v, want bold red", c.Style)
	}
	if c := r0[3]; c.Style != (Style{}) {
		t.Errorf("cell 3,0 style = %+v, want plain", c.Style)
	}
	if c := r0[4]; s.Grapheme(c) != "中" || c.Width() != 2 || c.Attrs.Underline() != UnderlineCurly || c.Bg != RGBColor(1, 2, 3) {
		t.Errorf("cell 4,0 = %q width %d style %+v, want 中 wide curly on #010203", s.Grapheme(c), c.Width(), c.Style)
	}
	if c := r0[5]; !c.IsWideContinuation() || c.Bg != RGBColor(1, 2, 3) {
		t.Errorf("cell 5,0 = %+v, want the styled continuation of 中", c)
	}
	if c := r0[6]; s.Grapheme(c) != "x" || c.Style != (Style{}) {
		t.Errorf("cell 6,0 = %q %+v, want plain x", s.Grapheme(c), c.Style)
	}
	r1 := s.Row(1)
	if got := s.Grapheme(r1[0]); got != "e\u0301" {
		t.Errorf("cell 0,1 = %q, want e + combining acute", got)
	}
	if c := r1[2]; s.Grapheme(c) != "\U0001F469\u200d\U0001F4BB" || c.Width() != 2 {
		t.Errorf("cell 2,1 = %q width %d, want the ZWJ sequence, wide", s.Grapheme(c), c.Width())
	}

	if s.Offset != 3 {
		t.Errorf("Offset = %d, want 3 (the whole scrollback)", s.Offset)
	}

	e.SnapshotAt(&s, 1) // one history row, then the top of the screen
	if got, want := rowTexts(&s), []string{"abcdefgh", "ij"}; !cmp.Equal(got, want) {
		t.Fatalf("rows = %q, want %q", got, want)
	}
	if !s.Wrapped[0] || s.Wrapped[1] {
		t.Errorf("Wrapped = %v, want [true false]", s.Wrapped)
	}
}

func TestSnapshotAtAltScreen(t *testing.T) {
	e := newEmu(t, 10, 2)
	feedSeq(e, 1, 5)
	e.feed("\x1b[?1049h\x1b[Halt")
	var s Snapshot
	e.SnapshotAt(&s, 3)
	if s.Offset != 0 || !s.AltScreen || !s.Cursor.Visible {
		t.Errorf("Offset %d AltScreen %v Cursor.Visible %v, want 0 true true", s.Offset, s.AltScreen, s.Cursor.Visible)
	}
	if got := s.RowText(0); got != "alt" {
		t.Errorf("row 0 = %q, want alt", got)
	}
	e.feed("\x1b[?1049l")
	e.SnapshotAt(&s, 3)
	if s.Offset != 3 || s.RowText(0) != "2" {
		t.Errorf("after leaving the alt screen: Offset %d row 0 %q, want 3 and \"2\"", s.Offset, s.RowText(0))
	}
}

func TestSnapshotAtCutsWideLines(t *testing.T) {
	// A line stored wider than the screen (the screen narrowed without
	// reflowing the scrollback) is cut; a wide character split by the
	// cut becomes a blank.
	e := newEmu(t, 6, 2)
	var s Snapshot
	e.Snapshot(&s)
	line := e.encodeCells(nil, []Cell{{Char: 'a'}, {Char: 'b'}, {Char: 'c'}, {Char: 'd'}, {Char: 'e'},
		{Char: '中', Style: Style{Attrs: attrWide}}, {Style: Style{Attrs: attrWideCont}}, {Char: 'z'}}, false)
	e.mu.Lock()
	e.hist.pushLine(line)
	e.mu.Unlock()
	e.SnapshotAt(&s, 1)
	if got := s.RowText(0); got != "abcde" {
		t.Errorf("row 0 = %q, want abcde", got)
	}
	if c := s.Row(0)[5]; c.Width() != 1 || c.Char != 0 {
		t.Errorf("last cell = %+v, want a plain blank", c)
	}
}

func TestSnapshotAtAllocs(t *testing.T) {
	e := newEmu(t, 80, 24)
	for i := range 200 {
		e.feed(fmt.Sprintf("\x1b[3%dmline %d\x1b[0m 中文 é\r\n", i%8, i))
	}
	var s Snapshot
	e.SnapshotAt(&s, 100)
	if n := testing.AllocsPerRun(20, func() { e.SnapshotAt(&s, 100) }); n != 0 {
		t.Errorf("SnapshotAt allocates %v times per call, want 0", n)
	}
}

func BenchmarkSnapshotAt(b *testing.B) {
	e := newEmu(b, 200, 50)
	for i := range 500 {
		e.feed(fmt.Sprintf("\x1b[3%d;1mline %d\x1b[0m %s\r\n", i%8, i, "the quick brown fox jumps over the lazy dog "))
	}
	var s Snapshot
	b.ReportAllocs()
	for b.Loop() {
		e.SnapshotAt(&s, 60)
	}
}
