package termview

import (
	"sort"
	"strconv"

	"github.com/paneflow-go/paneflow/terminal"
)

// EnterCopyMode starts the keyboard copy mode (see [copyMode.key] for
// its keys): a block cursor at the program's cursor (at the bottom left
// of the view when scrolled back), moved with vi keys over the screen
// and the scrollback, with the mode shown at the top right. The view
// stays on its content while output arrives. It does nothing when the
// View is in copy mode already.
func (v *View) EnterCopyMode() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.copy != nil || v.closed {
		return
	}
	v.anchorLocked()
	top := v.topLineLocked()
	rows, cols := max(v.snap.Rows, v.rows, 1), max(v.snap.Cols, v.cols, 1)
	cur := absPoint{top + rows - 1, 0}
	if v.offset == 0 && v.snap.Cursor.Y >= 0 && v.snap.Cursor.Y < rows {
		cur = absPoint{top + v.snap.Cursor.Y, min(max(v.snap.Cursor.X, 0), cols-1)}
	}
	v.copy = newCopyMode(cur, top, rows, cols)
	v.sel, v.selecting = selection{}, false
	v.drawLocked()
}

// CopyMode reports whether the View is in copy mode.
func (v *View) CopyMode() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.copy != nil
}

// LeaveCopyMode ends copy mode without copying and shows the live
// screen.
func (v *View) LeaveCopyMode() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.leaveCopyLocked()
}

// leaveCopyLocked ends copy mode, drops its selection and shows the live
// screen.
func (v *View) leaveCopyLocked() {
	if v.copy == nil {
		return
	}
	if v.copy.prompted && v.find.visible() {
		v.find.closeLocked() // opened by / or ?
	}
	v.copy = nil
	v.sel = selection{}
	v.offset = 0
	v.drawLocked()
}

// copyKey passes a key to copy mode and reports whether copy mode took
// it (false also when the View is not in copy mode).
func (v *View) copyKey(k copyKey) bool {
	v.mu.Lock()
	m := v.copy
	if m == nil || v.closed {
		v.mu.Unlock()
		return false
	}
	d := v.copyDocLocked()
	switch m.key(k, d) {
	case copyIgnored:
		v.mu.Unlock()
		return false
	case copyYank:
		v.sel = m.selection()
		v.copyLocked()
		v.leaveCopyLocked()
	case copyLeave:
		v.leaveCopyLocked()
	case copySearch:
		m.prompted = true
		v.applyCopyLocked()
		v.mu.Unlock()
		v.find.entry.SetText("") // a new query, as vi's / prompt
		v.find.open()
		return true
	case copyNextMatch:
		v.copyMatchLocked(d, m.stepDir)
	default:
		v.applyCopyLocked()
	}
	v.mu.Unlock()
	return true
}

// copyDocLocked syncs copy mode with the view (scrolled by the wheel,
// the find bar, or a resize) and returns the document it reads.
func (v *View) copyDocLocked() *viewDoc {
	v.anchorLocked()
	m := v.copy
	m.top = v.topLineLocked()
	m.rows, m.cols = max(v.snap.Rows, 1), max(v.snap.Cols, 1)
	return &viewDoc{v: v}
}

// applyCopyLocked shows copy mode's view, selection and cursor.
func (v *View) applyCopyLocked() {
	m := v.copy
	v.sel = m.selection()
	v.offset = min(max(v.lastTotal-m.top, 0), v.histLen)
	v.drawLocked()
}

// copySearchAccept ends the search prompt of copy mode (Enter in the find
// bar's entry): the cursor goes to the first match from it in the
// search's direction, and the View takes the keyboard back. It reports
// false when the View is not in copy mode.
func (v *View) copySearchAccept() bool {
	v.mu.Lock()
	m := v.copy
	if m == nil || v.closed {
		v.mu.Unlock()
		return false
	}
	if m.searchDir == 0 {
		m.searchDir = 1
	}
	v.copyMatchLocked(v.copyDocLocked(), m.searchDir)
	v.mu.Unlock()
	v.focusSelf()
	return true
}

