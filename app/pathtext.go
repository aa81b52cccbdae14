package app

import (
	"image/color"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// pathText draws a prefix and a path in monospace, the path cut to the
// width it is given from the left, whole directories first
// ("M  …/deep/name.go"), so the file's own name stays in view where the
// list is narrower than the path (issue 29). The full path is for a
// hover line ([hoverRow]). Its fields are set before it is shown and
// read on the UI goroutine; the zero value draws nothing.
type pathText struct {
	widget.BaseWidget
	prefix string      // drawn first, never cut ("M  ")
	path   string      // slash-separated
	color  color.Color // the text's colour
	shown  string      // what the last layout drew
}

func newPathText(prefix, path string, c color.Color) *pathText {
	p := &pathText{prefix: prefix, path: path, color: c}
	p.ExtendBaseWidget(p)
	return p
}

// CreateRenderer is part of fyne.Widget.
func (p *pathText) CreateRenderer() fyne.WidgetRenderer {
	t := canvas.NewText(p.prefix+p.path, p.color)
	t.TextStyle.Monospace = true
	return &pathTextRenderer{p: p, t: t}
}

type pathTextRenderer struct {
	p *pathText
	t *canvas.Text
}

func (r *pathTextRenderer) Destroy()                     {}
func (r *pathTextRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.t} }
func (r *pathTextRenderer) Refresh()                     { r.t.Color = r.p.color; r.Layout(r.p.Size()) }

// MinSize is the prefix and an ellipsis: the list may be narrower than
// any path.
func (r *pathTextRenderer) MinSize() fyne.Size {
	return fyne.MeasureText(r.p.prefix+"…", r.t.TextSize, r.t.TextStyle)
}

// Layout fits the path into s.
func (r *pathTextRenderer) Layout(s fyne.Size) {
	measure := func(text string) float32 { return fyne.MeasureText(text, r.t.TextSize, r.t.TextStyle).Width }
	r.p.shown = fitPath(r.p.prefix, r.p.path, s.Width, measure)
	r.t.Text = r.p.shown
	r.t.Resize(fyne.NewSize(s.Width, r.t.MinSize().Height))
	r.t.Move(fyne.NewPos(0, (s.Height-r.t.MinSize().Height)/2))
	r.t.Refresh()
}

// fitPath is prefix+path cut to width as measure measures text: whole
// when it fits, else "…/" and as many of the path's last components as
// fit, else "…" and as much of the last component's end as fits.
func fitPath(prefix, path string, width float32, measure func(string) float32) string {
	if measure(prefix+path) <= width {
		return prefix + path
	}
	parts := strings.Split(path, "/")
	for i := 1; i < len(parts); i++ {
		if s := prefix + "…/" + strings.Join(parts[i:], "/"); measure(s) <= width {
			return s
		}
	}
	name := []rune(parts[len(parts)-1])
	for k := len(name) - 1; k > 0; k-- {
		if s := prefix + "…" + string(name[len(name)-k:]); measure(s) <= width {
			return s
		}
	}
	return prefix + "…"
}

// hoverRow is a tapBox that says when the pointer is over it (the Diff
// view's file rows show their full path in its path line then).
type hoverRow struct {
	tapBox
	onHover func(in bool)
}

func newHoverRow(content fyne.CanvasObject, onTap func(), onHover func(in bool)) *hoverRow {
	r := &hoverRow{onHover: onHover}
	r.content, r.onTap, r.bg = content, onTap, canvas.NewRectangle(color.Transparent)
	r.bg.CornerRadius = 4
	r.ExtendBaseWidget(r)
	return r
}

// MouseIn is part of desktop.Hoverable.
func (r *hoverRow) MouseIn(*desktop.MouseEvent) {
	if r.onHover != nil {
		r.onHover(true)
	}
}

// MouseMoved is part of desktop.Hoverable.
func (r *hoverRow) MouseMoved(*desktop.MouseEvent) {}

// MouseOut is part of desktop.Hoverable.
func (r *hoverRow) MouseOut() {
	if r.onHover != nil {
		r.onHover(false)
	}
}

var _ desktop.Hoverable = (*hoverRow)(nil)
