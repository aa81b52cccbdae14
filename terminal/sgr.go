package terminal

import "github.com/charmbracelet/x/ansi"

// sgr applies Select Graphic Rendition parameters, including the colon
// sub-parameter forms (4:3, 38:2::r:g:b, 38:5:n, 58:…).
func (e *Emulator) sgr(ps ansi.Params) {
	if len(ps) == 0 {
		e.pen = Style{Link: e.pen.Link, Attrs: e.pen.Attrs & attrProtected}
		return
	}
	p := &e.pen
	for i := 0; i < len(ps); i++ {
		v := ps[i].Param(0)
		switch {
		case v == 0:
			*p = Style{Link: p.Link, Attrs: p.Attrs & attrProtected}
		case v == 1:
			p.Attrs |= AttrBold
		case v == 2:
			p.Attrs |= AttrFaint
		case v == 3:
			p.Attrs |= AttrItalic
		case v == 4:
			u := UnderlineSingle
			if ps[i].HasMore() && i+1 < len(ps) {
				i++
				switch s := ps[i].Param(0); s {
				case 0, 1, 2, 3, 4, 5:
					u = UnderlineStyle(s)
				}
				i = skipSubParams(ps, i)
			}
			p.Attrs = p.Attrs.withUnderline(u)
		case v == 5 || v == 6:
			p.Attrs |= AttrBlink
		case v == 7:
			p.Attrs |= AttrInverse
		case v == 8:
			p.Attrs |= AttrHidden
		case v == 9:
			p.Attrs |= AttrStrike
		case v == 21:
			p.Attrs = p.Attrs.withUnderline(UnderlineDouble)
		case v == 22:
			p.Attrs &^= AttrBold | AttrFaint
		case v == 23:
			p.Attrs &^= AttrItalic
		case v == 24:
			p.Attrs = p.Attrs.withUnderline(UnderlineNone)
		case v == 25:
			p.Attrs &^= AttrBlink
		case v == 27:
			p.Attrs &^= AttrInverse
		case v == 28:
			p.Attrs &^= AttrHidden
		case v == 29:
			p.Attrs &^= AttrStrike
		case v >= 30 && v <= 37:
			p.Fg = IndexedColor(uint8(v - 30))
		case v == 38:
			p.Fg, i = extendedColor(ps, i, p.Fg)
		case v == 39:
			p.Fg = DefaultColor
		case v >= 40 && v <= 47:
			p.Bg = IndexedColor(uint8(v - 40))
		case v == 48:
			p.Bg, i = extendedColor(ps, i, p.Bg)
		case v == 49:
			p.Bg = DefaultColor
		case v == 53:
			p.Attrs |= AttrOverline
		case v == 55:
			p.Attrs &^= AttrOverline
		case v == 58:
			p.Underline, i = extendedColor(ps, i, p.Underline)
		case v == 59:
			p.Underline = DefaultColor
		case v >= 90 && v <= 97:
			p.Fg = IndexedColor(uint8(v - 90 + 8))
		case v >= 100 && v <= 107:
			p.Bg = IndexedColor(uint8(v - 100 + 8))
		default:
			i = skipSubParams(ps, i)
		}
	}
}

// skipSubParams returns the index of the last sub-parameter of the
// parameter at i (i itself when it has none).
func skipSubParams(ps ansi.Params, i int) int {
	for i < len(ps)-1 && ps[i].HasMore() {
		i++
	}
	return i
}

// extendedColor decodes the colour that follows SGR 38/48/58 at index i, in
// either the semicolon form (38;5;n, 38;2;r;g;b) or the colon form
// (38:5:n, 38:2::r:g:b, 38:2:r:g:b). It returns the colour (old when the
// parameters are malformed) and the index of the last parameter consumed.
func extendedColor(ps ansi.Params, i int, old Color) (Color, int) {
	if ps[i].HasMore() {
		// Colon form: everything up to the end of this sub-parameter group.
		end := skipSubParams(ps, i)
		sub := ps[i+1 : end+1]
		if len(sub) == 0 {
			return old, end
		}
		switch sub[0].Param(0) {
		case 5:
			if len(sub) >= 2 {
				return IndexedColor(uint8(min(sub[1].Param(0), 255))), end
			}
		case 2:
			rgb := sub[1:]
			if len(rgb) >= 4 { // colour-space id first
				rgb = rgb[1:]
			}
			if len(rgb) >= 3 {
				return RGBColor(comp(rgb[0]), comp(rgb[1]), comp(rgb[2])), end
			}
		}
		return old, end
	}
	if i+1 >= len(ps) {
		return old, i
	}
	switch ps[i+1].Param(0) {
	case 5:
		if i+2 < len(ps) {
			return IndexedColor(uint8(min(ps[i+2].Param(0), 255))), i + 2
		}
		return old, len(ps) - 1
	case 2:
		if i+4 < len(ps) {
			return RGBColor(comp(ps[i+2]), comp(ps[i+3]), comp(ps[i+4])), i + 4
		}
		return old, len(ps) - 1
	}
	return old, i + 1
}

func comp(p ansi.Param) uint8 { return uint8(min(p.Param(0), 255)) }
