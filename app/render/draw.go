package render

import (
	"encoding/binary"
	"image"
	"image/color"
	"slices"
	"unicode/utf8"

	"github.com/paneflow-go/paneflow/terminal"
)

// renderState is what a Renderer remembers between frames.
type renderState struct {
	valid       bool
	dst         *image.RGBA
	rect        image.Rectangle
	cols, rows  int
	cw, ch      int
	reverse     bool
	prev        []terminal.Cell
	prevWrapped []bool
	prevSig     []rowSig
	// damage is the part of dst the last render changed (Renderer.Damage).
	damage image.Rectangle

	// scratch, reused across frames
	line     []byte  // one pixel row of the grid
	fg, bg   []pixel // per column of the row being drawn
	fg0      []pixel // fg before overlays
	deco     []pixel // underline colour per column
	matchOn  []int32 // per row: start of its matches in matchIdx
	matchIdx []int32
	sig      []rowSig

	// glyph front cache (no locking): ASCII by style, then maps
	ascii   [4][128]*glyph
	runes   map[glyphKey]*glyph
	strs    map[strKey]*glyph
	cacheOf *FontSet
}

// pixel is an opaque colour packed as it sits in image.RGBA.Pix.
type pixel struct{ r, g, b uint8 }

func px(c color.RGBA) pixel { return pixel{c.R, c.G, c.B} }

// mix returns a*(1-t)+b*t for t in [0,256].
func mix(a, b pixel, t uint32) pixel {
	return pixel{
		uint8((uint32(a.r)*(256-t) + uint32(b.r)*t) >> 8),
		uint8((uint32(a.g)*(256-t) + uint32(b.g)*t) >> 8),
		uint8((uint32(a.b)*(256-t) + uint32(b.b)*t) >> 8),
	}
}

// luma is a cheap perceived brightness (0–255·1000).
func luma(p pixel) int { return 299*int(p.r) + 587*int(p.g) + 114*int(p.b) }

// palettePixels is the palette packed for the hot path.
type palettePixels struct {
	fg, bg, cursor, cursorText, sel, selText, match, current, matchText, link pixel
	ansi                                                                      [16]pixel
}

func (r *Renderer) resolvePalette() {
	p := &r.pal
	pp := palettePixels{
		fg: px(p.Foreground), bg: px(p.Background), cursor: px(p.Cursor), cursorText: px(p.CursorText),
		sel: px(p.Selection), selText: px(p.SelectionText), match: px(p.Match), current: px(p.CurrentMatch),
		link: px(p.Link),
	}
	for i, c := range p.ANSI {
		pp.ansi[i] = px(c)
	}
	// Text on a match: whichever default colour contrasts more with it.
	m := luma(pp.match)
	pp.matchText = pp.fg
	if abs(luma(pp.bg)-m) > abs(luma(pp.fg)-m) {
		pp.matchText = pp.bg
	}
	r.pp = pp
}

func (r *Renderer) resolve(c terminal.Color, fg bool) pixel {
	if c == terminal.DefaultColor {
		if fg {
			return r.pp.fg
		}
		return r.pp.bg
	}
	if i, ok := c.Indexed(); ok && i < 16 {
		return r.pp.ansi[i]
	}
	return px(r.pal.Resolve(c, fg))
}

// rowSig summarises everything besides the cells that decides how a row
// looks; a row is redrawn when its signature changes.
type rowSig struct {
	cursor     int16 // column, -1 none
	cursorKind uint8
	sel0, sel1 int16
	link0      int16
	link1      int16
	matches    uint64 // hash of the row's match spans, 0 none
}

const (
	cursorNone = iota
	cursorBlock
	cursorUnderline
	cursorBar
	cursorHollow
)

