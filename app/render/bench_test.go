package render_test

import (
	"fmt"
	"image"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/app/render"
	"github.com/paneflow-go/paneflow/terminal"
)

// denseScreen is a 200×50 screen where every cell holds a printable
// character and the colours and attributes change every few cells, like a
// colourised log or a syntax-highlighted editor. seed varies the text.
func denseScreen(seed int) *terminal.Snapshot {
	const cols, rows = 200, 50
	var b strings.Builder
	words := []string{"func", "render", "(dst", "*image.RGBA)", "return", "nil", "err", "0x1f", "//", "note:"}
	for y := range rows {
		fmt.Fprintf(&b, "\x1b[%d;1H", y+1)
		n := 0
		for i := 0; n < cols; i++ {
			k := seed + y*7 + i
			switch k % 5 {
			case 0:
				fmt.Fprintf(&b, "\x1b[0;3%dm", k%8)
			case 1:
				fmt.Fprintf(&b, "\x1b[1;38;5;%dm", 16+k%216)
			case 2:
				fmt.Fprintf(&b, "\x1b[0;38;2;%d;%d;%dm", k*37%256, k*91%256, k*13%256)
			case 3:
				fmt.Fprintf(&b, "\x1b[3;4;9%dm", k%8)
			default:
				fmt.Fprintf(&b, "\x1b[0;48;5;%d;37m", 232+k%24)
			}
			w := words[k%len(words)] + " "
			w = w[:min(len(w), cols-n)]
			b.WriteString(w)
			n += len(w)
		}
	}
	b.WriteString("\x1b[0m")
	e := terminal.NewEmulator(cols, rows, terminal.EmulatorOptions{})
	e.Write([]byte(b.String()))
	var s terminal.Snapshot
	e.Snapshot(&s)
	return &s
}

func benchSetup(b *testing.B) (*render.Renderer, *image.RGBA) {
	r := render.NewRenderer(testFonts(b), render.DarkPalette())
	w, h := r.Size(200, 50)
	return r, image.NewRGBA(image.Rect(0, 0, w, h))
}

// BenchmarkRenderFull200x50SGR redraws every row every frame: it
// alternates between two screens that differ in every row.
func BenchmarkRenderFull200x50SGR(b *testing.B) {
	r, img := benchSetup(b)
	snaps := [2]*terminal.Snapshot{denseScreen(0), denseScreen(1)}
	o := &render.Overlay{Current: -1}
	r.Render(img, snaps[1], o) // warm the glyph cache
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if n := r.Render(img, snaps[i&1], o); n != 50 {
			b.Fatalf("drew %d rows, want 50", n)
		}
		i++
	}
}

// BenchmarkRenderIdle200x50 renders an unchanged screen.
func BenchmarkRenderIdle200x50(b *testing.B) {
	r, img := benchSetup(b)
	s := denseScreen(0)
	o := &render.Overlay{Current: -1}
	r.Render(img, s, o)
	b.ReportAllocs()
	for b.Loop() {
		if n := r.Render(img, s, o); n != 0 {
			b.Fatalf("drew %d rows, want 0", n)
		}
	}
}

// BenchmarkRenderOneRow changes one row per frame (typing at a prompt).
func BenchmarkRenderOneRow(b *testing.B) {
	r, img := benchSetup(b)
	a, c := denseScreen(0), denseScreen(0)
	copy(c.Row(20), denseScreen(3).Row(20))
	snaps := [2]*terminal.Snapshot{a, c}
	o := &render.Overlay{Current: -1}
	r.Render(img, a, o)
	b.ReportAllocs()
	i := 1
	for b.Loop() {
		if n := r.Render(img, snaps[i&1], o); n != 1 {
			b.Fatalf("drew %d rows, want 1", n)
		}
		i++
	}
}

// BenchmarkRenderFull200x50SGRHiDPI is the full redraw at canvas scale 2
// (four times the pixels).
func BenchmarkRenderFull200x50SGRHiDPI(b *testing.B) {
	c := render.DefaultFontConfig()
	c.Regular = fyneFont(b, "DejaVuSansMono-Powerline.ttf")
	c.Scale = 2
	f, err := render.NewFontSet(c)
	if err != nil {
		b.Fatal(err)
	}
	r := render.NewRenderer(f, render.DarkPalette())
	w, h := r.Size(200, 50)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	snaps := [2]*terminal.Snapshot{denseScreen(0), denseScreen(1)}
	r.Render(img, snaps[1], nil)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		r.Render(img, snaps[i&1], nil)
		i++
	}
}
