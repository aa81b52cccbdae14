package outline

import (
	"image/color"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
)

func TestOutlineDrawsOnlyTheBorder(t *testing.T) {
	test.NewTempApp(t)
	red := color.NRGBA{R: 0xff, A: 0xff}
	o := New(2, red)
	w := test.NewTempWindow(t, o)
	w.SetPadded(false)
	w.Resize(fyne.NewSize(40, 30))
	o.Resize(fyne.NewSize(40, 30))
	img := w.Canvas().Capture()
	b := img.Bounds()
	isRed := func(x, y int) bool {
		r, g, bl, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
		return r > 0xf000 && g < 0x1000 && bl < 0x1000
	}
	for _, p := range [][2]int{{0, 0}, {39, 0}, {0, 29}, {39, 29}, {1, 15}, {38, 15}, {20, 1}, {20, 28}} {
		if !isRed(p[0], p[1]) {
			t.Errorf("border pixel %v is not the outline colour", p)
		}
	}
	for _, p := range [][2]int{{2, 2}, {20, 15}, {37, 27}} {
		if isRed(p[0], p[1]) {
			t.Errorf("inner pixel %v is painted", p)
		}
	}
	blue := color.NRGBA{B: 0xff, A: 0xff}
	o.SetColor(blue)
	if o.Color() != color.Color(blue) {
		t.Errorf("Color() = %v after SetColor(blue)", o.Color())
	}
	for _, obj := range test.WidgetRenderer(o).Objects() {
		if r := obj.(*canvas.Rectangle); r.FillColor != color.Color(blue) || r.StrokeWidth != 0 {
			t.Errorf("bar fill %v stroke %v, want blue bars without stroke", r.FillColor, r.StrokeWidth)
		}
	}
}