func (r *Renderer) render(dst *image.RGBA, s *terminal.Snapshot, o *Overlay) int {
	if o == nil {
		o = &Overlay{Current: -1}
	}
	st := &r.st
	cw, ch := r.font.CellSize()
	cols, rows := s.Cols, s.Rows
	if cols <= 0 || rows <= 0 || len(s.Cells) < cols*rows {
		return 0
	}
	if st.cacheOf != r.font {
		st.ascii = [4][128]*glyph{}
		st.runes = make(map[glyphKey]*glyph)
		st.strs = make(map[strKey]*glyph)
		st.cacheOf = r.font
	}
	reverse := s.ReverseVideo != o.Flash
	in := r.insetFor(dst.Rect.Dx(), dst.Rect.Dy())
	grid := dst
	if in > 0 {
		grid = dst.SubImage(dst.Rect.Inset(in)).(*image.RGBA)
	}
	full := !st.valid || st.dst != dst || st.rect != dst.Rect || st.cols != cols || st.rows != rows ||
		st.cw != cw || st.ch != ch || st.reverse != reverse
	if full {
		st.dst, st.rect, st.cols, st.rows, st.cw, st.ch, st.reverse = dst, dst.Rect, cols, rows, cw, ch, reverse
		st.prev = slices.Grow(st.prev[:0], cols*rows)[:cols*rows]
		st.prevWrapped = slices.Grow(st.prevWrapped[:0], rows)[:rows]
		st.prevSig = slices.Grow(st.prevSig[:0], rows)[:rows]
		st.line = slices.Grow(st.line[:0], cols*cw*4)[:cols*cw*4]
		st.fg = slices.Grow(st.fg[:0], cols)[:cols]
		st.bg = slices.Grow(st.bg[:0], cols)[:cols]
		st.deco = slices.Grow(st.deco[:0], cols)[:cols]
		st.fg0 = slices.Grow(st.fg0[:0], cols)[:cols]
		r.fillMargins(dst, in, cols*cw, rows*ch)
	}
	r.signatures(s, o)
	drawn := 0
	st.damage = image.Rectangle{}
	if full {
		st.damage = dst.Rect
	}
	for y := 0; y < rows; y++ {
		cells := s.Cells[y*cols : (y+1)*cols]
		prev := st.prev[y*cols : (y+1)*cols]
		wrapped := y < len(s.Wrapped) && s.Wrapped[y]
		if !full && st.sig[y] == st.prevSig[y] && st.prevWrapped[y] == wrapped && terminal.CellsEqual(cells, prev) {
			continue
		}
		r.drawRow(grid, s, o, y)
		if !full {
			top := grid.Rect.Min.Y + y*ch
			st.damage = st.damage.Union(image.Rect(dst.Rect.Min.X, top, dst.Rect.Max.X, top+ch).Intersect(dst.Rect))
		}
		copy(prev, cells)
		st.prevWrapped[y] = wrapped
		st.prevSig[y] = st.sig[y]
		drawn++
	}
	st.valid = true
	return drawn
}

// defaultBg is the colour of empty space: the background, or the
// foreground under reverse video.
func (r *Renderer) defaultBg() pixel {
	if r.st.reverse {
		return r.pp.fg
	}
	return r.pp.bg
}

// fillMargins paints dst outside the w×h grid whose top-left corner is at
// (in, in).
func (r *Renderer) fillMargins(dst *image.RGBA, in, w, h int) {
	b := r.defaultBg()
	dw, dh := dst.Rect.Dx(), dst.Rect.Dy()
	x1, y1 := min(in+w, dw), min(in+h, dh)
	fillRect(dst, b, 0, 0, dw, in)   // above
	fillRect(dst, b, 0, y1, dw, dh)  // below
	fillRect(dst, b, 0, in, in, y1)  // left
	fillRect(dst, b, x1, in, dw, y1) // right
}

