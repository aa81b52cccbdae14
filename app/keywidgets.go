package app

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// The keyboard-first widgets the cockpit views share: a text field and a
// list whose owner sees keys first, and the list with a cursor the
// palette, quick launch, the launch pad and search pick from.

// keyEntry is a single- or multi-line text field whose owner sees keys
// first: onKey returns true for the keys it handled (the palette's
// arrows, Enter and Escape). onShortcut does the same for shortcuts
// (Ctrl+Enter in the composer).
type keyEntry struct {
	widget.Entry
	onKey      func(*fyne.KeyEvent) bool
	onShortcut func(fyne.Shortcut) bool
}

func newKeyEntry(multiLine bool) *keyEntry {
	e := &keyEntry{}
	e.MultiLine = multiLine
	if multiLine {
		e.Wrapping = fyne.TextWrapWord
	}
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey offers the key to onKey first.
func (e *keyEntry) TypedKey(ev *fyne.KeyEvent) {
	if e.onKey != nil && e.onKey(ev) {
		return
	}
	e.Entry.TypedKey(ev)
}

// TypedShortcut offers the shortcut to onShortcut first.
func (e *keyEntry) TypedShortcut(s fyne.Shortcut) {
	if e.onShortcut != nil && e.onShortcut(s) {
		return
	}
	e.Entry.TypedShortcut(s)
}

// keyList is a virtualised list whose owner sees keys first, as with
// keyEntry. A click on a row gives the list the keyboard (Fyne's List
// focuses itself when tapped); a plain widget.List would then swallow
// Escape and Enter.
type keyList struct {
	widget.List
	onKey func(*fyne.KeyEvent) bool
}

func newKeyList(length func() int, create func() fyne.CanvasObject, update func(widget.ListItemID, fyne.CanvasObject)) *keyList {
	l := &keyList{List: widget.List{Length: length, CreateItem: create, UpdateItem: update}}
	l.ExtendBaseWidget(l)
	return l
}

// TypedKey offers the key to onKey first.
func (l *keyList) TypedKey(ev *fyne.KeyEvent) {
	if l.onKey != nil && l.onKey(ev) {
		return
	}
	l.List.TypedKey(ev)
}

// pickList is a keyboard-navigable list of rows under a query field, the
// body of the command palette and the agents overview: Up/Down move the
// cursor, Enter activates the row under it, Escape closes; a click
// activates a row. Its methods run on the UI goroutine; its callbacks are
// called there without the shell's lock.
type pickList struct {
	query  *keyEntry
	rows   *fyne.Container
	scroll *container.Scroll
	boxes  []*tapBox
	cursor int
	n      int
	// keys describe the rows shown (setRowsKeyed), nil when unknown.
	keys []string
	// virt, when set, shows the rows in a virtualised list instead of
	// rows/scroll/boxes: only rows on screen exist, filled by fill
	// (newVirtualPickList).
	virt *widget.List
	fill func(i int, o fyne.CanvasObject)
	// lock runs f holding the shell's lock (shell.guard); activate runs
	// row i and dismiss closes the list, taking the lock themselves;
	// build makes row i.
	lock     func(f func())
	activate func(i int)
	dismiss  func()
	build    func(i int) fyne.CanvasObject
}

func newPickList(placeholder string, lock func(func())) *pickList {
	p := &pickList{query: newKeyEntry(false), rows: container.NewVBox(), lock: lock}
	p.query.SetPlaceHolder(placeholder)
	p.scroll = container.NewVScroll(p.rows)
	p.query.onKey = func(ev *fyne.KeyEvent) bool {
		switch ev.Name {
		case fyne.KeyDown:
			p.lock(func() { p.move(1) })
		case fyne.KeyUp:
			p.lock(func() { p.move(-1) })
		case fyne.KeyPageDown:
			p.lock(func() { p.move(10) })
		case fyne.KeyPageUp:
			p.lock(func() { p.move(-10) })
		case fyne.KeyReturn, fyne.KeyEnter:
			cursor := -1
			p.lock(func() {
				if p.cursor < p.n {
					cursor = p.cursor
				}
			})
			if cursor >= 0 && p.activate != nil {
				p.activate(cursor)
			}
		case fyne.KeyEscape:
			if p.dismiss != nil {
				p.dismiss()
			}
		default:
			return false
		}
		return true
	}
	return p
}

// newVirtualPickList is a pickList whose rows live in a widget.List:
// template makes an empty row, fill(i, o) shows row i in o (made by
// template). Opening and updating it cost the rows on screen, not all.
func newVirtualPickList(placeholder string, lock func(func()), template func() fyne.CanvasObject, fill func(i int, o fyne.CanvasObject)) *pickList {
	p := newPickList(placeholder, lock)
	p.fill = fill
	p.virt = widget.NewList(
		func() int { return p.n },
		func() fyne.CanvasObject {
			var b *tapBox
			b = newTapBox(container.New(layout.NewCustomPaddedLayout(3, 3, 6, 6), template()), func() {
				if p.activate != nil {
					p.activate(b.row)
				}
			})
			return b
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			b := o.(*tapBox)
			b.row = id
			if id < p.n {
				p.fill(id, b.content.(*fyne.Container).Objects[0])
			}
			b.setHighlight(id == p.cursor)
		})
	return p
}

// view is the object showing the rows.
func (p *pickList) view() fyne.CanvasObject {
	if p.virt != nil {
		return p.virt
	}
	return p.scroll
}

// setRows shows n rows built by build, the cursor on row cursor.
func (p *pickList) setRows(n, cursor int) {
	p.keys = nil
	if p.virt != nil {
		p.n = n
		p.cursor = min(max(cursor, 0), max(n-1, 0))
		p.virt.Refresh()
		if n > 0 {
			p.scrollTo(p.cursor)
		}
		return
	}
	p.n = n
	p.boxes = p.boxes[:0]
	objs := make([]fyne.CanvasObject, 0, n)
	for i := range n {
		idx := i
		b := newTapBox(container.New(layout.NewCustomPaddedLayout(3, 3, 6, 6), p.build(i)), func() {
			if p.activate != nil {
				p.activate(idx)
			}
		})
		p.boxes = append(p.boxes, b)
		objs = append(objs, b)
	}
	if n == 0 {
		objs = append(objs, canvas.NewText("  nothing matches", theme.Color(theme.ColorNamePlaceHolder)))
	}
	p.rows.Objects = objs
	p.rows.Refresh()
	p.cursor = -1
	p.setCursor(min(max(cursor, 0), max(n-1, 0)))
}

// setRowsKeyed shows len(keys) rows, keys[i] describing what row i shows:
// with as many rows as before only those whose key changed are built
// again (build(i) replaces their content; a virtual list refills them),
// else every row is. The cursor goes to row cursor.
func (p *pickList) setRowsKeyed(keys []string, cursor int) {
	if p.virt != nil && p.keys != nil && len(keys) == len(p.keys) {
		// One Refresh refills the rows on screen. Not RefreshItem per
		// changed row: Fyne's RefreshItem refreshes the whole list each
		// time, and one agent moving in the sort order shifts every row
		// between its old and new place.
		changed := !slices.Equal(keys, p.keys)
		p.keys = keys
		if c := min(max(cursor, 0), max(len(keys)-1, 0)); c != p.cursor {
			p.setCursor(c)
		}
		if changed {
			p.virt.Refresh()
		}
		return
	}
	if p.keys == nil || len(keys) != len(p.keys) || len(p.boxes) != len(keys) || p.virt != nil {
		p.setRows(len(keys), cursor)
		p.keys = keys
		return
	}
	for i, k := range keys {
		if k == p.keys[i] {
			continue
		}
		pad := p.boxes[i].content.(*fyne.Container)
		pad.Objects[0] = p.build(i)
		pad.Refresh()
	}
	p.keys = keys
	p.setCursor(min(max(cursor, 0), max(len(keys)-1, 0)))
}

// scrollTo scrolls the virtual list to row i once it has been laid out
// in a window. Before that the list's scroller has no height, and
// widget.List.ScrollTo then scrolls row i's bottom edge to the top: row 0
// (the cursor when the overview opens) ended just out of view. A list
// laid out for the first time starts at its top.
func (p *pickList) scrollTo(i int) {
	if p.virt.Size().Height <= 0 || fyne.CurrentApp().Driver().CanvasForObject(p.virt) == nil {
		return
	}
	p.virt.ScrollTo(i)
}

// move moves the cursor by d rows, stopping at the ends.
func (p *pickList) move(d int) {
	if p.n == 0 {
		return
	}
	p.setCursor(min(max(p.cursor+d, 0), p.n-1))
}

func (p *pickList) setCursor(i int) {
	if p.virt != nil {
		old := p.cursor
		p.cursor = i
		if old >= 0 && old < p.n && old != i {
			p.virt.RefreshItem(old)
		}
		if i >= 0 && i < p.n {
			p.virt.RefreshItem(i)
			p.scrollTo(i)
		}
		return
	}
	if p.cursor >= 0 && p.cursor < len(p.boxes) {
		p.boxes[p.cursor].setHighlight(false)
	}
	p.cursor = i
	if i >= 0 && i < len(p.boxes) {
		b := p.boxes[i]
		b.setHighlight(true)
		// Keep the row in view.
		pos, size := b.Position(), b.Size()
		off := p.scroll.Offset
		if pos.Y < off.Y {
			p.scroll.ScrollToOffset(fyne.NewPos(0, pos.Y))
		} else if h := p.scroll.Size().Height; h > 0 && pos.Y+size.Height > off.Y+h {
			p.scroll.ScrollToOffset(fyne.NewPos(0, pos.Y+size.Height-h))
		}
	}
}
