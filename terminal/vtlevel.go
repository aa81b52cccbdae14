package terminal

import (
	"fmt"
	"strconv"

	"github.com/charmbracelet/x/ansi"
)

// maxLevel is the highest conformance level the emulator implements: a
// VT420-class terminal (DECSCL 64), like xterm's default decTerminalID.
// DA1 and DECSCL's report say so; DECSCL can lower it.
const maxLevel = 4

// protectMode is which kind of protection the cells marked attrProtected
// carry: DEC's (DECSCA: only DECSED/DECSEL/DECSERA spare them) or ISO's
// (SPA/EPA: ED, EL and ECH spare them too). Its zero value is neither.
type protectMode uint8

const (
	protectNone protectMode = iota
	protectDEC
	protectISO
)

// da1 is the Primary Device Attributes answer for the current level: the
// class, then the extensions implemented (6 selective erase, 17 terminal
// state interrogation, 21 horizontal scrolling, 22 ANSI colour, 28
// rectangular editing at VT400 level).
func (e *Emulator) da1() string {
	switch e.level {
	case 1:
		return "\x1b[?1;2c" // a VT100 with the advanced video option
	case 2:
		return "\x1b[?62;6;17;21;22c"
	case 3:
		return "\x1b[?63;6;17;21;22c"
	}
	return "\x1b[?64;6;17;21;22;28c"
}

// decscl applies DECSCL (CSI Pl ; Pc " p): a conformance level from 61
// (VT100) to 64 (VT400), then a soft reset. Levels the emulator does not
// have are ignored, as xterm ignores levels above its decTerminalID.
// Above VT100 level Pc 1 selects 7-bit replies and 0 or 2 (or none, as
// in xterm) 8-bit ones (see setC1).
func (e *Emulator) decscl(ps ansi.Params) {
	l := param(ps, 0, 0) - 60
	if l < 1 || l > maxLevel {
		return
	}
	e.softReset()
	e.level = l
	e.c1 = false
	if l > 1 {
		e.c1 = param(ps, 1, 0) != 1
	}
}

// setC1 is S8C1T (ESC SP G, on) and S7C1T (ESC SP F, off), VT220 and up:
// whether the terminal's replies start with 8-bit C1 controls (CSI as
// 0x9b, DCS 0x90, ST 0x9c, OSC 0x9d) rather than ESC sequences, as
// xterm writes them (raw bytes, not UTF-8). Keys are always sent with
// 7-bit controls.
func (e *Emulator) setC1(on bool) {
	if e.level >= 2 {
		e.c1 = on
	}
}

// replyC1 rewrites the reply bytes from index from on with 8-bit C1
// controls when S8C1T is on.
func (e *Emulator) replyC1(from int) {
	if !e.c1 {
		return
	}
	b := e.replies[from:]
	n := 0
	for i := 0; i < len(b); i++ {
		if b[i] == 0x1b && i+1 < len(b) {
			if c := b[i+1]; c == '[' || c == 'P' || c == '\\' || c == ']' {
				b[n] = c + 0x40
				n++
				i++
				continue
			}
		}
		b[n] = b[i]
		n++
	}
	e.replies = e.replies[:from+n]
}

// backspace is BS: one column left, stopping at the left edge, or with
// reverse wraparound (?45 and ?7) to the end of the line above when that
// line wrapped into this one (any line, and from the top margin to the
// bottom one, with ?1045).
func (e *Emulator) backspace() {
	rw := e.autowrap && (e.reverseWrap || e.reverseWrapAll)
	if e.wrapNext {
		e.wrapNext = false
		if rw {
			return // xterm: the pending wrap is undone, the cursor stays
		}
	}
	first := 0
	if e.lrmm && e.x >= e.left {
		first = e.left
	}
	if e.x > first {
		e.x--
		return
	}
	if !rw {
		return
	}
	top, bot := 0, e.rows-1
	if e.y >= e.top && e.y <= e.bot {
		top, bot = e.top, e.bot
	}
	switch {
	case e.y > top && (e.reverseWrapAll || e.cur.rows[e.y-1].wrapped):
		e.y--
	case e.y == top && e.reverseWrapAll:
		e.y = bot
	default:
		return
	}
	e.x = e.right
}