// fillRect fills [x0,x1)×[y0,y1) relative to dst.Rect.Min, clipped.
func fillRect(dst *image.RGBA, c pixel, x0, y0, x1, y1 int) {
	dw, dh := dst.Rect.Dx(), dst.Rect.Dy()
	x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, dw), min(y1, dh)
	if x0 >= x1 || y0 >= y1 {
		return
	}
	base := dst.PixOffset(dst.Rect.Min.X, dst.Rect.Min.Y)
	first := dst.Pix[base+y0*dst.Stride+x0*4 : base+y0*dst.Stride+x1*4]
	for i := 0; i < len(first); i += 4 {
		p := first[i : i+4 : i+4]
		p[0], p[1], p[2], p[3] = c.r, c.g, c.b, 0xff
	}
	for y := y0 + 1; y < y1; y++ {
		copy(dst.Pix[base+y*dst.Stride+x0*4:], first)
	}
}

// signatures computes st.sig for every row, and the per-row match index.
func (r *Renderer) signatures(s *terminal.Snapshot, o *Overlay) {
	st := &r.st
	rows, cols := s.Rows, s.Cols
	st.sig = slices.Grow(st.sig[:0], rows)[:rows]
	for y := range st.sig {
		st.sig[y] = rowSig{cursor: -1}
	}
	// cursor
	c := s.Cursor
	if c.Visible && !o.CursorOff && c.Y >= 0 && c.Y < rows {
		kind := uint8(cursorBlock)
		switch {
		case o.Unfocused:
			kind = cursorHollow
		case c.Shape == terminal.CursorUnderline:
			kind = cursorUnderline
		case c.Shape == terminal.CursorBar:
			kind = cursorBar
		}
		st.sig[c.Y].cursor = int16(clampInt(c.X, 0, cols-1))
		st.sig[c.Y].cursorKind = kind
	}
	// selection
	if o.Selection {
		a, b := o.SelStart, o.SelEnd
		for y := max(a.Row, 0); y <= min(b.Row, rows-1); y++ {
			var c0, c1 int
			switch {
			case o.Block:
				c0, c1 = min(a.Col, b.Col), max(a.Col, b.Col)
			default:
				c0, c1 = 0, cols
				if y == a.Row {
					c0 = a.Col
				}
				if y == b.Row {
					c1 = b.Col
				}
			}
			c0, c1 = clampInt(c0, 0, cols), clampInt(c1, 0, cols)
			if c0 < c1 {
				st.sig[y].sel0, st.sig[y].sel1 = int16(c0), int16(c1)
			}
		}
	}
	// link
	if l := o.Link; l.Col1 > l.Col0 && l.Row >= 0 && l.Row < rows {
		c0, c1 := clampInt(l.Col0, 0, cols), clampInt(l.Col1, 0, cols)
		if c0 < c1 {
			st.sig[l.Row].link0, st.sig[l.Row].link1 = int16(c0), int16(c1)
		}
	}
	// matches, bucketed by row
	st.matchOn = slices.Grow(st.matchOn[:0], rows+1)[:rows+1]
	clear(st.matchOn)
	n := 0
	for _, m := range o.Matches {
		if m.Row >= 0 && m.Row < rows && m.Col1 > m.Col0 {
			st.matchOn[m.Row+1]++
			n++
		}
	}
	if n == 0 {
		return
	}
	for y := 1; y <= rows; y++ {
		st.matchOn[y] += st.matchOn[y-1]
	}
	st.matchIdx = slices.Grow(st.matchIdx[:0], n)[:n]
	// sig.matches counts the row's matches placed so far, then becomes
	// their hash below.
	for i, m := range o.Matches {
		if m.Row >= 0 && m.Row < rows && m.Col1 > m.Col0 {
			k := st.matchOn[m.Row] + int32(st.sig[m.Row].matches)
			st.matchIdx[k] = int32(i)
			st.sig[m.Row].matches++
		}
	}
	for y := 0; y < rows; y++ {
		lo, hi := st.matchOn[y], st.matchOn[y+1]
		if lo == hi {
			st.sig[y].matches = 0
			continue
		}
		h := uint64(14695981039346656037)
		for _, i := range st.matchIdx[lo:hi] {
			m := o.Matches[i]
			cur := uint64(0)
			if int(i) == o.Current {
				cur = 1
			}
			for _, v := range [...]uint64{uint64(m.Col0), uint64(m.Col1), cur} {
				h ^= v
				h *= 1099511628211
			}
		}
		st.sig[y].matches = h | 1
	}
}

