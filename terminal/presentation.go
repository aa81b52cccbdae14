package terminal

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Presentation state reports (DECRQPSR, CSI Ps $ w) and their restore
// (DECRSPS, DCS Ps $ t … ST), VT320 and up, as xterm answers and takes
// them: Ps 1 is the cursor information report (DECCIR), Ps 2 the tab
// stop report (DECTABSR).

// presentationReport answers DECRQPSR.
func (e *Emulator) presentationReport(ps ansi.Params) {
	if e.level < 3 {
		return
	}
	switch param(ps, 0, 0) {
	case 1:
		e.reply("\x1bP1$u" + e.deccir() + "\x1b\\")
	case 2:
		e.reply("\x1bP2$u" + e.dectabsr() + "\x1b\\")
	}
}

// deccir is the cursor information report's data: row; column (of the
// screen, not the origin); page 1; renditions (0x40 + 8 inverse, 4
// blink, 2 underline, 1 bold); 0x40 + 1 when DECSCA protects what is
// written; 0x40 + 8 wrap pending, 4 SS3 pending, 2 SS2 pending, 1 origin
// mode; the sets in GL and GR; the sets' sizes; their designators. The
// sizes say every set is a 96-character one, as xterm's do (its restore
// requires it); the designators tell the sets apart.
func (e *Emulator) deccir() string {
	a := e.pen.Attrs
	rend := 0x40 | btoi(a&AttrInverse != 0)<<3 | btoi(a&AttrBlink != 0)<<2 |
		btoi(a.Underline() != UnderlineNone)<<1 | btoi(a&AttrBold != 0)
	att := 0x40 | btoi(a&attrProtected != 0 && e.protect == protectDEC)
	flags := 0x40 | btoi(e.wrapNext)<<3 | btoi(e.singleSS == 3)<<2 | btoi(e.singleSS == 2)<<1 | btoi(e.originMode)
	var desig [4]byte
	for g, cs := range e.charsets {
		desig[g] = cs.designator()
	}
	return fmt.Sprintf("%d;%d;1;%c;%c;%c;%d;%d;%c;%s", e.y+1, e.x+1, rend, att, flags, e.gl, e.gr, 0x4f, desig[:])
}

// dectabsr is the tab stop report's data: the columns (1-based) of the
// tab stops, separated by slashes.
func (e *Emulator) dectabsr() string {
	var b []byte
	for x, set := range e.tabs {
		if set {
			if len(b) > 0 {
				b = append(b, '/')
			}
			b = strconv.AppendInt(b, int64(x+1), 10)
		}
	}
	return string(b)
}

// restorePresentation is DECRSPS: data is a report as deccir or dectabsr
// wrote it. A cursor report that does not parse changes nothing; a tab
// stop report sets the stops it lists up to the first bad one.
func (e *Emulator) restorePresentation(ps ansi.Params, data string) {
	if e.level < 3 {
		return
	}
	switch param(ps, 0, 0) {
	case 1:
		e.restoreDECCIR(data)
	case 2:
		clear(e.tabs)
		for _, f := range strings.Split(data, "/") {
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 || n > e.cols {
				return
			}
			e.tabs[n-1] = true
		}
	}
}

// restoreDECCIR applies a cursor information report (see deccir).
func (e *Emulator) restoreDECCIR(data string) {
	f := strings.Split(data, ";")
	if len(f) != 10 {
		return
	}
	num := func(s string, lo, hi int) (int, bool) {
		n, err := strconv.Atoi(s)
		return n, err == nil && n >= lo && n <= hi
	}
	// chr is a field of one character 0x40 + bits within mask.
	chr := func(s string, mask int) (int, bool) {
		if len(s) != 1 || int(s[0])&^mask != 0x40 {
			return 0, false
		}
		return int(s[0]) & mask, true
	}
	row, ok1 := num(f[0], 1, e.rows)
	col, ok2 := num(f[1], 1, e.cols)
	_, ok3 := num(f[2], 1, 1)
	rend, ok4 := chr(f[3], 0xf)
	att, ok5 := chr(f[4], 1)
	flags, ok6 := chr(f[5], 0xf)
	gl, ok7 := num(f[6], 0, 3)
	gr, ok8 := num(f[7], 0, 3)
	sizes, ok9 := chr(f[8], 0xf)
	var sets [4]charset
	ok10 := true
	d := f[9]
	for g := range sets {
		if g >= len(d) {
			ok10 = false
			break
		}
		sets[g], ok10 = charsetByDesignator(d[g], sizes&(1<<g) != 0 && g > 0)
		if !ok10 {
			break
		}
	}
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7 && ok8 && ok9 && ok10) || len(d) != 4 {
		return
	}
	e.x, e.y = col-1, row-1
	a := e.pen.Attrs.withUnderline(UnderlineNone) &^ (AttrInverse | AttrBlink | AttrBold | attrProtected)
	if rend&8 != 0 {
		a |= AttrInverse
	}
	if rend&4 != 0 {
		a |= AttrBlink
	}
	if rend&2 != 0 {
		a = a.withUnderline(UnderlineSingle)
	}
	if rend&1 != 0 {
		a |= AttrBold
	}
	if att&1 != 0 {
		a |= attrProtected
		e.protect = protectDEC
	}
	e.pen.Attrs = a
	e.wrapNext = flags&8 != 0 && e.x == e.cols-1
	switch {
	case flags&4 != 0:
		e.singleSS = 3
	case flags&2 != 0:
		e.singleSS = 2
	default:
		e.singleSS = 0
	}
	e.originMode = flags&1 != 0
	e.gl, e.gr, e.charsets = gl, gr, sets
	e.updateLineDraw()
}
