package terminal

import (
	"slices"
	"testing"
)

func TestPresentationReports(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"deccir power-on", "\x1b[3;5H\x1b[1$w", "\x1bP1$u3;5;1;@;@;@;0;2;O;BBBB\x1b\\"},
		{"deccir renditions", "\x1b[1;4;5;7m\x1b[1\"q\x1b[1$w", "\x1bP1$u1;1;1;O;A;@;0;2;O;BBBB\x1b\\"},
		{"deccir flags", "\x1b[?6h\x1b[1;10H\x1b[3;1Habcdefghij\x1bN\x1b[1$w", "\x1bP1$u3;10;1;@;@;K;0;2;O;BBBB\x1b\\"},
		{"deccir ss3", "\x1bO\x1b[1$w", "\x1bP1$u1;1;1;@;@;D;0;2;O;BBBB\x1b\\"},
		{"deccir sets", "\x1b+A\x1bo\x1b*0\x1b}\x1b(<\x1b)>\x1b[1$w", "\x1bP1$u1;1;1;@;@;@;3;2;O;<>0A\x1b\\"},
		{"deccir latin-1", "\x1b-A\x1b.A\x1b/A\x1b~\x1b[1$w", "\x1bP1$u1;1;1;@;@;@;0;1;O;BAAA\x1b\\"},
		{"deccir vt220 unanswered", "\x1b[62\"p\x1b[1$w", ""},
		{"dectabsr", "\x1b[2$w", "\x1bP2$u9\x1b\\"},
		{"dectabsr set", "\x1b[3g\x1b[2G\x1bH\x1b[5G\x1bH\x1b[2$w", "\x1bP2$u2/5\x1b\\"},
		{"dectabsr none", "\x1b[3g\x1b[2$w", "\x1bP2$u\x1b\\"},
		// DECRSPS puts back what the report said.
		{"decrsps cursor", "\x1bP1$t2;4;1;I;A;@;1;3;O;B0AA\x1b\\\x1b[1$w", "\x1bP1$u2;4;1;I;A;@;1;3;O;B0AA\x1b\\"},
		{"decrsps cursor bad", "\x1b[2;2H\x1bP1$t2;4;1;I;A;@;1;3;O;B0A\x1b\\\x1b[1$w", "\x1bP1$u2;2;1;@;@;@;0;2;O;BBBB\x1b\\"},
		{"decrsps cursor outside", "\x1bP1$t9;4;1;@;@;@;0;2;O;BBBB\x1b\\\x1b[1$w", "\x1bP1$u1;1;1;@;@;@;0;2;O;BBBB\x1b\\"},
		{"decrsps tabs", "\x1bP2$t1/3/10\x1b\\\x1b[2$w", "\x1bP2$u1/3/10\x1b\\"},
		{"decrsps tabs bad", "\x1bP2$t2/x/4\x1b\\\x1b[2$w", "\x1bP2$u2\x1b\\"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEmu(t, 10, 5).feed(tt.in)
			if got := string(e.replies); got != tt.want {
				t.Errorf("reply = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDECRSPSRestoresPen(t *testing.T) {
	e := newEmu(t, 10, 5).feed("\x1bP1$t1;1;1;K;A;@;1;0;O;B0BB\x1b\\q\x0f\x1b[0\"qy\x1b[?2K")
	c, g := e.cell(0, 0)
	if g != "─" || c.Attrs&(AttrInverse|AttrBold) != AttrInverse|AttrBold || c.Attrs.Underline() != UnderlineSingle {
		t.Errorf("cell 0 = %q %+v, want a line drawn inverse, underlined and bold", g, c)
	}
	// DECSCA came back too: DECSEL spares the first cell, not the second.
	screenIs(t, e, "─")
}

func TestCharsets(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"latin-1 in g1", "\x1b-A\x0e !Ai\x7f\x0f!", "\u00a0¡Áéÿ!"},
		{"latin-1 ss2", "\x1b.A\x1bNA\x7fA", "ÁA"},
		{"latin-1 ss3 del", "\x1b/A\x1bO\x7fA", "ÿA"},
		{"del ignored in 94 set", "\x1b)0\x0ea\x7fb", "▒␉"},
		{"96 set not in g0", "\x1b,A\x0e\x1b(0q\x0fq", "q─"},
		{"dec supplemental", "\x1b(<!(W]w}$", "¡¤Œ\u0178œÿ\u2e2e"},
		{"dec technical", "\x1b(>DGabpz~", "ΔΓαβπζ↓"},
		{"uk", "\x1b(A#", "£"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			screenIs(t, newEmu(t, 10, 3).feed(tt.in), tt.want)
		})
	}
}