// drawRow draws row y of s.
func (r *Renderer) drawRow(dst *image.RGBA, s *terminal.Snapshot, o *Overlay, y int) {
	st := &r.st
	cols, cw, ch := s.Cols, st.cw, st.ch
	cells := s.Cells[y*cols : (y+1)*cols]
	sig := st.sig[y]
	pp := &r.pp

	// Colours per cell.
	var last terminal.Style
	var lastFg, lastBg, lastDeco pixel
	lastOK := false
	for x := range cells {
		c := &cells[x]
		if !lastOK || c.Style != last {
			last, lastOK = c.Style, true
			fg, bg := r.resolve(c.Fg, true), r.resolve(c.Bg, false)
			if (c.Attrs&terminal.AttrInverse != 0) != st.reverse {
				fg, bg = bg, fg
			}
			if c.Attrs&terminal.AttrFaint != 0 {
				fg = mix(fg, bg, 128)
			}
			deco := fg
			if c.Underline != terminal.DefaultColor {
				deco = r.resolve(c.Underline, true)
			}
			lastFg, lastBg, lastDeco = fg, bg, deco
		}
		st.fg[x], st.bg[x], st.deco[x] = lastFg, lastBg, lastDeco
	}
	copy(st.fg0, st.fg)
	for x := int(sig.sel0); x < int(sig.sel1); x++ {
		st.fg[x], st.bg[x] = pp.selText, pp.sel
	}
	if lo, hi := st.matchOn[y], st.matchOn[y+1]; len(o.Matches) > 0 && lo < hi {
		for _, i := range st.matchIdx[lo:hi] {
			m := o.Matches[i]
			bg := pp.match
			if int(i) == o.Current {
				bg = pp.current
			}
			for x := clampInt(m.Col0, 0, cols); x < clampInt(m.Col1, 0, cols); x++ {
				st.fg[x], st.bg[x] = pp.matchText, bg
			}
		}
	}
	curX0, curX1 := -1, -1
	if sig.cursor >= 0 {
		curX0 = int(sig.cursor)
		curX1 = curX0 + 1
		if cells[curX0].IsWideContinuation() && curX0 > 0 {
			curX0--
		} else if cells[curX0].Width() == 2 && curX1 < cols {
			curX1++
		}
		if sig.cursorKind == cursorBlock {
			for x := curX0; x < curX1; x++ {
				st.fg[x], st.bg[x] = pp.cursorText, pp.cursor
			}
		}
	}

	// Backgrounds: one scanline, copied to every pixel row of the cell row.
	line := st.line
	for x := range cells {
		b := st.bg[x]
		seg := line[x*cw*4 : (x+1)*cw*4]
		for i := 0; i < len(seg); i += 4 {
			p := seg[i : i+4 : i+4]
			p[0], p[1], p[2], p[3] = b.r, b.g, b.b, 0xff
		}
	}
	dw, dh := dst.Rect.Dx(), dst.Rect.Dy()
	top := y * ch
	if top >= dh {
		return
	}
	rowH := min(ch, dh-top)
	width := min(len(line), dw*4)
	base := dst.PixOffset(dst.Rect.Min.X, dst.Rect.Min.Y) + top*dst.Stride
	for py := 0; py < rowH; py++ {
		copy(dst.Pix[base+py*dst.Stride:base+py*dst.Stride+width], line)
	}
	clipW := min(cols*cw, dw)

	// Glyphs.
	for x := range cells {
		c := &cells[x]
		if c.Attrs&terminal.AttrHidden != 0 || c.Char == 0 || c.Char == ' ' || c.IsWideContinuation() {
			continue
		}
		g := r.glyphFor(s, c)
		if g.y0 == g.y1 {
			continue
		}
		blit(dst, base, x*cw, rowH, clipW, g, st.fg[x])
	}

	// Decorations.
	f := r.font
	for x := range cells {
		c := &cells[x]
		a := c.Attrs
		if a&(terminal.AttrStrike|terminal.AttrOverline) == 0 && a.Underline() == terminal.UnderlineNone || a&terminal.AttrHidden != 0 {
			continue
		}
		x0 := x * cw
		if u := a.Underline(); u != terminal.UnderlineNone {
			deco := st.deco[x]
			if st.fg[x] != st.fg0[x] { // an overlay recoloured the text: keep the line legible
				deco = st.fg[x]
			}
			r.underline(dst, base, x0, cw, rowH, clipW, u, deco)
		}
		if a&terminal.AttrStrike != 0 {
			hline(dst, base, x0, x0+cw, f.strikeY, f.strikeY+f.thin, rowH, clipW, st.fg[x])
		}
		if a&terminal.AttrOverline != 0 {
			hline(dst, base, x0, x0+cw, 0, f.thin, rowH, clipW, st.fg[x])
		}
	}
	if sig.link1 > sig.link0 {
		hline(dst, base, int(sig.link0)*cw, int(sig.link1)*cw, f.underlineY, f.underlineY+f.thin, rowH, clipW, pp.link)
	}

	// Cursor shapes other than the filled block.
	if sig.cursor >= 0 {
		x0, x1 := curX0*cw, curX1*cw
		t := max(2, f.thin*2)
		switch sig.cursorKind {
		case cursorUnderline:
			hline(dst, base, x0, x1, ch-t, ch, rowH, clipW, pp.cursor)
		case cursorBar:
			hline(dst, base, x0, x0+t, 0, ch, rowH, clipW, pp.cursor)
		case cursorHollow:
			t = f.thin
			hline(dst, base, x0, x1, 0, t, rowH, clipW, pp.cursor)
			hline(dst, base, x0, x1, ch-t, ch, rowH, clipW, pp.cursor)
			hline(dst, base, x0, x0+t, 0, ch, rowH, clipW, pp.cursor)
			hline(dst, base, x1-t, x1, 0, ch, rowH, clipW, pp.cursor)
		}
	}
}

