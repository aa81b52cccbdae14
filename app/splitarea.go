package app

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/paneflow-go/paneflow/app/internal/outline"
	"github.com/paneflow-go/paneflow/workspace"
)

// Geometry of the split area.
const (
	dividerWidth = 5  // the gap between panes, which is the divider's grab area
	minPanePx    = 60 // no drag makes a pane narrower or shorter than this
	focusRingPx  = 2
)

// splitArea shows the panes of one layout tree, side by side and stacked
// as the tree says, with a draggable divider between neighbours; with a
// zoomed pane it shows that pane alone. It does not own the pane widgets:
// the shell keeps them alive across relayouts and hands them in with
// setTree. Its methods run on the UI goroutine.
type splitArea struct {
	widget.BaseWidget

	tree  *workspace.LayoutNode // nil: no panes
	views map[uint64]fyne.CanvasObject
	zoom  uint64 // the zoomed pane, 0 for none
	focus uint64 // the pane with the focus ring
	// onRatios is told the new ratios of the split at path after a
	// divider drag; nil ignores drags.
	onRatios func(path []int, ratios []float64)

	bg       *canvas.Rectangle
	ring     *outline.Outline
	dividers []*divider
	objects  []fyne.CanvasObject
	tiles    tiling // from the last layout
}

func newSplitArea(onRatios func(path []int, ratios []float64)) *splitArea {
	a := &splitArea{onRatios: onRatios, views: map[uint64]fyne.CanvasObject{}}
	a.bg = canvas.NewRectangle(theme.Color(theme.ColorNameSeparator))
	a.ring = outline.New(focusRingPx, theme.Color(theme.ColorNamePrimary))
	a.ExtendBaseWidget(a)
	return a
}

// setTree shows tree with the given pane widgets, zoomed pane and focused
// pane, reusing the widgets it already shows. The area works on a copy of
// tree: a divider drag changes its ratios, and the shell's tree is the
// event reader's snapshot, which that goroutine still compares with the
// next one (a data race the race detector caught under load).
func (a *splitArea) setTree(tree *workspace.LayoutNode, views map[uint64]fyne.CanvasObject, zoom, focus uint64) {
	tree = cloneLayout(tree)
	// A divider being dragged keeps its own ratios: the model's may lag
	// behind by a few drag events.
	for _, d := range a.dividers {
		if d.start == nil || d.last == nil {
			continue
		}
		if n := splitAt(tree, d.at.Path); n != nil && len(n.Ratios) == len(d.last) {
			n.Ratios = slices.Clone(d.last)
		}
	}
	a.tree, a.views, a.zoom, a.focus = tree, views, zoom, focus
	a.rebuild()
	a.Refresh()
}

// cloneLayout copies a tree deep enough for its owner to change it: every
// node, its Ratios (a split area moves them) and its Surfaces (a host's
// tree gets window-side ids, rehomeTree). The legacy Ratio is a value.
func cloneLayout(n *workspace.LayoutNode) *workspace.LayoutNode {
	if n == nil {
		return nil
	}
	c := *n
	c.Ratios = slices.Clone(n.Ratios)
	c.Surfaces = slices.Clone(n.Surfaces)
	if n.Children != nil {
		c.Children = make([]workspace.LayoutNode, len(n.Children))
		for i := range n.Children {
			c.Children[i] = *cloneLayout(&n.Children[i])
		}
	}
	return &c
}

// shown lists the panes the area shows, in depth-first order.
func (a *splitArea) shown() []uint64 {
	if a.tree == nil {
		return nil
	}
	if a.zoom != 0 {
		return []uint64{a.zoom}
	}
	return tile(a.tree, rect{}, 0).Order
}

// rebuild recomputes the object list from the tree.
func (a *splitArea) rebuild() {
	objs := []fyne.CanvasObject{a.bg}
	for _, id := range a.shown() {
		if v := a.views[id]; v != nil {
			objs = append(objs, v)
		}
	}
	ndiv := 0
	if a.tree != nil && a.zoom == 0 {
		ndiv = len(tile(a.tree, rect{}, 0).Dividers)
	}
	for len(a.dividers) < ndiv {
		a.dividers = append(a.dividers, newDivider(a))
	}
	a.dividers = a.dividers[:ndiv]
	for _, d := range a.dividers {
		objs = append(objs, d)
	}
	objs = append(objs, a.ring)
	a.objects = objs
}

