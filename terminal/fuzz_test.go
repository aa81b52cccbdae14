package terminal

import (
	"fmt"
	"testing"
)

// checkInvariants fails t when the emulator's internal state is inconsistent.
func checkInvariants(t *testing.T, e *Emulator) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.x < 0 || e.x >= e.cols || e.y < 0 || e.y >= e.rows {
		t.Fatalf("cursor (%d,%d) outside %dx%d", e.x, e.y, e.cols, e.rows)
	}
	if e.top < 0 || e.bot >= e.rows || e.top > e.bot {
		t.Fatalf("scroll region %d..%d outside %d rows", e.top, e.bot, e.rows)
	}
	if e.left < 0 || e.left >= e.right && e.cols > 1 || e.right >= e.cols || !e.lrmm && (e.left != 0 || e.right != e.cols-1) {
		t.Fatalf("margins %d..%d (on %v) outside %d columns", e.left, e.right, e.lrmm, e.cols)
	}
	if e.hist.n > e.hist.cap || e.hist.n < 0 {
		t.Fatalf("history holds %d lines, cap %d", e.hist.n, e.hist.cap)
	}
	if e.hist.pullable > e.hist.n {
		t.Fatalf("pullable %d > history %d", e.hist.pullable, e.hist.n)
	}
	if len(e.clusters) > maxClusters || len(e.links) > maxLinks || len(e.replies) > 1<<17 {
		t.Fatalf("tables grew past their caps: %d clusters, %d links, %d reply bytes", len(e.clusters), len(e.links), len(e.replies))
	}
	for _, s := range []*screen{e.main, e.alt} {
		if s == nil {
			continue
		}
		if len(s.rows) != e.rows {
			t.Fatalf("screen has %d rows, want %d", len(s.rows), e.rows)
		}
		for y, r := range s.rows {
			if len(r.cells) != e.cols {
				t.Fatalf("row %d has %d cells, want %d", y, len(r.cells), e.cols)
			}
			for x, c := range r.cells {
				if !r.rich && isRich(c) {
					t.Fatalf("row %d cell %d = %+v in a row not marked rich", y, x, c)
				}
				if x >= r.used && c != (Cell{}) {
					t.Fatalf("row %d cell %d = %+v beyond used %d", y, x, c, r.used)
				}
				if c.Attrs&attrWide != 0 && (x+1 >= e.cols || r.cells[x+1].Attrs&attrWideCont == 0) {
					t.Fatalf("row %d: wide cell %d has no continuation", y, x)
				}
				if c.Attrs&attrWideCont != 0 && (x == 0 || r.cells[x-1].Attrs&attrWide == 0) {
					t.Fatalf("row %d: continuation cell %d has no wide lead", y, x)
				}
				if c.Char&clusterBit != 0 && int(c.Char&^clusterBit) >= len(e.clusters) {
					t.Fatalf("row %d cell %d: cluster %d out of range", y, x, c.Char&^clusterBit)
				}
			}
		}
	}
	for i := range e.hist.n {
		l := e.hist.at(i)
		if len(l) < histTrailer || int(l.meta()&histLenMask) > len(l)-histTrailer {
			t.Fatalf("history line %d malformed (%d bytes)", i, len(l))
		}
	}
}

func fuzzSeeds() []string {
	seeds := []string{
		"hello\r\nworld", "\x1b[31mred\x1b[0m", "日本語😀e\u0301\u200d👩", "\x1b[?1049h\x1b[2;5r\x1b[5Lx\x1b[?1049l",
		"\x1b]0;title\x07\x1b]8;;http://x\x1b\\l\x1b]8;;\x1b\\", "\x1b[38:2::1:2:3;4:3m", "\x1b[?1;1000;1006;2004h",
		"\x1b(0lqk\x1b(B", "\x1b[99999999999999999999L", "\x1b[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16;17;18;19;20;21;22;23;24;25;26;27;28;29;30;31;32;33;34m",
		"\x1bP$qr\x1b\\\x1b[6n\x1b[c", "\x1b[4h日本\x1b[1G\x1b[2P", "\x1b#8\x1b[3;3H\x1b[1J", "\x1b[20h\n\x0b\x0c", "a\x1b[2\nCb",
		// xterm-grade state: protection, reverse wrap, column operations,
		// conformance levels, colours, reports.
		"\x1b[1\"qab\x1b[0\"qcd\x1b[?2J\x1bVx\x1bWy\x1b[2J\x1b[K\x1b[3X", "\x1b[?45habcdefghij\r\x08\x08X\x1b[?1045h\x1b[2;3r\x1b[2;1H\x08",
		"\x1b[2;4r\x1b[3;2H\x1b[2'}\x1b[3'~\x1b6\x1b9\x1b[2 @\x1b[1 A", "\x1b[62;1\"p\x1b[?1$p\x1b[c\x1b[64\"p\x1b[!p",
		"\x1b]4;1;rgb:1/2/3;2;?\x07\x1b]10;#123;#456\x07\x1b]104\x07\x1b]110\x07", "\x1b[18t\x1b[14t\x1b[?6n\x1b[?63;1n\x1bP$qm\x1b\\\x1b[?1047h\x1b[?1047l",
		"\x1b[?69h\x1b[3;8s\x1b[2;4rab日本cdefghij\r\n\x1b[2@\x1b[P\x1b[L\x1b[M\x1b[S\x1b[T\x1bD\x1bM\x1b[4h日x\x1b[?6h\x1b[H\x08\x1b[9C\t\x1b[?69l",
		"\x1b-A\x0e !\x7f\x1b.A\x1bNA\x1b(<\x1b)>\x1b~\x1b}\x1b|\x0fW\x1b[1$w\x1b[2$w\x1bP1$t2;4;1;I;A;K;1;3;O;B0AA\x1b\\\x1bP2$t1/3/10\x1b\\x",
		"\x1b G\x1b[6n\x1b[2;4r\x1b[5e\x1b[3a\x1b[?69h\x1b[3;7s\x1b[?6h\x1b[2e\x1b[9a\x1b[2dx\x1b F\x1b[62;2\"p\x1b[c",
		// DECCOLM: the width changes under Write (deccolm.go).
		"one\r\ntwo\x1b[?40h\x1b[2;5r\x1b[?69h\x1b[3;9s\x1b[?3habc\x1b[?1049h日\x1b[?3l\x1b[?1049l\x1b[?3$p\x1b[?40$p\x1bc\x1b[?3h\x1b[3;100H\x1b[132$|x\x1b[$|",
		"\x1b[?40h\x1b[?6h\x1b[?3h\x1b[1;80H日本\x1b[?95h\x1b[?3lx\x1b[!p\x1b[?3h\x1b[?40l\x1b[?3l",
		"ab日本\x1b[65;1;1;3;9$x\x1b[1;1;2;4;1;2;3;1$v\x1b[2;2;9;9$z\x1b[${\x1b[1;5;2;2;1;4$r\x1b[2*x\x1b[$t\x1b[1;0;1;1;3;3*y",
	}
	for _, tt := range []string{benchSnippet(benchPlain()), benchSnippet(benchSGR()), benchSnippet(benchTUI())} {
		seeds = append(seeds, tt)
	}
	return seeds
}

