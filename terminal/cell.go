package terminal

import "fmt"

// Color is a packed terminal colour: the top byte says which kind it is and
// the low 24 bits carry the value. The zero value, [DefaultColor], means
// "the terminal's default foreground or background".
type Color uint32

const (
	colorKindShift       = 24
	colorIndexed         = 1 << colorKindShift // low byte: palette index 0–255
	colorRGB             = 2 << colorKindShift // low 24 bits: 0xRRGGBB
	DefaultColor   Color = 0
)

// IndexedColor returns palette colour i (0–15 are the ANSI colours,
// 16–255 the xterm 256-colour cube and grey ramp).
func IndexedColor(i uint8) Color { return Color(colorIndexed | uint32(i)) }

// RGBColor returns a truecolor value.
func RGBColor(r, g, b uint8) Color {
	return Color(colorRGB | uint32(r)<<16 | uint32(g)<<8 | uint32(b))
}

// IsDefault reports whether c is the default colour.
func (c Color) IsDefault() bool { return c == DefaultColor }

// Indexed reports the palette index of c and whether c is a palette colour.
func (c Color) Indexed() (uint8, bool) {
	return uint8(c), c&0xff000000 == colorIndexed
}

// RGB reports the components of c and whether c is a truecolor value.
func (c Color) RGB() (r, g, b uint8, ok bool) {
	return uint8(c >> 16), uint8(c >> 8), uint8(c), c&0xff000000 == colorRGB
}

// String formats c for debugging and golden files: "default", "idx(n)" or "#rrggbb".
func (c Color) String() string {
	if i, ok := c.Indexed(); ok {
		return fmt.Sprintf("idx(%d)", i)
	}
	if r, g, b, ok := c.RGB(); ok {
		return fmt.Sprintf("#%02x%02x%02x", r, g, b)
	}
	return "default"
}

// Attr is a set of text attributes and per-cell flags. The zero value is
// plain text.
type Attr uint16

const (
	AttrBold Attr = 1 << iota
	AttrFaint
	AttrItalic
	AttrBlink
	AttrInverse
	AttrHidden
	AttrStrike
	AttrOverline
	attrUnderline0 // three bits of underline style, see [Attr.Underline]
	attrUnderline1
	attrUnderline2
	attrWide     // the cell holds a double-width grapheme; the next cell is its continuation
	attrWideCont // the cell is the right half of the double-width grapheme to its left
	// attrProtected marks a cell printed under DECSCA 1 or SPA: selective
	// erases (and, under SPA, ED/EL/ECH) leave it alone. It travels with
	// the pen but is not part of the look: SGR 0 keeps it.
	attrProtected

	attrUnderlineShift = 8
	attrUnderlineMask  = 7 << attrUnderlineShift
	attrStyleMask      = ^Attr(attrWide | attrWideCont)
)

// UnderlineStyle is the kind of underline SGR 4 and its colon forms select.
// Its zero value is no underline.
type UnderlineStyle uint8

const (
	UnderlineNone UnderlineStyle = iota
	UnderlineSingle
	UnderlineDouble
	UnderlineCurly
	UnderlineDotted
	UnderlineDashed
)

// Underline reports the underline style in a.
func (a Attr) Underline() UnderlineStyle {
	return UnderlineStyle((a & attrUnderlineMask) >> attrUnderlineShift)
}

// withUnderline returns a with its underline style set to u.
func (a Attr) withUnderline(u UnderlineStyle) Attr {
	return a&^attrUnderlineMask | Attr(u)<<attrUnderlineShift&attrUnderlineMask
}

// Style is how a cell is drawn. The zero value is the default colours with no
// attributes.
type Style struct {
	Fg, Bg    Color
	Underline Color // underline colour (SGR 58); default means "same as Fg"
	Attrs     Attr
	Link      uint16 // OSC 8 hyperlink id, resolved with [Snapshot.Link]; 0 = none
}

// Cell is one character cell of the screen. The zero value is a blank cell
// that was never written (it reads as a space).
type Cell struct {
	// Char is the cell's character. 0 means blank. Grapheme clusters of
	// more than one code point are stored out of line; use
	// [Snapshot.Grapheme] to get a cell's text.
	Char rune
	Style
}

// clusterBit marks Cell.Char values that index the emulator's grapheme
// cluster table instead of holding a code point.
const clusterBit = 1 << 30

// Width reports how many columns the cell's glyph covers: 2 for the left
// half of a wide character, 0 for its right half, 1 otherwise.
func (c Cell) Width() int {
	switch {
	case c.Attrs&attrWide != 0:
		return 2
	case c.Attrs&attrWideCont != 0:
		return 0
	}
	return 1
}

// IsWideContinuation reports whether c is the right half of a wide character.
func (c Cell) IsWideContinuation() bool { return c.Attrs&attrWideCont != 0 }
