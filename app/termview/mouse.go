package termview

import (
	"net/url"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"

	"github.com/paneflow-go/paneflow/app/render"
	"github.com/paneflow-go/paneflow/terminal"
)

// timeNow is time.Now; a variable so tests of click timing need no sleeps.
var timeNow = time.Now

// cellAtLocked returns the cell of the snapshot under a widget position.
func (v *View) cellAtLocked(pos fyne.Position) render.Point {
	if v.snap.Rows == 0 || v.snap.Cols == 0 {
		return render.Point{}
	}
	x, y := int(pos.X*v.scale), int(pos.Y*v.scale)
	if pos.X < 0 {
		x = -1
	}
	if pos.Y < 0 {
		y = -1
	}
	return v.rend.CellAt(x, y, v.snap.Cols, v.snap.Rows)
}

// absLocked turns a snapshot cell into absolute line coordinates.
func (v *View) absLocked(p render.Point) absPoint {
	return absPoint{line: v.topLineLocked() + p.Row, col: p.Col}
}

// reportingLocked reports whether mouse events go to the program: it
// enabled reporting and Shift is not held (Shift selects, as in xterm).
func (v *View) reportingLocked(mods fyne.KeyModifier) bool {
	return v.modesLocked().Mouse != terminal.MouseOff && mods&fyne.KeyModifierShift == 0
}

// mouseButton maps a Fyne button.
func mouseButton(b desktop.MouseButton) terminal.MouseButton {
	switch b {
	case desktop.MouseButtonPrimary:
		return terminal.MouseLeft
	case desktop.MouseButtonTertiary:
		return terminal.MouseMiddle
	case desktop.MouseButtonSecondary:
		return terminal.MouseRight
	}
	return terminal.MouseNone
}

// reportLocked sends a mouse report when the program's mode wants it.
func (v *View) reportLocked(btn terminal.MouseButton, act terminal.MouseAction, p render.Point, mods fyne.KeyModifier) {
	ev := terminal.MouseEvent{Button: btn, Action: act, Col: p.Col, Row: p.Row, Mods: termMods(mods) &^ terminal.ModSuper}
	if b, ok := terminal.EncodeMouse(ev, v.modesLocked()); ok {
		_ = v.pane.SendInput(b)
	}
	v.lastReport = p
}

// focusSelf gives the View keyboard focus. It must be called without v.mu.
func (v *View) focusSelf() {
	if c := v.canvas(); c != nil && c.Focused() != fyne.Focusable(v) {
		c.Focus(v)
	}
}

// MouseDown starts a report, a selection (word on a double click, line
// on a triple click, block with Alt), opens a link (Ctrl/Cmd+click) or,
// with the right button, the context menu (unless the program asked for
// mouse reports: hold Shift to get the menu then).
func (v *View) MouseDown(ev *desktop.MouseEvent) {
	v.noteInput()
	v.focusSelf()
	v.mu.Lock()
	v.clearMarkLocked()
	// Fyne follows a primary click that was not a drag with Tapped (or
	// DoubleTapped); sawDown tells them MouseDown handled it.
	v.sawDown = ev.Button == desktop.MouseButtonPrimary
	cell := v.cellAtLocked(ev.Position)
	btn := mouseButton(ev.Button)
	if v.reportingLocked(ev.Modifier) {
		if v.offset != 0 {
			// Reports are in the program's screen coordinates.
			v.scrollByLocked(-v.offset)
		}
		v.pressed, v.reporting = btn, true
		v.reportLocked(btn, terminal.MousePress, cell, ev.Modifier)
		v.mu.Unlock()
		return
	}
	if ev.Button == desktop.MouseButtonSecondary {
		v.mu.Unlock()
		v.showContextMenu(ev.AbsolutePosition)
		return
	}
	if btn != terminal.MouseLeft {
		v.mu.Unlock()
		return
	}
	if ev.Modifier&secondaryMod != 0 {
		if u, _ := v.linkAtLocked(cell); u != nil {
			v.mu.Unlock()
			v.openURL(u)
			return
		}
	}
	v.clickLocked(cell, ev.Modifier)
	v.mu.Unlock()
}

// clickLocked counts clicks and starts the matching selection.
func (v *View) clickLocked(cell render.Point, mods fyne.KeyModifier) {
	now := timeNow()
	if v.clicks > 0 && v.clicks < 3 && now.Sub(v.lastClick) < multiClickDelay &&
		cell.Row == v.lastClickPos.Row && abs(cell.Col-v.lastClickPos.Col) <= 1 {
		v.clicks++
	} else {
		v.clicks = 1
	}
	v.lastClick, v.lastClickPos = now, cell
	v.selecting, v.dragMoved = true, false
	switch v.clicks {
	case 1:
		v.clearSelectionLocked()
		v.sel = selection{block: mods&fyne.KeyModifierAlt != 0, unit: unitChar}
		v.sel.a0, v.sel.a1 = v.unitSpanLocked(cell, unitChar)
		v.sel.h0, v.sel.h1 = v.sel.a0, v.sel.a1
	default:
		u := unitWord
		if v.clicks == 3 {
			u = unitLine
		}
		v.sel = selection{active: true, unit: u}
		v.sel.a0, v.sel.a1 = v.unitSpanLocked(cell, u)
		v.sel.h0, v.sel.h1 = v.sel.a0, v.sel.a1
		v.copyLocked()
		v.drawLocked()
	}
}

