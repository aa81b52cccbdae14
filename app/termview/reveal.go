package termview

import (
	"github.com/paneflow-go/paneflow/app/render"
)

// revealSlack is how many lines around the expected one [View.Reveal]
// looks for the line's text when output moved it since the search.
const revealSlack = 200

// revealMark is the line [View.Reveal] showed: its absolute line number
// (as the find bar's) and the byte spans highlighted in its text. The
// zero value marks nothing.
type revealMark struct {
	on    bool
	line  int
	spans [][2]int
}

// Reveal scrolls the view to a line a search of the pane found and
// highlights spans in it until the next key or click in the view. line is
// the line's coordinate as surface.search and surface.search_all give it:
// 0.. the rows of the live screen (of the alternate screen too, while one
// shows), negative the scrollback (-1 its newest line). text is the line
// as the search returned it; spans are [start, end) byte offsets in it.
//
// Output may have moved the line since the search: the line whose text
// equals text nearest the expected place (within a few hundred lines) is
// shown. Reveal reports whether it found the line; when it did not, the
// view does not scroll and nothing is highlighted. On the alternate
// screen the text is not checked (the pane's Lines read the main
// buffer). An empty text is not checked either.
//
// It reads the pane's lines (a call to the server when the pane is a
// remote mirror) and must be called on the UI goroutine.
func (v *View) Reveal(line int, text string, spans [][2]int) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.anchorLocked()
	total, hist := v.totalLocked()
	idx := hist + line // Lines' index: 0 the oldest scrollback line
	alt := v.snap.AltScreen && line >= 0
	if text != "" && !alt {
		var ok bool
		if idx, ok = v.locateLocked(idx, text); !ok {
			return false
		}
	}
	abs := total - hist + idx
	v.mark = revealMark{on: true, line: abs, spans: append([][2]int(nil), spans...)}
	if !alt {
		rows := max(v.snap.Rows, v.rows, 1)
		top := v.topLineLocked()
		if abs < top || abs >= top+rows {
			v.offset = min(max(v.lastTotal-(abs-rows/2), 0), v.histLen)
		}
	}
	v.drawLocked()
	return true
}

// locateLocked finds the line of text nearest Lines index idx, within
// revealSlack lines, and returns its index.
func (v *View) locateLocked(idx int, text string) (int, bool) {
	from := max(idx-revealSlack, 0)
	lines := v.pane.Lines(from, idx+revealSlack+1)
	for d := 0; d <= revealSlack; d++ {
		for _, i := range [2]int{idx - d, idx + d} {
			if j := i - from; j >= 0 && j < len(lines) && lines[j] == text {
				return i, true
			}
			if d == 0 {
				break
			}
		}
	}
	return 0, false
}

// Revealed reports the line [View.Reveal] marks, as its absolute line
// number's distance above the live screen's top row (the coordinate
// Reveal takes, as of now), and whether one is marked.
func (v *View) Revealed() (line int, ok bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.anchorLocked()
	return v.mark.line - v.lastTotal, v.mark.on
}

// clearMarkLocked drops Reveal's highlight (redrawing when there was one).
func (v *View) clearMarkLocked() {
	if v.mark.on {
		v.mark = revealMark{}
		v.drawLocked()
	}
}

// markSpansLocked appends the spans of Reveal's mark on the snapshot's
// rows (top is the absolute line of row 0) to buf; the first one becomes
// the current match (drawn as such), else cur stays.
func (v *View) markSpansLocked(buf []render.Span, cur, top int) ([]render.Span, int) {
	m := &v.mark
	y := m.line - top
	if !m.on || y < 0 || y >= v.snap.Rows {
		return buf, cur
	}
	cols := byteColumns(nil, &v.snap, y)
	for i, sp := range m.spans {
		if sp[0] >= len(cols) || sp[1] <= sp[0] {
			continue
		}
		c1 := v.snap.Cols
		if sp[1] <= len(cols) {
			c1 = cols[sp[1]-1] + 1
		}
		if i == 0 {
			cur = len(buf)
		}
		buf = append(buf, render.Span{Row: y, Col0: cols[sp[0]], Col1: c1})
	}
	return buf, cur
}
