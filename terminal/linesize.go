package terminal

// LineSize is how a screen line's characters are drawn, as DECSWL,
// DECDWL and DECDHL (ESC # 5, 6, 3, 4) set it. Its zero value is
// [LineSingle]. A line of any other size holds half the screen's columns
// of text ((cols+1)/2): printing wraps and the cursor stops there.
type LineSize uint8

const (
	LineSingle       LineSize = iota // normal size
	LineDoubleWidth                  // DECDWL: each character two cells wide
	LineDoubleTop                    // DECDHL top half: double width, the characters' upper halves
	LineDoubleBottom                 // DECDHL bottom half: double width, the characters' lower halves
)

// setLineSize applies DECSWL/DECDWL/DECDHL to the cursor's line, as
// xterm does: not while left/right margins are on (the two exclude each
// other), and a cursor right of a double line's half stops at its end.
func (e *Emulator) setLineSize(s LineSize) {
	if e.lrmm {
		return
	}
	e.cur.rows[e.y].size = s
	if s != LineSingle {
		e.x = min(e.x, e.cols/2)
		e.wrapNext = e.wrapNext && e.x == e.lineEnd(e.cur.rows[e.y])
	}
}

// lineEnd is the last column the cursor reaches on r by printing, CUF or
// HT: the right margin (when the cursor is not right of it), half the
// line for a double-size one, else the screen's last column.
func (e *Emulator) lineEnd(r *row) int {
	switch {
	case e.lrmm && e.x <= e.right:
		return e.right
	case r.size != LineSingle:
		return (e.cols - 1) / 2
	}
	return e.cols - 1
}

// growLineSizes returns s resized to n entries, reusing its array.
func growLineSizes(s []LineSize, n int) []LineSize {
	if cap(s) < n {
		return make([]LineSize, n)
	}
	return s[:n]
}
