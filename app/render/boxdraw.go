package render

import "math"

// Box drawing (U+2500–U+257F) and block elements (U+2580–U+259F) are drawn
// from geometry rather than taken from a font, so that lines run to the
// cell edges and join their neighbours without gaps at any size.

// boxArms gives, for U+2500–U+254B and U+2550–U+256C and U+2574–U+257F,
// the weight of the up, right, down and left arms as four digits: 0 none,
// 1 light, 2 heavy, 3 double. Entries for dashed lines, arcs and diagonals
// are handled separately (and hold their plain equivalent here).
var boxArms = [128]string{
	"0101", "0202", "1010", "2020", "0101", "0202", "1010", "2020", // ─━│┃┄┅┆┇
	"0101", "0202", "1010", "2020", "0110", "0210", "0120", "0220", // ┈┉┊┋┌┍┎┏
	"0011", "0012", "0021", "0022", "1100", "1200", "2100", "2200", // ┐┑┒┓└┕┖┗
	"1001", "1002", "2001", "2002", "1110", "1210", "2110", "1120", // ┘┙┚┛├┝┞┟
	"2120", "2210", "1220", "2220", "1011", "1012", "2011", "1021", // ┠┡┢┣┤┥┦┧
	"2021", "2012", "1022", "2022", "0111", "0112", "0211", "0212", // ┨┩┪┫┬┭┮┯
	"0121", "0122", "0221", "0222", "1101", "1102", "1201", "1202", // ┰┱┲┳┴┵┶┷
	"2101", "2102", "2201", "2202", "1111", "1112", "1211", "1212", // ┸┹┺┻┼┽┾┿
	"2111", "1121", "2121", "2112", "2211", "1122", "1221", "2212", // ╀╁╂╃╄╅╆╇
	"1222", "2122", "2221", "2222", "0101", "0202", "1010", "2020", // ╈╉╊╋╌╍╎╏
	"0303", "3030", "0310", "0130", "0330", "0013", "0031", "0033", // ═║╒╓╔╕╖╗
	"1300", "3100", "3300", "1003", "3001", "3003", "1310", "3130", // ╘╙╚╛╜╝╞╟
	"3330", "1013", "3031", "3033", "0313", "0131", "0333", "1303", // ╠╡╢╣╤╥╦╧
	"3101", "3303", "1313", "3131", "3333", "0110", "0011", "1001", // ╨╩╪╫╬╭╮╯
	"1100", "0000", "0000", "0000", "0001", "1000", "0100", "0010", // ╰╱╲╳╴╵╶╷
	"0002", "2000", "0200", "0020", "0201", "1020", "0102", "2010", // ╸╹╺╻╼╽╾╿
}

