package render_test

import (
	"image"
	"image/color"
	"testing"

	"github.com/paneflow-go/paneflow/app/render"
	"github.com/paneflow-go/paneflow/terminal"
)

func rgba(c color.Color) color.RGBA {
	r, g, b, a := c.RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
}

func TestResolve(t *testing.T) {
	p := render.DarkPalette()
	tests := []struct {
		name string
		c    terminal.Color
		fg   bool
		want color.RGBA
	}{
		{"default fg", terminal.DefaultColor, true, p.Foreground},
		{"default bg", terminal.DefaultColor, false, p.Background},
		{"ansi 1", terminal.IndexedColor(1), true, p.ANSI[1]},
		{"ansi 15", terminal.IndexedColor(15), false, p.ANSI[15]},
		{"cube black", terminal.IndexedColor(16), true, color.RGBA{0, 0, 0, 255}},
		{"cube 196 red", terminal.IndexedColor(196), true, color.RGBA{255, 0, 0, 255}},
		{"cube 110", terminal.IndexedColor(110), true, color.RGBA{135, 175, 215, 255}},
		{"cube white", terminal.IndexedColor(231), true, color.RGBA{255, 255, 255, 255}},
		{"grey 232", terminal.IndexedColor(232), true, color.RGBA{8, 8, 8, 255}},
		{"grey 255", terminal.IndexedColor(255), true, color.RGBA{238, 238, 238, 255}},
		{"truecolor", terminal.RGBColor(1, 2, 3), false, color.RGBA{1, 2, 3, 255}},
	}
	for _, tc := range tests {
		if got := p.Resolve(tc.c, tc.fg); got != tc.want {
			t.Errorf("%s: Resolve(%v, %v) = %v, want %v", tc.name, tc.c, tc.fg, got, tc.want)
		}
	}
}

func TestNewFontSetErrors(t *testing.T) {
	good := fyneFont(t, "DejaVuSansMono-Powerline.ttf")
	tests := []struct {
		name string
		c    render.FontConfig
	}{
		{"no regular", render.FontConfig{Size: 12}},
		{"garbage regular", render.FontConfig{Regular: []byte("not a font"), Size: 12}},
		{"zero size", render.FontConfig{Regular: good}},
		{"negative size", render.FontConfig{Regular: good, Size: -3}},
		{"garbage bold", render.FontConfig{Regular: good, Bold: []byte{1, 2, 3}, Size: 12}},
		{"garbage fallback", render.FontConfig{Regular: good, Fallbacks: [][]byte{{0}}, Size: 12}},
	}
	for _, tc := range tests {
		if _, err := render.NewFontSet(tc.c); err == nil {
			t.Errorf("%s: NewFontSet succeeded, want an error", tc.name)
		}
	}
}

func TestCellSize(t *testing.T) {
	regular := fyneFont(t, "DejaVuSansMono-Powerline.ttf")
	cell := func(c render.FontConfig) (int, int) {
		t.Helper()
		c.Regular = regular
		f, err := render.NewFontSet(c)
		if err != nil {
			t.Fatal(err)
		}
		return f.CellSize()
	}
	w1, h1 := cell(render.FontConfig{Size: 13})
	// DejaVu Sans Mono advances 0.602 em and is 1.164 em tall.
	if w1 != 8 || h1 < 15 || h1 > 16 {
		t.Errorf("13 pt cell = %dx%d, want 8x15 or 8x16", w1, h1)
	}
	if w, h := cell(render.FontConfig{Size: 13, Scale: 2}); w != 16 || h < 2*h1-1 || h > 2*h1+1 {
		t.Errorf("13 pt at scale 2 = %dx%d, want about %dx%d", w, h, 2*w1, 2*h1)
	}
	if w, h := cell(render.FontConfig{Size: 13, LineHeight: 1.5}); w != w1 || h < h1*3/2-1 || h > h1*3/2+1 {
		t.Errorf("line height 1.5 = %dx%d, want %dx%d", w, h, w1, h1*3/2)
	}
	if _, h := cell(render.FontConfig{Size: 13, LineHeight: 9}); h > h1*5/2+1 {
		t.Errorf("line height 9 gives height %d, want it clamped to 2.5× (%d)", h, h1*5/2)
	}
}

