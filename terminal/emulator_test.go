package terminal

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// emu is a test emulator that records replies.
type emu struct {
	*Emulator
	replies []byte
}

func newEmu(t testing.TB, cols, rows int) *emu {
	t.Helper()
	e := &emu{}
	e.Emulator = NewEmulator(cols, rows, EmulatorOptions{Reply: func(p []byte) { e.replies = append(e.replies, p...) }})
	return e
}

func (e *emu) feed(s string) *emu {
	e.Write([]byte(s))
	return e
}

// screen returns the visible rows right-trimmed, with trailing empty rows removed.
func (e *emu) screen() []string {
	lines := e.ScreenLines()
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return nil
	}
	return lines
}

func (e *emu) cell(x, y int) (Cell, string) {
	var s Snapshot
	e.Snapshot(&s)
	c := s.Row(y)[x]
	return c, s.Grapheme(c)
}

func TestScreenText(t *testing.T) {
	tests := []struct {
		name       string
		cols, rows int
		in         string
		want       []string
		cx, cy     int
	}{
		{"plain", 10, 3, "hello", []string{"hello"}, 5, 0},
		{"crlf", 10, 3, "ab\r\ncd", []string{"ab", "cd"}, 2, 1},
		{"lf keeps column", 10, 3, "ab\ncd", []string{"ab", "  cd"}, 4, 1},
		{"pending wrap", 5, 3, "abcde", []string{"abcde"}, 4, 0},
		{"wrap on next char", 5, 3, "abcdef", []string{"abcde", "f"}, 1, 1},
		{"cr cancels wrap", 5, 3, "abcde\rX", []string{"Xbcde"}, 1, 0},
		{"scroll", 5, 2, "1\r\n2\r\n3", []string{"2", "3"}, 1, 1},
		{"backspace", 10, 1, "abc\b\bX", []string{"aXc"}, 2, 0},
		{"tab", 20, 1, "a\tb\tc", []string{"a       b       c"}, 17, 0},
		{"tab stops set and cleared", 20, 1, "\x1b[3g\x1b[5G\x1bH\ra\tb", []string{"a   b"}, 5, 0},
		{"back tab", 20, 1, "\x1b[15G\x1b[Zx", []string{"        x"}, 9, 0},
		{"cup", 10, 5, "\x1b[3;4Hx", []string{"", "", "   x"}, 4, 2},
		{"cup clamps", 10, 5, "\x1b[99;99Hx", []string{"", "", "", "", "         x"}, 9, 4},
		{"cuu cud cuf cub", 10, 5, "\x1b[3;3H\x1b[2A\x1b[3C\x1b[1B\x1b[2Dx", []string{"", "   x"}, 4, 1},
		{"cha vpa", 10, 5, "\x1b[4G\x1b[3dx", []string{"", "", "   x"}, 4, 2},
		{"cnl cpl", 10, 5, "abc\x1b[2Ex\x1b[1Fy", []string{"abc", "y", "x"}, 1, 1},
		{"el right", 10, 1, "abcdef\x1b[3G\x1b[K", []string{"ab"}, 2, 0},
		{"el left", 10, 1, "abcdef\x1b[3G\x1b[1K", []string{"   def"}, 2, 0},
		{"el all", 10, 1, "abcdef\x1b[2K", nil, 6, 0},
		{"ed below", 5, 3, "aaa\r\nbbb\r\nccc\x1b[2;2H\x1b[J", []string{"aaa", "b"}, 1, 1},
		{"ed above", 5, 3, "aaa\r\nbbb\r\nccc\x1b[2;2H\x1b[1J", []string{"", "  b", "ccc"}, 1, 1},
		{"ed all", 5, 3, "aaa\r\nbbb\x1b[2J", nil, 3, 1},
		{"ich", 10, 1, "abcdef\x1b[2G\x1b[2@", []string{"a  bcdef"}, 1, 0},
		{"dch", 10, 1, "abcdef\x1b[2G\x1b[2P", []string{"adef"}, 1, 0},
		{"ech", 10, 1, "abcdef\x1b[2G\x1b[3X", []string{"a   ef"}, 1, 0},
		{"rep", 10, 1, "a\x1b[3b", []string{"aaaa"}, 4, 0},
		{"rep after rep ignored", 10, 1, "a\x1b[2b\x1b[3b", []string{"aaa"}, 3, 0},
		{"il", 5, 4, "1\r\n2\r\n3\r\n4\x1b[2;1H\x1b[L", []string{"1", "", "2", "3"}, 0, 1},
		{"dl", 5, 4, "1\r\n2\r\n3\r\n4\x1b[2;1H\x1b[M", []string{"1", "3", "4"}, 0, 1},
		{"scroll region", 5, 4, "top\x1b[2;3r\x1b[2;1Ha\r\nb\r\nc\x1b[4;1Hbot", []string{"top", "b", "c", "bot"}, 3, 3},
		{"reverse index at top", 5, 3, "a\r\nb\x1b[H\x1bMx", []string{"x", "a", "b"}, 1, 0},
		{"save restore", 10, 3, "\x1b[2;3H\x1b7\x1b[H\x1b8x", []string{"", "  x"}, 3, 1},
		{"scosc scorc", 10, 3, "\x1b[2;3H\x1b[s\x1b[H\x1b[ux", []string{"", "  x"}, 3, 1},
		{"origin mode", 10, 5, "\x1b[2;4r\x1b[?6h\x1b[1;1Hx\x1b[9;1Hy", []string{"", "x", "", "y"}, 1, 3},
		{"autowrap off", 5, 2, "\x1b[?7labcdefg", []string{"abcdg"}, 4, 0},
		{"insert mode", 10, 1, "abc\x1b[2G\x1b[4hXY\x1b[4l", []string{"aXYbc"}, 3, 0},
		{"lnm", 10, 2, "\x1b[20hab\ncd", []string{"ab", "cd"}, 2, 1},
		{"dec graphics", 10, 1, "\x1b(0lqqk\x1b(Bx", []string{"┌──┐x"}, 5, 0},
		{"shift out graphics", 10, 1, "\x1b)0\x0eq\x0fq", []string{"─q"}, 2, 0},
		{"decaln", 3, 2, "\x1b#8", []string{"EEE", "EEE"}, 0, 0},
		{"ris", 10, 2, "abc\x1bc", nil, 0, 0},
		{"utf-8 c1 controls dropped", 10, 1, "a\xc2\x9bb", []string{"ab"}, 2, 0},
		{"invalid utf-8", 10, 1, "a\xffb", []string{"a\ufffdb"}, 3, 0},
		{"del ignored", 10, 1, "a\x7fb", []string{"ab"}, 2, 0},
		{"unknown sequences ignored", 10, 1, "a\x1b[99zb\x1b]999;x\x07c\x1bPqabc\x1b\\d", []string{"abcd"}, 4, 0},
		{"control inside csi", 10, 2, "\x1b[2\nCx", []string{"", "  x"}, 3, 1},
		{"control inside esc", 10, 2, "ab\x1b\r7\x1b[Hc\x1b8x", []string{"xb"}, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEmu(t, tt.cols, tt.rows).feed(tt.in)
			if diff := cmp.Diff(tt.want, e.screen()); diff != "" {
				t.Errorf("screen mismatch (-want +got):\n%s", diff)
			}
			if c := e.Cursor(); c.X != tt.cx || c.Y != tt.cy {
				t.Errorf("cursor = (%d,%d), want (%d,%d)", c.X, c.Y, tt.cx, tt.cy)
			}
		})
	}
}

