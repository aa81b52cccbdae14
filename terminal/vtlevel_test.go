package terminal

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// screenIs fails t unless e's screen (right-trimmed rows, trailing empty
// rows dropped) is want.
func screenIs(t *testing.T, e *emu, want ...string) {
	t.Helper()
	if diff := cmp.Diff(want, e.screen()); diff != "" {
		t.Errorf("screen (-want +got):\n%s", diff)
	}
}

func TestReplies(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		// DECRQM: modes xterm knows are never "not recognised".
		{"da3 unit id", "\x1b[=c", "\x1bP!|00000000\x1b\\"},
		{"decrqm reverse wrap", "\x1b[?45h\x1b[?45$p", "\x1b[?45;1$y"},
		{"decrqm 1045", "\x1b[?1045$p", "\x1b[?1045;2$y"},
		{"decrqm decnkm", "\x1b=\x1b[?66$p", "\x1b[?66;1$y"},
		{"decrqm decanm", "\x1b[?2$p", "\x1b[?2;3$y"},
		// xterm does not know these either (rxvt's toolbar, DECGEPM).
		{"decrqm 10 unknown", "\x1b[?10$p", "\x1b[?10;0$y"},
		{"decrqm 43 unknown", "\x1b[?43$p", "\x1b[?43;0$y"},
		{"decrqm deccolm", "\x1b[?3$p", "\x1b[?3;2$y"},
		{"decrqm allow 80-132", "\x1b[?40h\x1b[?40$p", "\x1b[?40;1$y"},
		{"decrqm decscpp 132", "\x1b[132$|\x1b[?3$p", "\x1b[?3;1$y"},
		{"decrqss decscpp", "\x1b[132$|\x1bP$q$|\x1b\\", "\x1bP1$r132$|\x1b\\"},
		{"decrqm metaSendsEscape", "\x1b[?1036$p", "\x1b[?1036;3$y"},
		{"decrqm kam", "\x1b[2$p", "\x1b[2;4$y"},
		{"decrqm srm", "\x1b[12$p", "\x1b[12;3$y"},
		{"decrqm ansi unknown", "\x1b[99$p", "\x1b[99;0$y"},
		{"decrqm gatm", "\x1b[1$p", "\x1b[1;4$y"},
		{"decrqm ebm", "\x1b[19$p", "\x1b[19;4$y"},
		// DECRQSS
		{"decrqss sgr plain", "\x1bP$qm\x1b\\", "\x1bP1$r0m\x1b\\"},
		{"decrqss sgr", "\x1b[1;3;4;7;31;104m\x1bP$qm\x1b\\", "\x1bP1$r0;1;3;4;7;31;104m\x1b\\"},
		{"decrqss sgr extended", "\x1b[4:3;38;5;200;48;2;1;2;3;58;5;9m\x1bP$qm\x1b\\", "\x1bP1$r0;4:3;38:5:200;48:2::1:2:3;58:5:9m\x1b\\"},
		{"decrqss decsca", "\x1b[1\"q\x1bP$q\"q\x1b\\", "\x1bP1$r1\"q\x1b\\"},
		{"decrqss decsca off", "\x1b[1\"q\x1b[0\"q\x1bP$q\"q\x1b\\", "\x1bP1$r0\"q\x1b\\"},
		{"decrqss decscl", "\x1bP$q\"p\x1b\\", "\x1bP1$r64;1\"p\x1b\\"},
		{"decrqss decslrm", "\x1bP$qs\x1b\\", "\x1bP1$r1;10s\x1b\\"},
		{"decrqss decslpp", "\x1bP$qt\x1b\\", "\x1bP1$r5t\x1b\\"},
		{"decrqss decscusr", "\x1b[5 q\x1bP$q q\x1b\\", "\x1bP1$r5 q\x1b\\"},
		{"decrqss unknown", "\x1bP$qz\x1b\\", "\x1bP0$r\x1b\\"},
		{"decrqss decscusr default", "\x1bP$q q\x1b\\", "\x1bP1$r1 q\x1b\\"},
		{"decrqss decscusr 0", "\x1b[4 q\x1b[0 q\x1bP$q q\x1b\\", "\x1bP1$r1 q\x1b\\"},
		{"decrqss decscpp", "\x1bP$q$|\x1b\\", "\x1bP1$r10$|\x1b\\"},
		{"decrqss decsasd refused", "\x1bP$q$}\x1b\\", "\x1bP0$r\x1b\\"},
		{"decrqss decssdt refused", "\x1bP$q$~\x1b\\", "\x1bP0$r\x1b\\"},
		{"decrqss decsace refused", "\x1bP$q*x\x1b\\", "\x1bP0$r\x1b\\"},
		{"decrqss decslrm vt320 refused", "\x1b[63;1\"p\x1bP$qs\x1b\\", "\x1bP0$r\x1b\\"},
		// DECDSR
		{"decxcpr", "\x1b[2;3H\x1b[?6n", "\x1b[?2;3;1R"},
		{"dsr printer", "\x1b[?15n", "\x1b[?13n"},
		{"dsr udk", "\x1b[?25n", "\x1b[?21n"},
		{"dsr keyboard", "\x1b[?26n", "\x1b[?27;1;0;0n"},
		{"dsr locator", "\x1b[?55n", "\x1b[?53n"},
		{"dsr locator type", "\x1b[?56n", "\x1b[?57;0n"},
		{"decmsr", "\x1b[?62n", "\x1b[0000*{"},
		{"deccksr", "\x1b[?63;7n", "\x1bP7!~0000\x1b\\"},
		{"dsr integrity", "\x1b[?75n", "\x1b[?70n"},
		{"dsr sessions", "\x1b[?85n", "\x1b[?83n"},
		// Window reports: numbers only.
		{"text area chars", "\x1b[18t", "\x1b[8;5;10t"},
		{"screen chars", "\x1b[19t", "\x1b[9;5;10t"},
		{"text area pixels unknown", "\x1b[14t", ""},
		{"cell pixels unknown", "\x1b[16t", ""},
		{"title report never", "\x1b]2;title\x07\x1b[21t\x1b[20t", ""},
		// DECSCL
		{"decscl vt220 da1", "\x1b[62;1\"p\x1b[c", "\x1b[?62;6;17;21;22c"},
		{"decscl vt100 da1", "\x1b[61\"p\x1b[c", "\x1b[?1;2c"},
		{"decscl vt220 no decrqm", "\x1b[62;1\"p\x1b[?1$p\x1bP$qm\x1b\\", ""},
		{"decscl vt320 decrqss", "\x1b[63;1\"p\x1bP$q\"p\x1b\\", "\x1bP1$r63;1\"p\x1b\\"},
		{"decscl vt500 refused", "\x1b[65;1\"p\x1bP$q\"p\x1b\\", "\x1bP1$r64;1\"p\x1b\\"},
		// Colour control
		{"osc 10 set query", "\x1b]10;rgb:12/34/56\x07\x1b]10;?\x07", "\x1b]10;rgb:1212/3434/5656\x1b\\"},
		{"osc 11 hash", "\x1b]11;#abc\x07\x1b]11;?\x07", "\x1b]11;rgb:a0a0/b0b0/c0c0\x1b\\"},
		{"osc 10 chained", "\x1b]10;rgb:ff/00/00;rgb:00/ff/00\x07\x1b]11;?\x07", "\x1b]11;rgb:0000/ffff/0000\x1b\\"},
		{"osc 110 reset", "\x1b]10;rgb:12/34/56\x07\x1b]110\x07\x1b]10;?\x07", "\x1b]10;rgb:d0d0/d0d0/d0d0\x1b\\"},
		{"osc 12", "\x1b]12;rgb:ffff/8000/0000\x07\x1b]12;?\x07", "\x1b]12;rgb:ffff/8080/0000\x1b\\"},
		{"osc 112 reset", "\x1b]12;rgb:1/2/3\x07\x1b]112\x07\x1b]12;?\x07", "\x1b]12;rgb:d0d0/d0d0/d0d0\x1b\\"},
		{"osc 17 19", "\x1b]17;rgb:01/02/03\x07\x1b]19;rgb:04/05/06\x07\x1b]17;?\x07\x1b]19;?\x07", "\x1b]17;rgb:0101/0202/0303\x1b\\\x1b]19;rgb:0404/0505/0606\x1b\\"},
		{"osc 4 set query", "\x1b]4;1;rgb:10/20/30;2;?\x07\x1b]4;1;?\x07", "\x1b]4;2;rgb:0000/cdcd/0000\x1b\\\x1b]4;1;rgb:1010/2020/3030\x1b\\"},
		{"osc 104 one", "\x1b]4;1;rgb:10/20/30;3;rgb:1/1/1\x07\x1b]104;1\x07\x1b]4;1;?;3;?\x07", "\x1b]4;1;rgb:cdcd/0000/0000\x1b\\\x1b]4;3;rgb:1111/1111/1111\x1b\\"},
		{"osc 104 all", "\x1b]4;1;rgb:10/20/30\x07\x1b]104\x07\x1b]4;1;?\x07", "\x1b]4;1;rgb:cdcd/0000/0000\x1b\\"},
		{"osc bad spec ignored", "\x1b]10;nonsense\x07\x1b]4;1;rgb:zz/00/00\x07\x1b]10;?\x07\x1b]4;1;?\x07", "\x1b]10;rgb:d0d0/d0d0/d0d0\x1b\\\x1b]4;1;rgb:cdcd/0000/0000\x1b\\"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEmu(t, 10, 5).feed(tt.in)
			if got := string(e.replies); got != tt.want {
				t.Errorf("reply = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCellPixelReports(t *testing.T) {
	e := newEmu(t, 80, 24)
	e.SetCellPixels(9, 18)
	e.feed("\x1b[14t\x1b[16t")
	if got, want := string(e.replies), "\x1b[4;432;720t\x1b[6;18;9t"; got != want {
		t.Errorf("reply = %q, want %q", got, want)
	}
}

func TestProgramColors(t *testing.T) {
	e := newEmu(t, 10, 2)
	if e.Colors() != nil {
		t.Fatal("fresh emulator has program colours")
	}
	e.feed("\x1b]11;rgb:10/20/30\x07\x1b]4;200;#ff8000\x07")
	c := e.Colors()
	if r, g, b, ok := c.Background(); !ok || [3]uint8{r, g, b} != [3]uint8{0x10, 0x20, 0x30} {
		t.Errorf("background = %v %v %v %v", r, g, b, ok)
	}
	if r, g, b, ok := c.Palette(200); !ok || [3]uint8{r, g, b} != [3]uint8{0xff, 0x80, 0x00} {
		t.Errorf("palette 200 = %v %v %v %v", r, g, b, ok)
	}
	if _, _, _, ok := c.Foreground(); ok {
		t.Error("foreground set though nobody set it")
	}
	var s Snapshot
	e.Snapshot(&s)
	if s.Colors != c {
		t.Error("snapshot does not carry the program colours")
	}
	e.feed("\x1b]111\x07")
	if e.Colors() == c {
		t.Error("a change kept the published colours value")
	}
	if _, _, _, ok := c.Background(); !ok {
		t.Error("a change modified the published colours value")
	}
	e.feed("\x1bc")
	if e.Colors() != nil {
		t.Error("RIS kept program colours")
	}
}

func TestProtection(t *testing.T) {
	t.Run("decsed spares decsca", func(t *testing.T) {
		e := newEmu(t, 10, 3).feed("a\x1b[1\"qb\x1b[0\"qc\r\ndef\x1b[?2J")
		screenIs(t, e, " b")
	})
	t.Run("decsel", func(t *testing.T) {
		e := newEmu(t, 10, 3).feed("ab\x1b[1\"qc\x1b[0\"qde\x1b[3G\x1b[?0K")
		screenIs(t, e, "abc")
		e.feed("\x1b[?1K")
		screenIs(t, e, "  c")
	})
	t.Run("sgr 0 keeps protection", func(t *testing.T) {
		e := newEmu(t, 10, 3).feed("\x1b[1\"q\x1b[0mx\x1b[?2K")
		screenIs(t, e, "x")
	})
	t.Run("ed ignores decsca", func(t *testing.T) {
		e := newEmu(t, 10, 3).feed("\x1b[1\"qabc\x1b[2J")
		screenIs(t, e)
	})
	t.Run("ed el ech respect spa", func(t *testing.T) {
		e := newEmu(t, 10, 3).feed("a\x1bVb\x1bWc\r\nxyz\x1b[2J")
		screenIs(t, e, " b")
		e.feed("\x1b[1;1Hq\x1bVr\x1bWst\x1b[1;1H\x1b[K")
		screenIs(t, e, " r")
		e.feed("\x1b[1;1Hu\x1bVv\x1bWw\x1b[1;1H\x1b[3X")
		screenIs(t, e, " v")
	})
	t.Run("decstr ends protection", func(t *testing.T) {
		e := newEmu(t, 10, 3).feed("\x1b[1\"q\x1b[!px\x1b[?2K")
		screenIs(t, e)
	})
}

func TestColumnOperations(t *testing.T) {
	t.Run("decic", func(t *testing.T) {
		e := newEmu(t, 6, 4).feed("abcdef\r\nghijkl\r\nmnopqr\x1b[1;2r\x1b[1;2H\x1b[2'}")
		screenIs(t, e, "a  bcd", "g  hij", "mnopqr")
	})
	t.Run("decdc", func(t *testing.T) {
		e := newEmu(t, 6, 4).feed("abcdef\r\nghijkl\r\nmnopqr\x1b[2;3r\x1b[2;2H\x1b[2'~")
		screenIs(t, e, "abcdef", "gjkl", "mpqr")
	})
	t.Run("decbi at the left edge", func(t *testing.T) {
		e := newEmu(t, 4, 2).feed("abcd\r\nefgh\x1b[1;1H\x1b6")
		screenIs(t, e, " abc", " efg")
	})
	t.Run("decbi moves", func(t *testing.T) {
		e := newEmu(t, 4, 2).feed("abcd\x1b[1;3H\x1b6X")
		screenIs(t, e, "aXcd")
	})
	t.Run("decfi at the right edge", func(t *testing.T) {
		e := newEmu(t, 4, 2).feed("abcd\r\nefgh\x1b[1;4H\x1b9")
		screenIs(t, e, "bcd", "fgh")
		if c := e.Cursor(); c.X != 3 {
			t.Errorf("cursor x = %d, want 3", c.X)
		}
	})
	t.Run("sl sr", func(t *testing.T) {
		e := newEmu(t, 4, 2).feed("abcd\r\nefgh\x1b[2 @")
		screenIs(t, e, "cd", "gh")
		e.feed("\x1b[3 A")
		screenIs(t, e, "   c", "   g")
	})
	t.Run("vt220 has no column operations", func(t *testing.T) {
		e := newEmu(t, 4, 2).feed("\x1b[62;1\"pabcd\x1b[1;1H\x1b[1'}\x1b6")
		screenIs(t, e, "abcd")
	})
}

func TestReverseWrap(t *testing.T) {
	t.Run("into a wrapped line", func(t *testing.T) {
		e := newEmu(t, 4, 3).feed("\x1b[?45habcdef\r\x08X")
		screenIs(t, e, "abcX", "ef")
	})
	t.Run("not into an unwrapped line", func(t *testing.T) {
		e := newEmu(t, 4, 3).feed("\x1b[?45hab\r\ncd\r\x08X")
		screenIs(t, e, "ab", "Xd")
	})
	t.Run("needs autowrap", func(t *testing.T) {
		e := newEmu(t, 4, 3).feed("\x1b[?45habcdef\x1b[?7l\r\x08X")
		screenIs(t, e, "abcd", "Xf")
	})
	t.Run("1045 from the top margin to the bottom", func(t *testing.T) {
		e := newEmu(t, 4, 4).feed("\x1b[?1045h\x1b[2;3r\x1b[2;1H\x08X")
		screenIs(t, e, "", "", "   X")
	})
	t.Run("pending wrap undone", func(t *testing.T) {
		e := newEmu(t, 4, 3).feed("\x1b[?45h\x1b[1;3Hab\x08X")
		screenIs(t, e, "  aX")
	})
	t.Run("without it bs stops", func(t *testing.T) {
		e := newEmu(t, 4, 3).feed("abcdef\r\x08X")
		screenIs(t, e, "abcd", "Xf")
	})
	t.Run("decstr turns it off", func(t *testing.T) {
		e := newEmu(t, 4, 3).feed("\x1b[?45h\x1b[!pabcdef\r\x08X")
		screenIs(t, e, "abcd", "Xf")
	})
}

func TestAltScreen1047ClearsOnExit(t *testing.T) {
	e := newEmu(t, 20, 3).feed("main\x1b[?1047halt\x1b[?1047l\x1b[?47h")
	screenIs(t, e) // 47 shows the alternate screen as it is: 1047 cleared it
	e.feed("\rkept\x1b[?47l\x1b[?47h")
	if got := strings.Join(e.screen(), "|"); !strings.Contains(got, "kept") {
		t.Errorf("?47 lost the alternate screen: %q", got)
	}
}

func TestSoftReset(t *testing.T) {
	e := newEmu(t, 10, 5).feed("\x1b[?6h\x1b[4h\x1b[?25l\x1b[2;3r\x1b[31m\x1b(0\x1b[?1h\x1b=\x1b[?45h\x1b7\x1b[3;4H\x1b[!p")
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.originMode || e.insertMode || e.cursorHidden || e.top != 0 || e.bot != 4 || e.pen != (Style{}) ||
		e.lineDraw || e.in.AppCursor || e.in.AppKeypad || e.reverseWrap || e.cur.saved.valid || !e.autowrap {
		t.Errorf("DECSTR left state behind: %+v", e)
	}
	if e.x != 3 || e.y != 2 {
		t.Errorf("DECSTR moved the cursor to %d,%d", e.x, e.y)
	}
}

func TestRectangles(t *testing.T) {
	fill := "abcde\r\nfghij\r\nklmno\r\npqrst"
	t.Run("decfra", func(t *testing.T) {
		e := newEmu(t, 5, 4).feed(fill + "\x1b[88;2;2;3;4$x")
		screenIs(t, e, "abcde", "fXXXj", "kXXXo", "pqrst")
	})
	t.Run("decera", func(t *testing.T) {
		e := newEmu(t, 5, 4).feed(fill + "\x1b[2;2;3;4$z")
		screenIs(t, e, "abcde", "f   j", "k   o", "pqrst")
	})
	t.Run("decera defaults to the screen", func(t *testing.T) {
		e := newEmu(t, 5, 4).feed(fill + "\x1b[$z")
		screenIs(t, e)
	})
	t.Run("decsera spares protected", func(t *testing.T) {
		e := newEmu(t, 5, 4).feed("a\x1b[1\"qb\x1b[0\"qc\x1b[1;1;1;5${")
		screenIs(t, e, " b")
	})
	t.Run("deccra", func(t *testing.T) {
		e := newEmu(t, 5, 4).feed(fill + "\x1b[1;1;2;2;1;3;4;1$v")
		screenIs(t, e, "abcde", "fghij", "klmab", "pqrfg")
	})
	t.Run("deccra overlapping", func(t *testing.T) {
		e := newEmu(t, 5, 4).feed(fill + "\x1b[1;1;1;4;1;1;2;1$v")
		screenIs(t, e, "aabcd", "fghij", "klmno", "pqrst")
	})
	t.Run("origin mode", func(t *testing.T) {
		e := newEmu(t, 5, 4).feed(fill + "\x1b[2;3r\x1b[?6h\x1b[$z")
		screenIs(t, e, "abcde", "", "", "pqrst")
	})
	t.Run("deccara stream", func(t *testing.T) {
		e := newEmu(t, 5, 4).feed(fill + "\x1b[1;4;2;2;1;7$r")
		for _, p := range [][2]int{{3, 0}, {4, 0}, {0, 1}, {1, 1}} {
			if c, _ := e.cell(p[0], p[1]); c.Attrs&(AttrBold|AttrInverse) != AttrBold|AttrInverse {
				t.Errorf("cell %v attrs %v, want bold inverse", p, c.Attrs)
			}
		}
		if c, _ := e.cell(2, 0); c.Attrs != 0 {
			t.Errorf("cell before the stream changed: %v", c.Attrs)
		}
		if c, _ := e.cell(2, 1); c.Attrs != 0 {
			t.Errorf("cell after the stream changed: %v", c.Attrs)
		}
	})
	t.Run("deccara rectangle and decrara", func(t *testing.T) {
		e := newEmu(t, 5, 4).feed(fill + "\x1b[2*x\x1b[1;4;2;5;4$r\x1b[1;4;1;4;4;7$t")
		if c, _ := e.cell(0, 1); c.Attrs != 0 {
			t.Errorf("cell outside the rectangle changed: %v", c.Attrs)
		}
		if c, _ := e.cell(4, 1); c.Attrs.Underline() != UnderlineSingle {
			t.Errorf("cell in the rectangle: %v", c.Attrs)
		}
		if c, _ := e.cell(3, 0); c.Attrs.Underline() != UnderlineNone || c.Attrs&AttrInverse == 0 {
			t.Errorf("DECRARA cell: %v", c.Attrs)
		}
	})
	t.Run("vt220 ignores them", func(t *testing.T) {
		e := newEmu(t, 5, 4).feed(fill + "\x1b[62\"p\x1b[$z")
		screenIs(t, e, "abcde", "fghij", "klmno", "pqrst")
	})
}

func TestChecksum(t *testing.T) {
	e := newEmu(t, 5, 2).feed("ab\x1b[1;1;1;1;1;5*y")
	if len(e.replies) != 0 {
		t.Fatalf("DECRQCRA answered without AllowChecksum: %q", e.replies)
	}
	var got []byte
	c := NewEmulator(5, 2, EmulatorOptions{AllowChecksum: true, Reply: func(p []byte) { got = append(got, p...) }})
	// xterm's sum, negated: a, b and the space written count, the blanks
	// never written do not, except a rectangle's first cell; renditions
	// add 0x10 underline, 0x20 inverse, 0x40 blink, 0x80 bold; a
	// character counts its low byte.
	c.Write([]byte("ab \x1b[7;1;1;1;1;5*y\x1b[8;1;2;2;2;2*y"))
	c.Write([]byte("\r\n\x1b[1;4;5;7mA\x1b[m\u0101\x1b[9;1;2;1;2;5*y"))
	// 0x61+0x62+0x20 = 0xE3; 0x20; 'A'+0xF0 + 0x01 = 0x132.
	if want := "\x1bP7!~FF1D\x1b\\\x1bP8!~FFE0\x1b\\\x1bP9!~FECE\x1b\\"; string(got) != want {
		t.Errorf("reply = %q, want %q", got, want)
	}
}

func TestLeftRightMargins(t *testing.T) {
	// A 6x4 screen with margins at columns 2-4 (1-based), region rows 1-3.
	fill := "abcdef\r\nghijkl\r\nmnopqr\r\nstuvwx"
	lr := "\x1b[?69h\x1b[2;4s"
	t.Run("without ?69 CSI s saves the cursor", func(t *testing.T) {
		e := newEmu(t, 6, 4).feed("\x1b[2;3H\x1b[2;4s\x1b[H\x1b[uX")
		screenIs(t, e, "", "  X")
	})
	t.Run("decslrm homes and is reported", func(t *testing.T) {
		e := newEmu(t, 6, 4).feed("\x1b[3;3H" + lr + "\x1bP$qs\x1b\\\x1b[?69$p")
		if c := e.Cursor(); c.X != 0 || c.Y != 0 {
			t.Errorf("cursor %d,%d, want home", c.X, c.Y)
		}
		if got, want := string(e.replies), "\x1bP1$r2;4s\x1b\\\x1b[?69;1$y"; got != want {
			t.Errorf("replies %q, want %q", got, want)
		}
	})
	t.Run("printing wraps at the right margin to the left one", func(t *testing.T) {
		e := newEmu(t, 6, 4).feed(lr + "\x1b[1;2H12345")
		screenIs(t, e, " 123", " 45")
	})
	t.Run("scrolling moves only the margins' columns", func(t *testing.T) {
		e := newEmu(t, 6, 4).feed(fill + lr + "\x1b[1;3r\x1b[3;2H\n")
		screenIs(t, e, "ahijef", "gnopkl", "m   qr", "stuvwx")
		if e.HistoryLen() != 0 {
			t.Error("a margin scroll went to scrollback")
		}
	})
	t.Run("reverse index", func(t *testing.T) {
		e := newEmu(t, 6, 4).feed(fill + lr + "\x1b[1;3r\x1b[1;3H\x1bM")
		screenIs(t, e, "a   ef", "gbcdkl", "mhijqr", "stuvwx")
	})
	t.Run("outside the margins lf neither passes nor scrolls", func(t *testing.T) {
		e := newEmu(t, 6, 4).feed(fill + lr + "\x1b[1;3r\x1b[3;6H\n")
		screenIs(t, e, "abcdef", "ghijkl", "mnopqr", "stuvwx")
		if c := e.Cursor(); c.Y != 2 {
			t.Errorf("cursor row %d, want 2", c.Y)
		}
	})
	t.Run("ich dch inside, nothing outside", func(t *testing.T) {
		e := newEmu(t, 6, 4).feed(fill + lr + "\x1b[1;2H\x1b[@\x1b[2;3H\x1b[P\x1b[3;1H\x1b[P")
		screenIs(t, e, "a bcef", "ghj kl", "mnopqr", "stuvwx")
	})
	t.Run("il dl", func(t *testing.T) {
		e := newEmu(t, 6, 4).feed(fill + lr + "\x1b[2;3H\x1b[L")
		screenIs(t, e, "abcdef", "g   kl", "mhijqr", "snopwx")
		e.feed("\x1b[1;2H\x1b[2M")
		screenIs(t, e, "ahijef", "gnopkl", "m   qr", "s   wx")
	})
	t.Run("cr bs and cursor moves stop at margins", func(t *testing.T) {
		e := newEmu(t, 6, 4).feed(lr + "\x1b[1;3H\rA\x1b[1;1H\rB\x1b[2;2H\x08C\x1b[3;3H\x1b[9CD\x1b[4;3H\x1b[9DE")
		screenIs(t, e, "BA", " C", "   D", " E")
	})
	t.Run("origin mode is relative to the margins", func(t *testing.T) {
		e := newEmu(t, 6, 4).feed(lr + "\x1b[2;3r\x1b[?6h\x1b[1;1HX\x1b[1;9HY\x1b[2;1H\x1b[2GZ")
		screenIs(t, e, "", " X Y", "  Z")
	})
	t.Run("decic decdc sl within margins", func(t *testing.T) {
		e := newEmu(t, 6, 4).feed(fill + lr + "\x1b[1;2r\x1b[1;3H\x1b['}")
		screenIs(t, e, "ab cef", "gh ikl", "mnopqr", "stuvwx")
		e.feed("\x1b['~")
		screenIs(t, e, "abc ef", "ghi kl", "mnopqr", "stuvwx")
		e.feed("\x1b[ @")
		screenIs(t, e, "ac  ef", "gi  kl", "mnopqr", "stuvwx")
	})
	t.Run("reset margins with ?69l", func(t *testing.T) {
		e := newEmu(t, 6, 4).feed(lr + "\x1b[?69l\x1b[1;1H1234567")
		screenIs(t, e, "123456", "7")
	})
	t.Run("insert mode stops at the right margin", func(t *testing.T) {
		e := newEmu(t, 6, 4).feed(fill + lr + "\x1b[4h\x1b[1;2HX")
		screenIs(t, e, "aXbcef", "ghijkl", "mnopqr", "stuvwx")
	})
}
