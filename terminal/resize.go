package terminal

// Resize changes the screen size. The main screen reflows like tmux and
// kitty: soft-wrapped lines are re-joined and re-split at the new width,
// so shrinking and then growing gives back the original lines; rows pushed
// off the top by a height shrink go to the scrollback, and growing pulls
// scrolled-off lines back. The alternate screen is cropped or padded (the
// program redraws it).
func (e *Emulator) Resize(cols, rows int) {
	cols, rows = max(cols, 1), max(rows, 1)
	e.mu.Lock()
	e.layoutCols = cols
	if cols == e.cols && rows == e.rows {
		e.mu.Unlock()
		return
	}
	onAlt := e.cur == e.alt
	// The main screen's cursor: the live one, or the one saved on entry to
	// the alternate screen.
	cx, cy, wrap := e.x, e.y, e.wrapNext
	if onAlt {
		cx, cy, wrap = e.main.saved.x, e.main.saved.y, e.main.saved.wrapNext
	}
	cx, cy, wrap = e.resizeMain(cols, rows, cx, cy, wrap)
	if onAlt {
		e.main.saved.x, e.main.saved.y, e.main.saved.wrapNext = cx, cy, wrap
		e.x, e.y = resizeFixed(e.alt, cols, rows, e.x, e.y)
		e.wrapNext = false
	} else {
		e.x, e.y, e.wrapNext = cx, cy, wrap
		if e.alt != nil {
			resizeFixed(e.alt, cols, rows, 0, 0)
		}
	}
	if e.main.saved.valid && !onAlt {
		e.main.saved.x = min(e.main.saved.x, cols-1)
		e.main.saved.y = min(e.main.saved.y, rows-1)
	}
	if e.alt != nil {
		e.alt.saved.x = min(e.alt.saved.x, cols-1)
		e.alt.saved.y = min(e.alt.saved.y, rows-1)
	}
	if cols != e.cols {
		tabs := e.tabs
		e.cols = cols
		e.resetTabs()
		copy(e.tabs, tabs[:min(len(tabs), cols)])
	}
	e.cols, e.rows = cols, rows
	e.top, e.bot = 0, rows-1
	e.left, e.right = 0, cols-1
	e.x, e.y = clamp(e.x, 0, cols-1), clamp(e.y, 0, rows-1)
	e.gen++
	ch := e.changed
	e.changed = nil
	e.mu.Unlock()
	if ch != nil {
		close(ch)
	}
}

func (r *row) blank() bool {
	return !r.wrapped && trimmedEnd(r.cells[:r.used], false) == 0
}

// resizeMain resizes the main screen and returns the new cursor position
// and pending-wrap state.
func (e *Emulator) resizeMain(cols, rows, cx, cy int, wrap bool) (int, int, bool) {
	s := e.main
	oldCols := e.cols
	cy = clamp(cy, 0, len(s.rows)-1)
	if rows < len(s.rows) {
		needed := len(s.rows) - rows
		// Blank rows below the cursor go first.
		for needed > 0 && len(s.rows)-1 > cy && s.rows[len(s.rows)-1].blank() {
			s.rows = s.rows[:len(s.rows)-1]
			needed--
		}
		// Then rows from the top go to the scrollback.
		push := min(needed, cy)
		for _, r := range s.rows[:push] {
			e.hist.push(e, r)
		}
		s.rows = s.rows[push:]
		cy -= push
		needed -= push
		// Whatever is left below the cursor cannot be kept.
		s.rows = s.rows[:len(s.rows)-needed]
	} else if rows > len(s.rows) {
		needed := rows - len(s.rows)
		pull := min(needed, e.hist.pullable)
		pulled := make([]*row, pull)
		for i := pull - 1; i >= 0; i-- {
			l := e.hist.popNewest()
			pulled[i] = e.rowFromLine(l, oldCols)
		}
		s.rows = append(pulled, s.rows...)
		cy += pull
		for len(s.rows) < rows {
			s.rows = append(s.rows, newRow(oldCols))
		}
	}
	if cols != oldCols {
		cx, cy, wrap = e.reflow(cols, rows, cx, cy, wrap)
	}
	return clamp(cx, 0, cols-1), clamp(cy, 0, rows-1), wrap && cx == cols-1
}

// rowFromLine decodes a scrollback line into a screen row of width cols.
func (e *Emulator) rowFromLine(l histLine, cols int) *row {
	r := newRow(cols)
	cells := e.decodeCells(nil, l)
	n := copy(r.cells, cells)
	if n < len(cells) && n > 0 && r.cells[n-1].Attrs&attrWide != 0 {
		r.cells[n-1] = Cell{}
	}
	r.used = n
	r.wrapped = l.wrapped()
	r.rich = l.runs() != nil || !isASCII(l.text())
	return r
}