func TestGridSizeRoundTrip(t *testing.T) {
	r := render.NewRenderer(testFonts(t), render.DarkPalette())
	cw, ch := r.Size(1, 1)
	for _, g := range [][2]int{{1, 1}, {80, 24}, {200, 50}, {3, 97}} {
		w, h := r.Size(g[0], g[1])
		if w != g[0]*cw || h != g[1]*ch {
			t.Errorf("Size(%d, %d) = %dx%d, want %dx%d", g[0], g[1], w, h, g[0]*cw, g[1]*ch)
		}
		if c, rows := r.Grid(w, h); c != g[0] || rows != g[1] {
			t.Errorf("Grid(Size(%d, %d)) = %d, %d", g[0], g[1], c, rows)
		}
		if c, rows := r.Grid(w+cw-1, h+ch-1); c != g[0] || rows != g[1] {
			t.Errorf("Grid with partial cells = %d, %d, want %d, %d", c, rows, g[0], g[1])
		}
	}
	if c, rows := r.Grid(0, -5); c != 1 || rows != 1 {
		t.Errorf("Grid(0, -5) = %d, %d, want 1, 1", c, rows)
	}
	cases := []struct {
		x, y int
		want render.Point
	}{
		{0, 0, render.Point{0, 0}},
		{cw - 1, ch - 1, render.Point{0, 0}},
		{cw, ch, render.Point{1, 1}},
		{5*cw + 1, 2*ch + 1, render.Point{Row: 2, Col: 5}},
		{-1, -1, render.Point{0, 0}},
		{1000 * cw, 1000 * ch, render.Point{Row: 23, Col: 79}},
	}
	for _, tc := range cases {
		if got := r.CellAt(tc.x, tc.y, 80, 24); got != tc.want {
			t.Errorf("CellAt(%d, %d) = %+v, want %+v", tc.x, tc.y, got, tc.want)
		}
	}
}

// cellPixel returns the colour at the centre-left of a cell (where no
// glyph of the test screens reaches).
func cellPixel(r *render.Renderer, img *image.RGBA, row, col int) color.RGBA {
	cw, ch := r.Size(1, 1)
	return rgba(img.At(col*cw, row*ch+ch/2))
}

func TestColours(t *testing.T) {
	p := render.DarkPalette()
	r := render.NewRenderer(testFonts(t), p)
	s := screen(10, 2, "\x1b[41m \x1b[48;5;21m \x1b[48;2;9;8;7m \x1b[7m \x1b[0m\x1b[7m \x1b[0m \x1b[2;7m \x1b[0m\r\n\x1b[?25l")
	img := draw(t, r, s, nil)
	want := []color.RGBA{p.ANSI[1], {0, 0, 255, 255}, {9, 8, 7, 255}, p.Foreground, p.Foreground, p.Background}
	for col, w := range want {
		if got := cellPixel(r, img, 0, col); got != w {
			t.Errorf("cell %d = %v, want %v", col, got, w)
		}
	}
	// inverse + faint: the background is the foreground colour; text is dimmed, not the background
	if got := cellPixel(r, img, 0, 6); got != p.Foreground {
		t.Errorf("faint inverse cell = %v, want %v", got, p.Foreground)
	}
}

func TestMarginsFilled(t *testing.T) {
	p := render.LightPalette()
	r := render.NewRenderer(testFonts(t), p)
	s := screen(4, 2, "\x1b[41m    \x1b[0m")
	w, h := r.Size(4, 2)
	img := image.NewRGBA(image.Rect(10, 20, 10+w+7, 20+h+5)) // not at the origin, with spare pixels
	for i := range img.Pix {
		img.Pix[i] = 0x55
	}
	r.Render(img, s, nil)
	for _, pt := range []image.Point{{10 + w, 20}, {10 + w + 6, 20 + h + 4}, {10, 20 + h}, {10 + w - 1, 20 + h + 4}} {
		if got := rgba(img.At(pt.X, pt.Y)); got != p.Background {
			t.Errorf("margin pixel %v = %v, want the background %v", pt, got, p.Background)
		}
	}
	if got := rgba(img.At(10, 21)); got != p.ANSI[1] {
		t.Errorf("grid origin pixel = %v, want red %v (the grid starts at Rect.Min)", got, p.ANSI[1])
	}
	// A destination smaller than the grid is clipped, not overrun.
	small := image.NewRGBA(image.Rect(0, 0, w/2, h/2))
	r.Render(small, s, nil)
}

