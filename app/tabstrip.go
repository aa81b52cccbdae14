package app

import (
	"image/color"
	"slices"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/paneflow-go/paneflow/workspace"
)

// tabStrip shows the workspaces as tabs above the panes, once there are
// two or more (as kitty and GNOME Terminal hide a lone tab): a click
// selects one, a middle click or its × closes it (undo close brings it
// back), + adds one; Ctrl+Tab and Ctrl+Shift+Tab (next_workspace, prev_workspace)
// move between them. The tabs do not reorder: the model has no move.
// Its methods run on the UI goroutine; the callbacks are the shell's.
type tabStrip struct {
	root *fyne.Container
	row  *fyne.Container
	add  *widget.Button
	tabs []*tabItem
	// shown is what the tabs show, to rebuild only on a change.
	shown []tabState

	onSelect, onClose func(index int)
}

// tabState is one tab's content.
type tabState struct {
	title  string
	active bool
}

// newTabStrip makes an empty strip whose + button runs onNew.
func newTabStrip(onSelect, onClose func(int), onNew func()) *tabStrip {
	t := &tabStrip{onSelect: onSelect, onClose: onClose}
	t.add = widget.NewButtonWithIcon("", theme.ContentAddIcon(), onNew)
	t.add.Importance = widget.LowImportance
	t.row = container.NewHBox()
	scroll := container.NewHScroll(t.row)
	t.root = container.NewBorder(nil, nil, nil, t.add, scroll)
	t.root.Hide()
	return t
}

// update shows the workspaces ws; it does nothing when they look as
// shown already. The strip hides with fewer than two.
func (t *tabStrip) update(ws []workspace.WorkspaceInfo) {
	if t == nil {
		return // a shell built without its chrome (some tests)
	}
	st := make([]tabState, len(ws))
	for i, w := range ws {
		st[i] = tabState{title: strconv.Itoa(i+1) + "  " + shortTitle(w.Title), active: w.Active}
	}
	if slices.Equal(st, t.shown) {
		return
	}
	t.shown = st
	for len(t.tabs) < len(st) {
		i := len(t.tabs)
		t.tabs = append(t.tabs, newTabItem(func() { t.onSelect(i) }, func() { t.onClose(i) }))
	}
	t.tabs = t.tabs[:len(st)]
	objs := make([]fyne.CanvasObject, len(st))
	for i, s := range st {
		t.tabs[i].set(s)
		objs[i] = t.tabs[i]
	}
	t.row.Objects = objs
	t.row.Refresh()
	if len(st) > 1 {
		t.root.Show()
	} else {
		t.root.Hide()
	}
}

// maxTabTitle is how many characters of a workspace's title its tab shows.
const maxTabTitle = 24

// shortTitle cuts a title to maxTabTitle characters, marking the cut.
func shortTitle(s string) string {
	r := []rune(s)
	if len(r) <= maxTabTitle {
		return s
	}
	return string(r[:maxTabTitle-1]) + "…"
}

// tabItem is one workspace's tab: its title and a close button, the
// active one highlighted. A click selects, a middle click closes.
type tabItem struct {
	widget.BaseWidget
	onTap, onClose func()
	active         bool

	bg    *canvas.Rectangle
	label *widget.Label
	close *widget.Button
}

var (
	_ fyne.Tappable     = (*tabItem)(nil)
	_ desktop.Mouseable = (*tabItem)(nil)
)

func newTabItem(onTap, onClose func()) *tabItem {
	it := &tabItem{onTap: onTap, onClose: onClose, bg: canvas.NewRectangle(color.Transparent), label: widget.NewLabel("")}
	it.bg.CornerRadius = theme.InputRadiusSize()
	it.close = widget.NewButtonWithIcon("", theme.CancelIcon(), onClose)
	it.close.Importance = widget.LowImportance
	it.ExtendBaseWidget(it)
	return it
}

// set shows s.
func (it *tabItem) set(s tabState) {
	it.label.SetText(s.title)
	it.label.TextStyle.Bold = s.active
	it.active = s.active
	it.Refresh()
}

// CreateRenderer implements fyne.Widget.
func (it *tabItem) CreateRenderer() fyne.WidgetRenderer {
	r := tabRenderer{widget.NewSimpleRenderer(container.NewStack(it.bg, container.NewHBox(it.label, it.close))), it}
	r.paint()
	return r
}

// tabRenderer colours the tab from the current theme at each refresh (a
// live theme switch included).
type tabRenderer struct {
	fyne.WidgetRenderer
	it *tabItem
}

func (r tabRenderer) paint() {
	r.it.bg.FillColor = color.Transparent
	if r.it.active {
		r.it.bg.FillColor = theme.Color(theme.ColorNameSelection)
	}
}

func (r tabRenderer) Refresh() {
	r.paint()
	r.it.bg.Refresh()
	r.WidgetRenderer.Refresh()
}

// Tapped selects the tab's workspace.
func (it *tabItem) Tapped(*fyne.PointEvent) { it.onTap() }

// MouseDown closes the workspace on a middle click.
func (it *tabItem) MouseDown(ev *desktop.MouseEvent) {
	if ev.Button == desktop.MouseButtonTertiary {
		it.onClose()
	}
}

// MouseUp implements desktop.Mouseable.
func (it *tabItem) MouseUp(*desktop.MouseEvent) {}