// glyphFor returns the mask for cell c.
func (r *Renderer) glyphFor(s *terminal.Snapshot, c *terminal.Cell) *glyph {
	st := &r.st
	style := uint8(0)
	if c.Attrs&terminal.AttrBold != 0 {
		style |= styleBold
	}
	if c.Attrs&terminal.AttrItalic != 0 {
		style |= styleItalic
	}
	wide := c.Width() == 2
	ch := c.Char
	if ch < 128 && !wide {
		g := st.ascii[style][ch]
		if g == nil {
			g = r.font.glyphRune(ch, style, false)
			st.ascii[style][ch] = g
		}
		return g
	}
	if ch <= utf8.MaxRune {
		k := glyphKey{ch, style, wide}
		g, ok := st.runes[k]
		if !ok {
			g = r.font.glyphRune(ch, style, wide)
			st.runes[k] = g
		}
		return g
	}
	k := strKey{s.Grapheme(*c), style, wide}
	g, ok := st.strs[k]
	if !ok {
		g = r.font.glyphString(k.s, style, wide)
		st.strs[k] = g
	}
	return g
}

// blit blends g in colour c at x (pixels from the grid's left) on the
// cell row starting at byte offset base, clipped to rowH rows and clipW
// columns. Red and blue are blended together in one word (the weights are
// alpha+1 over 256, exact at both ends).
func blit(dst *image.RGBA, base, x, rowH, clipW int, g *glyph, c pixel) {
	x0, x1 := g.x0, min(g.x1, clipW-x)
	if x0 >= x1 {
		return
	}
	c32 := uint32(c.r) | uint32(c.g)<<8 | uint32(c.b)<<16 | 0xff<<24
	crb, cg := c32&0x00ff00ff, uint32(c.g)
	for gy := g.y0; gy < min(g.y1, rowH); gy++ {
		m := g.mask[gy*g.w+x0 : gy*g.w+x1]
		off := base + gy*dst.Stride + (x+x0)*4
		d := dst.Pix[off : off+len(m)*4 : off+len(m)*4]
		for i, a := range m {
			if a == 0 {
				continue
			}
			p := d[i*4 : i*4+4 : i*4+4]
			if a == 255 {
				binary.LittleEndian.PutUint32(p, c32)
				continue
			}
			v := binary.LittleEndian.Uint32(p)
			w := uint32(a) + 1
			iw := 256 - w
			rb := (crb*w + (v&0x00ff00ff)*iw) >> 8 & 0x00ff00ff
			gg := (cg*w + (v>>8&0xff)*iw) >> 8
			binary.LittleEndian.PutUint32(p, rb|gg<<8|0xff000000)
		}
	}
}

