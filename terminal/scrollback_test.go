package terminal

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// all returns scrollback plus screen, right-trimmed, trailing empty rows dropped.
func (e *emu) all() []string {
	lines := e.Lines(0, e.HistoryLen()+1000)
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func seqLines(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, fmt.Sprint(i))
	}
	return out
}

func feedSeq(e *emu, from, to int) {
	for i := from; i <= to; i++ {
		e.feed(fmt.Sprintf("%d\r\n", i))
	}
}

func TestScrollback(t *testing.T) {
	t.Run("lines scroll into history", func(t *testing.T) {
		e := newEmu(t, 10, 3)
		feedSeq(e, 1, 5)
		if got, want := e.HistoryLen(), 3; got != want {
			t.Errorf("HistoryLen = %d, want %d", got, want)
		}
		if diff := cmp.Diff(seqLines(1, 5), e.all()); diff != "" {
			t.Errorf("all lines (-want +got):\n%s", diff)
		}
	})
	t.Run("cap evicts oldest", func(t *testing.T) {
		e := &emu{Emulator: NewEmulator(10, 2, EmulatorOptions{Scrollback: 5})}
		feedSeq(e, 1, 20)
		if got := e.HistoryLen(); got != 5 {
			t.Errorf("HistoryLen = %d, want 5", got)
		}
		if diff := cmp.Diff(seqLines(15, 20), e.all()); diff != "" {
			t.Errorf("lines (-want +got):\n%s", diff)
		}
		if got := e.DroppedLines(); got != 14 {
			t.Errorf("DroppedLines = %d, want 14", got)
		}
	})
	t.Run("no scrollback", func(t *testing.T) {
		e := &emu{Emulator: NewEmulator(10, 2, EmulatorOptions{Scrollback: NoScrollback})}
		feedSeq(e, 1, 20)
		if got := e.HistoryLen(); got != 0 {
			t.Errorf("HistoryLen = %d, want 0", got)
		}
	})
	t.Run("styles survive the round trip", func(t *testing.T) {
		e := newEmu(t, 20, 2)
		e.feed("\x1b[1;31mred\x1b[0m plain \x1b[38;2;1;2;3m日本\x1b[0me\u0301\r\n\r\n\r\n")
		e.Resize(20, 5) // pulls the line back from history
		var s Snapshot
		e.Snapshot(&s)
		row := s.Row(0)
		if row[0].Fg != IndexedColor(1) || row[0].Attrs&AttrBold == 0 {
			t.Errorf("cell 0 style = %+v, want bold red", row[0].Style)
		}
		if row[4].Style != (Style{}) {
			t.Errorf("cell 4 style = %+v, want plain", row[4].Style)
		}
		if row[10].Fg != RGBColor(1, 2, 3) || row[10].Width() != 2 || row[11].Width() != 0 {
			t.Errorf("wide cell = %+v w%d/%d", row[10], row[10].Width(), row[11].Width())
		}
		if got := s.Grapheme(row[14]); got != "e\u0301" {
			t.Errorf("cluster = %q, want e + U+0301", got)
		}
		if got := s.RowText(0); got != "red plain 日本e\u0301" {
			t.Errorf("row text = %q", got)
		}
	})
	t.Run("ed 2 keeps the screen in scrollback", func(t *testing.T) {
		e := newEmu(t, 10, 3).feed("a\r\nb\x1b[2J")
		if diff := cmp.Diff([]string{"a", "b"}, e.Lines(0, e.HistoryLen())); diff != "" {
			t.Errorf("history (-want +got):\n%s", diff)
		}
	})
	t.Run("ed 3 clears scrollback", func(t *testing.T) {
		e := newEmu(t, 10, 2)
		feedSeq(e, 1, 5)
		e.feed("\x1b[3J")
		if got := e.HistoryLen(); got != 0 {
			t.Errorf("HistoryLen = %d, want 0", got)
		}
	})
	t.Run("scroll region does not feed history", func(t *testing.T) {
		e := newEmu(t, 10, 4).feed("\x1b[1;3r")
		feedSeq(e, 1, 10)
		if got := e.HistoryLen(); got != 8 {
			t.Errorf("HistoryLen = %d, want 8 (region from top row scrolls into history)", got)
		}
		e = newEmu(t, 10, 4).feed("\x1b[2;3r\x1b[2;1H")
		feedSeq(e, 1, 10)
		if got := e.HistoryLen(); got != 0 {
			t.Errorf("HistoryLen = %d, want 0 for a region not at the top", got)
		}
	})
}

