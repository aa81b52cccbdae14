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
// The lines' bytes are stored back to back in blocks (histBlock), filled
// in order and freed once every line in them was evicted, and the ring
// holds one histRef (8 bytes) per line. A line therefore costs its
// encoding plus 8 bytes, where a slice per line cost a 24-byte header and
// the allocator's rounding; the blocks hold no pointers, so the garbage
// collector does not scan them. The zero value keeps no lines (cap 0). It
// is guarded by the emulator's lock.
type history struct {
	refs  []histRef // ring storage; grows up to cap
	start int       // index of the oldest line
	n     int       // lines held
	cap   int
	// blocks holds the lines' bytes, oldest block first; blocks[i] has
	// the sequence number base+i, which histRef.blk names.
	blocks []histBlock
	base   uint32
	// spare is a block of histBlockMax bytes whose lines were all
	// evicted, kept for the next block so a full ring does not allocate.
	spare histBlock
	// scratch is reused to encode a line before it is copied into a block.
	scratch []byte
	// pullable counts the newest lines that were scrolled off the screen
	// (not pushed by a clear) and may come back when the screen grows.
	pullable int
	// dropped counts lines that ever left the ring (evicted or cleared).
	dropped uint64
}

// histRef locates a line: its block's sequence number and its offset in
// the block. The line ends where the next line of the same block starts,
// or at the end of the block's bytes.
type histRef struct{ blk, off uint32 }

// histBlock is the bytes of consecutive lines; only appended to, except
// that popNewest truncates it.
type histBlock []byte

// Block sizes: the first block of a history is small (most panes keep
// only a few lines), each next one twice the previous, up to
// histBlockMax. A line longer than a block gets a block of its own size.
const (
	histBlockMin = 1 << 10
	histBlockMax = 32 << 10
)

func (h *history) setCap(n int) {
	grow := n > h.cap && h.start != 0
	h.cap = n
	switch {
	case h.n > n:
		all := h.all()
		h.dropped += uint64(len(all) - n)
		h.replace(all[len(all)-n:])
	case grow:
		// The ring grows by appending, which needs it unwrapped.
		h.replace(h.all())
	}
}

// ref returns the ring entry of line i, 0 being the oldest.
func (h *history) ref(i int) histRef {
	j := h.start + i
	if j >= len(h.refs) {
		j -= len(h.refs)
	}
	return h.refs[j]
}

// at returns line i, 0 being the oldest. The line shares the history's
// storage: it is valid until the history next changes, and its capacity
// ends with it, so appending to it copies.
func (h *history) at(i int) histLine {
	r := h.ref(i)
	b := h.blocks[r.blk-h.base]
	end := uint32(len(b))
	if i+1 < h.n {
		if next := h.ref(i + 1); next.blk == r.blk {
			end = next.off
		}
	}
	return histLine(b[r.off:end:end])
}

// push appends r's content as the newest line, evicting the oldest when
// full. A full ring reuses the storage of the lines it evicts, so it does
// not allocate.
func (h *history) push(e *Emulator, r *row) {
	h.pushCells(e, r.cells[:r.used], r.wrapped, !r.rich)
	h.pullable = min(h.pullable+1, h.n)
}

func (h *history) pushCells(e *Emulator, cells []Cell, wrapped, plain bool) {
	if h.cap <= 0 {
		h.dropped++
		return
	}
	if plain {
		h.scratch = encodePlain(h.scratch[:0], cells, wrapped)
	} else {
		h.scratch = e.encodeCells(h.scratch[:0], cells, wrapped)
	}
	h.pushLine(h.scratch)
}

// pushLine appends a copy of the encoded line l as the newest line,
// evicting the oldest when the ring is full (cap must be positive).
func (h *history) pushLine(l histLine) {
	if h.n == h.cap {
		h.evictOldest()
	}
	ref := h.store(l)
	switch {
	case h.n < len(h.refs):
		j := h.start + h.n
		if j >= len(h.refs) {
			j -= len(h.refs)
		}
		h.refs[j] = ref
	default:
		// Grow the ring. It only grows while it is not wrapped around
		// (start == 0: nothing was evicted since it was last rebuilt).
		// Growth doubles but never past the cap, so a full ring holds
		// no spare slots.
		if len(h.refs) == cap(h.refs) {
			grown := make([]histRef, len(h.refs), min(h.cap, max(64, 2*len(h.refs))))
			copy(grown, h.refs)
			h.refs = grown
		}
		h.refs = append(h.refs, ref)
	}
	h.n++
}

