package app

import (
	"image/color"
	"slices"
	"strconv"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/paneflow-go/paneflow/workspace"
)

// tabStrip shows the workspaces as tabs above the panes, once there are
// two or more (as kitty and GNOME Terminal hide a lone tab): a click
// selects one, a double click renames it, a drag moves it (the tab it
// would land on is outlined), a middle click or its × closes it (undo
// close brings it back), + adds one, a right click opens its menu
// (Rename…, Move left, Move right, Close, New workspace…, the shell's
// tabMenuLocked); Ctrl+Tab and Ctrl+Shift+Tab
// (next_workspace, prev_workspace) move between them, Ctrl+Shift+PageUp
// and PageDown move the active one (move_workspace_left/right).
// Its methods run on the UI goroutine; the callbacks are the shell's
// (onMove, onRename and onMenu nil: no drag, no double click, no menu).
type tabStrip struct {
	root *fyne.Container
	row  *fyne.Container
	add  *widget.Button
	tabs []*tabItem
	// shown is what the tabs show, to rebuild only on a change.
	shown []tabState

	onSelect, onClose func(index int)
	onMove            func(index, to int)
	onRename          func(index int)
	// onMenu opens tab index's context menu at pos (in the canvas).
	onMenu func(index int, pos fyne.Position)
	// menu is the context menu last opened (nil: none yet) and
	// menuItems its items, for tests.
	menu      *widget.PopUpMenu
	menuItems []*fyne.MenuItem

	// dragFrom and dragTo are the dragged tab and the one it would land
	// on (-1: no drag).
	dragFrom, dragTo int
	// lastTap and lastTapAt are the tab tapped last and when, for a
	// double click; now is the clock (time.Now; tests set it).
	lastTap   int
	lastTapAt time.Time
	now       func() time.Time
}

// doubleClickTime is how close two clicks on one tab make a double click.
const doubleClickTime = 500 * time.Millisecond

// tabState is one tab's content.
type tabState struct {
	title  string
	active bool
}