func TestReflow(t *testing.T) {
	long := strings.Repeat("abcdefghij", 5) // 50 chars
	t.Run("shrink then grow restores lines", func(t *testing.T) {
		e := newEmu(t, 80, 10).feed("short\r\n" + long + "\r\n日本語のテキスト\r\n$ ")
		before := e.all()
		e.Resize(20, 10)
		want := []string{"short", long[:20], long[20:40], long[40:], "日本語のテキスト", "$"}
		if diff := cmp.Diff(want, e.all()); diff != "" {
			t.Errorf("at 20 cols (-want +got):\n%s", diff)
		}
		e.Resize(7, 10)
		e.Resize(80, 10)
		if diff := cmp.Diff(before, e.all()); diff != "" {
			t.Errorf("after shrink+grow (-want +got):\n%s", diff)
		}
		if c := e.Cursor(); c.X != 2 || c.Y != 3 {
			t.Errorf("cursor = (%d,%d), want (2,3)", c.X, c.Y)
		}
	})
	t.Run("wide char moves to next row", func(t *testing.T) {
		e := newEmu(t, 10, 5).feed("abcd日本")
		e.Resize(5, 5)
		if diff := cmp.Diff([]string{"abcd", "日本"}, e.all()); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		e.Resize(10, 5)
		if diff := cmp.Diff([]string{"abcd日本"}, e.all()); diff != "" {
			t.Errorf("back (-want +got):\n%s", diff)
		}
	})
	t.Run("height shrink pushes to scrollback and grow pulls back", func(t *testing.T) {
		e := newEmu(t, 80, 24)
		feedSeq(e, 1, 30)
		e.feed("$ ")
		screen := e.screen()
		e.Resize(60, 12)
		if got, want := e.screen(), append(seqLines(20, 30), "$"); !cmp.Equal(got, want) {
			t.Errorf("screen at 60x12 = %q, want %q", got, want)
		}
		if diff := cmp.Diff(append(seqLines(1, 30), "$"), e.all()); diff != "" {
			t.Errorf("lost lines (-want +got):\n%s", diff)
		}
		e.Resize(80, 24)
		if diff := cmp.Diff(screen, e.screen()); diff != "" {
			t.Errorf("screen after grow (-want +got):\n%s", diff)
		}
		if c := e.Cursor(); c.X != 2 || c.Y != 23 {
			t.Errorf("cursor = (%d,%d), want (2,23)", c.X, c.Y)
		}
	})
	t.Run("blank rows below cursor are dropped first", func(t *testing.T) {
		e := newEmu(t, 20, 10).feed("a\r\nb\r\n$ ")
		e.Resize(20, 4)
		if got := e.HistoryLen(); got != 0 {
			t.Errorf("HistoryLen = %d, want 0", got)
		}
		if diff := cmp.Diff([]string{"a", "b", "$"}, e.screen()); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("cursor in wrapped line", func(t *testing.T) {
		e := newEmu(t, 10, 5).feed("0123456789abcde")
		e.Resize(5, 5)
		// Just past the end of a full row: shown on its last column with a
		// pending wrap, so the next character starts a new row.
		if c := e.Cursor(); c.X != 4 || c.Y != 2 {
			t.Errorf("cursor = (%d,%d), want (4,2)", c.X, c.Y)
		}
		e.Resize(20, 5)
		if c := e.Cursor(); c.X != 15 || c.Y != 0 {
			t.Errorf("cursor = (%d,%d), want (15,0)", c.X, c.Y)
		}
		e.Resize(5, 5)
		e.feed("f")
		if diff := cmp.Diff([]string{"01234", "56789", "abcde", "f"}, e.all()); diff != "" {
			t.Errorf("print after reflow (-want +got):\n%s", diff)
		}
	})
	t.Run("alt screen is cropped and main reflows", func(t *testing.T) {
		e := newEmu(t, 20, 5).feed(long[:15] + "\x1b[?1049h\x1b[Halt")
		e.Resize(10, 5)
		if diff := cmp.Diff([]string{"alt"}, e.screen()); diff != "" {
			t.Errorf("alt (-want +got):\n%s", diff)
		}
		e.feed("\x1b[?1049l")
		if diff := cmp.Diff([]string{long[:10], long[10:15]}, e.screen()); diff != "" {
			t.Errorf("main (-want +got):\n%s", diff)
		}
	})
	t.Run("tiny sizes", func(t *testing.T) {
		e := newEmu(t, 10, 5).feed("日本語abc\r\nxyz")
		for _, sz := range [][2]int{{1, 1}, {2, 1}, {1, 3}, {0, 0}, {40, 2}} {
			e.Resize(sz[0], sz[1])
		}
		e.Resize(10, 5)
		if diff := cmp.Diff([]string{"日本語abc", "xyz"}, e.all()); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}

func TestReadText(t *testing.T) {
	e := newEmu(t, 10, 3)
	feedSeq(e, 1, 9)
	// History 1..7, screen 8, 9, "".
	tests := []struct {
		lines, offset int
		want          string
		eof           bool
	}{
		{3, 0, "7\n8\n9", false},
		{100, 0, strings.Join(seqLines(1, 9), "\n"), true},
		{2, 2, "6\n7", false},
		{5, 7, "1\n2", true},
		{5, 9, "", true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d@%d", tt.lines, tt.offset), func(t *testing.T) {
			w, err := e.ReadText(tt.lines, tt.offset)
			if err != nil {
				t.Fatal(err)
			}
			if w.Text != tt.want || w.EOF != tt.eof || w.TotalLines != 9 {
				t.Errorf("ReadText = %q eof=%v total=%d, want %q eof=%v total=9", w.Text, w.EOF, w.TotalLines, tt.want, tt.eof)
			}
		})
	}
	if _, err := e.ReadText(5, 10); !errors.Is(err, ErrOffsetRange) {
		t.Errorf("offset past end: err = %v, want ErrOffsetRange", err)
	}
	empty := newEmu(t, 10, 3)
	if w, err := empty.ReadText(10, 0); err != nil || w.Text != "" || w.TotalLines != 0 || !w.EOF {
		t.Errorf("empty = %+v, %v", w, err)
	}
	alt := newEmu(t, 10, 3)
	feedSeq(alt, 1, 9)
	alt.feed("\x1b[?1049h\x1b[Hfull")
	if w, _ := alt.ReadText(100, 0); w.Text != "full" || w.TotalLines != 1 {
		t.Errorf("alt screen read = %+v, want only the alt screen", w)
	}
}

func TestSearch(t *testing.T) {
	e := newEmu(t, 20, 3).feed("Error one\r\nfine\r\nERROR two\r\nok\r\nerror Ünïcode\r\n")
	got, trunc := e.Search("error", 10)
	want := []Match{{-3, "Error one"}, {-1, "ERROR two"}, {1, "error Ünïcode"}}
	if diff := cmp.Diff(want, got); diff != "" || trunc {
		t.Errorf("Search (-want +got):\n%s truncated=%v", diff, trunc)
	}
	got, trunc = e.Search("ÜNÏ", 10)
	if len(got) != 1 || got[0].Line != 1 || trunc {
		t.Errorf("unicode search = %+v, %v", got, trunc)
	}
	got, trunc = e.Search("error", 2)
	if len(got) != 2 || !trunc {
		t.Errorf("capped search = %d matches truncated=%v, want 2 true", len(got), trunc)
	}
}

func TestNotifications(t *testing.T) {
	e := newEmu(t, 10, 3)
	gen, ch := e.Watch()
	select {
	case <-ch:
		t.Fatal("changed closed before any output")
	default:
	}
	e.feed("x")
	select {
	case <-ch:
	default:
		t.Fatal("changed not closed after output")
	}
	if g := e.Generation(); g <= gen {
		t.Errorf("generation %d did not advance past %d", g, gen)
	}
	_, ch = e.Watch()
	e.Resize(5, 5)
	select {
	case <-ch:
	default:
		t.Fatal("changed not closed after resize")
	}
}

func TestClearScrollbackAndReset(t *testing.T) {
	t.Run("clear scrollback", func(t *testing.T) {
		e := newEmu(t, 10, 2)
		e.feed("one\r\ntwo\r\nthree\r\nfour")
		if n := e.HistoryLen(); n != 2 {
			t.Fatalf("history before = %d lines, want 2", n)
		}
		gen, changed := e.Watch()
		e.ClearScrollback()
		if n := e.HistoryLen(); n != 0 {
			t.Errorf("history after ClearScrollback = %d lines, want 0", n)
		}
		if got, want := e.screen(), []string{"three", "four"}; !slices.Equal(got, want) {
			t.Errorf("screen after ClearScrollback = %q, want %q (unchanged)", got, want)
		}
		select {
		case <-changed:
		default:
			t.Error("ClearScrollback did not signal watchers")
		}
		if g := e.Generation(); g <= gen {
			t.Errorf("generation %d after ClearScrollback, want > %d", g, gen)
		}
	})
	t.Run("reset", func(t *testing.T) {
		e := newEmu(t, 10, 2)
		e.feed("one\r\ntwo\r\nthree\x1b]2;title\x07\x1b[?1h\x1b[?1049hALT")
		_, changed := e.Watch()
		e.Reset()
		if e.AltScreen() || e.HistoryLen() != 0 || e.Title() != "" || e.Modes().AppCursor || len(e.screen()) != 0 {
			t.Errorf("after Reset: alt %v, history %d, title %q, app cursor %v, screen %q; want the power-on state",
				e.AltScreen(), e.HistoryLen(), e.Title(), e.Modes().AppCursor, e.screen())
		}
		if c := e.Cursor(); c.X != 0 || c.Y != 0 {
			t.Errorf("cursor at %d,%d after Reset, want 0,0", c.X, c.Y)
		}
		select {
		case <-changed:
		default:
			t.Error("Reset did not signal watchers")
		}
		e.feed("ok")
		if got := e.screen(); !slices.Equal(got, []string{"ok"}) {
			t.Errorf("output after Reset = %q, want [ok]", got)
		}
	})
}
