package terminal

import (
	"encoding/binary"
	"slices"
	"unicode/utf8"
	"unsafe"
)

// histLine is one scrollback line stored compactly: the UTF-8 text of its
// cells, then (only when some cell is styled) run-length encoded styles,
// then a 4-byte trailer holding the text length and flags. Unstyled ASCII
// costs one byte per character plus the trailer.
type histLine []byte

const (
	histTrailer  = 4
	histWrapped  = 1 << 31
	histStyled   = 1 << 30
	histLenMask  = histStyled - 1
	styleSize    = int(unsafe.Sizeof(Style{}))
	maxRunLength = 1 << 28
)

func (l histLine) meta() uint32 { return binary.LittleEndian.Uint32(l[len(l)-histTrailer:]) }

// text returns the line's characters (blank cells read as spaces).
func (l histLine) text() []byte { return l[:l.meta()&histLenMask] }

// wrapped reports whether the line continues on the next one.
func (l histLine) wrapped() bool { return l.meta()&histWrapped != 0 }

func (l histLine) setWrapped(w bool) {
	m := l.meta() &^ histWrapped
	if w {
		m |= histWrapped
	}
	binary.LittleEndian.PutUint32(l[len(l)-histTrailer:], m)
}

// runs returns the encoded style runs ("" for an unstyled line).
func (l histLine) runs() []byte {
	m := l.meta()
	if m&histStyled == 0 {
		return nil
	}
	return l[m&histLenMask : len(l)-histTrailer]
}

// history is the scrollback: a ring of compact lines with a fixed cap.
// It is guarded by the emulator's lock.
type history struct {
	lines []histLine // ring storage; grows up to cap
	start int        // index of the oldest line
	n     int        // lines held
	cap   int
	// pullable counts the newest lines that were scrolled off the screen
	// (not pushed by a clear) and may come back when the screen grows.
	pullable int
	// dropped counts lines that ever left the ring (evicted or cleared).
	dropped uint64
}

func (h *history) setCap(n int) {
	h.cap = n
	if h.n > n {
		all := h.all()
		h.dropped += uint64(len(all) - n)
		h.replace(all[len(all)-n:])
	}
}

// at returns line i, 0 being the oldest.
func (h *history) at(i int) histLine {
	j := h.start + i
	if j >= len(h.lines) {
		j -= len(h.lines)
	}
	return h.lines[j]
}

// push appends r's content as the newest line, evicting the oldest when
// full. The evicted line's buffer is reused, so a full ring does not
// allocate.
func (h *history) push(e *Emulator, r *row) {
	h.pushCells(e, r.cells[:r.used], r.wrapped, !r.rich)
	h.pullable = min(h.pullable+1, h.n)
}

func (h *history) pushCells(e *Emulator, cells []Cell, wrapped, plain bool) {
	if h.cap <= 0 {
		h.dropped++
		return
	}
	var buf []byte
	var slot *histLine
	switch {
	case h.n < len(h.lines):
		slot = &h.lines[(h.start+h.n)%len(h.lines)]
		buf = (*slot)[:0]
		h.n++
	case h.n < h.cap:
		// Grow the ring. It only grows while it is not yet wrapped around,
		// so the lines are in order from start == 0. Growth doubles but
		// never past the cap, so a full ring holds no spare slots.
		if len(h.lines) == cap(h.lines) {
			grown := make([]histLine, len(h.lines), min(h.cap, max(64, 2*len(h.lines))))
			copy(grown, h.lines)
			h.lines = grown
		}
		h.lines = append(h.lines, nil)
		slot = &h.lines[len(h.lines)-1]
		h.n++
	default:
		slot = &h.lines[h.start]
		buf = (*slot)[:0]
		h.start++
		if h.start == len(h.lines) {
			h.start = 0
		}
		h.dropped++
	}
	if plain {
		*slot = encodePlain(buf, cells, wrapped)
	} else {
		*slot = e.encodeCells(buf, cells, wrapped)
	}
}

// encodePlain is encodeCells for cells known to hold only default-style
// ASCII (a row that is not rich). buf must be empty.
func encodePlain(buf []byte, cells []Cell, wrapped bool) histLine {
	cells = cells[:trimmedEnd(cells, wrapped)]
	buf = slices.Grow(buf, len(cells)+histTrailer)
	text := buf[len(buf) : len(buf)+len(cells)]
	for i := range cells {
		ch := byte(cells[i].Char)
		if ch == 0 {
			ch = ' '
		}
		text[i] = ch
	}
	buf = buf[:len(buf)+len(cells)]
	meta := uint32(len(buf))
	if wrapped {
		meta |= histWrapped
	}
	return binary.LittleEndian.AppendUint32(buf, meta)
}

// popNewest removes and returns the newest line.
func (h *history) popNewest() histLine {
	l := h.at(h.n - 1)
	h.n--
	if h.pullable > h.n {
		h.pullable = h.n
	}
	return l
}

func (h *history) reset() {
	h.dropped += uint64(h.n)
	h.lines, h.start, h.n, h.pullable = nil, 0, 0, 0
}

// all returns the lines oldest first (a new slice sharing line buffers).
func (h *history) all() []histLine {
	out := make([]histLine, h.n)
	for i := range out {
		out[i] = h.at(i)
	}
	return out
}

// replace sets the ring's content to lines (oldest first), which must not
// exceed the cap.
func (h *history) replace(lines []histLine) {
	h.lines = lines
	h.start, h.n = 0, len(lines)
	h.pullable = min(h.pullable, h.n)
}