// unitSpanLocked returns the absolute span [p0, p1) of the cell, word or
// line under a snapshot cell.
func (v *View) unitSpanLocked(cell render.Point, unit int) (absPoint, absPoint) {
	switch unit {
	case unitWord:
		c0, c1 := wordSpan(&v.snap, cell.Row, cell.Col)
		return v.absLocked(render.Point{Row: cell.Row, Col: c0}), v.absLocked(render.Point{Row: cell.Row, Col: c1})
	case unitLine:
		r0, r1 := lineSpan(&v.snap, cell.Row)
		return v.absLocked(render.Point{Row: r0}), v.absLocked(render.Point{Row: r1, Col: v.snap.Cols})
	}
	p := v.absLocked(cell)
	return p, absPoint{p.line, p.col + 1}
}

// Dragged extends the selection (scrolling when the pointer leaves the
// top or bottom edge) or reports motion with a button held.
func (v *View) Dragged(ev *fyne.DragEvent) {
	v.mu.Lock()
	defer v.mu.Unlock()
	cell := v.cellAtLocked(ev.Position)
	if v.reporting {
		if v.modesLocked().Mouse >= terminal.MouseDrag && cell != v.lastReport {
			v.reportLocked(v.pressed, terminal.MouseMotion, cell, v.modsLocked())
		}
		return
	}
	if !v.selecting {
		return
	}
	switch {
	case ev.Position.Y < 0:
		v.scrollByLocked(1)
	case ev.Position.Y > v.size.Height:
		v.scrollByLocked(-1)
	}
	v.sel.h0, v.sel.h1 = v.unitSpanLocked(cell, v.sel.unit)
	v.sel.active, v.dragMoved = true, true
	v.drawLocked()
}

// DragEnd finishes a drag selection. A drag that ends outside the View
// may deliver no MouseUp here, so a reported press is released now.
func (v *View) DragEnd() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.sawDown = false // a drag is not a tap
	if v.reporting {
		v.reportLocked(v.pressed, terminal.MouseRelease, v.lastReport, v.modsLocked())
		v.reporting, v.pressed = false, terminal.MouseNone
		return
	}
	v.finishSelectionLocked()
}

// finishSelectionLocked copies a selection made by dragging.
func (v *View) finishSelectionLocked() {
	if v.selecting && v.dragMoved && v.sel.active {
		v.copyLocked()
	}
	v.selecting, v.dragMoved = false, false
}

// MouseUp ends a report or a selection.
func (v *View) MouseUp(ev *desktop.MouseEvent) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.reporting {
		v.reportLocked(v.pressed, terminal.MouseRelease, v.cellAtLocked(ev.Position), ev.Modifier)
		v.reporting, v.pressed = false, terminal.MouseNone
		return
	}
	v.finishSelectionLocked()
}

// MouseIn starts hover tracking.
func (v *View) MouseIn(ev *desktop.MouseEvent) { v.MouseMoved(ev) }

// MouseMoved reports motion (DECSET 1003, or with a button other than the
// primary held) and tracks the hovered link.
func (v *View) MouseMoved(ev *desktop.MouseEvent) {
	v.mu.Lock()
	defer v.mu.Unlock()
	cell := v.cellAtLocked(ev.Position)
	v.hover, v.hoverIn = cell, true
	if v.reporting && v.pressed != terminal.MouseNone {
		if v.modesLocked().Mouse >= terminal.MouseDrag && cell != v.lastReport {
			v.reportLocked(v.pressed, terminal.MouseMotion, cell, ev.Modifier)
		}
	} else if v.modesLocked().Mouse == terminal.MouseAny && ev.Modifier&fyne.KeyModifierShift == 0 && cell != v.lastReport {
		v.reportLocked(terminal.MouseNone, terminal.MouseMotion, cell, ev.Modifier)
	}
	v.updateLinkLocked(ev.Modifier | v.modsLocked())
}

// MouseOut ends hover tracking.
func (v *View) MouseOut() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.hoverIn = false
	v.updateLinkLocked(0)
}

// Cursor shows a pointing hand over an activatable link, a text cursor
// elsewhere (desktop.Cursorable).
func (v *View) Cursor() desktop.Cursor {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.linkURL != "" {
		return desktop.PointerCursor
	}
	return desktop.TextCursor
}