func TestWideAndGraphemes(t *testing.T) {
	tests := []struct {
		name   string
		cols   int
		in     string
		want   []string
		cx, cy int
	}{
		{"cjk", 10, "日本語", []string{"日本語"}, 6, 0},
		{"emoji", 10, "a😀b", []string{"a😀b"}, 4, 0},
		{"wide wraps at margin", 5, "abcd日", []string{"abcd", "日"}, 2, 1},
		{"wide exactly fits", 6, "abcd日", []string{"abcd日"}, 5, 0},
		{"combining", 10, "e\u0301x", []string{"e\u0301x"}, 2, 0},
		{"combining split across writes", 10, "e\xcc", []string{"e"}, 1, 0},
		{"combining at line start dropped", 10, "\u0301a", []string{"a"}, 1, 0},
		{"zwj family", 10, "👨\u200d👩\u200d👧x", []string{"👨\u200d👩\u200d👧x"}, 3, 0},
		{"flag", 10, "🇫🇷x", []string{"🇫🇷x"}, 3, 0},
		{"two flags", 10, "🇫🇷🇩🇪", []string{"🇫🇷🇩🇪"}, 4, 0},
		{"overwrite right half", 10, "日本\x1b[2Gx", []string{" x本"}, 2, 0},
		{"overwrite left half", 10, "日本\x1b[3Gx", []string{"日x"}, 3, 0},
		{"absolute move over mixed text", 20, "日本語 é 😀 text\x1b[12G#", []string{"日本語 é 😀#text"}, 12, 0},
		{"wide in insert mode", 6, "abcd\x1b[1G\x1b[4h日", []string{"日abcd"}, 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEmu(t, tt.cols, 3).feed(tt.in)
			if diff := cmp.Diff(tt.want, e.screen()); diff != "" {
				t.Errorf("screen mismatch (-want +got):\n%s", diff)
			}
			if c := e.Cursor(); c.X != tt.cx || c.Y != tt.cy {
				t.Errorf("cursor = (%d,%d), want (%d,%d)", c.X, c.Y, tt.cx, tt.cy)
			}
		})
	}
	t.Run("split utf-8 completes", func(t *testing.T) {
		e := newEmu(t, 10, 1).feed("a\xe6\x97").feed("\xa5b")
		if got := e.screen(); !cmp.Equal(got, []string{"a日b"}) {
			t.Errorf("screen = %q, want %q", got, "a日b")
		}
	})
	t.Run("combining joins across writes", func(t *testing.T) {
		e := newEmu(t, 10, 1).feed("e").feed("\u0301")
		c, g := e.cell(0, 0)
		if g != "e\u0301" || c.Width() != 1 {
			t.Errorf("cell = %q width %d, want %q width 1", g, c.Width(), "e\u0301")
		}
	})
	t.Run("wide cell widths", func(t *testing.T) {
		e := newEmu(t, 10, 1).feed("日")
		c0, _ := e.cell(0, 0)
		c1, g1 := e.cell(1, 0)
		if c0.Width() != 2 || c1.Width() != 0 || g1 != "" {
			t.Errorf("widths = %d,%d (%q), want 2,0 (\"\")", c0.Width(), c1.Width(), g1)
		}
	})
}

