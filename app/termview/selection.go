package termview

import (
	"strings"

	"github.com/paneflow-go/paneflow/terminal"
)

// absPoint is a cell in absolute line coordinates: line counts from the
// first line the pane ever had (lines dropped from the scrollback plus
// the row index of Pane.Lines), so it survives scrolling and output.
type absPoint struct{ line, col int }

func (p absPoint) before(q absPoint) bool {
	return p.line < q.line || p.line == q.line && p.col < q.col
}

// Selection units: what a drag extends by.
const (
	unitChar = iota + 1
	unitWord
	unitLine
)

// selection is the user's selection. The zero value is no selection.
// The anchor unit [a0, a1) is where the press happened (a cell, a word or
// a line), the head unit [h0, h1) is where the pointer is now; the
// selection spans both.
type selection struct {
	active bool
	block  bool
	unit   int
	a0, a1 absPoint
	h0, h1 absPoint
}

// bounds returns the selection as a start (inclusive) and end (exclusive)
// in stream order, or, for a block selection, the top-left and
// bottom-right corners with the end column exclusive.
func (s *selection) bounds(cols int) (start, end absPoint, ok bool) {
	if !s.active {
		return absPoint{}, absPoint{}, false
	}
	if s.block {
		bc := s.blockCols()
		return absPoint{min(s.a0.line, s.h0.line), bc.c0}, absPoint{max(s.a0.line, s.h0.line), bc.c1}, true
	}
	start, end = s.a0, s.a1
	if s.h0.before(start) {
		start = s.h0
	}
	if end.before(s.h1) {
		end = s.h1
	}
	end.col = min(end.col, cols)
	return start, end, true
}

type colRange struct{ c0, c1 int }

// blockCols returns the columns [c0, c1) of a block selection.
func (s *selection) blockCols() colRange {
	return colRange{min(s.a0.col, s.h0.col), max(s.a0.col, s.h0.col) + 1}
}

// isWordRune reports whether r belongs to a word for double-click
// selection: anything but blanks and the brackets, quotes and separators
// that usually delimit paths and URLs in terminal output.
func isWordRune(g string) bool {
	if g == "" || g == " " || g == "\t" {
		return false
	}
	if len(g) == 1 && strings.ContainsRune("\"'`()[]{}<>|;,", rune(g[0])) {
		return false
	}
	return true
}

// wordSpan returns the columns [c0, c1) of the word under column col of
// row y (the cell alone when it is not part of a word).
func wordSpan(s *terminal.Snapshot, y, col int) (int, int) {
	row := s.Row(y)
	col = min(max(col, 0), len(row)-1)
	for col > 0 && row[col].IsWideContinuation() {
		col--
	}
	word := func(i int) bool {
		if row[i].IsWideContinuation() {
			return true
		}
		return isWordRune(s.Grapheme(row[i]))
	}
	if !word(col) {
		return col, col + max(1, row[col].Width())
	}
	c0, c1 := col, col+1
	for c0 > 0 && word(c0-1) {
		c0--
	}
	for c1 < len(row) && word(c1) {
		c1++
	}
	return c0, c1
}

// lineSpan returns the first and last rows of the logical line (rows
// joined by wrapping) that row y belongs to, within the snapshot.
func lineSpan(s *terminal.Snapshot, y int) (int, int) {
	r0, r1 := y, y
	for r0 > 0 && s.Wrapped[r0-1] {
		r0--
	}
	for r1 < s.Rows-1 && s.Wrapped[r1] {
		r1++
	}
	return r0, r1
}

// rowText returns the text of cells [c0, c1) of row y.
func rowText(b *strings.Builder, s *terminal.Snapshot, y, c0, c1 int) {
	row := s.Row(y)
	c0, c1 = max(c0, 0), min(c1, len(row))
	for _, c := range row[c0:max(c0, c1)] {
		if !c.IsWideContinuation() {
			b.WriteString(s.Grapheme(c))
		}
	}
}

// selectedTextLocked builds the selection's text: rows joined with "\n",
// trailing blanks trimmed, rows that wrap joined to the next without a
// newline (stream selections), each row's columns (block selections).
func (v *View) selectedTextLocked() string {
	start, end, ok := v.sel.bounds(max(v.snap.Cols, 1))
	if !ok || !start.before(end) && !v.sel.block {
		return ""
	}
	var tmp terminal.Snapshot
	var out, row strings.Builder
	line := start.line
	for line <= end.line {
		total, hist := v.totalLocked()
		if first := total - hist; line < first { // scrolled out of the history
			line = first
			continue
		}
		off := min(max(total-line, 0), hist)
		v.pane.Snapshot(&tmp, off)
		top := total - off
		r := line - top
		if r < 0 || r >= tmp.Rows {
			break
		}
		for ; r < tmp.Rows && line <= end.line; r, line = r+1, line+1 {
			c0, c1 := 0, tmp.Cols
			if v.sel.block {
				bc := v.sel.blockCols()
				c0, c1 = bc.c0, bc.c1
			} else {
				if line == start.line {
					c0 = start.col
				}
				if line == end.line {
					c1 = end.col
				}
			}
			row.Reset()
			rowText(&row, &tmp, r, c0, c1)
			wrapped := !v.sel.block && tmp.Wrapped[r] && c1 >= tmp.Cols
			text := row.String()
			if !wrapped {
				text = strings.TrimRight(text, " ")
			}
			out.WriteString(text)
			if line != end.line && !wrapped {
				out.WriteByte('\n')
			}
		}
	}
	return out.String()
}

// copyLocked puts the selection on the clipboard.
func (v *View) copyLocked() {
	text := v.selectedTextLocked()
	if text == "" {
		return
	}
	if cb := clipboard(); cb != nil {
		cb.SetContent(text)
	}
}

// clearSelectionLocked drops the selection and redraws.
func (v *View) clearSelectionLocked() {
	if v.sel.active {
		v.sel = selection{}
		v.drawLocked()
	}
}