// trimmedEnd returns the length of cells without trailing blanks: unwritten
// cells always, and default-style spaces on lines that do not wrap.
func trimmedEnd(cells []Cell, wrapped bool) int {
	end := len(cells)
	for end > 0 {
		c := cells[end-1]
		if c == (Cell{}) || (!wrapped && c == Cell{Char: ' '}) {
			end--
			continue
		}
		break
	}
	return end
}

// encodeCells returns the compact form of cells, reusing the capacity of
// buf, which must be empty.
func (e *Emulator) encodeCells(buf []byte, cells []Cell, wrapped bool) histLine {
	cells = cells[:trimmedEnd(cells, wrapped)]
	buf = slices.Grow(buf, len(cells)+histTrailer)
	styled := false
	for i := range cells {
		c := &cells[i]
		if !styled && (c.Fg|c.Bg|c.Underline != 0 || c.Link != 0 || c.Attrs&attrStyleMask != 0) {
			styled = true
		}
		switch ch := c.Char; {
		case uint32(ch)-1 < 0x7f:
			buf = append(buf, byte(ch))
		case c.Attrs&attrWideCont != 0:
		default:
			buf = e.appendGrapheme(buf, ch)
		}
	}
	textLen := len(buf)
	if styled {
		var run Style
		n := 0
		for i := range cells {
			c := &cells[i]
			if c.Attrs&attrWideCont != 0 {
				continue
			}
			if n > 0 && (c.Fg != run.Fg || c.Bg != run.Bg || c.Underline != run.Underline || c.Link != run.Link ||
				c.Attrs&attrStyleMask != run.Attrs || n == maxRunLength) {
				buf = appendRun(buf, n, run)
				n = 0
			}
			if n == 0 {
				run = c.Style
				run.Attrs &= attrStyleMask
			}
			n++
		}
		if n > 0 {
			buf = appendRun(buf, n, run)
		}
	}
	meta := uint32(textLen)
	if wrapped {
		meta |= histWrapped
	}
	if styled {
		meta |= histStyled
	}
	return binary.LittleEndian.AppendUint32(buf, meta)
}

func appendRun(buf []byte, n int, s Style) []byte {
	buf = binary.AppendUvarint(buf, uint64(n))
	return append(buf, unsafe.Slice((*byte)(unsafe.Pointer(&s)), styleSize)...)
}

func (e *Emulator) appendGrapheme(buf []byte, ch rune) []byte {
	switch {
	case ch == 0:
		return append(buf, ' ')
	case ch < 0x80:
		return append(buf, byte(ch))
	case ch&clusterBit != 0:
		return append(buf, e.clusters[ch&^clusterBit]...)
	}
	return utf8.AppendRune(buf, ch)
}

// decodeCells appends the cells of line l to dst. Wide characters take two
// cells; clusters are re-interned.
func (e *Emulator) decodeCells(dst []Cell, l histLine) []Cell {
	text := l.text()
	start := len(dst)
	for len(text) > 0 {
		c := text[0]
		if c < 0x80 {
			dst = append(dst, Cell{Char: rune(c)})
			text = text[1:]
			continue
		}
		r, size := utf8.DecodeRune(text)
		text = text[size:]
		w := runeWidth(r)
		if n := len(dst); n > start && (w == 0 || e.joinsCell(&dst[n-1-btoi(dst[n-1].Attrs&attrWideCont != 0)], r)) {
			lead := &dst[n-1]
			if lead.Attrs&attrWideCont != 0 {
				lead = &dst[n-2]
			}
			e.appendToCluster(lead, r)
			continue
		}
		if w == 0 {
			continue
		}
		if w == 2 {
			dst = append(dst, Cell{Char: r, Style: Style{Attrs: attrWide}}, Cell{Style: Style{Attrs: attrWideCont}})
		} else {
			dst = append(dst, Cell{Char: r})
		}
	}
	runs := l.runs()
	if runs == nil {
		return dst
	}
	i := start
	for len(runs) > 0 && i < len(dst) {
		n, k := binary.Uvarint(runs)
		if k <= 0 || len(runs) < k+styleSize {
			break
		}
		var s Style
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&s)), styleSize), runs[k:k+styleSize])
		runs = runs[k+styleSize:]
		for ; n > 0 && i < len(dst); n-- {
			flags := dst[i].Attrs & (attrWide | attrWideCont)
			dst[i].Style = s
			dst[i].Attrs |= flags
			if flags&attrWide != 0 && i+1 < len(dst) {
				dst[i+1].Style = s
				dst[i+1].Attrs |= attrWideCont
				i++
			}
			i++
		}
	}
	return dst
}

// joinsCell reports whether r extends the cluster in c (ZWJ sequences and
// flag pairs); see [Emulator.joinsPrevious].
func (e *Emulator) joinsCell(c *Cell, r rune) bool {
	if c.Char == 0 || (!isRegionalIndicator(r) && !isPictographic(r)) {
		return false
	}
	last, first, n := e.clusterEnds(c.Char)
	if isPictographic(r) && last == zwj {
		return true
	}
	return isRegionalIndicator(r) && n == 1 && isRegionalIndicator(first)
}

// appendToCluster adds r to the grapheme in c, interning the cluster.
func (e *Emulator) appendToCluster(c *Cell, r rune) {
	s := e.graphemeLocked(c.Char) + string(r)
	if id, ok := e.clusterID[s]; ok {
		c.Char = clusterBit | rune(id)
		return
	}
	if len(e.clusters) >= maxClusters || len(s) > 64 {
		return
	}
	if e.clusterID == nil {
		e.clusterID = make(map[string]int32)
	}
	id := int32(len(e.clusters))
	e.clusters = append(e.clusters, s)
	e.clusterID[s] = id
	c.Char = clusterBit | rune(id)
}