// TestInset: with an inset the grid starts that many pixels in from every
// edge, the band around it is background (text no longer touches the
// pane's edge), and Grid and CellAt count it.
func TestInset(t *testing.T) {
	p := render.DarkPalette()
	r := render.NewRenderer(testFonts(t), p)
	cw, ch := r.Size(1, 1)
	const in = 5
	r.SetInset(in)
	if w, h := r.Size(4, 2); w != 4*cw+2*in || h != 2*ch+2*in {
		t.Fatalf("Size(4, 2) = %dx%d, want %dx%d", w, h, 4*cw+2*in, 2*ch+2*in)
	}
	s := screen(4, 2, "\x1b[41m    \r\n    \x1b[0m\x1b[?25l")
	img := image.NewRGBA(image.Rect(10, 20, 10+4*cw+2*in+3, 20+2*ch+2*in+1))
	for i := range img.Pix {
		img.Pix[i] = 0x55
	}
	if c, rows := r.Grid(img.Rect.Dx(), img.Rect.Dy()); c != 4 || rows != 2 {
		t.Fatalf("Grid = %d, %d, want 4, 2", c, rows)
	}
	r.Render(img, s, nil)
	x0, y0 := 10+in, 20+in // the grid's first pixel
	for _, pt := range []image.Point{{10, 20}, {x0 - 1, y0}, {x0, y0 - 1}, {x0 + 4*cw, y0}, {x0, y0 + 2*ch}, {img.Rect.Max.X - 1, img.Rect.Max.Y - 1}} {
		if got := rgba(img.At(pt.X, pt.Y)); got != p.Background {
			t.Errorf("inset pixel %v = %v, want the background %v", pt, got, p.Background)
		}
	}
	for _, pt := range []image.Point{{x0, y0}, {x0 + 4*cw - 1, y0 + 2*ch - 1}} {
		if got := rgba(img.At(pt.X, pt.Y)); got != p.ANSI[1] {
			t.Errorf("grid pixel %v = %v, want red %v", pt, got, p.ANSI[1])
		}
	}
	for _, tc := range []struct {
		x, y int
		want render.Point
	}{{0, 0, render.Point{}}, {in, in, render.Point{}}, {in + cw, in + ch, render.Point{Row: 1, Col: 1}}, {in - 1 + cw, in, render.Point{}}} {
		if got := r.CellAt(tc.x, tc.y, 4, 2); got != tc.want {
			t.Errorf("CellAt(%d, %d) = %+v, want %+v", tc.x, tc.y, got, tc.want)
		}
	}
	// An image with no room for the inset is drawn without it.
	if c, _ := r.Grid(2*in, 2*in); c != max(1, 2*in/cw) {
		t.Errorf("Grid(%d, %d) = %d columns, want %d (no inset)", 2*in, 2*in, c, max(1, 2*in/cw))
	}
}

func TestCursorDrawing(t *testing.T) {
	p := render.DarkPalette()
	r := render.NewRenderer(testFonts(t), p)
	s := screen(5, 2, "ab")
	if got := cellPixel(r, draw(t, r, s, nil), 0, 2); got != p.Cursor {
		t.Errorf("block cursor cell = %v, want %v", got, p.Cursor)
	}
	r.Invalidate()
	if got := cellPixel(r, draw(t, r, s, &render.Overlay{CursorOff: true}), 0, 2); got != p.Background {
		t.Errorf("cursor off: cell = %v, want background %v", got, p.Background)
	}
	r.Invalidate()
	cw, ch := r.Size(1, 1)
	img := draw(t, r, s, &render.Overlay{Unfocused: true})
	if got := rgba(img.At(2*cw, ch/2)); got != p.Cursor {
		t.Errorf("hollow cursor left edge = %v, want %v", got, p.Cursor)
	}
	if got := rgba(img.At(2*cw+cw/2, ch/2)); got != p.Background {
		t.Errorf("hollow cursor centre = %v, want background %v", got, p.Background)
	}
}

