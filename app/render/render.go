package render

import (
	"image"

	"github.com/paneflow-go/paneflow/terminal"
)

// Point is a cell position in a snapshot's screen coordinates: Row 0 is the
// top row of the snapshot, Col 0 its left column.
type Point struct{ Row, Col int }

// Span is the cells [Col0, Col1) of one row.
type Span struct{ Row, Col0, Col1 int }

// Overlay is what the widget draws over the screen. The zero value draws
// nothing extra (no selection, no matches, no link) and the cursor as the
// snapshot says, focused.
type Overlay struct {
	// Selection turns the selection on.
	Selection bool
	// SelStart and SelEnd bound the selection: SelStart inclusive, SelEnd
	// exclusive, already ordered (SelStart before SelEnd). A stream
	// selection covers SelStart to the end of its row, the rows between,
	// and the start of SelEnd's row up to SelEnd.Col.
	SelStart, SelEnd Point
	// Block makes the selection the rectangle of rows SelStart.Row to
	// SelEnd.Row (inclusive) and columns SelStart.Col to SelEnd.Col
	// (exclusive) instead of a stream; columns may be given in either order.
	Block bool
	// Matches are find-in-pane hits to highlight.
	Matches []Span
	// Current is the index in Matches of the current match (drawn in
	// CurrentMatch); -1 or out of range means none.
	Current int
	// Link is the hovered link, drawn underlined in the Link colour;
	// Col1 <= Col0 means none.
	Link Span
	// CursorOff hides the cursor (blink phase off, or scrolled back).
	CursorOff bool
	// Unfocused draws the cursor as a hollow box.
	Unfocused bool
	// Flash draws the whole screen inverted (the visual bell).
	Flash bool
}

// Renderer draws snapshots into images and remembers what it drew so the
// next frame redraws only what changed. Create it with [NewRenderer]; the
// zero value is not usable. A Renderer is not safe for concurrent use: the
// widget calls it from one goroutine (the UI thread).
//
// Damage tracking compares cells by value; a cell holding a grapheme cluster
// refers to its emulator's cluster table, so call [Renderer.Invalidate]
// when a Renderer starts drawing snapshots of a different emulator into the
// same image.
type Renderer struct {
	font  *FontSet
	pal   Palette
	pp    palettePixels
	st    renderState
	inset int // pixels of background around the grid (SetInset)
}

// NewRenderer returns a Renderer drawing with f and p.
func NewRenderer(f *FontSet, p Palette) *Renderer {
	r := &Renderer{font: f}
	r.SetPalette(p)
	return r
}

// SetFontSet switches fonts; the next Render redraws everything.
func (r *Renderer) SetFontSet(f *FontSet) {
	r.font = f
	r.Invalidate()
}

// SetPalette switches colours; the next Render redraws everything.
func (r *Renderer) SetPalette(p Palette) {
	r.pal = p
	r.resolvePalette()
	r.Invalidate()
}

// SetInset leaves px pixels of background between each edge of the image
// and the grid (negative counts as 0): [Renderer.Grid] and
// [Renderer.CellAt] count it, and the next Render redraws everything. An
// image too small for the inset on both sides is drawn without it.
func (r *Renderer) SetInset(px int) {
	r.inset = max(px, 0)
	r.Invalidate()
}

// Invalidate makes the next Render redraw every row.
func (r *Renderer) Invalidate() { r.st.valid = false }

// Size returns the pixel size of an image holding a grid of cols×rows
// cells inside the inset.
func (r *Renderer) Size(cols, rows int) (w, h int) {
	cw, ch := r.font.CellSize()
	return cols*cw + 2*r.inset, rows*ch + 2*r.inset
}

// Grid returns how many whole cells fit in a w×h pixel image inside the
// inset, at least 1×1.
func (r *Renderer) Grid(w, h int) (cols, rows int) {
	cw, ch := r.font.CellSize()
	in := r.insetFor(w, h)
	return max(1, (w-2*in)/cw), max(1, (h-2*in)/ch)
}

// insetFor is the inset drawn in a w×h image: none when the image has no
// room for it on both sides.
func (r *Renderer) insetFor(w, h int) int {
	if w <= 2*r.inset || h <= 2*r.inset {
		return 0
	}
	return r.inset
}

// CellAt returns the cell under pixel (x, y) of the image, clamped to a
// grid of cols×rows cells (x or y past the grid map to its last column or
// row, those before it, in the inset or negative, to 0).
func (r *Renderer) CellAt(x, y, cols, rows int) Point {
	cw, ch := r.font.CellSize()
	x, y = x-r.inset, y-r.inset
	return Point{Row: clampInt(floorDiv(y, ch), 0, rows-1), Col: clampInt(floorDiv(x, cw), 0, cols-1)}
}

// Render draws s with overlay o (nil means none) into dst and returns the
// number of rows it drew. It redraws only the rows whose cells, wrapped
// flag, overlay or cursor changed since the previous Render into the same
// dst; a different dst, image size, grid size, font, palette or reverse
// video redraws everything, as does [Renderer.Invalidate]. The grid is
// drawn from dst.Rect.Min plus the inset ([Renderer.SetInset]) on both
// axes; pixels of dst outside it are filled with the background colour. A result of 0 means dst is unchanged and the caller
// may skip the frame.
func (r *Renderer) Render(dst *image.RGBA, s *terminal.Snapshot, o *Overlay) int {
	return r.render(dst, s, o)
}

// Damage is the part of the last Render's dst (in its coordinates) that
// the Render changed: the bands of the rows it drew, across dst's width, or
// all of dst when it redrew everything; empty when it drew nothing. A
// caller that uploads the image can send only these pixels.
func (r *Renderer) Damage() image.Rectangle { return r.st.damage }
