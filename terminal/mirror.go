package terminal

// Building a Snapshot from elsewhere than an Emulator: a client that
// mirrors a remote pane (package attach) decodes the server's screen
// updates into a Snapshot with these, and copies it out to a renderer.
// An Emulator's snapshots never need them.

// InternGrapheme returns the Cell.Char value that stands for the text of
// one cell in s: 0 for "", the code point itself for a single code point,
// and otherwise an index into s's grapheme cluster table, to which text is
// appended (callers dedupe: every call with a multi-code-point text adds
// an entry). The table is shared with the snapshots [Snapshot.CopyTo]
// made from s and only ever appended to, so those stay valid.
func (s *Snapshot) InternGrapheme(text string) rune {
	n := 0
	var first rune
	for _, r := range text {
		if n == 0 {
			first = r
		}
		n++
	}
	switch n {
	case 0:
		return 0
	case 1:
		return first
	}
	s.clusters = append(s.clusters, text)
	return rune(len(s.clusters)-1) | clusterBit
}

// SetLink makes hyperlink id resolve to uri in s (see [Snapshot.Link]).
// Id 0 is ignored. Changing an entry copies the table first, so snapshots
// copied from s earlier keep their links.
func (s *Snapshot) SetLink(id uint16, uri string) {
	if id == 0 {
		return
	}
	i := int(id) - 1
	if i < len(s.links) {
		if s.links[i] != uri {
			s.links = append([]string(nil), s.links...)
			s.links[i] = uri
		}
		return
	}
	for len(s.links) < i {
		s.links = append(s.links, "")
	}
	s.links = append(s.links, uri)
}

// CopyTo copies s into dst, reusing dst's cell storage; the grapheme
// cluster and hyperlink tables are shared (they are append-only or
// copied on change).
func (s *Snapshot) CopyTo(dst *Snapshot) {
	n := len(s.Cells)
	if cap(dst.Cells) < n {
		dst.Cells = make([]Cell, n)
	}
	dst.Cells = dst.Cells[:n]
	copy(dst.Cells, s.Cells)
	if cap(dst.Wrapped) < len(s.Wrapped) {
		dst.Wrapped = make([]bool, len(s.Wrapped))
	}
	dst.Wrapped = dst.Wrapped[:len(s.Wrapped)]
	copy(dst.Wrapped, s.Wrapped)
	dst.LineSizes = growLineSizes(dst.LineSizes, len(s.LineSizes))
	copy(dst.LineSizes, s.LineSizes)
	dst.Cols, dst.Rows = s.Cols, s.Rows
	dst.Cursor, dst.Modes = s.Cursor, s.Modes
	dst.AltScreen, dst.ReverseVideo, dst.SyncOutput = s.AltScreen, s.ReverseVideo, s.SyncOutput
	dst.Title, dst.Cwd, dst.Colors = s.Title, s.Cwd, s.Colors
	dst.Generation, dst.Offset = s.Generation, s.Offset
	dst.clusters, dst.links = s.clusters, s.links
}

// WithWidth returns c marked as the left half of a wide character (w 2),
// the right half of one (w 0), or a single-width cell (any other w).
// Cell.Width reports it back.
func (c Cell) WithWidth(w int) Cell {
	c.Attrs &^= attrWide | attrWideCont
	switch w {
	case 2:
		c.Attrs |= attrWide
	case 0:
		c.Attrs |= attrWideCont
	}
	return c
}

// ColorEntry is one colour a program set: Index 0–255 is a palette entry
// (OSC 4), 256+d the dynamic colour of OSC 10+d (256 the default
// foreground, 257 the background, 258 the cursor, 263 the selection
// background, 265 the selection foreground). RGB is 0xRRGGBB.
type ColorEntry struct {
	Index int
	RGB   uint32
}

// Entries lists the colours set in c, palette entries first, in index
// order; nil for a nil c.
func (c *ProgramColors) Entries() []ColorEntry {
	if c == nil {
		return nil
	}
	var out []ColorEntry
	for i, v := range c.palette {
		if v&colourSet != 0 {
			out = append(out, ColorEntry{Index: i, RGB: v & 0xffffff})
		}
	}
	for d, v := range c.dynamic {
		if v&colourSet != 0 {
			out = append(out, ColorEntry{Index: 256 + d, RGB: v & 0xffffff})
		}
	}
	return out
}

// NewProgramColors returns the colours of entries (as [ProgramColors.Entries]
// lists them; entries out of range are ignored), or nil when there are
// none, as an Emulator reports "no colours set".
func NewProgramColors(entries []ColorEntry) *ProgramColors {
	var c *ProgramColors
	for _, e := range entries {
		v := e.RGB&0xffffff | colourSet
		switch {
		case e.Index >= 0 && e.Index < 256:
		case e.Index >= 256 && e.Index < 256+numDynamic:
		default:
			continue
		}
		if c == nil {
			c = new(ProgramColors)
		}
		if e.Index < 256 {
			c.palette[e.Index] = v
		} else {
			c.dynamic[e.Index-256] = v
		}
	}
	return c
}

// ScrollbackRows copies scrollback lines [from, to) (row 0 the oldest;
// clipped to what exists) into s as rows of the screen's width, cut or
// padded with blank cells as [Emulator.SnapshotAt] shows them, with
// their grapheme and hyperlink tables. s.Rows is the number of lines
// copied; s's other screen state is not set. It returns the index of the
// first line copied and [Emulator.DroppedLines] at that moment, read
// under one lock: dropped+index names a line for as long as it exists.
func (e *Emulator) ScrollbackRows(s *Snapshot, from, to int) (first int, dropped uint64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	from, to = max(from, 0), min(to, e.hist.n)
	n := max(to-from, 0)
	cols := e.cols
	if cap(s.Cells) < n*cols {
		s.Cells = make([]Cell, n*cols)
	}
	s.Cells = s.Cells[:n*cols]
	if cap(s.Wrapped) < n {
		s.Wrapped = make([]bool, n)
	}
	s.Wrapped = s.Wrapped[:n]
	s.LineSizes = growLineSizes(s.LineSizes, n)
	clear(s.LineSizes) // scrollback lines are single
	for y := 0; y < n; y++ {
		e.histRowLocked(s, y, from+y, cols)
	}
	s.Cols, s.Rows = cols, n
	s.clusters, s.links = e.clusters, e.links
	return from, e.hist.dropped
}

// histRowLocked decodes history line i into row y of s (cols wide).
func (e *Emulator) histRowLocked(s *Snapshot, y, i, cols int) {
	l := e.hist.at(i)
	s.decode = e.decodeCells(s.decode[:0], l)
	dst := s.Cells[y*cols : (y+1)*cols]
	k := copy(dst, s.decode)
	clear(dst[k:])
	if k > 0 && dst[k-1].Attrs&attrWide != 0 && k == cols && len(s.decode) > cols {
		// The right half of a wide character was cut off: show a blank.
		dst[k-1] = Cell{Style: dst[k-1].Style}
		dst[k-1].Attrs &^= attrWide
	}
	s.Wrapped[y] = l.wrapped()
}