func TestDamageTracking(t *testing.T) {
	f := testFonts(t)
	r := render.NewRenderer(f, render.DarkPalette())
	e := terminal.NewEmulator(20, 6, terminal.EmulatorOptions{})
	e.Write([]byte("line one\r\nline two\r\nline three\r\n$ "))
	var s terminal.Snapshot
	e.Snapshot(&s)
	w, h := r.Size(20, 6)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	o := &render.Overlay{Current: -1}
	step := func(name string, want int) {
		t.Helper()
		e.Snapshot(&s)
		if got := r.Render(img, &s, o); got != want {
			t.Errorf("%s: drew %d rows, want %d", name, got, want)
		}
	}
	step("first frame", 6)
	step("unchanged", 0)
	step("unchanged again", 0)
	e.Write([]byte("x"))
	step("typed on the cursor row", 1)
	e.Write([]byte("\x1b[1;1Hz\x1b[4;4H"))
	step("changed row 0, cursor back on row 3", 1)
	e.Write([]byte("\x1b[2;1H"))
	step("cursor moved from row 3 to row 1", 2)
	e.Write([]byte("\x1b[1;31m\x1b[2;1Hl\x1b[0m"))
	step("restyled one cell", 1)
	o.CursorOff = true
	step("blink off", 1)
	o.CursorOff = false
	o.Unfocused = true
	step("unfocused", 1)
	o.Unfocused = false
	step("focused", 1)
	o.Selection, o.SelStart, o.SelEnd = true, render.Point{Row: 2, Col: 3}, render.Point{Row: 4, Col: 2}
	step("stream selection over rows 2-4", 3)
	o.SelEnd = render.Point{Row: 4, Col: 5}
	step("selection grew on its last row", 1)
	o.Block = true
	step("same corners as a block", 3)
	o.Selection = false
	step("selection cleared", 3)
	o.Matches = []render.Span{{Row: 0, Col0: 0, Col1: 4}, {Row: 5, Col0: 1, Col1: 2}}
	step("two matches", 2)
	o.Current = 1
	step("current match moved to row 5", 1)
	o.Current = 0
	step("current match back to row 0", 2)
	o.Matches = nil
	o.Current = -1
	step("matches cleared", 2)
	o.Link = render.Span{Row: 4, Col0: 0, Col1: 3}
	step("hovered link", 1)
	o.Link = render.Span{}
	step("link gone", 1)
	o.Flash = true
	step("flash", 6)
	o.Flash = false
	step("flash over", 6)
	e.Write([]byte("\x1b[?5h"))
	step("reverse video", 6)
	e.Write([]byte("\x1b[?5l"))
	step("reverse video off", 6)
	r.Invalidate()
	step("invalidated", 6)
	r.SetPalette(render.LightPalette())
	step("palette", 6)
	r.SetFontSet(f)
	step("font set", 6)
	img = image.NewRGBA(image.Rect(0, 0, w, h))
	step("new image", 6)
	img = image.NewRGBA(image.Rect(0, 0, w+1, h))
	step("resized image", 6)
	e.Resize(20, 7)
	step("resized grid", 7)
	step("settled", 0)
}

// TestDamageMatchesFullRedraw checks that an incrementally updated image is
// pixel-identical to a fresh full redraw of the same frame.
func TestDamageMatchesFullRedraw(t *testing.T) {
	f := testFonts(t)
	inc := render.NewRenderer(f, render.DarkPalette())
	e := terminal.NewEmulator(30, 8, terminal.EmulatorOptions{})
	w, h := inc.Size(30, 8)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	var s terminal.Snapshot
	frames := []struct {
		in string
		o  render.Overlay
	}{
		{"\x1b[1;32mhello\x1b[0m world\r\n中文 ┌──┐\r\n", render.Overlay{Current: -1}},
		{"\x1b[4:3mcurly\x1b[0m", render.Overlay{Selection: true, SelStart: render.Point{0, 2}, SelEnd: render.Point{1, 3}, Current: -1}},
		{"\x1b[3;1H\x1b[2K", render.Overlay{Matches: []render.Span{{Row: 0, Col0: 6, Col1: 11}}, Current: 0}},
		{"\x1b[5 q\x1b[7mX", render.Overlay{Unfocused: true, Current: -1}},
		{"\x1b[2J\x1b[Hnew screen", render.Overlay{Link: render.Span{Row: 0, Col0: 0, Col1: 3}, Current: -1}},
	}
	for i, fr := range frames {
		e.Write([]byte(fr.in))
		e.Snapshot(&s)
		inc.Render(img, &s, &fr.o)
		full := render.NewRenderer(f, render.DarkPalette())
		want := image.NewRGBA(img.Rect)
		full.Render(want, &s, &fr.o)
		if d := imageDiff(want, img); d != "" {
			t.Errorf("frame %d: incremental image differs from a full redraw: %s", i, d)
		}
	}
}

