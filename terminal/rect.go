package terminal

import "github.com/charmbracelet/x/ansi"

// rect is a rectangle of cells, 0-based and inclusive, already clamped to
// the screen.
type rect struct{ top, left, bot, right int }

// rectParams reads the rectangle Pt;Pl;Pb;Pr starting at parameter i, as
// VT400 rectangle operations take it: 1-based, relative to the scroll
// region's top in origin mode, missing values meaning the screen's edges.
// stream allows a left column right of the right one when the area spans
// several lines (DECCARA/DECRARA under DECSACE's stream extent).
func (e *Emulator) rectParams(ps ansi.Params, i int, stream bool) (rect, bool) {
	off, loff := 0, 0
	bottom := e.rows
	if e.originMode {
		off, loff = e.top, e.left
		bottom = e.bot - e.top + 1
	}
	r := rect{
		top:   count(ps, i) - 1 + off,
		left:  count(ps, i+1) - 1 + loff,
		bot:   min(param(ps, i+2, 0), bottom),
		right: min(param(ps, i+3, 0)+loff, e.cols),
	}
	if r.bot == 0 {
		r.bot = bottom
	}
	if r.right == loff {
		r.right = e.cols
	}
	r.bot += off - 1
	r.right--
	if e.originMode {
		r.bot = min(r.bot, e.bot)
	}
	if r.top > r.bot || r.left > r.right && !(stream && r.top < r.bot) || r.top >= e.rows || r.left >= e.cols {
		return rect{}, false
	}
	return r, true
}

// rectOp runs a VT400 rectangle operation (CSI … $ v/x/z/{/r/t, CSI … * y).
// Below level 4 they are ignored, as a VT220 ignores them.
func (e *Emulator) rectOp(final byte, ps ansi.Params) {
	if e.level < 4 {
		return
	}
	switch final {
	case 'v': // DECCRA: copy
		if src, ok := e.rectParams(ps, 0, false); ok {
			e.copyRect(src, ps)
		}
	case 'x': // DECFRA: fill with a character
		ch := rune(param(ps, 0, 0))
		if r, ok := e.rectParams(ps, 1, false); ok && (ch >= 0x20 && ch < 0x7f || ch >= 0xa0 && ch <= 0xff) {
			e.fillRect(r, Cell{Char: ch, Style: e.pen})
		}
	case 'z': // DECERA: erase
		if r, ok := e.rectParams(ps, 0, false); ok {
			e.fillRect(r, e.eraseCell())
		}
	case '{': // DECSERA: selective erase
		if r, ok := e.rectParams(ps, 0, false); ok {
			for y := r.top; y <= r.bot; y++ {
				e.eraseCells(e.cur.rows[y], r.left, r.right+1, true)
			}
		}
	case 'r', 't': // DECCARA change, DECRARA reverse attributes
		if r, ok := e.rectParams(ps, 0, !e.rectExtent); ok {
			e.changeAttrs(r, ps[min(4, len(ps)):], final == 't')
		}
	}
}

// fillRect sets every cell of r to c.
func (e *Emulator) fillRect(r rect, c Cell) {
	for y := r.top; y <= r.bot; y++ {
		row := e.cur.rows[y]
		e.clearWideAt(row, r.left)
		e.clearWideAt(row, r.right)
		row.fill(r.left, r.right+1, c)
	}
}

// copyRect is DECCRA: src copied to the top-left corner Ptd;Pld given at
// parameters 5 and 6 (pages are ignored: there is one), clipped to the
// screen; overlapping copies read the source before writing.
func (e *Emulator) copyRect(src rect, ps ansi.Params) {
	off := 0
	if e.originMode {
		off = e.top
	}
	dy, dx := count(ps, 5)-1+off, count(ps, 6)-1
	if dy >= e.rows || dx >= e.cols {
		return
	}
	h := min(src.bot-src.top+1, e.rows-dy)
	w := min(src.right-src.left+1, e.cols-dx)
	buf := make([]Cell, 0, h*w)
	for y := range h {
		buf = append(buf, e.cur.rows[src.top+y].cells[src.left:src.left+w]...)
	}
	for y := range h {
		row := e.cur.rows[dy+y]
		e.clearWideAt(row, dx)
		e.clearWideAt(row, dx+w-1)
		line := buf[y*w : (y+1)*w]
		copy(row.cells[dx:dx+w], line)
		// Half of a wide character copied alone is blank.
		if c := &row.cells[dx]; c.Attrs&attrWideCont != 0 {
			*c = Cell{Style: Style{Bg: c.Bg}}
		}
		if c := &row.cells[dx+w-1]; c.Attrs&attrWide != 0 {
			*c = Cell{Style: Style{Bg: c.Bg}}
		}
		for _, c := range line {
			if isRich(c) {
				row.rich = true
				break
			}
		}
		row.used = max(row.used, dx+w)
	}
}