// copyMatchLocked moves the cursor to the find bar's next match after
// the cursor (dir 1) or before it (dir -1), wrapping around, and makes it
// the bar's current match. The matches are found again when output
// arrived since the last search.
func (v *View) copyMatchLocked(d *viewDoc, dir int) {
	f, m := v.find, v.copy
	if f.query == "" {
		return
	}
	if g, _ := v.pane.Watch(); g != f.gen || len(f.matches) == 0 {
		f.searchLocked()
	}
	n := len(f.matches)
	if n == 0 {
		f.current = -1
		f.showCurrentLocked()
		return
	}
	at := findMatch{line: m.cur.line, b0: colByte(d.row(m.cur.line), m.cur.col)}
	after := func(i int) bool {
		x := f.matches[i]
		return x.line > at.line || x.line == at.line && x.b0 > at.b0
	}
	i := sort.Search(n, after) // the first match after the cursor
	if dir < 0 {
		// the last one before it
		i = sort.Search(n, func(i int) bool {
			x := f.matches[i]
			return x.line > at.line || x.line == at.line && x.b0 >= at.b0
		}) - 1
	}
	f.current = (i%n + n) % n
	f.showCurrentLocked() // the count, and the match scrolled into view
	x := f.matches[f.current]
	m.top = v.topLineLocked()
	m.jumpTo(absPoint{x.line, byteCol(d.row(x.line), x.b0)}, d)
	v.applyCopyLocked()
}

// copyIndicatorLocked is the mode indicator's text in copy mode: the
// mode, the scroll position, a pending count.
func (v *View) copyIndicatorLocked() string {
	m := v.copy
	t := m.label() + " [" + strconv.Itoa(v.offset) + "/" + strconv.Itoa(v.histLen) + "]"
	if m.count > 0 {
		t += " " + strconv.Itoa(m.count)
	}
	return t
}

// copyCursorLocked puts copy mode's cursor in the snapshot to draw (a
// steady block; hidden while its line is out of view).
func (v *View) copyCursorLocked() {
	m := v.copy
	y := m.cur.line - v.topLineLocked()
	c := &v.snap.Cursor
	c.X, c.Y = m.cur.col, y
	c.Visible = y >= 0 && y < v.snap.Rows
	c.Blink = false
	c.Shape = terminal.CursorBlock
}

// viewDoc is the View's copyDoc: lines read from snapshots of the pane
// (the View's own when the line shows, else one taken at the offset that
// shows it, kept for the next lines). In an attached window a snapshot
// fetches the scrollback lines it needs from the server (attach.Pane).
// It lives for one key press, under v.mu.
type viewDoc struct {
	v      *View
	tmp    terminal.Snapshot
	tmpTop int
	tmpOK  bool
}

func (d *viewDoc) span() (first, last int) {
	total, hist := d.v.totalLocked()
	return total - hist, total + max(d.v.snap.Rows, 1) - 1
}

func (d *viewDoc) row(line int) []string {
	v := d.v
	s, y := &v.snap, line-v.topLineLocked()
	if y < 0 || y >= s.Rows {
		if !d.tmpOK || line < d.tmpTop || line >= d.tmpTop+d.tmp.Rows {
			total, hist := v.totalLocked()
			off := min(max(total-line, 0), hist)
			v.pane.Snapshot(&d.tmp, off)
			d.tmpTop, d.tmpOK = total-off, true
		}
		s, y = &d.tmp, line-d.tmpTop
		if y < 0 || y >= s.Rows {
			return nil
		}
	}
	cells := make([]string, 0, s.Cols)
	for _, c := range s.Row(y) {
		cells = append(cells, s.Grapheme(c))
	}
	return cells
}