// setProtection applies DECSCA (CSI Ps " q): 1 protects what is printed
// from DECSED/DECSEL, 0 and 2 stop protecting.
func (e *Emulator) setProtection(n int) {
	switch n {
	case 1:
		e.pen.Attrs |= attrProtected
		e.protect = protectDEC
	case 0, 2:
		e.pen.Attrs &^= attrProtected
	}
}

// isoProtection is SPA (on) and EPA (off): ISO 6429's guarded area, which
// ED, EL and ECH leave alone too.
func (e *Emulator) isoProtection(on bool) {
	if on {
		e.pen.Attrs |= attrProtected
		e.protect = protectISO
	} else {
		e.pen.Attrs &^= attrProtected
	}
}

// eraseCells erases cells [a, b) of r. selective (DECSED, DECSEL) and ISO
// protection spare cells marked protected; otherwise everything goes.
func (e *Emulator) eraseCells(r *row, a, b int, selective bool) {
	a, b = max(a, 0), min(b, e.cols)
	if a >= b {
		return
	}
	if !selective && e.protect != protectISO {
		e.clearWideAt(r, a)
		e.clearWideAt(r, b-1)
		r.fill(a, b, e.eraseCell())
		return
	}
	blank := e.eraseCell()
	for x := a; x < b && x < r.used; x++ {
		if r.cells[x].Attrs&attrProtected != 0 {
			continue
		}
		e.clearWideAt(r, x)
		r.cells[x] = blank
	}
	r.rich = r.rich || isRich(blank)
	if blank != (Cell{}) {
		r.used = max(r.used, b)
		for x := r.used; x < b; x++ {
			r.cells[x] = blank
		}
	}
}

// selectiveEraseLine is DECSEL (CSI ? Ps K).
func (e *Emulator) selectiveEraseLine(mode int) { e.eraseLineCells(mode, true) }

// eraseLineCells erases the cursor's line as EL mode 0 (to the end), 1 (to
// the cursor) or 2 (all) does, cell by cell for protection (eraseCells).
func (e *Emulator) eraseLineCells(mode int, selective bool) {
	r := e.cur.rows[e.y]
	switch mode {
	case 0:
		e.eraseCells(r, e.x, e.cols, selective)
	case 1:
		e.eraseCells(r, 0, e.x+1, selective)
	case 2:
		e.eraseCells(r, 0, e.cols, selective)
	}
}

// selectiveEraseDisplay is DECSED (CSI ? Ps J).
func (e *Emulator) selectiveEraseDisplay(mode int) {
	rows := e.cur.rows
	switch mode {
	case 0:
		e.selectiveEraseLine(0)
		for _, r := range rows[e.y+1:] {
			e.eraseCells(r, 0, e.cols, true)
		}
	case 1:
		for _, r := range rows[:e.y] {
			e.eraseCells(r, 0, e.cols, true)
		}
		e.selectiveEraseLine(1)
	case 2, 3:
		for _, r := range rows {
			e.eraseCells(r, 0, e.cols, true)
		}
	}
}

// insertColumns is DECIC (CSI Ps ' }): n blank columns at the cursor in
// every line of the scroll region, the rest shifted right up to the right
// margin. Nothing happens with the cursor outside the margins.
func (e *Emulator) insertColumns(n int) {
	if e.level < 4 || e.y < e.top || e.y > e.bot || e.x < e.left || e.x > e.right {
		return
	}
	for _, r := range e.cur.rows[e.top : e.bot+1] {
		e.insertBlanksTo(r, e.x, n, e.right+1)
	}
}