// store copies l into the newest block, starting a new block when it does
// not fit, and returns where it went.
func (h *history) store(l histLine) histRef {
	if k := len(h.blocks); k > 0 {
		b := &h.blocks[k-1]
		if len(*b)+len(l) <= cap(*b) {
			off := len(*b)
			*b = append(*b, l...)
			return histRef{blk: h.base + uint32(k-1), off: uint32(off)}
		}
	}
	size := histBlockMin
	if k := len(h.blocks); k > 0 {
		size = min(histBlockMax, max(histBlockMin, 2*cap(h.blocks[k-1])))
	}
	var b histBlock
	if size == histBlockMax && h.spare != nil && len(l) <= cap(h.spare) {
		b, h.spare = h.spare[:0], nil
	} else {
		b = make(histBlock, 0, max(size, len(l)))
	}
	b = append(b, l...)
	if len(h.blocks) == cap(h.blocks) {
		// Move the live blocks to the front of a new array rather than
		// let the evicted front grow the old one.
		h.blocks = append(make([]histBlock, 0, max(4, 2*len(h.blocks))), h.blocks...)
	}
	h.blocks = append(h.blocks, b)
	return histRef{blk: h.base + uint32(len(h.blocks)-1), off: 0}
}

// evictOldest drops the oldest line, and its block once no line is left
// in it.
func (h *history) evictOldest() {
	old := h.ref(0)
	h.start++
	if h.start == len(h.refs) {
		h.start = 0
	}
	h.n--
	h.dropped++
	if h.n > 0 && h.ref(0).blk == old.blk {
		return
	}
	// Blocks before the new oldest line's (only blocks[0] can be) are
	// empty now.
	for len(h.blocks) > 0 && (h.n == 0 || h.base != h.ref(0).blk) {
		if b := h.blocks[0]; cap(b) == histBlockMax {
			h.spare = b
		}
		h.blocks[0] = nil
		h.blocks = h.blocks[1:]
		h.base++
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

// popNewest removes and returns the newest line. The line stays valid
// until the next push.
func (h *history) popNewest() histLine {
	l := h.at(h.n - 1)
	r := h.ref(h.n - 1)
	h.n--
	// Later lines go where this one was; a block left empty stays (it is
	// the newest and takes the next line).
	k := r.blk - h.base
	h.blocks[k] = h.blocks[k][:r.off]
	if h.n == 0 {
		h.start = 0
		if len(h.refs) < h.cap {
			h.refs = h.refs[:0] // not wrapped: the ring may grow again
		}
	}
	if h.pullable > h.n {
		h.pullable = h.n
	}
	return l
}

func (h *history) reset() {
	h.dropped += uint64(h.n)
	h.refs, h.start, h.n, h.pullable = nil, 0, 0, 0
	h.blocks, h.spare = nil, nil
}

// all returns the lines oldest first (a new slice of lines sharing the
// history's storage: valid until it next changes).
func (h *history) all() []histLine {
	out := make([]histLine, h.n)
	for i := range out {
		out[i] = h.at(i)
	}
	return out
}

// replace sets the history's content to copies of lines (oldest first),
// which must not exceed the cap. lines may share the current storage: it
// is rebuilt in new blocks.
func (h *history) replace(lines []histLine) {
	pullable, dropped := h.pullable, h.dropped
	*h = history{cap: h.cap, scratch: h.scratch}
	if len(lines) > 0 {
		h.refs = make([]histRef, 0, min(h.cap, max(64, len(lines))))
	}
	for _, l := range lines {
		h.pushLine(l)
	}
	h.pullable = min(pullable, h.n)
	h.dropped = dropped
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
