//go:build linux

package gui

import (
	"fmt"
	"image"
	"image/color"
)

// rgb is an opaque colour as the screen shows it.
type rgb struct{ R, G, B uint8 }

func (c rgb) String() string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// at returns the colour of pixel (x, y).
func at(img image.Image, x, y int) rgb {
	c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
	return rgb{c.R, c.G, c.B}
}

// close reports whether two colours differ by at most tol in every
// channel.
func (c rgb) close(d rgb, tol int) bool {
	return absDiff(c.R, d.R) <= tol && absDiff(c.G, d.G) <= tol && absDiff(c.B, d.B) <= tol
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// isRed and isGreen recognise the ANSI red and green background colours
// of any reasonable palette: one channel clearly dominating the others.
func isRed(c rgb) bool {
	return int(c.R) > 140 && int(c.R)-int(c.G) > 70 && int(c.R)-int(c.B) > 50
}

func isGreen(c rgb) bool {
	return int(c.G) > 120 && int(c.G)-int(c.R) > 30 && int(c.G)-int(c.B) > 30
}

// box is the bounding box of matching pixels and how many there are.
type box struct {
	image.Rectangle
	N int
}

// find returns the bounding box of the pixels of r for which match is
// true.
func find(img image.Image, r image.Rectangle, match func(rgb) bool) box {
	var b box
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if !match(at(img, x, y)) {
				continue
			}
			p := image.Rect(x, y, x+1, y+1)
			if b.N == 0 {
				b.Rectangle = p
			} else {
				b.Rectangle = b.Union(p)
			}
			b.N++
		}
	}
	return b
}

// changed counts the pixels of r that differ between two images of the
// same size by more than tol in some channel.
func changed(a, b image.Image, r image.Rectangle, tol int) int {
	r = r.Intersect(a.Bounds()).Intersect(b.Bounds())
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if !at(a, x, y).close(at(b, x, y), tol) {
				n++
			}
		}
	}
	return n
}

// cursorBar says whether every pixel of r that differs between a and b
// lies in one upright bar at most 3 pixels wide and 40 high, and returns
// the bar. That is a focused entry's text cursor: Fyne fades it in and
// out for as long as the entry has the keyboard focus (a 1 s cycle, its
// two resting states 0.4 s each), so two screenshots taken further apart
// than 0.4 s under load differ in it forever, though the window has
// settled.
func cursorBar(a, b image.Image, r image.Rectangle) (image.Rectangle, bool) {
	r = r.Intersect(a.Bounds()).Intersect(b.Bounds())
	var bar image.Rectangle
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if !at(a, x, y).close(at(b, x, y), 0) {
				bar = bar.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return bar, !bar.Empty() && bar.Dx() <= 3 && bar.Dy() <= 40
}

// colours counts the distinct colours in r.
func colours(img image.Image, r image.Rectangle) int {
	seen := map[rgb]bool{}
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			seen[at(img, x, y)] = true
		}
	}
	return len(seen)
}

// run is a stretch of pixels along a row or column.
type run struct{ start, end int } // [start, end)

func (r run) len() int { return r.end - r.start }

// rowRuns returns the runs of row y within [x0, x1) whose pixels are
// within tol of c.
func rowRuns(img image.Image, y, x0, x1 int, c rgb, tol int) []run {
	var out []run
	in := false
	for x := x0; x < x1; x++ {
		match := at(img, x, y).close(c, tol)
		switch {
		case match && !in:
			out = append(out, run{start: x})
			in = true
		case !match && in:
			out[len(out)-1].end = x
			in = false
		}
	}
	if in {
		out[len(out)-1].end = x1
	}
	return out
}

// colRuns is rowRuns down column x within [y0, y1).
func colRuns(img image.Image, x, y0, y1 int, c rgb, tol int) []run {
	var out []run
	in := false
	for y := y0; y < y1; y++ {
		match := at(img, x, y).close(c, tol)
		switch {
		case match && !in:
			out = append(out, run{start: y})
			in = true
		case !match && in:
			out[len(out)-1].end = y
			in = false
		}
	}
	if in {
		out[len(out)-1].end = y1
	}
	return out
}

// longRuns keeps the runs at least min long.
func longRuns(rs []run, min int) []run {
	var out []run
	for _, r := range rs {
		if r.len() >= min {
			out = append(out, r)
		}
	}
	return out
}

// mostCommon returns the most frequent colour of r.
func mostCommon(img image.Image, r image.Rectangle) rgb {
	count := map[rgb]int{}
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			count[at(img, x, y)]++
		}
	}
	var best rgb
	n := -1
	for c, k := range count {
		if k > n {
			best, n = c, k
		}
	}
	return best
}