// deleteColumns is DECDC (CSI Ps ' ~): n columns at the cursor removed from
// every line of the scroll region, blank columns coming in at the right
// margin.
func (e *Emulator) deleteColumns(n int) {
	if e.level < 4 || e.y < e.top || e.y > e.bot || e.x < e.left || e.x > e.right {
		return
	}
	for _, r := range e.cur.rows[e.top : e.bot+1] {
		e.deleteCellsTo(r, e.x, n, e.right+1)
	}
}

// backIndex is DECBI (ESC 6): the cursor one column left, or at the left
// margin the region's columns shift right by one.
func (e *Emulator) backIndex() {
	if e.level < 4 {
		return
	}
	e.wrapNext = false
	if e.x != e.left {
		if e.x > 0 {
			e.x--
		}
		return
	}
	e.insertColumns(1)
}

// forwardIndex is DECFI (ESC 9): the cursor one column right, or at the
// right margin the region's columns shift left by one.
func (e *Emulator) forwardIndex() {
	if e.level < 4 {
		return
	}
	e.wrapNext = false
	if e.x != e.right {
		if e.x < e.cols-1 {
			e.x++
		}
		return
	}
	x := e.x
	e.x = e.left
	e.deleteColumns(1)
	e.x = x
}

// scrollColumns is SL (CSI Ps SP @, left) and SR (CSI Ps SP A, right):
// the scroll region's columns between the margins move n places, blanks
// coming in.
func (e *Emulator) scrollColumns(n int, left bool) {
	for _, r := range e.cur.rows[e.top : e.bot+1] {
		if left {
			e.deleteCellsTo(r, e.left, n, e.right+1)
		} else {
			e.insertBlanksTo(r, e.left, n, e.right+1)
		}
	}
}

// Mode states in DECRQM answers.
const (
	modeUnknown      = 0
	modeSet          = 1
	modeReset        = 2
	modeAlwaysSet    = 3
	modeAlwaysReset  = 4
	modeNotSupported = modeAlwaysReset
)

// fixedPrivateModes are the DEC private modes xterm knows that Paneflow
// keeps fixed: DECRQM answers them as permanently set or reset instead of
// "not recognised".
var fixedPrivateModes = map[int]int{
	2:    modeAlwaysSet,   // DECANM: ANSI, no VT52 mode
	4:    modeAlwaysReset, // DECSCLM: jump scrolling
	8:    modeAlwaysSet,   // DECARM: keys repeat (the window system's)
	13:   modeAlwaysReset, // start blinking cursor (xterm's menu)
	14:   modeAlwaysReset, // XOR blinking cursor
	18:   modeAlwaysReset, // DECPFF: print form feed
	19:   modeAlwaysReset, // DECPEX: print extent
	30:   modeAlwaysReset, // rxvt scrollbar
	35:   modeAlwaysReset, // rxvt font-shifting keys
	38:   modeAlwaysReset, // DECTEK: no Tektronix mode
	41:   modeAlwaysReset, // more(1) fix
	42:   modeAlwaysReset, // DECNRCM: no national replacement sets
	44:   modeAlwaysReset, // margin bell
	46:   modeAlwaysReset, // logging
	67:   modeAlwaysReset, // DECBKM: Backspace sends DEL
	80:   modeAlwaysReset, // DECSDM: no sixel
	1001: modeAlwaysReset, // highlight mouse tracking
	1010: modeAlwaysReset, // scroll to bottom on output
	1011: modeAlwaysSet,   // scroll to bottom on a key press
	1014: modeAlwaysReset, // fast scroll
	1016: modeAlwaysReset, // SGR-pixel mouse
	1034: modeAlwaysReset, // eightBitInput
	1035: modeAlwaysReset, // Num Lock modifier
	1036: modeAlwaysSet,   // metaSendsEscape: Alt sends ESC
	1037: modeAlwaysReset, // keypad Delete sends DEL
	1039: modeAlwaysSet,   // altSendsEscape
	1040: modeAlwaysReset, // keep selection
	1041: modeAlwaysReset, // CLIPBOARD selection
	1042: modeAlwaysReset, // urgency on BEL
	1043: modeAlwaysReset, // raise on BEL
	1044: modeAlwaysReset, // reuse CLIPBOARD
	1046: modeAlwaysReset, // switching to the alternate screen is always allowed
	1050: modeAlwaysReset, // terminfo/termcap function keys
	1051: modeAlwaysReset, // Sun function keys
	1052: modeAlwaysReset, // HP function keys
	1053: modeAlwaysReset, // SCO function keys
	1060: modeAlwaysReset, // legacy keyboard
	1061: modeAlwaysReset, // VT220 keyboard
	1070: modeAlwaysReset, // sixel private colour registers
	2001: modeAlwaysReset, // readline mouse button 1
	2002: modeAlwaysReset, // readline mouse button 2
	2003: modeAlwaysReset, // readline mouse button 3
	2005: modeAlwaysReset, // readline character quoting
	2006: modeAlwaysReset, // readline newline pasting
}