// drawBoxRune draws r (U+2500–U+259F) into g with light lines t pixels
// thick.
func drawBoxRune(g *glyph, r rune, t int) {
	if r >= 0x2580 {
		drawBlock(g, r)
		return
	}
	i := r - 0x2500
	w, h := g.w, g.h
	switch {
	case i >= 0x04 && i <= 0x0b, i >= 0x4c && i <= 0x4f:
		drawDashed(g, i, t)
		return
	case i >= 0x6d && i <= 0x70:
		drawArc(g, i, t)
		return
	case i >= 0x71 && i <= 0x73:
		if i != 0x72 {
			drawDiagonal(g, t, true)
		}
		if i != 0x71 {
			drawDiagonal(g, t, false)
		}
		return
	}
	arms := boxArms[i]
	up, right, down, left := arms[0]-'0', arms[1]-'0', arms[2]-'0', arms[3]-'0'
	heavy := 2 * t
	if t == 1 && w >= 7 {
		heavy = 3
	}
	gap := t                   // space between the two strokes of a double line
	cx, cy := (w-t)/2, (h-t)/2 // top-left of a light stroke through the centre
	thick := func(wt byte) int {
		if wt == 2 {
			return heavy
		}
		return t
	}
	mx, my := cx+t/2, cy+t/2 // the centre pixel
	// The span [vL, vR) covered by the vertical strokes and [hT, hB) by the
	// horizontal ones, so that perpendicular arms run across them without
	// notches or overshoot.
	span := func(c int, arms ...byte) (lo, hi int) {
		lo, hi = c, c+1
		for _, wt := range arms {
			switch wt {
			case 0:
				continue
			case 3:
				lo, hi = min(lo, c-gap-t+1), max(hi, c+gap+t)
			default:
				th := thick(wt)
				lo, hi = min(lo, c-th/2), max(hi, c-th/2+th)
			}
		}
		return lo, hi
	}
	vL, vR := span(mx, up, down)
	hT, hB := span(my, left, right)

	// Horizontal arms.
	for side, wt := range []byte{left, right} {
		if wt == 0 {
			continue
		}
		if wt != 3 {
			th := thick(wt)
			y0 := my - th/2
			x0, x1 := 0, vR
			if side == 1 {
				x0, x1 = vL, w
			}
			fillMask(g, x0, y0, x1, y0+th, 255)
			continue
		}
		// Double: two strokes at my-gap-t.. and my+gap...
		for k, yy := range []int{my - gap - t + 1, my + gap} {
			// k 0 is the upper stroke: it stops short at a double up arm
			// (inner corner) or runs to the far side of a double down arm
			// (outer corner); the lower stroke mirrors it.
			near, far := up, down
			if k == 1 {
				near, far = down, up
			}
			ext := doubleStrokeExt(near, far, gap, t)
			if side == 0 {
				fillMask(g, 0, yy, mx+ext, yy+t, 255)
			} else {
				fillMask(g, mx+1-ext, yy, w, yy+t, 255)
			}
		}
	}
	// Vertical arms.
	for side, wt := range []byte{up, down} {
		if wt == 0 {
			continue
		}
		if wt != 3 {
			th := thick(wt)
			x0 := mx - th/2
			y0, y1 := 0, hB
			if side == 1 {
				y0, y1 = hT, h
			}
			fillMask(g, x0, y0, x0+th, y1, 255)
			continue
		}
		for k, xx := range []int{mx - gap - t + 1, mx + gap} {
			near, far := left, right
			if k == 1 {
				near, far = right, left
			}
			ext := doubleStrokeExt(near, far, gap, t)
			if side == 0 {
				fillMask(g, xx, 0, xx+t, my+ext, 255)
			} else {
				fillMask(g, xx, my+1-ext, xx+t, h, 255)
			}
		}
	}
}

// drawDashed draws the dashed lines: U+2504–U+250B (triple and quadruple)
// and U+254C–U+254F (double).
func drawDashed(g *glyph, i rune, t int) {
	var n int
	switch {
	case i >= 0x4c:
		n = 2
	case i >= 0x08:
		n = 4
	default:
		n = 3
	}
	heavy := i%2 == 1
	vertical := i%4 >= 2
	th := t
	if heavy {
		th = max(2*t, 3*t/2+1)
	}
	length := g.w
	if vertical {
		length = g.h
	}
	for k := 0; k < n; k++ {
		a := k * length / n
		b := (k + 1) * length / n
		gapLen := max(1, (b-a)/3)
		a += gapLen / 2
		b -= gapLen - gapLen/2
		if vertical {
			x0 := (g.w - th) / 2
			fillMask(g, x0, a, x0+th, b, 255)
		} else {
			y0 := (g.h - th) / 2
			fillMask(g, a, y0, b, y0+th, 255)
		}
	}
}

// drawArc draws the rounded corners U+256D–U+2570: a quarter circle
// between the centre lines, joined by straight strokes to the edges.
func drawArc(g *glyph, i rune, t int) {
	w, h := g.w, g.h
	mx, my := (w-t)/2+t/2, (h-t)/2+t/2 // centre pixel
	rad := min(w, h) / 2
	rad = max(1, min(rad, min(mx, w-1-mx)+1))
	// Arm directions: 0x6d down+right, 0x6e down+left, 0x6f up+left, 0x70 up+right.
	dx, dy := 1, 1
	switch i {
	case 0x6e:
		dx = -1
	case 0x6f:
		dx, dy = -1, -1
	case 0x70:
		dy = -1
	}
	// The circle's centre sits rad away from the centre pixel, towards
	// both arms.
	ccx, ccy := float64(mx+dx*rad), float64(my+dy*rad)
	half := float64(t) / 2
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			fx, fy := float64(x), float64(y)
			// Only the quadrant facing the centre pixel.
			if (fx-ccx)*float64(dx) > 0 || (fy-ccy)*float64(dy) > 0 {
				continue
			}
			d := hypot(fx-ccx, fy-ccy) - float64(rad)
			cov := 0.5 + half - abs64(d)
			if cov <= 0 {
				continue
			}
			a := uint8(min(255, cov*255))
			if k := y*w + x; a > g.mask[k] {
				g.mask[k] = a
			}
		}
	}
	// Straight parts from the arc's ends to the cell edges.
	x0 := mx - t/2
	y0 := my - t/2
	if dy > 0 {
		fillMask(g, x0, my+rad, x0+t, h, 255)
	} else {
		fillMask(g, x0, 0, x0+t, my-rad+1, 255)
	}
	if dx > 0 {
		fillMask(g, mx+rad, y0, w, y0+t, 255)
	} else {
		fillMask(g, 0, y0, mx-rad+1, y0+t, 255)
	}
}

