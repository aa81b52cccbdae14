// Package outline draws a rectangle's border as four thin bars.
//
// A canvas.Rectangle with a stroke is drawn by Fyne's rectangle shader over
// its whole area, every pixel of it, on every frame. For a focus or
// attention ring around a terminal pane that is a full-pane pass for a few
// border pixels, which software OpenGL (llvmpipe in VMs, remote desktops,
// CI) pays on every frame the terminal changes. Four bars shade only the
// border.
package outline

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/widget"
)

// Outline is a border of a given width and colour drawn just inside its
// bounds; the inside is not drawn at all. Create it with [New]. Like every
// widget it must be used from the UI goroutine.
type Outline struct {
	widget.BaseWidget
	width float32
	bars  [4]*canvas.Rectangle // top, bottom, left, right
}

// New returns an outline width pixels wide in colour c.
func New(width float32, c color.Color) *Outline {
	o := &Outline{width: width}
	for i := range o.bars {
		o.bars[i] = canvas.NewRectangle(c)
	}
	o.ExtendBaseWidget(o)
	return o
}

// SetColor changes the border's colour.
func (o *Outline) SetColor(c color.Color) {
	for _, b := range o.bars {
		if b.FillColor != c {
			b.FillColor = c
			b.Refresh()
		}
	}
}

// Color returns the border's colour.
func (o *Outline) Color() color.Color { return o.bars[0].FillColor }

// CreateRenderer implements fyne.Widget.
func (o *Outline) CreateRenderer() fyne.WidgetRenderer {
	objs := make([]fyne.CanvasObject, len(o.bars))
	for i, b := range o.bars {
		objs[i] = b
	}
	return &renderer{o: o, objs: objs}
}

type renderer struct {
	o    *Outline
	objs []fyne.CanvasObject
}

func (r *renderer) Layout(size fyne.Size) {
	w := min(r.o.width, size.Width/2, size.Height/2)
	top, bottom, left, right := r.o.bars[0], r.o.bars[1], r.o.bars[2], r.o.bars[3]
	top.Move(fyne.NewPos(0, 0))
	top.Resize(fyne.NewSize(size.Width, w))
	bottom.Move(fyne.NewPos(0, size.Height-w))
	bottom.Resize(fyne.NewSize(size.Width, w))
	left.Move(fyne.NewPos(0, w))
	left.Resize(fyne.NewSize(w, size.Height-2*w))
	right.Move(fyne.NewPos(size.Width-w, w))
	right.Resize(fyne.NewSize(w, size.Height-2*w))
}

func (r *renderer) MinSize() fyne.Size { return fyne.NewSize(2*r.o.width, 2*r.o.width) }

func (r *renderer) Refresh() {
	r.Layout(r.o.Size())
	for _, b := range r.o.bars {
		b.Refresh()
	}
}

func (r *renderer) Objects() []fyne.CanvasObject { return r.objs }

func (r *renderer) Destroy() {}