// layout places everything for size.
func (a *splitArea) layout(size fyne.Size) {
	a.bg.Resize(size)
	a.bg.FillColor = theme.Color(theme.ColorNameSeparator)
	area := rect{W: size.Width, H: size.Height}
	if a.tree == nil {
		a.tiles = tiling{}
		a.ring.Hide()
		a.bg.Show()
		return
	}
	// The panes and dividers tile the whole area: a background under them
	// would only cost a full-area fill on every frame, which the software
	// renderers of VMs and remote desktops feel.
	a.bg.Hide()
	if a.zoom != 0 {
		a.tiles = tiling{Panes: map[uint64]rect{a.zoom: area}, Order: []uint64{a.zoom}}
	} else {
		a.tiles = tile(a.tree, area, dividerWidth)
	}
	for id, r := range a.tiles.Panes {
		if v := a.views[id]; v != nil {
			v.Move(fyne.NewPos(r.X, r.Y))
			v.Resize(fyne.NewSize(r.W, r.H))
		}
	}
	for i, d := range a.dividers {
		if i >= len(a.tiles.Dividers) {
			d.Hide()
			continue
		}
		d.at = a.tiles.Dividers[i]
		d.Show()
		d.Move(fyne.NewPos(d.at.R.X, d.at.R.Y))
		d.Resize(fyne.NewSize(d.at.R.W, d.at.R.H))
	}
	if r, ok := a.tiles.Panes[a.focus]; ok && len(a.tiles.Panes) > 1 {
		a.ring.SetColor(theme.Color(theme.ColorNamePrimary))
		a.ring.Move(fyne.NewPos(r.X, r.Y))
		a.ring.Resize(fyne.NewSize(r.W, r.H))
		a.ring.Show()
	} else {
		a.ring.Hide()
	}
}

// splitAt returns the split node at path, nil if there is none.
func splitAt(tree *workspace.LayoutNode, path []int) *workspace.LayoutNode {
	n := tree
	for _, k := range path {
		if n == nil || n.Type != workspace.NodeSplit || k < 0 || k >= len(n.Children) {
			return nil
		}
		n = &n.Children[k]
	}
	if n == nil || n.Type != workspace.NodeSplit {
		return nil
	}
	return n
}

// dragged moves divider d's split by total pixels from where the drag
// started (start holds the split's ratios then).
func (a *splitArea) dragged(d *divider, start []float64, total float32) {
	n := splitAt(a.tree, d.at.Path)
	if n == nil || len(n.Ratios) != len(start) {
		return
	}
	ratios, ok := dragRatios(start, d.at.Index, total, d.at.Span, minPanePx)
	if !ok {
		return
	}
	n.Ratios = ratios
	d.last = ratios
	a.layout(a.Size())
	canvas.Refresh(a)
	if a.onRatios != nil {
		a.onRatios(slices.Clone(d.at.Path), slices.Clone(ratios))
	}
}

// CreateRenderer is part of fyne.Widget.
func (a *splitArea) CreateRenderer() fyne.WidgetRenderer {
	a.rebuild()
	return &splitRenderer{a: a}
}

// MinSize keeps room for one pane.
func (a *splitArea) MinSize() fyne.Size { return fyne.NewSize(minPanePx, minPanePx) }

type splitRenderer struct{ a *splitArea }

func (r *splitRenderer) Layout(size fyne.Size)        { r.a.layout(size) }
func (r *splitRenderer) MinSize() fyne.Size           { return r.a.MinSize() }
func (r *splitRenderer) Objects() []fyne.CanvasObject { return r.a.objects }
func (r *splitRenderer) Destroy()                     {}
func (r *splitRenderer) Refresh() {
	r.a.layout(r.a.Size())
	// Pane views refresh themselves; the rest follows the theme.
	r.a.bg.Refresh()
	r.a.ring.Refresh()
	for _, d := range r.a.dividers {
		d.bar.FillColor = theme.Color(theme.ColorNameSeparator)
		d.bar.Refresh()
	}
}

// divider is the grab area between two panes of a split: dragging it
// trades space between them.
type divider struct {
	widget.BaseWidget
	area  *splitArea
	at    divRect
	start []float64 // the split's ratios when the drag began; nil between drags
	last  []float64 // the ratios the drag set last
	total float32   // the drag's distance so far along its axis
	bar   *canvas.Rectangle
}

var (
	_ fyne.Draggable     = (*divider)(nil)
	_ desktop.Cursorable = (*divider)(nil)
)

func newDivider(a *splitArea) *divider {
	d := &divider{area: a, bar: canvas.NewRectangle(theme.Color(theme.ColorNameSeparator))}
	d.ExtendBaseWidget(d)
	return d
}

// CreateRenderer is part of fyne.Widget.
func (d *divider) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(d.bar) }

// Cursor shows a resize cursor over the divider.
func (d *divider) Cursor() desktop.Cursor {
	if d.at.Vertical {
		return desktop.HResizeCursor
	}
	return desktop.VResizeCursor
}

// Dragged moves the divider.
func (d *divider) Dragged(ev *fyne.DragEvent) {
	if d.start == nil {
		n := splitAt(d.area.tree, d.at.Path)
		if n == nil {
			return
		}
		d.start = slices.Clone(n.Ratios)
		d.total = 0
	}
	if d.at.Vertical {
		d.total += ev.Dragged.DX
	} else {
		d.total += ev.Dragged.DY
	}
	d.area.dragged(d, d.start, d.total)
}

// DragEnd ends the drag.
func (d *divider) DragEnd() { d.start, d.last = nil, nil }