// changeAttrs is DECCARA (set the SGR attributes given) and DECRARA
// (reverse them) over r: bold, underline, blink, inverse (and their resets,
// 0 clearing all four for DECCARA). Under DECSACE 0/1 (stream extent, the
// default) r runs like text from its first to its last cell.
func (e *Emulator) changeAttrs(r rect, sgr ansi.Params, reverse bool) {
	var set, clr Attr
	if len(sgr) == 0 {
		sgr = ansi.Params{ansi.Param(0)}
	}
	for _, p := range sgr {
		switch v := p.Param(0); v {
		case 0:
			if reverse {
				set |= AttrBold | AttrBlink | AttrInverse | Attr(UnderlineSingle)<<attrUnderlineShift
			} else {
				clr |= AttrBold | AttrBlink | AttrInverse | attrUnderlineMask
				set = 0
			}
		case 1:
			set |= AttrBold
		case 4:
			set |= Attr(UnderlineSingle) << attrUnderlineShift
		case 5:
			set |= AttrBlink
		case 7:
			set |= AttrInverse
		case 22:
			clr |= AttrBold
		case 24:
			clr |= attrUnderlineMask
		case 25:
			clr |= AttrBlink
		case 27:
			clr |= AttrInverse
		}
	}
	for y := r.top; y <= r.bot; y++ {
		a, b := r.left, r.right
		if !e.rectExtent {
			a, b = 0, e.cols-1
			if y == r.top {
				a = r.left
			}
			if y == r.bot {
				b = r.right
			}
		}
		row := e.cur.rows[y]
		for x := a; x <= b; x++ {
			c := &row.cells[x]
			if reverse {
				c.Attrs ^= set &^ attrUnderlineMask
				if set&attrUnderlineMask != 0 {
					if c.Attrs.Underline() == UnderlineNone {
						c.Attrs = c.Attrs.withUnderline(UnderlineSingle)
					} else {
						c.Attrs = c.Attrs.withUnderline(UnderlineNone)
					}
				}
			} else {
				c.Attrs = c.Attrs&^clr | set
			}
		}
		row.rich = true
		row.used = max(row.used, b+1)
	}
}

// checksumRect answers DECRQCRA (CSI Pid ; Pp ; Pt ; Pl ; Pb ; Pr * y) with
// DCS Pid ! ~ xxxx ST, computed as xterm computes it by default (its
// checksumExtension 0, the VT420's own algorithm): each cell counts its
// character's low byte plus 0x10 for underline, 0x20 inverse, 0x40 blink
// and 0x80 bold; a blank cell never written and with no renditions counts
// nothing unless it is the rectangle's first; combining marks count
// nothing; the sum is negated and kept to 16 bits. Only when
// EmulatorOptions.AllowChecksum is set: the checksum lets a program read
// the screen back, which xterm also allows only on request.
func (e *Emulator) checksumRect(ps ansi.Params) {
	if !e.opts.AllowChecksum || e.level < 4 {
		return
	}
	id := param(ps, 0, 0)
	var sum uint32
	if r, ok := e.rectParams(ps, 2, false); ok {
		first := true
		for y := r.top; y <= r.bot; y++ {
			for _, c := range e.cur.rows[y].cells[r.left : r.right+1] {
				v, counted := cellChecksum(e, c)
				if counted || first {
					sum += v
				}
				first = false
			}
		}
	}
	e.replyf("\x1bP%d!~%04X\x1b\\", id, -sum&0xffff)
}

// cellChecksum is what c adds to a DECRQCRA checksum and whether it counts
// at all when it is not the rectangle's first cell (xterm leaves out the
// blanks of a line that nothing was written to).
func cellChecksum(e *Emulator, c Cell) (uint32, bool) {
	ch := c.Char
	switch {
	case c.Attrs&attrWideCont != 0:
		ch = 0 // xterm keeps no character in a wide one's right half
	case ch&clusterBit != 0:
		_, ch, _ = e.clusterEnds(ch)
	case ch == 0:
		ch = ' '
	}
	v := uint32(ch) & 0xff
	a := c.Attrs
	if a.Underline() != UnderlineNone {
		v += 0x10
	}
	if a&AttrInverse != 0 {
		v += 0x20
	}
	if a&AttrBlink != 0 {
		v += 0x40
	}
	if a&AttrBold != 0 {
		v += 0x80
	}
	return v, v != ' ' || c.Char != 0 || c.Style != (Style{})
}
