package app

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Geometry of the window's left column.
const (
	sidebarMinWidth = 160 // no drag makes the sidebar narrower than this
	sidebarMaxWidth = 480 // nor wider than this
	sideGripWidth   = dividerWidth
	sideStripWidth  = 36 // the collapsed sidebar
)

// clampSidebarWidth keeps w within [sidebarMinWidth, sidebarMaxWidth].
func clampSidebarWidth(w float32) float32 {
	return min(max(w, sidebarMinWidth), sidebarMaxWidth)
}

// sidePanel is the window's left column: the sidebar at a width the grip
// on its right edge drags between sidebarMinWidth and sidebarMaxWidth,
// or, collapsed, a thin strip with a button that expands it and the
// number of agents waiting for input. The width lasts as long as the
// window (nothing saves the window's UI state). Its methods run on the
// UI goroutine.
type sidePanel struct {
	widget.BaseWidget
	side      *sidebar
	width     float32 // the expanded sidebar's width
	collapsed bool
	// onResize is called after the width or the collapsed state changed
	// (the shell lays the window out again, which resizes the panes and
	// their PTYs); nil does nothing.
	onResize func()

	grip    *sideGrip
	strip   fyne.CanvasObject
	waiting *canvas.Text // the strip's count of agents waiting
	objects []fyne.CanvasObject
}

func newSidePanel(side *sidebar) *sidePanel {
	p := &sidePanel{side: side, width: sidebarWidth}
	p.grip = &sideGrip{panel: p, bar: canvas.NewRectangle(theme.Color(theme.ColorNameSeparator))}
	p.grip.ExtendBaseWidget(p.grip)
	expand := widget.NewButtonWithIcon("", theme.NavigateNextIcon(), func() { p.setCollapsed(false) })
	expand.Importance = widget.LowImportance
	p.waiting = canvas.NewText("", theme.Color(theme.ColorNameWarning))
	p.waiting.TextStyle.Bold = true
	p.waiting.Alignment = fyne.TextAlignCenter
	p.strip = container.NewStack(newThemedFill(theme.ColorNameHeaderBackground), container.NewVBox(expand, p.waiting))
	p.strip.Hide()
	side.onCollapse = func() { p.setCollapsed(true) }
	p.objects = []fyne.CanvasObject{side.root, p.strip, p.grip}
	p.ExtendBaseWidget(p)
	return p
}

// setWidth sets the expanded sidebar's width, clamped.
func (p *sidePanel) setWidth(w float32) {
	w = clampSidebarWidth(w)
	if w == p.width {
		return
	}
	p.width = w
	p.changed()
}

// setCollapsed collapses the sidebar to its strip, or expands it.
func (p *sidePanel) setCollapsed(on bool) {
	if on == p.collapsed {
		return
	}
	p.collapsed = on
	for _, o := range []fyne.CanvasObject{p.side.root, p.grip, p.strip} {
		if (o == p.strip) == on {
			o.Show()
		} else {
			o.Hide()
		}
	}
	p.changed()
}

// setWaiting shows the number of agents waiting for input on the strip.
func (p *sidePanel) setWaiting(n int) {
	label := ""
	if n > 0 {
		label = fmt.Sprintf("●%d", n)
	}
	if p.waiting.Text != label {
		p.waiting.Text = label
		p.waiting.Refresh()
	}
}

// changed lays the panel and its window out again.
func (p *sidePanel) changed() {
	p.layout(p.Size())
	if p.onResize != nil {
		p.onResize()
	}
	markDirty(p)
}

// shownWidth is the width the panel takes in the window.
func (p *sidePanel) shownWidth() float32 {
	if p.collapsed {
		return sideStripWidth
	}
	return p.width + sideGripWidth
}

// layout places the sidebar and its grip, or the strip, for size.
func (p *sidePanel) layout(size fyne.Size) {
	if p.collapsed {
		p.strip.Move(fyne.Position{})
		p.strip.Resize(fyne.NewSize(sideStripWidth, size.Height))
		return
	}
	p.side.root.Move(fyne.Position{})
	p.side.root.Resize(fyne.NewSize(p.width, size.Height))
	p.grip.Move(fyne.NewPos(p.width, 0))
	p.grip.Resize(fyne.NewSize(sideGripWidth, size.Height))
}

// MinSize is the width shown; the height is what the shown part needs.
func (p *sidePanel) MinSize() fyne.Size {
	h := p.strip.MinSize().Height
	if !p.collapsed {
		h = p.side.root.MinSize().Height
	}
	return fyne.NewSize(p.shownWidth(), h)
}

// CreateRenderer is part of fyne.Widget.
func (p *sidePanel) CreateRenderer() fyne.WidgetRenderer { return sidePanelRenderer{p} }

type sidePanelRenderer struct{ p *sidePanel }

func (r sidePanelRenderer) Layout(size fyne.Size)        { r.p.layout(size) }
func (r sidePanelRenderer) MinSize() fyne.Size           { return r.p.MinSize() }
func (r sidePanelRenderer) Objects() []fyne.CanvasObject { return r.p.objects }
func (r sidePanelRenderer) Destroy()                     {}
func (r sidePanelRenderer) Refresh() {
	r.p.layout(r.p.Size())
	if c := theme.Color(theme.ColorNameSeparator); c != r.p.grip.bar.FillColor {
		r.p.grip.bar.FillColor = c
		r.p.grip.bar.Refresh()
	}
	if c := theme.Color(theme.ColorNameWarning); c != r.p.waiting.Color {
		r.p.waiting.Color = c
		r.p.waiting.Refresh()
	}
}

// sideGrip is the sidebar's right edge: dragging it sets the sidebar's
// width.
type sideGrip struct {
	widget.BaseWidget
	panel    *sidePanel
	bar      *canvas.Rectangle
	dragging bool
	start    float32 // the width when the drag began
	total    float32 // the drag's distance so far
}

var (
	_ fyne.Draggable     = (*sideGrip)(nil)
	_ desktop.Cursorable = (*sideGrip)(nil)
)

// CreateRenderer is part of fyne.Widget.
func (g *sideGrip) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(g.bar) }

// Cursor shows a resize cursor over the grip.
func (g *sideGrip) Cursor() desktop.Cursor { return desktop.HResizeCursor }

// Dragged sets the width to the drag's start width plus its distance, so
// a drag past a limit and back follows the pointer again.
func (g *sideGrip) Dragged(ev *fyne.DragEvent) {
	if !g.dragging {
		g.dragging, g.start, g.total = true, g.panel.width, 0
	}
	g.total += ev.Dragged.DX
	g.panel.setWidth(g.start + g.total)
}

// DragEnd ends the drag.
func (g *sideGrip) DragEnd() { g.dragging = false }