// hline fills [x0,x1)×[y0,y1) of a cell row (y relative to the row top),
// clipped to the row and the grid.
func hline(dst *image.RGBA, base, x0, x1, y0, y1, rowH, clipW int, c pixel) {
	x0, x1 = max(x0, 0), min(x1, clipW)
	y0, y1 = max(y0, 0), min(y1, rowH)
	for y := y0; y < y1; y++ {
		off := base + y*dst.Stride
		row := dst.Pix[off+x0*4 : off+max(x0, x1)*4]
		for i := 0; i < len(row); i += 4 {
			p := row[i : i+3 : i+3]
			p[0], p[1], p[2] = c.r, c.g, c.b
		}
	}
}

// underline draws style u under the cell at x0 (cw wide).
func (r *Renderer) underline(dst *image.RGBA, base, x0, cw, rowH, clipW int, u terminal.UnderlineStyle, c pixel) {
	f := r.font
	t, y := f.thin, f.underlineY
	ch := r.st.ch
	switch u {
	case terminal.UnderlineDouble:
		y2 := y + 2*t
		if y2+t > ch {
			y, y2 = ch-3*t, ch-t
		}
		hline(dst, base, x0, x0+cw, y, y+t, rowH, clipW, c)
		hline(dst, base, x0, x0+cw, y2, y2+t, rowH, clipW, c)
	case terminal.UnderlineCurly:
		// A triangle wave one cell long and 2·t high, kept inside the cell.
		amp := 2 * t
		top := max(0, min(y, ch-amp-t))
		for i := 0; i < cw; i++ {
			tri := cw - abs(2*i-cw) // 0 at the cell edges, cw in the middle
			yy := top + (tri*amp+cw/2)/cw
			hline(dst, base, x0+i, x0+i+1, yy, yy+t, rowH, clipW, c)
		}
	case terminal.UnderlineDotted:
		for i := 0; i < cw; i += 2 * t {
			hline(dst, base, x0+i, x0+i+t, y, y+t, rowH, clipW, c)
		}
	case terminal.UnderlineDashed:
		hline(dst, base, x0+cw/6, x0+cw-cw/6, y, y+t, rowH, clipW, c)
	default:
		hline(dst, base, x0, x0+cw, y, y+t, rowH, clipW, c)
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func clampInt(v, lo, hi int) int { return max(lo, min(v, hi)) }

// floorDiv is a/b rounded towards negative infinity (b > 0).
func floorDiv(a, b int) int {
	if a < 0 {
		return -((-a + b - 1) / b)
	}
	return a / b
}
