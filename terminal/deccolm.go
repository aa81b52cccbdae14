package terminal

// DECCOLM (CSI ? 3 h / l) switches a VT between 132 and 80 columns. xterm
// honours it only while "allow 80⇄132" (CSI ? 40 h, off by default) is
// set, and so does the emulator: then DECCOLM clears the screen, homes
// the cursor, resets the top/bottom margins and the left/right ones
// (switching to 132 columns also turns DECLRMM off, as xterm does) and
// makes the screen 132 or 80 columns wide. Nothing is reflowed: the
// screens are cropped or padded, as a VT does.
//
// The width DECCOLM sets is the emulator's logical width: a pane's
// layout keeps its size and the view clips (or pads) the grid, while the
// program's pseudo-terminal follows (EmulatorOptions.Resized), so it
// reads the new width with TIOCGWINSZ and gets SIGWINCH. The next
// Resize, i.e. the next layout change of the pane, replaces that width
// again; a full reset (RIS, [Emulator.Reset]) returns to the width of
// the last Resize. RIS leaves ?40 as it is: it is a setting of xterm's
// (its c132 resource and menu entry), which xterm's reset keeps.
//
// DECSCPP (CSI Pn $ |, VT300 and up) sets the same width without the
// rest: 80 (Pn 0 or 80) or 132 columns, the screen kept (cropped or
// padded) and the cursor on its row, as xterm does; ?40 does not gate it
// in xterm either.
//
// DECNCSM (?95, keep the screen on DECCOLM) is a VT510 feature; like
// xterm acting as a VT420 (the emulator's level), it is not recognised.

// Widths DECCOLM selects.
const (
	deccolmNarrow = 80
	deccolmWide   = 132
)

// deccolm applies DECCOLM (on: 132 columns) when ?40 allows it.
func (e *Emulator) deccolm(on bool) {
	if !e.allowColm {
		return
	}
	e.col132 = on
	cols := deccolmNarrow
	if on {
		cols = deccolmWide
		e.lrmm = false
	}
	// The screen is cleared as ED 2 clears it (the main screen's text
	// goes to the scrollback first), at the new width.
	e.keepScreenLocked()
	if cols != e.cols {
		e.setColsLocked(cols)
	}
	e.blankScreenLocked(e.eraseCell())
	e.top, e.bot = 0, e.rows-1
	e.left, e.right = 0, e.cols-1
	e.moveTo(0, 0)
}

// decscpp applies DECSCPP with parameter n.
func (e *Emulator) decscpp(n int) {
	var cols int
	switch n {
	case 0, deccolmNarrow:
		cols = deccolmNarrow
	case deccolmWide:
		cols = deccolmWide
	default:
		return
	}
	e.col132 = cols == deccolmWide
	if cols != e.cols {
		e.setColsLocked(cols)
	}
}

// setColsLocked changes the width of both screens to cols without
// reflow (cropping or padding every row) and tells the program's
// pseudo-terminal after the lock is released (resized). Margins, tab
// stops and saved cursors are kept inside the new width.
func (e *Emulator) setColsLocked(cols int) {
	for _, s := range []*screen{e.main, e.alt} {
		if s != nil {
			resizeFixed(s, cols, e.rows, 0, 0)
			s.saved.x = min(s.saved.x, cols-1)
		}
	}
	tabs := e.tabs
	e.cols = cols
	e.resetTabs()
	copy(e.tabs, tabs[:min(len(tabs), cols)])
	e.left, e.right = min(e.left, cols-1), min(e.right, cols-1)
	if !e.lrmm || e.left >= e.right {
		e.left, e.right = 0, cols-1
	}
	e.x = min(e.x, cols-1)
	e.wrapNext = false
	e.resized = true
}

// restoreLayoutColsLocked returns to the width of the last Resize when
// DECCOLM changed it (a full reset).
func (e *Emulator) restoreLayoutColsLocked() {
	if e.cols != e.layoutCols {
		e.setColsLocked(e.layoutCols)
	}
}