// drawDiagonal draws a corner-to-corner line: rising (lower left to upper
// right) or falling.
func drawDiagonal(g *glyph, t int, rising bool) {
	w, h := float64(g.w), float64(g.h)
	ln := hypot(w, h)
	half := float64(t) / 2
	for y := 0; y < g.h; y++ {
		for x := 0; x < g.w; x++ {
			fx, fy := float64(x)+0.5, float64(y)+0.5
			if rising {
				fy = h - fy
			}
			// distance from (fx, fy) to the line from (0,0) to (w,h)
			d := abs64(fx*h-fy*w) / ln
			cov := 0.5 + half - d
			if cov <= 0 {
				continue
			}
			a := uint8(min(255, cov*255))
			if k := y*g.w + x; a > g.mask[k] {
				g.mask[k] = a
			}
		}
	}
}

// drawBlock draws the block elements U+2580–U+259F.
func drawBlock(g *glyph, r rune) {
	w, h := g.w, g.h
	eighthsY := func(n int) int { return (h*n + 4) / 8 }
	eighthsX := func(n int) int { return (w*n + 4) / 8 }
	switch {
	case r == 0x2580: // upper half
		fillMask(g, 0, 0, w, eighthsY(4), 255)
	case r >= 0x2581 && r <= 0x2588: // lower n eighths
		fillMask(g, 0, h-eighthsY(int(r-0x2580)), w, h, 255)
	case r >= 0x2589 && r <= 0x258f: // left 7/8 .. 1/8
		fillMask(g, 0, 0, eighthsX(int(0x2590-r)), h, 255)
	case r == 0x2590: // right half
		fillMask(g, w-eighthsX(4), 0, w, h, 255)
	case r >= 0x2591 && r <= 0x2593: // shades
		fillMask(g, 0, 0, w, h, uint8(64*(r-0x2590)))
	case r == 0x2594: // upper eighth
		fillMask(g, 0, 0, w, eighthsY(1), 255)
	case r == 0x2595: // right eighth
		fillMask(g, w-eighthsX(1), 0, w, h, 255)
	default: // quadrants U+2596–U+259F: bits UL, UR, LL, LR
		q := [...]uint8{0b0010, 0b0001, 0b1000, 0b1011, 0b1001, 0b1110, 0b1101, 0b0100, 0b0110, 0b0111}[r-0x2596]
		mx, my := w/2, h/2
		if q&0b1000 != 0 {
			fillMask(g, 0, 0, mx, my, 255)
		}
		if q&0b0100 != 0 {
			fillMask(g, mx, 0, w, my, 255)
		}
		if q&0b0010 != 0 {
			fillMask(g, 0, my, mx, h, 255)
		}
		if q&0b0001 != 0 {
			fillMask(g, mx, my, w, h, 255)
		}
	}
}

func hypot(a, b float64) float64 { return math.Sqrt(a*a + b*b) }

func abs64(v float64) float64 { return math.Abs(v) }

// doubleStrokeExt is how far one stroke of a double arm reaches past the
// cell's centre line, given the weights of the crossing arms on its near
// and far side (3 = double): it stops at the inner stroke of a double arm
// on its side (inner corner), runs to the outer stroke of one on the
// other side (outer corner), meets a single crossing arm half-way, and
// otherwise just closes the centre.
func doubleStrokeExt(near, far byte, gap, t int) int {
	switch {
	case near == 3:
		return -gap
	case far == 3:
		return gap + t
	case near != 0 || far != 0:
		return (t + 1) / 2
	}
	return 1
}