func TestLineSizes(t *testing.T) {
	sizes := func(e *emu) []LineSize {
		var s Snapshot
		e.Snapshot(&s)
		return s.LineSizes
	}
	e := newEmu(t, 10, 4).feed("\x1b#6abcdefgh\r\n\x1b#3ab\r\n\x1b#4ab\r\nx\x1b#6\x1b#5")
	// Printing wrapped at the double line's half (column 5), then that
	// line scrolled off; the line it wrapped into is single.
	screenIs(t, e, "fgh", "ab", "ab", "x")
	if got, want := sizes(e), []LineSize{LineSingle, LineDoubleTop, LineDoubleBottom, LineSingle}; !slices.Equal(got, want) {
		t.Errorf("line sizes = %v, want %v", got, want)
	}

	// The cursor stops at a double line's half: CUF, HT, and a line
	// becoming double with the cursor right of it.
	e = newEmu(t, 10, 3).feed("\x1b#6\x1b[20C")
	if c := e.Cursor(); c.X != 4 {
		t.Errorf("CUF on a double line: column %d, want 4", c.X)
	}
	e = newEmu(t, 10, 3).feed("\x1b#6\t\t")
	if c := e.Cursor(); c.X != 4 {
		t.Errorf("HT on a double line: column %d, want 4", c.X)
	}
	e = newEmu(t, 10, 3).feed("\x1b[9G\x1b#3")
	if c := e.Cursor(); c.X != 5 {
		t.Errorf("DECDHL right of the half: column %d, want 5", c.X)
	}

	// Erasing whole lines, scrolling in new ones and DECALN make lines
	// single again; margins exclude double lines.
	for _, tt := range []struct{ name, in string }{
		{"ed", "\x1b#6\x1b[2J"},
		{"decaln", "\x1b#6\x1b#8"},
		{"declrmm", "\x1b#6\x1b[?69h"},
		{"under margins", "\x1b[?69h\x1b#6"},
		{"scrolled", "\x1b#6\x1b[S\x1b[3;1H\x1b[T\x1b[H"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := sizes(newEmu(t, 10, 3).feed(tt.in))[0]; got != LineSingle {
				t.Errorf("line 0 is %v after %q, want single", got, tt.in)
			}
		})
	}
	// A copy of a snapshot keeps them.
	var s, c Snapshot
	e.Snapshot(&s)
	s.CopyTo(&c)
	if !slices.Equal(c.LineSizes, s.LineSizes) {
		t.Errorf("CopyTo: line sizes %v, want %v", c.LineSizes, s.LineSizes)
	}
	// EL 2 keeps the line's size, as xterm does.
	if got := sizes(newEmu(t, 10, 3).feed("\x1b#6\x1b[2K"))[0]; got != LineDoubleWidth {
		t.Errorf("line 0 is %v after EL 2, want double width", got)
	}
}

func TestTabKeepsPendingWrap(t *testing.T) {
	// A tab at the end of a line cannot move: the wrap stays pending and
	// the next character starts the next line, as in xterm.
	screenIs(t, newEmu(t, 10, 3).feed("abcdefghij\tk"), "abcdefghij", "k")
	// CHT too; a tab that moves cancels it.
	screenIs(t, newEmu(t, 10, 3).feed("abcdefghij\x1b[2Ik"), "abcdefghij", "k")
	screenIs(t, newEmu(t, 10, 3).feed("abcdefghij\x1b[Z\tk"), "abcdefghik")
	// CBT stops at the left margin in origin mode.
	e := newEmu(t, 20, 3).feed("\x1b[?69h\x1b[5;15s\x1b[?6h\x1b[8G\x1b[3Z")
	if c := e.Cursor(); c.X != 4 {
		t.Errorf("CBT in origin mode: column %d, want 4 (the left margin)", c.X)
	}
}

func TestEightBitControls(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"s8c1t", "\x1b G\x1b[6n\x1bP$qr\x1b\\", "\x9b1;1R\x901$r1;3r\x9c"},
		{"s7c1t", "\x1b G\x1b F\x1b[6n", "\x1b[1;1R"},
		{"osc", "\x1b G\x1b]10;?\x07", "\x9d10;rgb:d0d0/d0d0/d0d0\x9c"},
		{"vt100 level ignores it", "\x1b[61\"p\x1b G\x1b[6n", "\x1b[1;1R"},
		{"decscl 8-bit", "\x1b[63;2\"p\x1b[6n\x1bP$q\"p\x1b\\", "\x9b1;1R\x901$r63;0\"p\x9c"},
		{"decscl default 8-bit", "\x1b[63\"p\x1b[6n", "\x9b1;1R"},
		{"decscl 7-bit", "\x1b G\x1b[64;1\"p\x1b[6n", "\x1b[1;1R"},
		{"ris", "\x1b G\x1bc\x1b[6n", "\x1b[1;1R"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEmu(t, 10, 3).feed(tt.in)
			if got := string(e.replies); got != tt.want {
				t.Errorf("reply = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRelativePositions(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   string
		x, y int
	}{
		// VPR moves as CUP does: past the scroll region's bottom, to the
		// screen's; in origin mode within the region.
		{"vpr past the region", "\x1b[2;4r\x1b[3;5H\x1b[4e", 4, 6},
		{"vpr screen end", "\x1b[3;5H\x1b[20e", 4, 7},
		{"vpr origin", "\x1b[2;4r\x1b[?6h\x1b[2;5H\x1b[9e", 4, 3},
		{"hpr", "\x1b[1;5H\x1b[3a", 7, 0},
		{"hpr past the right margin", "\x1b[?69h\x1b[2;6s\x1b[1;3H\x1b[5a", 7, 0},
		{"hpr origin", "\x1b[?69h\x1b[2;6s\x1b[?6h\x1b[1;3H\x1b[9a", 5, 0},
		{"vpa origin margins", "\x1b[?69h\x1b[3;6s\x1b[2;6r\x1b[?6h\x1b[1;2H\x1b[3d", 3, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newEmu(t, 10, 8).feed(tt.in).Cursor()
			if c.X != tt.x || c.Y != tt.y {
				t.Errorf("cursor (%d,%d), want (%d,%d)", c.X, c.Y, tt.x, tt.y)
			}
		})
	}
}