func benchSnippet(b []byte) string { return string(b[:2000]) }

// FuzzEmulator feeds arbitrary output, in arbitrary chunks and with a resize
// part way, through the emulator with and without the fast paths. Both must
// keep every invariant and end with the same screen.
func FuzzEmulator(f *testing.F) {
	for i, s := range fuzzSeeds() {
		f.Add([]byte(s), uint8(i*7+1), uint8(20+i), uint8(5+i%7))
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk, cols, rows uint8) {
		if len(data) > 1<<16 {
			return
		}
		c, r := int(cols%120)+1, int(rows%40)+1
		step := int(chunk%64) + 1
		var fast, slow *Emulator
		// before are the dumps before the last Resize, which replaces a
		// width the output set (DECCOLM).
		var before [2]string
		for k, slowPath := range []bool{false, true} {
			e := NewEmulator(c, r, EmulatorOptions{Scrollback: 64, AllowOSC52: true, AllowChecksum: true, Reply: func([]byte) {}})
			e.slowPath = slowPath
			for i, p := 0, data; len(p) > 0; i++ {
				n := min(step, len(p))
				e.Write(p[:n])
				p = p[n:]
				if i == 3 {
					e.Resize(r+1, c/2+1)
					checkInvariants(t, e)
				}
			}
			checkInvariants(t, e)
			before[k] = dump(e)
			e.Resize(c, r)
			checkInvariants(t, e)
			if slowPath {
				slow = e
			} else {
				fast = e
			}
		}
		if g, w := before[0], before[1]; g != w {
			t.Fatalf("fast and slow paths differ before the last resize:\nfast:\n%s\nslow:\n%s", g, w)
		}
		if g, w := dump(fast), dump(slow); g != w {
			t.Fatalf("fast and slow paths differ:\nfast:\n%s\nslow:\n%s", g, w)
		}
	})
}

func dump(e *Emulator) string {
	var s Snapshot
	e.Snapshot(&s)
	out := fmt.Sprintf("cursor %+v modes %+v title %q\n", s.Cursor, s.Modes, s.Title)
	e.mu.Lock()
	out += fmt.Sprintf("level %d protect %d reverse wrap %v/%v rect %v pen %+v region %d-%d lr %v %d-%d\n", e.level, e.protect, e.reverseWrap, e.reverseWrapAll, e.rectExtent, e.pen, e.top, e.bot, e.lrmm, e.left, e.right)
	out += fmt.Sprintf("charsets %v gl %d gr %d ss %d wrap next %v tabs %s c1 %v\n", e.charsets, e.gl, e.gr, e.singleSS, e.wrapNext, e.dectabsr(), e.c1)
	out += fmt.Sprintf("deccolm allowed %v 132 %v layout width %d\n", e.allowColm, e.col132, e.layoutCols)
	e.mu.Unlock()
	if s.Colors != nil {
		out += fmt.Sprintf("colors %v\n", *s.Colors)
	}
	for y := range s.Rows {
		for _, c := range s.Row(y) {
			out += fmt.Sprintf("%s%v;", s.Grapheme(c), c.Style)
		}
		out += "\n"
	}
	for _, l := range e.Lines(0, e.HistoryLen()) {
		out += l + "\n"
	}
	return out
}