// fixedANSIModes are the ANSI modes xterm knows that Paneflow keeps fixed.
var fixedANSIModes = map[int]int{
	1:  modeAlwaysReset, // GATM: no guarded areas to transfer
	2:  modeAlwaysReset, // KAM: the keyboard is never locked
	5:  modeAlwaysReset, // SRTM: no status reports in data
	7:  modeAlwaysReset, // VEM: editing is never across lines
	10: modeAlwaysReset, // HEM: editing is never across characters in reverse
	11: modeAlwaysReset, // PUM: positions are in characters
	12: modeAlwaysSet,   // SRM: no local echo
	13: modeAlwaysReset, // FEAM: format effectors act
	14: modeAlwaysReset, // FETM: format effectors are not transferred
	15: modeAlwaysReset, // MATM: single transfer
	16: modeAlwaysReset, // TTM: cursor-position transfer
	17: modeAlwaysReset, // SATM: selected areas only
	18: modeAlwaysReset, // TSM: tab stops on every line alike
	19: modeAlwaysReset, // EBM: no editing boundary
}

// decrqss answers DECRQSS (DCS $ q Pt ST) for the settings the emulator
// has, as xterm does; anything else is refused (DCS 0 $ r ST): among them
// DECSASD and DECSSDT (there is no status line) and DECSACE, which xterm
// does not report either.
func (e *Emulator) decrqss(pt string) {
	var v string
	switch pt {
	case "m":
		v = e.sgrReport() + "m"
	case "r":
		v = fmt.Sprintf("%d;%dr", e.top+1, e.bot+1)
	case " q":
		v = fmt.Sprintf("%d q", e.decscusr())
	case "\"q":
		v = "0\"q"
		if e.pen.Attrs&attrProtected != 0 && e.protect == protectDEC {
			v = "1\"q"
		}
	case "\"p":
		v = fmt.Sprintf("6%d;%d\"p", e.level, 1-btoi(e.c1))
		if e.level == 1 {
			v = "61\"p"
		}
	case "s":
		if e.level < 4 { // DECSLRM is a VT420's
			e.reply("\x1bP0$r\x1b\\")
			return
		}
		v = fmt.Sprintf("%d;%ds", e.left+1, e.right+1)
	case "t":
		v = fmt.Sprintf("%dt", e.rows)
	case "$|":
		v = fmt.Sprintf("%d$|", e.cols)
	case "*|":
		v = fmt.Sprintf("%d*|", e.rows)
	default:
		e.reply("\x1bP0$r\x1b\\")
		return
	}
	e.reply("\x1bP1$r" + v + "\x1b\\")
}