func TestBoxDrawingJoins(t *testing.T) {
	p := render.DarkPalette()
	r := render.NewRenderer(testFonts(t), p)
	img := draw(t, r, screen(6, 4, "──────\r\n│┼│\r\n│┼│\r\n██"), &render.Overlay{CursorOff: true, Current: -1})
	cw, ch := r.Size(1, 1)
	// Row 0: some pixel row is foreground across all six cells.
	found := false
	for y := 0; y < ch && !found; y++ {
		all := true
		for x := 0; x < 6*cw; x++ {
			if rgba(img.At(x, y)) != p.Foreground {
				all = false
				break
			}
		}
		found = all
	}
	if !found {
		t.Error("a row of ─ has no unbroken horizontal line")
	}
	// Rows 1–2, column 0: some pixel column is foreground top to bottom.
	found = false
	for x := 0; x < cw && !found; x++ {
		all := true
		for y := ch; y < 3*ch; y++ {
			if rgba(img.At(x, y)) != p.Foreground {
				all = false
				break
			}
		}
		found = all
	}
	if !found {
		t.Error("a column of │ has no unbroken vertical line")
	}
	// Full blocks fill their cells completely.
	for y := 3 * ch; y < 4*ch; y++ {
		for x := 0; x < 2*cw; x++ {
			if got := rgba(img.At(x, y)); got != p.Foreground {
				t.Fatalf("full block pixel (%d,%d) = %v, want %v", x, y, got, p.Foreground)
			}
		}
	}
}

// TestAnyRune draws every kind of code point (controls are filtered by
// the emulator; unassigned, private-use and surrogate-range values reach
// the font lookup) without crashing, in every style.
func TestAnyRune(t *testing.T) {
	r := render.NewRenderer(testFonts(t), render.DarkPalette())
	e := terminal.NewEmulator(64, 4, terminal.EmulatorOptions{})
	var s terminal.Snapshot
	w, h := r.Size(64, 4)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for _, base := range []rune{0x20, 0x300, 0x2400, 0x2500, 0x25a0, 0x3000, 0xe000, 0xfff0, 0x1f300, 0x1fa70, 0xe0000, 0xf0000, 0x10fff0} {
		e.Write([]byte("\x1b[2J\x1b[H"))
		for i := range rune(64) {
			e.Write([]byte("\x1b[" + []string{"0", "1", "3", "1;3"}[i%4] + "m" + string(base+i)))
		}
		e.Snapshot(&s)
		r.Render(img, &s, nil)
	}
}

// TestDamageBounds checks Renderer.Damage: every pixel a Render changes
// lies inside it, a typed character's damage is its row's band, and an
// unchanged frame has none (an image with an inset and an origin off zero,
// so the band's coordinates are dst's).
func TestDamageBounds(t *testing.T) {
	f := testFonts(t)
	r := render.NewRenderer(f, render.DarkPalette())
	_, ch := r.Size(1, 1) // before the inset: one cell
	const in = 3
	r.SetInset(in)
	e := terminal.NewEmulator(12, 5, terminal.EmulatorOptions{})
	w, h := r.Size(12, 5)
	img := image.NewRGBA(image.Rect(7, 11, 7+w, 11+h))
	var s terminal.Snapshot
	band := func(rows ...int) image.Rectangle {
		var b image.Rectangle
		for _, y := range rows {
			top := img.Rect.Min.Y + in + y*ch
			b = b.Union(image.Rect(img.Rect.Min.X, top, img.Rect.Max.X, top+ch))
		}
		return b
	}
	o := &render.Overlay{Current: -1}
	for i, step := range []struct {
		in   string
		want image.Rectangle
	}{
		{"$ ", img.Rect}, // the first frame draws everything
		{"", image.Rectangle{}},
		{"x", band(0)},
		{"\r\n\r\nyz", band(0, 1, 2)}, // the cursor left row 0 for row 2
		{"\x1b[41m\x1b[5;1Hred", band(2, 3, 4)},
	} {
		before := image.NewRGBA(img.Rect)
		copy(before.Pix, img.Pix)
		e.Write([]byte(step.in))
		e.Snapshot(&s)
		r.Render(img, &s, o)
		got := r.Damage()
		if got != step.want {
			t.Errorf("step %d (%q): Damage() = %v, want %v", i, step.in, got, step.want)
		}
		for y := img.Rect.Min.Y; y < img.Rect.Max.Y; y++ {
			for x := img.Rect.Min.X; x < img.Rect.Max.X; x++ {
				if !(image.Point{x, y}).In(got) && img.RGBAAt(x, y) != before.RGBAAt(x, y) {
					t.Fatalf("step %d (%q): pixel (%d,%d) changed outside Damage() %v", i, step.in, x, y, got)
				}
			}
		}
	}
}