// newTabStrip makes an empty strip whose + button runs onNew.
func newTabStrip(onSelect, onClose func(int), onNew func()) *tabStrip {
	t := &tabStrip{onSelect: onSelect, onClose: onClose, dragFrom: -1, dragTo: -1, lastTap: -1, now: time.Now}
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
		it := newTabItem(func() { t.tapped(i) }, func() { t.onClose(i) })
		it.onMenu = func(pos fyne.Position) {
			if t.onMenu != nil {
				t.onMenu(i, pos)
			}
		}
		it.onDrag = func(x float32) { t.dragOver(i, x) }
		it.onDrop = t.drop
		t.tabs = append(t.tabs, it)
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

// tapped selects tab i, or renames it when it was tapped a moment ago.
func (t *tabStrip) tapped(i int) {
	now := t.now()
	if i == t.lastTap && now.Sub(t.lastTapAt) < doubleClickTime && t.onRename != nil {
		t.lastTap = -1
		t.onRename(i)
		return
	}
	t.lastTap, t.lastTapAt = i, now
	t.onSelect(i)
}

// dragOver notes that tab i is dragged with the pointer at x (in the
// row of tabs), and outlines the tab it would land on.
func (t *tabStrip) dragOver(i int, x float32) {
	if t.onMove == nil {
		return
	}
	t.dragFrom = i
	to := len(t.tabs) - 1
	for k, it := range t.tabs {
		if x < it.Position().X+it.Size().Width {
			to = k
			break
		}
	}
	if to == t.dragTo {
		return
	}
	if t.dragTo >= 0 && t.dragTo < len(t.tabs) {
		t.tabs[t.dragTo].setTarget(false)
	}
	t.dragTo = to
	t.tabs[to].setTarget(to != i)
}

// drop ends a drag: the dragged tab moves to where it was outlined.
func (t *tabStrip) drop() {
	from, to := t.dragFrom, t.dragTo
	t.dragFrom, t.dragTo = -1, -1
	if to >= 0 && to < len(t.tabs) {
		t.tabs[to].setTarget(false)
	}
	if from >= 0 && to >= 0 && from != to && t.onMove != nil {
		t.onMove(from, to)
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
// active one highlighted. A click selects, a middle click closes, a right
// click asks for its menu (onMenu: where, in the canvas), a drag reports
// where the pointer is (onDrag: its x in the row of tabs) and its end
// (onDrop).
type tabItem struct {
	widget.BaseWidget
	onTap, onClose func()
	onMenu         func(pos fyne.Position)
	onDrag         func(x float32)
	onDrop         func()
	active         bool
	target         bool // a dragged tab would land here: outlined

	bg    *canvas.Rectangle
	label *widget.Label
	close *widget.Button
}

var (
	_ fyne.Tappable          = (*tabItem)(nil)
	_ fyne.SecondaryTappable = (*tabItem)(nil)
	_ fyne.Draggable         = (*tabItem)(nil)
	_ desktop.Mouseable      = (*tabItem)(nil)
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
	r.it.bg.StrokeWidth, r.it.bg.StrokeColor = 0, color.Transparent
	if r.it.target {
		r.it.bg.StrokeWidth, r.it.bg.StrokeColor = 2, theme.Color(theme.ColorNamePrimary)
	}
}

// setTarget outlines the tab (a dragged tab would land here) or not.
func (it *tabItem) setTarget(on bool) {
	if it.target != on {
		it.target = on
		it.Refresh()
	}
}

// Dragged reports the pointer's place while the tab is dragged.
func (it *tabItem) Dragged(ev *fyne.DragEvent) {
	if it.onDrag != nil {
		it.onDrag(it.Position().X + ev.Position.X)
	}
}

// DragEnd reports the drag's end.
func (it *tabItem) DragEnd() {
	if it.onDrop != nil {
		it.onDrop()
	}
}

func (r tabRenderer) Refresh() {
	r.paint()
	r.it.bg.Refresh()
	r.WidgetRenderer.Refresh()
}

// Tapped selects the tab's workspace.
func (it *tabItem) Tapped(*fyne.PointEvent) { it.onTap() }

// TappedSecondary asks for the tab's menu where the right click was.
func (it *tabItem) TappedSecondary(ev *fyne.PointEvent) {
	if it.onMenu != nil {
		it.onMenu(ev.AbsolutePosition)
	}
}

// MouseDown closes the workspace on a middle click.
func (it *tabItem) MouseDown(ev *desktop.MouseEvent) {
	if ev.Button == desktop.MouseButtonTertiary {
		it.onClose()
	}
}

// MouseUp implements desktop.Mouseable.
func (it *tabItem) MouseUp(*desktop.MouseEvent) {}

// moveWorkspaceLocked moves the workspace at index to position to (a
// tab dragged, Ctrl+Shift+PageUp/PageDown); out of range does nothing.
func (s *shell) moveWorkspaceLocked(index, to int) {
	if s.pos.snap == nil || index < 0 || to < 0 || index >= len(s.pos.snap.Workspaces) || to >= len(s.pos.snap.Workspaces) || index == to {
		return
	}
	s.work.mutate("move workspace", func() error { return s.b.MoveWorkspace(index, to) })
}

// renameWorkspaceLocked asks for a new title for the workspace at index
// (a tab's double click, Ctrl+Alt+Shift+R, the palette). The workspace is
// found again by its id when the dialog is answered: it may have moved.
func (s *shell) renameWorkspaceLocked(index int) {
	if s.pos.snap == nil || index < 0 || index >= len(s.pos.snap.Workspaces) {
		return
	}
	id := s.pos.snap.Workspaces[index].ID
	entry := newKeyEntry(false)
	entry.SetText(s.pos.snap.Workspaces[index].Title)
	d := dialog.NewForm("Rename workspace", "Rename", "Cancel", []*widget.FormItem{widget.NewFormItem("Title", entry)}, func(ok bool) {
		if !ok {
			return
		}
		title := entry.Text
		s.guard(func() {
			for i, w := range s.pos.snap.Workspaces {
				if w.ID == id {
					s.work.mutate("rename workspace", func() error { return s.b.RenameWorkspace(i, title) })
					return
				}
			}
			s.chrome.banner.show("rename workspace: the workspace was closed")
		})
	}, s.w)
	s.showDialogLocked(d, entry, d.Submit, d.Hide)
}

// tabMenuLocked opens the context menu of the workspace at index (a
// right click on its tab) at pos: Rename…, Move left, Move right, Close
// and New workspace…, each the action its key and the palette run. An
// item acts on the workspace the menu was opened on, found again by its
// id (it may have moved meanwhile; closed: nothing happens).
func (s *shell) tabMenuLocked(index int, pos fyne.Position) {
	if s.pos.snap == nil || index < 0 || index >= len(s.pos.snap.Workspaces) {
		return
	}
	id, n := s.pos.snap.Workspaces[index].ID, len(s.pos.snap.Workspaces)
	on := func(f func(i int)) func() {
		return func() {
			s.guard(func() {
				if i := slices.IndexFunc(s.pos.snap.Workspaces, func(w workspace.WorkspaceInfo) bool { return w.ID == id }); i >= 0 {
					f(i)
				}
			})
		}
	}
	left := fyne.NewMenuItem("Move left", on(func(i int) { s.moveWorkspaceLocked(i, i-1) }))
	left.Disabled = index == 0
	right := fyne.NewMenuItem("Move right", on(func(i int) { s.moveWorkspaceLocked(i, i+1) }))
	right.Disabled = index == n-1
	menu := fyne.NewMenu("",
		fyne.NewMenuItem("Rename…", on(s.renameWorkspaceLocked)),
		left, right,
		fyne.NewMenuItemSeparator(),
		fyne.NewMenuItem("Close", on(s.closeWorkspaceLocked)),
		fyne.NewMenuItemSeparator(),
		fyne.NewMenuItem("New workspace…", func() { s.guard(s.newWorkspaceLocked) }),
	)
	// Dismissed, the menu's overlay goes and the pane has the keyboard
	// again: the canvas keeps the focus beneath each overlay. The right
	// click took it from the pane (the desktop driver unfocuses the
	// canvas on a click on anything that takes no focus, as a tab), so
	// it is given back first.
	s.focusViewLocked(s.pos.focus)
	pm := widget.NewPopUpMenu(menu, s.w.Canvas())
	s.chrome.tabs.menu, s.chrome.tabs.menuItems = pm, menu.Items
	pm.ShowAtPosition(pos)
}