// sgrReport is the pen as SGR parameters, as DECRQSS reports it.
func (e *Emulator) sgrReport() string {
	b := []byte{'0'}
	add := func(s string) { b = append(append(b, ';'), s...) }
	a := e.pen.Attrs
	flag := func(f Attr, v string) {
		if a&f != 0 {
			add(v)
		}
	}
	flag(AttrBold, "1")
	flag(AttrFaint, "2")
	flag(AttrItalic, "3")
	switch u := a.Underline(); u {
	case UnderlineNone:
	case UnderlineSingle:
		add("4")
	case UnderlineDouble:
		add("21")
	default:
		add("4:" + strconv.Itoa(int(u)))
	}
	flag(AttrBlink, "5")
	flag(AttrInverse, "7")
	flag(AttrHidden, "8")
	flag(AttrStrike, "9")
	flag(AttrOverline, "53")
	colour := func(c Color, base, bright, ext int) {
		if i, ok := c.Indexed(); ok {
			switch {
			case base < 0:
				add(fmt.Sprintf("%d:5:%d", ext, i))
			case i < 8:
				add(strconv.Itoa(base + int(i)))
			case i < 16:
				add(strconv.Itoa(bright + int(i) - 8))
			default:
				add(fmt.Sprintf("%d:5:%d", ext, i))
			}
		} else if r, g, bl, ok := c.RGB(); ok {
			add(fmt.Sprintf("%d:2::%d:%d:%d", ext, r, g, bl))
		}
	}
	colour(e.pen.Fg, 30, 90, 38)
	colour(e.pen.Bg, 40, 100, 48)
	if !e.pen.Underline.IsDefault() {
		colour(e.pen.Underline, -1, -1, 58)
	}
	return string(b)
}

// windowReport answers the XTWINOPS reports that carry numbers only
// (CSI 14/16/18/19 t); the title reports (20, 21) are never answered, so a
// program's output can never make the terminal type a title back.
func (e *Emulator) windowReport(n int) {
	switch n {
	case 14: // text area in pixels
		if e.cellW > 0 && e.cellH > 0 {
			e.replyf("\x1b[4;%d;%dt", e.rows*e.cellH, e.cols*e.cellW)
		}
	case 16: // cell size in pixels
		if e.cellW > 0 && e.cellH > 0 {
			e.replyf("\x1b[6;%d;%dt", e.cellH, e.cellW)
		}
	case 18: // text area in characters
		e.replyf("\x1b[8;%d;%dt", e.rows, e.cols)
	case 19: // screen in characters: the pane is the whole screen here
		e.replyf("\x1b[9;%d;%dt", e.rows, e.cols)
	}
}

// SetCellPixels tells the emulator how large one cell is drawn, in pixels,
// so the window reports CSI 14 t and CSI 16 t can be answered. Until it is
// called (or with zeros) those reports go unanswered: a headless pane has
// no pixels.
func (e *Emulator) SetCellPixels(w, h int) {
	e.mu.Lock()
	e.cellW, e.cellH = max(w, 0), max(h, 0)
	e.mu.Unlock()
}

// decdsr answers the DEC-private device status reports (CSI ? Ps n) with
// what a terminal without a printer, locator, macros or sessions says.
func (e *Emulator) decdsr(n, id int) {
	switch n {
	case 6: // DECXCPR: the cursor, with the page at VT400 level
		if e.level >= 4 {
			e.replyf("\x1b[?%d;%d;1R", e.reportY()+1, e.x+1)
		} else {
			e.replyf("\x1b[?%d;%dR", e.reportY()+1, e.x+1)
		}
	case 15: // printer
		e.reply("\x1b[?13n") // no printer
	case 25: // user-defined keys
		e.reply("\x1b[?21n") // locked: programs cannot define keys
	case 26: // keyboard
		e.reply("\x1b[?27;1;0;0n") // North American, ready, LK201
	case 53, 55: // locator
		e.reply("\x1b[?53n") // no locator
	case 56: // locator type
		e.reply("\x1b[?57;0n") // cannot identify
	case 62: // DECMSR: macro space
		e.reply("\x1b[0000*{") // none, in four digits as xterm writes it
	case 63: // DECCKSR: memory checksum, id kept from the request
		e.replyf("\x1bP%d!~0000\x1b\\", id)
	case 75: // data integrity
		e.reply("\x1b[?70n") // ready, no errors
	case 85: // multiple sessions
		e.reply("\x1b[?83n") // not configured
	}
}