// reflow re-wraps scrollback and screen of the main screen at width cols
// and returns the cursor's new position. The screen shows the last rows
// lines that end with the cursor's line; trailing blank rows below the
// cursor are dropped before and re-added after. A cursor just past the end
// of a full row comes back with a pending wrap, as if it had printed there.
func (e *Emulator) reflow(cols, rows, cx, cy int, wrap bool) (int, int, bool) {
	s := e.main
	keep := len(s.rows)
	for keep-1 > cy && s.rows[keep-1].blank() {
		keep--
	}
	lines := e.hist.all()
	histN := len(lines)
	for _, r := range s.rows[:keep] {
		lines = append(lines, e.encodeCells(nil, r.cells[:r.used], r.wrapped))
	}
	cursorLine := histN + cy

	out := make([]histLine, 0, len(lines))
	newCursorLine, newCX, newWrap := -1, 0, false
	var cells []Cell
	var starts []int
	for i := 0; i < len(lines); {
		// A logical line: lines[i..j], all but the last wrapped.
		j := i
		for j < len(lines)-1 && lines[j].wrapped() {
			j++
		}
		hasCursor := cursorLine >= i && cursorLine <= j
		if i == j && len(lines[i].text()) <= cols {
			// Fits as is (its width is at most its byte length).
			if hasCursor {
				newCursorLine, newCX = len(out), min(cx+btoi(wrap), cols-1)
				newWrap = cx+btoi(wrap) == cols
			}
			out = append(out, lines[i])
			i = j + 1
			continue
		}
		cells = cells[:0]
		cursorOff := -1
		for k := i; k <= j; k++ {
			start := len(cells)
			cells = e.decodeCells(cells, lines[k])
			if k == cursorLine {
				cursorOff = start + cx + btoi(wrap)
			}
		}
		first := len(out)
		starts = starts[:0]
		out = e.splitCells(out, cells, cols, lines[j].wrapped(), &starts)
		if hasCursor {
			// The cursor lands on the last piece starting at or before it;
			// past the content it stays on the last piece.
			k := len(starts) - 1
			for k > 0 && starts[k] > cursorOff {
				k--
			}
			x := max(cursorOff-starts[k], 0)
			newCursorLine, newCX, newWrap = first+k, min(x, cols-1), x == cols
		}
		i = j + 1
	}
	if newCursorLine < 0 {
		newCursorLine = len(out) - 1
	}

	// Choose the screen window.
	start := max(0, len(out)-rows)
	if newCursorLine < start {
		start = newCursorLine
	}
	end := min(len(out), start+rows)
	hist := out[:start]
	if len(hist) > e.hist.cap {
		e.hist.dropped += uint64(len(hist) - e.hist.cap)
		hist = hist[len(hist)-e.hist.cap:]
	}
	pullable := e.hist.pullable
	e.hist.replace(append([]histLine(nil), hist...))
	e.hist.pullable = min(pullable, e.hist.n)

	newRows := make([]*row, 0, rows)
	for _, l := range out[start:end] {
		newRows = append(newRows, e.rowFromLine(l, cols))
	}
	for len(newRows) < rows {
		newRows = append(newRows, newRow(cols))
	}
	s.rows = newRows
	return newCX, newCursorLine - start, newWrap
}

// splitCells appends cells re-wrapped at width cols to out. A wide
// character that does not fit at the end of a row moves to the next one.
// The start offset of each piece is appended to starts.
func (e *Emulator) splitCells(out []histLine, cells []Cell, cols int, lastWrapped bool, starts *[]int) []histLine {
	if len(cells) == 0 {
		*starts = append(*starts, 0)
		return append(out, e.encodeCells(nil, nil, lastWrapped))
	}
	off := 0
	for len(cells) > 0 {
		n := min(cols, len(cells))
		if n < len(cells) && cells[n-1].Attrs&attrWide != 0 {
			n-- // the wide character's right half would not fit
		}
		if n == 0 { // a wide character in a one-column screen
			n = 1
		}
		wrapped := n < len(cells) || lastWrapped
		*starts = append(*starts, off)
		out = append(out, e.encodeCells(nil, cells[:n], wrapped))
		cells = cells[n:]
		off += n
	}
	return out
}

// resizeFixed crops or pads a screen without reflow and returns the
// clamped cursor.
func resizeFixed(s *screen, cols, rows, cx, cy int) (int, int) {
	if cy >= rows {
		// Keep the cursor's row on screen: drop rows from the top.
		drop := cy - rows + 1
		s.rows = s.rows[drop:]
		cy -= drop
	}
	if len(s.rows) > rows {
		s.rows = s.rows[:rows]
	}
	for _, r := range s.rows {
		resizeRow(r, cols)
	}
	for len(s.rows) < rows {
		s.rows = append(s.rows, newRow(cols))
	}
	return min(cx, cols-1), cy
}

// resizeRow changes a row's width without reflow.
func resizeRow(r *row, cols int) {
	switch {
	case cols > len(r.cells):
		if cols <= cap(r.cells) {
			r.cells = r.cells[:cols]
			clear(r.cells[r.used:])
		} else {
			cells := make([]Cell, cols)
			copy(cells, r.cells)
			r.cells = cells
		}
	case cols < len(r.cells):
		r.cells = r.cells[:cols]
		if last := &r.cells[cols-1]; last.Attrs&attrWide != 0 {
			*last = Cell{}
		}
		r.used = min(r.used, cols)
		r.wrapped = false
	}
}