// Tapped handles a click that did not come through MouseDown (touch, the
// test driver): it focuses the View and clears the selection, or opens a
// link with the secondary modifier held.
func (v *View) Tapped(ev *fyne.PointEvent) {
	v.mu.Lock()
	if v.sawDown {
		v.sawDown = false
		v.mu.Unlock()
		return
	}
	v.mu.Unlock()
	v.focusSelf()
	v.mu.Lock()
	cell := v.cellAtLocked(ev.Position)
	if v.modsLocked()&secondaryMod != 0 {
		if u, _ := v.linkAtLocked(cell); u != nil {
			v.mu.Unlock()
			v.openURL(u)
			return
		}
	}
	v.clearSelectionLocked()
	v.mu.Unlock()
}

// DoubleTapped selects the word under the pointer when the double click
// did not come through MouseDown (which selects on the second press).
func (v *View) DoubleTapped(ev *fyne.PointEvent) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.sawDown {
		v.sawDown = false
		return
	}
	if v.reportingLocked(v.modsLocked()) {
		return
	}
	cell := v.cellAtLocked(ev.Position)
	v.clicks, v.lastClick, v.lastClickPos = 1, timeNow(), cell
	v.clickLocked(cell, 0) // the second click of the pair
	v.selecting = false
}

// Scrolled handles the wheel: reports to the program when it enabled
// mouse reporting, arrow keys on the alternate screen (like xterm's
// alternateScroll, so pagers and editors scroll), else the scrollback,
// 3 lines per notch times Options.ScrollMultiplier.
func (v *View) Scrolled(ev *fyne.ScrollEvent) {
	v.mu.Lock()
	defer v.mu.Unlock()
	dy := ev.Scrolled.DY / wheelNotch
	mods := v.modsLocked()
	switch {
	case v.reportingLocked(mods):
		v.wheelAcc += dy
		n := int(v.wheelAcc)
		v.wheelAcc -= float32(n)
		btn := terminal.MouseWheelUp
		if n < 0 {
			btn, n = terminal.MouseWheelDown, -n
		}
		cell := v.cellAtLocked(ev.Position)
		for range n {
			v.reportLocked(btn, terminal.MousePress, cell, mods)
		}
	case v.snap.AltScreen:
		v.wheelAcc += dy * 3 * float32(v.opts.ScrollMultiplier)
		n := int(v.wheelAcc)
		v.wheelAcc -= float32(n)
		key := terminal.KeyUp
		if n < 0 {
			key, n = terminal.KeyDown, -n
		}
		if b, ok := terminal.EncodeKey(terminal.KeyEvent{Key: key}, v.modesLocked()); ok {
			for range n {
				_ = v.pane.SendInput(b)
			}
		}
	default:
		v.wheelAcc += dy * 3 * float32(v.opts.ScrollMultiplier)
		n := int(v.wheelAcc)
		v.wheelAcc -= float32(n)
		v.scrollByLocked(n)
	}
}

// updateLinkLocked shows the link under the pointer while the secondary
// modifier is held, and hides it otherwise.
func (v *View) updateLinkLocked(mods fyne.KeyModifier) {
	var u *url.URL
	var span render.Span
	if v.hoverIn && mods&secondaryMod != 0 && v.snap.Rows > 0 {
		u, span = v.linkAtLocked(v.hover)
	}
	s := ""
	if u != nil {
		s = u.String()
	}
	if s == v.linkURL && span == v.link {
		return
	}
	v.linkURL, v.link = s, span
	v.drawLocked()
}

// openURL opens a link with Options.OpenURL or the app: an http or https
// link at once, any other (file, mailto: a program chose what the desktop
// will open) once the user confirms it, through Options.ConfirmOpen or a
// dialog on the View's window that shows the target. It must be called
// without v.mu.
func (v *View) openURL(u *url.URL) {
	open := func() {
		if v.opts.OpenURL != nil {
			_ = v.opts.OpenURL(u)
			return
		}
		if a := fyne.CurrentApp(); a != nil {
			_ = a.OpenURL(u) // the desktop reports failures itself
		}
	}
	if s := strings.ToLower(u.Scheme); s == "http" || s == "https" {
		open()
		return
	}
	if v.opts.ConfirmOpen != nil {
		v.opts.ConfirmOpen(u, open)
		return
	}
	w := v.window()
	if w == nil {
		return // nobody to ask: not opened
	}
	dialog.ShowConfirm("Open this link?", "The program in this pane links to\n"+shortTarget(u.String())+"\nOpen it?",
		func(ok bool) {
			if ok {
				open()
			}
		}, w)
}

// window is the window showing v, or nil.
func (v *View) window() fyne.Window {
	a := fyne.CurrentApp()
	if a == nil {
		return nil
	}
	c := a.Driver().CanvasForObject(v)
	for _, w := range a.Driver().AllWindows() {
		if c != nil && w.Canvas() == c {
			return w
		}
	}
	return nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
