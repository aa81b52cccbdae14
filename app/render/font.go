package render

import (
	"errors"
	"fmt"
	"image"
	"math"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// FontConfig says which fonts to draw with and how large. The zero value is
// not usable: Regular and Size are required; start from
// [DefaultFontConfig] and set Regular.
type FontConfig struct {
	// Regular is the TTF/OTF data (or a TTC/OTC collection, whose first
	// font is used) of the monospace face the cell size is
	// taken from. Bold, Italic and BoldItalic are its styled variants; a
	// nil variant is synthesised from Regular (emboldened by overstriking,
	// italic by shearing).
	Regular, Bold, Italic, BoldItalic []byte
	// Fallbacks are fonts tried in order for characters Regular lacks (CJK,
	// symbols, emoji). Their glyphs are scaled down to fit the cell when
	// they are wider.
	Fallbacks [][]byte
	// Size is the font size in points (72 per inch, at the canvas's
	// logical 1:1 scale).
	Size float64
	// Scale is the number of device pixels per point (the Fyne canvas
	// scale); 0 means 1.
	Scale float64
	// LineHeight multiplies the font's natural line height (ascent +
	// descent + gap); 0 means 1.0. Values are clamped to [1, 2.5]; the
	// extra space is split above and below the text.
	LineHeight float64
}

// DefaultFontConfig returns the settings the GUI starts from: 13 pt at
// scale 1, natural line height and no font data. The caller sets Regular,
// normally to the bytes of Fyne's bundled monospace font
// (theme.DefaultTextMonospaceFont().Content(), DejaVu Sans Mono), since
// this package does not import Fyne.
func DefaultFontConfig() FontConfig {
	return FontConfig{Size: 13, Scale: 1, LineHeight: 1}
}

// FontSet is a parsed set of fonts at one size with its glyph cache. Create
// it with [NewFontSet]; the zero value is not usable. A FontSet may be
// shared by several [Renderer]s, also on different goroutines: its cache is
// guarded by a mutex.
type FontSet struct {
	faces     [4]styledFont // indexed by style bits: 1 bold, 2 italic
	fallbacks []*sfnt.Font
	ppem      float64 // pixels per em of the primary face

	cellW, cellH int
	baseline     int // y of the baseline from the cell top
	// line metrics in pixels from the cell top, for decorations
	underlineY, strikeY, thin int

	mu      sync.Mutex
	buf     sfnt.Buffer
	faceFor map[faceKey]font.Face
	glyphs  map[glyphKey]*glyph
	strs    map[strKey]*glyph
}

// styledFont is the font used for one style and what must be synthesised.
type styledFont struct {
	f                  *sfnt.Font
	synBold, synItalic bool
}

type faceKey struct {
	f    *sfnt.Font
	ppem float64
}

const (
	styleBold   = 1
	styleItalic = 2
)

type glyphKey struct {
	r     rune
	style uint8
	wide  bool
}

type strKey struct {
	s     string
	style uint8
	wide  bool
}

// glyph is an alpha mask the size of one cell (two for wide glyphs).
// Rows y0..y1 and columns x0..x1 (exclusive) bound its non-zero pixels; an
// empty glyph has y0 == y1.
type glyph struct {
	mask           []uint8
	w, h           int
	x0, x1, y0, y1 int
}

// NewFontSet parses the fonts in c and measures the cell.
func NewFontSet(c FontConfig) (*FontSet, error) {
	if len(c.Regular) == 0 {
		return nil, errors.New("render: FontConfig.Regular is empty")
	}
	if !(c.Size > 0) || c.Size > 500 {
		return nil, fmt.Errorf("render: font size %v out of range", c.Size)
	}
	scale := c.Scale
	if !(scale > 0) {
		scale = 1
	}
	lh := c.LineHeight
	if !(lh > 0) {
		lh = 1
	}
	lh = min(max(lh, 1), 2.5)
	fs := &FontSet{
		ppem:    c.Size * scale,
		faceFor: make(map[faceKey]font.Face),
		glyphs:  make(map[glyphKey]*glyph),
		strs:    make(map[strKey]*glyph),
	}
	reg, err := parseFont(c.Regular)
	if err != nil {
		return nil, fmt.Errorf("render: regular font: %w", err)
	}
	fs.faces[0] = styledFont{f: reg}
	for i, data := range [...][]byte{styleBold: c.Bold, styleItalic: c.Italic, styleBold | styleItalic: c.BoldItalic} {
		if i == 0 {
			continue
		}
		sf := styledFont{f: reg, synBold: i&styleBold != 0, synItalic: i&styleItalic != 0}
		if len(data) > 0 {
			f, err := parseFont(data)
			if err != nil {
				return nil, fmt.Errorf("render: styled font %d: %w", i, err)
			}
			sf = styledFont{f: f}
		}
		fs.faces[i] = sf
	}
	for i, data := range c.Fallbacks {
		f, err := parseFont(data)
		if err != nil {
			return nil, fmt.Errorf("render: fallback font %d: %w", i, err)
		}
		fs.fallbacks = append(fs.fallbacks, f)
	}

	ppem := fixed.Int26_6(math.Round(fs.ppem * 64))
	m, err := reg.Metrics(&fs.buf, ppem, font.HintingNone)
	if err != nil {
		return nil, fmt.Errorf("render: font metrics: %w", err)
	}
	gi, err := reg.GlyphIndex(&fs.buf, 'M')
	if err != nil || gi == 0 {
		return nil, errors.New("render: regular font has no 'M'")
	}
	adv, err := reg.GlyphAdvance(&fs.buf, gi, ppem, font.HintingNone)
	if err != nil {
		return nil, fmt.Errorf("render: font advance: %w", err)
	}
	asc, desc := float64(m.Ascent)/64, float64(m.Descent)/64
	fs.cellW = max(1, int(math.Round(float64(adv)/64)))
	natural := asc + desc
	fs.cellH = max(1, int(math.Ceil(natural*lh-0.01)))
	fs.baseline = int(math.Round((float64(fs.cellH)-natural)/2 + asc))
	fs.thin = max(1, int(math.Round(fs.ppem/14)))
	fs.underlineY = min(fs.cellH-fs.thin, fs.baseline+max(1, int(math.Round(desc/3))))
	xh := float64(m.XHeight) / 64
	if xh <= 0 {
		xh = asc / 2
	}
	fs.strikeY = fs.baseline - int(math.Round(xh/2)) - fs.thin/2
	return fs, nil
}

// CellSize returns the size of one cell in pixels.
func (f *FontSet) CellSize() (w, h int) { return f.cellW, f.cellH }

// glyphRune returns the mask for a single-rune cell.
func (f *FontSet) glyphRune(r rune, style uint8, wide bool) *glyph {
	k := glyphKey{r, style, wide}
	f.mu.Lock()
	defer f.mu.Unlock()
	if g, ok := f.glyphs[k]; ok {
		return g
	}
	g := f.rasterise(string(r), r, style, wide)
	f.glyphs[k] = g
	return g
}

// glyphString returns the mask for a grapheme cluster.
func (f *FontSet) glyphString(s string, style uint8, wide bool) *glyph {
	k := strKey{s, style, wide}
	f.mu.Lock()
	defer f.mu.Unlock()
	if g, ok := f.strs[k]; ok {
		return g
	}
	first, _ := utf8.DecodeRuneInString(s)
	g := f.rasterise(s, first, style, wide)
	f.strs[k] = g
	return g
}

func (f *FontSet) newGlyph(wide bool) *glyph {
	w := f.cellW
	if wide {
		w *= 2
	}
	return &glyph{mask: make([]uint8, w*f.cellH), w: w, h: f.cellH}
}

// rasterise draws s (whose first rune is first) into a new mask. f.mu must
// be held.
func (f *FontSet) rasterise(s string, first rune, style uint8, wide bool) *glyph {
	g := f.newGlyph(wide)
	switch {
	case first >= 0x2500 && first <= 0x259f:
		drawBoxRune(g, first, f.thin)
	default:
		f.drawText(g, s, style)
	}
	g.bound()
	return g
}

// drawText draws the code points of s into g, up to a zero-width joiner
// (so an emoji sequence shows its first pictograph); variation selectors
// and other invisible code points are skipped. Each base character starts
// where the previous one's advance ends; a combining mark is drawn over its
// base (monospace fonts give marks a full advance and place them inside
// it) or, for a zero-advance mark, at the pen.
func (f *FontSet) drawText(g *glyph, s string, style uint8) {
	sf := f.faces[style&3]
	pen, base := 0.0, 0.0
	drawn := false
	for _, r := range s {
		if r == 0x200d {
			break
		}
		if isInvisible(r) {
			continue
		}
		font, fallback := f.fontFor(sf.f, r)
		if font == nil {
			if !drawn {
				if unicode.IsSpace(r) {
					return
				}
				drawMissing(g, f.thin)
				return
			}
			continue
		}
		if drawn && unicode.In(r, unicode.Mn, unicode.Me) {
			x := base
			if adv, ok := f.face(font, f.ppem).GlyphAdvance(r); ok && adv == 0 {
				x = pen
			}
			f.drawRune(g, font, r, x, false)
			continue
		}
		x, adv := f.drawRune(g, font, r, pen, fallback && !drawn)
		base, pen = x, x+adv
		drawn = true
	}
	if sf.synBold {
		embolden(g, f.thin)
	}
	if sf.synItalic {
		shear(g, f.strikeY)
	}
}

// fontFor returns the font that has r: primary, else the first fallback
// that does, else nil.
func (f *FontSet) fontFor(primary *sfnt.Font, r rune) (*sfnt.Font, bool) {
	if gi, err := primary.GlyphIndex(&f.buf, r); err == nil && gi != 0 {
		return primary, false
	}
	if gi, err := f.faces[0].f.GlyphIndex(&f.buf, r); err == nil && gi != 0 {
		return f.faces[0].f, false
	}
	for _, fb := range f.fallbacks {
		if gi, err := fb.GlyphIndex(&f.buf, r); err == nil && gi != 0 {
			return fb, true
		}
	}
	return nil, false
}

// drawRune draws r from fnt at pen x into g, max-combining with what is
// there, and returns the x it drew at and its advance in pixels. A fitted
// glyph (from a fallback font) is scaled down to fit the mask width and
// centred.
func (f *FontSet) drawRune(g *glyph, fnt *sfnt.Font, r rune, pen float64, fit bool) (x, advance float64) {
	ppem := f.ppem
	face := f.face(fnt, ppem)
	adv, ok := face.GlyphAdvance(r)
	if !ok {
		return pen, 0
	}
	advPx := float64(adv) / 64
	x = pen
	if fit {
		if advPx > float64(g.w) {
			ppem *= float64(g.w) / advPx
			face = f.face(fnt, ppem)
			adv, _ = face.GlyphAdvance(r)
			advPx = float64(adv) / 64
		}
		x = (float64(g.w) - advPx) / 2
	}
	dot := fixed.Point26_6{X: fixed.Int26_6(math.Round(x * 64)), Y: fixed.I(f.baseline)}
	dr, mask, mp, _, ok := face.Glyph(dot, r)
	if !ok {
		return x, advPx
	}
	am, isAlpha := mask.(*image.Alpha)
	for y := max(dr.Min.Y, 0); y < min(dr.Max.Y, g.h); y++ {
		for xx := max(dr.Min.X, 0); xx < min(dr.Max.X, g.w); xx++ {
			var a uint8
			mx, my := mp.X+xx-dr.Min.X, mp.Y+y-dr.Min.Y
			if isAlpha {
				a = am.Pix[(my-am.Rect.Min.Y)*am.Stride+mx-am.Rect.Min.X]
			} else {
				_, _, _, a16 := mask.At(mx, my).RGBA()
				a = uint8(a16 >> 8)
			}
			if i := y*g.w + xx; a > g.mask[i] {
				g.mask[i] = a
			}
		}
	}
	return x, advPx
}

func (f *FontSet) face(fnt *sfnt.Font, ppem float64) font.Face {
	k := faceKey{fnt, ppem}
	if fc, ok := f.faceFor[k]; ok {
		return fc
	}
	fc, err := opentype.NewFace(fnt, &opentype.FaceOptions{Size: ppem, DPI: 72, Hinting: font.HintingNone})
	if err != nil { // only for a nil font or options, which cannot happen here
		panic(err)
	}
	f.faceFor[k] = fc
	return fc
}

// isInvisible reports code points that draw nothing in a cell: variation
// selectors, emoji modifiers drawn without their base, joiners and tags.
func isInvisible(r rune) bool {
	switch {
	case r >= 0xfe00 && r <= 0xfe0f, r >= 0xe0100 && r <= 0xe01ef: // variation selectors
		return true
	case r >= 0x1f3fb && r <= 0x1f3ff: // skin tones
		return true
	case r == 0x200b, r == 0x200c, r == 0x2060, r == 0xfeff:
		return true
	case r >= 0xe0000 && r <= 0xe007f: // tags
		return true
	}
	return false
}

// drawMissing draws a hollow box: a character no font has.
func drawMissing(g *glyph, t int) {
	cw := g.w
	x0, x1 := max(1, cw/8), cw-max(1, cw/8)
	y0, y1 := g.h/5, g.h-g.h/6
	if x1-x0 < 2*t+1 || y1-y0 < 2*t+1 {
		x0, x1, y0, y1 = 0, cw, 0, g.h
	}
	fillMask(g, x0, y0, x1, y0+t, 255)
	fillMask(g, x0, y1-t, x1, y1, 255)
	fillMask(g, x0, y0, x0+t, y1, 255)
	fillMask(g, x1-t, y0, x1, y1, 255)
}

// embolden widens every stroke by t pixels to the right.
func embolden(g *glyph, t int) {
	for y := 0; y < g.h; y++ {
		row := g.mask[y*g.w : (y+1)*g.w]
		for x := g.w - 1; x > 0; x-- {
			for k := 1; k <= t && x-k >= 0; k++ {
				if row[x-k] > row[x] {
					row[x] = row[x-k]
				}
			}
		}
	}
}

// shear slants the glyph like an oblique face: rows above pivot move
// right, rows below it left, by a fifth of their distance (pivoting near
// the middle of the lowercase letters keeps the slant inside the cell).
func shear(g *glyph, pivot int) {
	row := make([]uint8, g.w)
	for y := 0; y < g.h; y++ {
		src := g.mask[y*g.w : (y+1)*g.w]
		d := float64(pivot-y) * 0.2
		sh := math.Floor(d)
		fr := d - sh
		n := int(sh)
		for x := range row {
			// out[x] = src[x-n]*(1-fr) + src[x-n-1]*fr
			var a, b float64
			if i := x - n; i >= 0 && i < g.w {
				a = float64(src[i])
			}
			if i := x - n - 1; i >= 0 && i < g.w {
				b = float64(src[i])
			}
			row[x] = uint8(math.Round(a*(1-fr) + b*fr))
		}
		copy(src, row)
	}
}

// fillMask sets the rectangle [x0,x1)×[y0,y1) of g's mask to a (clipped).
func fillMask(g *glyph, x0, y0, x1, y1 int, a uint8) {
	x0, x1 = max(x0, 0), min(x1, g.w)
	y0, y1 = max(y0, 0), min(y1, g.h)
	for y := y0; y < y1; y++ {
		row := g.mask[y*g.w+x0 : y*g.w+max(x0, x1)]
		for i := range row {
			if a > row[i] {
				row[i] = a
			}
		}
	}
}

// bound computes the bounding box of the non-zero pixels.
func (g *glyph) bound() {
	g.x0, g.y0, g.x1, g.y1 = g.w, g.h, 0, 0
	for y := 0; y < g.h; y++ {
		for x, a := range g.mask[y*g.w : (y+1)*g.w] {
			if a != 0 {
				g.x0, g.x1 = min(g.x0, x), max(g.x1, x+1)
				g.y0, g.y1 = min(g.y0, y), max(g.y1, y+1)
			}
		}
	}
	if g.y1 == 0 {
		g.x0, g.x1, g.y0, g.y1 = 0, 0, 0, 0
	}
}

// parseFont parses a TTF/OTF font, or the first font of a TTC/OTC
// collection.
func parseFont(data []byte) (*sfnt.Font, error) {
	f, err := sfnt.Parse(data)
	if err == nil {
		return f, nil
	}
	c, cerr := sfnt.ParseCollection(data)
	if cerr != nil || c.NumFonts() == 0 {
		return nil, err
	}
	return c.Font(0)
}