func TestSGR(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Style
	}{
		{"bold italic", "\x1b[1;3m", Style{Attrs: AttrBold | AttrItalic}},
		{"all attrs", "\x1b[1;2;3;5;7;8;9;53m", Style{Attrs: AttrBold | AttrFaint | AttrItalic | AttrBlink | AttrInverse | AttrHidden | AttrStrike | AttrOverline}},
		{"reset", "\x1b[1;31m\x1b[0m", Style{}},
		{"empty is reset", "\x1b[1;31m\x1b[m", Style{}},
		{"ansi colours", "\x1b[31;42m", Style{Fg: IndexedColor(1), Bg: IndexedColor(2)}},
		{"bright colours", "\x1b[91;102m", Style{Fg: IndexedColor(9), Bg: IndexedColor(10)}},
		{"256", "\x1b[38;5;196;48;5;21m", Style{Fg: IndexedColor(196), Bg: IndexedColor(21)}},
		{"truecolor", "\x1b[38;2;1;2;3;48;2;4;5;6m", Style{Fg: RGBColor(1, 2, 3), Bg: RGBColor(4, 5, 6)}},
		{"colon 256", "\x1b[38:5:100m", Style{Fg: IndexedColor(100)}},
		{"colon truecolor with colourspace", "\x1b[38:2::10:20:30m", Style{Fg: RGBColor(10, 20, 30)}},
		{"colon truecolor without colourspace", "\x1b[48:2:10:20:30m", Style{Bg: RGBColor(10, 20, 30)}},
		{"colon then more params", "\x1b[38:2::1:2:3;1m", Style{Fg: RGBColor(1, 2, 3), Attrs: AttrBold}},
		{"underline styles", "\x1b[4:3m", Style{Attrs: Attr(0).withUnderline(UnderlineCurly)}},
		{"underline off via 4:0", "\x1b[4m\x1b[4:0m", Style{}},
		{"double underline", "\x1b[21m", Style{Attrs: Attr(0).withUnderline(UnderlineDouble)}},
		{"underline colour", "\x1b[4;58:2::255:0:0m", Style{Underline: RGBColor(255, 0, 0), Attrs: Attr(0).withUnderline(UnderlineSingle)}},
		{"default colours", "\x1b[31;41m\x1b[39;49m", Style{}},
		{"attribute resets", "\x1b[1;2;3;4;5;7;8;9m\x1b[22;23;24;25;27;28;29m", Style{}},
		{"truncated extended colour keeps old", "\x1b[31m\x1b[38;5m", Style{Fg: IndexedColor(1)}},
		{"huge values clamp", "\x1b[38;5;99999m", Style{Fg: IndexedColor(255)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEmu(t, 10, 1).feed(tt.in + "x")
			c, _ := e.cell(0, 0)
			if diff := cmp.Diff(tt.want, c.Style); diff != "" {
				t.Errorf("style mismatch (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("erase uses background", func(t *testing.T) {
		e := newEmu(t, 5, 1).feed("\x1b[44m\x1b[2K")
		c, _ := e.cell(4, 0)
		if c.Bg != IndexedColor(4) {
			t.Errorf("erased bg = %v, want idx(4)", c.Bg)
		}
	})
}

func TestModesAndReplies(t *testing.T) {
	t.Run("input modes", func(t *testing.T) {
		e := newEmu(t, 10, 2).feed("\x1b[?1h\x1b=\x1b[?2004h\x1b[?1004h\x1b[?1002h\x1b[?1006h\x1b[?1007h")
		want := InputModes{AppCursor: true, AppKeypad: true, BracketedPaste: true, FocusEvents: true, Mouse: MouseDrag, MouseEnc: MouseEncSGR, AltScroll: true}
		if got := e.Modes(); got != want {
			t.Errorf("modes = %+v, want %+v", got, want)
		}
		e.feed("\x1b[?1l\x1b>\x1b[?2004l\x1b[?1004l\x1b[?1002l\x1b[?1006l\x1b[?1007l")
		if got := e.Modes(); got != (InputModes{}) {
			t.Errorf("modes after reset = %+v, want zero", got)
		}
	})
	t.Run("mouse modes replace each other", func(t *testing.T) {
		e := newEmu(t, 10, 2).feed("\x1b[?1000h\x1b[?1003h\x1b[?1000l")
		if got := e.Modes().Mouse; got != MouseAny {
			t.Errorf("mouse = %v, want MouseAny", got)
		}
	})
	t.Run("cursor", func(t *testing.T) {
		e := newEmu(t, 10, 2).feed("\x1b[?25l\x1b[5 q")
		if c := e.Cursor(); c.Visible || c.Shape != CursorBar || !c.Blink {
			t.Errorf("cursor = %+v, want hidden blinking bar", c)
		}
		e.feed("\x1b[?25h\x1b[2 q")
		if c := e.Cursor(); !c.Visible || c.Shape != CursorBlock || c.Blink {
			t.Errorf("cursor = %+v, want visible steady block", c)
		}
	})
	replies := []struct {
		name, in, want string
	}{
		{"da1", "\x1b[c", "\x1b[?64;6;17;21;22;28c"},
		{"da2", "\x1b[>c", "\x1b[>1;10;0c"},
		{"dsr", "\x1b[5n", "\x1b[0n"},
		{"cpr", "\x1b[3;7H\x1b[6n", "\x1b[3;7R"},
		{"cpr origin", "\x1b[2;4r\x1b[?6h\x1b[2;3H\x1b[6n", "\x1b[2;3R"},
		{"decrqm set", "\x1b[?2004h\x1b[?2004$p", "\x1b[?2004;1$y"},
		{"decrqm reset", "\x1b[?1$p", "\x1b[?1;2$y"},
		{"decrqm unknown", "\x1b[?4242$p", "\x1b[?4242;0$y"},
		{"decrqm ansi", "\x1b[4h\x1b[4$p", "\x1b[4;1$y"},
		{"osc 10", "\x1b]10;?\x07", "\x1b]10;rgb:d0d0/d0d0/d0d0\x1b\\"},
		{"osc 11", "\x1b]11;?\x1b\\", "\x1b]11;rgb:0000/0000/0000\x1b\\"},
		{"osc 4", "\x1b]4;1;?\x07", "\x1b]4;1;rgb:cdcd/0000/0000\x1b\\"},
		{"decrqss stbm", "\x1b[2;4r\x1bP$qr\x1b\\", "\x1bP1$r2;4r\x1b\\"},
		{"xtversion", "\x1b[>q", "\x1bP>|Paneflow\x1b\\"},
	}
	for _, tt := range replies {
		t.Run(tt.name, func(t *testing.T) {
			e := newEmu(t, 10, 5).feed(tt.in)
			if got := string(e.replies); got != tt.want {
				t.Errorf("reply = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestOSC(t *testing.T) {
	e := newEmu(t, 20, 2).feed("\x1b]0;first\x07\x1b]2;sec\x01ond\x1b\\")
	if got := e.Title(); got != "second" {
		t.Errorf("title = %q, want %q", got, "second")
	}
	e.feed("\x1b[22t\x1b]2;pushed\x07\x1b[23t")
	if got := e.Title(); got != "second" {
		t.Errorf("title after pop = %q, want %q", got, "second")
	}
	e.feed("\x1b]7;file://localhost/tmp/a%20b\x07")
	if got := e.Cwd(); got != "/tmp/a b" {
		t.Errorf("cwd = %q, want %q", got, "/tmp/a b")
	}
	e.feed("\x1b]8;;https://example.com\x07link\x1b]8;;\x07x")
	var s Snapshot
	e.Snapshot(&s)
	if got := s.Link(s.Row(0)[0].Link); got != "https://example.com" {
		t.Errorf("link = %q, want https://example.com", got)
	}
	if id := s.Row(0)[4].Link; id != 0 {
		t.Errorf("cell after link end has link %d", id)
	}

	var clip []byte
	off := NewEmulator(10, 1, EmulatorOptions{Clipboard: func(_ string, d []byte) { clip = d }})
	off.Write([]byte("\x1b]52;c;aGVsbG8=\x07"))
	if clip != nil {
		t.Errorf("OSC 52 acted while disabled: %q", clip)
	}
	on := NewEmulator(10, 1, EmulatorOptions{AllowOSC52: true, Clipboard: func(_ string, d []byte) { clip = d }})
	on.Write([]byte("\x1b]52;c;aGVsbG8=\x07"))
	if string(clip) != "hello" {
		t.Errorf("OSC 52 clipboard = %q, want hello", clip)
	}
}

func TestAltScreen(t *testing.T) {
	e := newEmu(t, 10, 3).feed("main1\r\nmain2")
	e.feed("\x1b[?1049h")
	if got := e.screen(); len(got) != 0 {
		t.Errorf("alt screen not empty: %q", got)
	}
	if !e.AltScreen() {
		t.Fatal("AltScreen() = false after 1049h")
	}
	e.feed("\x1b[Halt\r\n1\r\n2\r\n3\r\n4")
	if n := e.HistoryLen(); n != 0 {
		t.Errorf("alt screen scrolling made %d history lines, want 0", n)
	}
	e.feed("\x1b[?1049l")
	if got, want := e.screen(), []string{"main1", "main2"}; !cmp.Equal(got, want) {
		t.Errorf("main after alt = %q, want %q", got, want)
	}
	if c := e.Cursor(); c.X != 5 || c.Y != 1 {
		t.Errorf("cursor restored to (%d,%d), want (5,1)", c.X, c.Y)
	}
	// 47 keeps the alternate screen's content between uses.
	e.feed("\x1b[?47hkeep\x1b[?47l\x1b[?47h")
	if got := e.screen(); len(got) == 0 || !strings.HasPrefix(got[len(got)-1], "keep") && !strings.Contains(strings.Join(got, "\n"), "keep") {
		t.Errorf("47 alt screen lost content: %q", got)
	}
}

// TestOSC7Refused (issue 25): a program's OSC 7 names the pane's directory
// only for this machine, as an absolute path without control or
// bidirectional-text characters; anything else leaves the directory as
// it was.
func TestOSC7Refused(t *testing.T) {
	host, _ := os.Hostname()
	e := newEmu(t, 20, 2)
	accepted := []struct{ in, want string }{
		{"file:///srv/a", "/srv/a"},
		{"file://localhost/srv/b", "/srv/b"},
		{"file://LOCALHOST/srv/c", "/srv/c"},
		{"file://" + host + "/srv/d%20e", "/srv/d e"},
	}
	for _, a := range accepted {
		e.feed("\x1b]7;" + a.in + "\x07")
		if got := e.Cwd(); got != a.want {
			t.Errorf("OSC 7 %q: cwd %q, want %q", a.in, got, a.want)
		}
	}
	for _, in := range []string{
		"file://evil.example/tmp/x",
		"file://" + host + ".evil.example/tmp/x",
		"file://localhost:22/tmp/x",
		"file:///tmp/a%1b%5d0%3bx%07b",
		"file:///tmp/a%0ab",
		"file:///tmp/a%c2%85b",
		"file:///tmp/%e2%80%aetxt.exe",
		"file:///tmp/%ff",
		"file://localhost",
		"http://localhost/tmp/x",
	} {
		e.feed("\x1b]7;" + in + "\x07")
		if got := e.Cwd(); got != "/srv/d e" {
			t.Errorf("OSC 7 %q taken: cwd %q", in, got)
		}
	}
}
