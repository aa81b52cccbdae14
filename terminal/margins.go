package terminal

import "github.com/charmbracelet/x/ansi"

// Left and right margins (DECLRMM, ?69, and DECSLRM). While the mode is off
// every function here sees the screen's edges, and the hot paths test only
// e.lrmm before going their usual way.

// carriageReturn is CR: to the left margin, or to column 0 when the cursor
// is left of it (origin mode always goes to the margin).
func (e *Emulator) carriageReturn() {
	e.wrapNext = false
	if e.lrmm && (e.x >= e.left || e.originMode) {
		e.x = e.left
		return
	}
	e.x = 0
}

// editEnd is the column (exclusive) where ICH and DCH stop: the right
// margin, or the screen's edge when the cursor is right of it. ok is false
// when margins are on and the cursor is outside them: then ICH and DCH do
// nothing.
func (e *Emulator) editEnd() (end int, ok bool) {
	if !e.lrmm {
		return e.cols, true
	}
	if e.x < e.left || e.x > e.right {
		return 0, false
	}
	return e.right + 1, true
}

// setLRMargins is DECSLRM (CSI Pl ; Pr s with ?69 set): margins that leave
// at least two columns, then the cursor homes.
func (e *Emulator) setLRMargins(ps ansi.Params) {
	l := count(ps, 0) - 1
	r := param(ps, 1, e.cols)
	if r == 0 || r > e.cols {
		r = e.cols
	}
	r--
	if l >= r {
		return
	}
	e.left, e.right = l, r
	e.moveTo(0, 0)
}

// partialWidth reports whether scrolling moves only part of each line:
// margins are on and narrower than the screen.
func (e *Emulator) partialWidth() bool {
	return e.lrmm && (e.left > 0 || e.right < e.cols-1)
}

// scrollRect scrolls the scroll region's columns between the margins up
// (or down) by n lines; nothing goes to scrollback.
func (e *Emulator) scrollRect(n int, up bool) {
	top, bot, l, r := e.top, e.bot, e.left, e.right+1
	n = min(n, bot-top+1)
	rows := e.cur.rows
	for _, row := range rows[top : bot+1] {
		e.clearWideAt(row, l)
		e.clearWideAt(row, r-1)
	}
	move := func(dst, src *row) {
		copy(dst.cells[l:r], src.cells[l:r])
		dst.rich = dst.rich || src.rich
		dst.used = max(dst.used, r)
	}
	blank := e.eraseCell()
	if up {
		for y := top; y+n <= bot; y++ {
			move(rows[y], rows[y+n])
		}
		for y := max(bot-n+1, top); y <= bot; y++ {
			rows[y].fill(l, r, blank)
		}
		return
	}
	for y := bot; y-n >= top; y-- {
		move(rows[y], rows[y-n])
	}
	for y := top; y < top+n && y <= bot; y++ {
		rows[y].fill(l, r, blank)
	}
}
