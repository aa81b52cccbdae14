package termview

import (
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
)

// copyKey is one key press as copy mode sees it: a typed character (r),
// or a named key (name) such as fyne.KeyEscape; ctrl says Ctrl was held,
// in which case a letter arrives as its key name (Ctrl+U is name "U").
type copyKey struct {
	r    rune
	name fyne.KeyName
	ctrl bool
}

// copyAction is what the View does after copy mode took a key.
type copyAction uint8

const (
	copyIgnored   copyAction = iota // the key means nothing in copy mode
	copyMoved                       // the cursor, view or selection changed: redraw
	copyYank                        // copy the selection to the clipboard and leave
	copyLeave                       // leave without copying
	copySearch                      // open the search prompt (copyMode.searchDir says which way)
	copyNextMatch                   // go to the next match in direction copyMode.stepDir
)

// visual is copy mode's selection kind.
type visual uint8

const (
	visNone  visual = iota // no selection
	visChar                // v: a stream of characters
	visLine                // V: whole lines
	visBlock               // Ctrl+V: a rectangle
)

// copyDoc is what copy mode reads of the pane: its lines by absolute
// line number (as absPoint's), each as the graphemes of its cells, one per
// column, "" for the second half of a wide character. The View implements
// it over snapshots of the pane, so that in an attached window only the
// scrollback lines copy mode reaches are fetched from the server.
type copyDoc interface {
	// span returns the first (the oldest scrollback line) and the last
	// (the bottom row of the screen) absolute lines.
	span() (first, last int)
	// row returns line's cells; nil (or shorter than the width) when the
	// line is not available.
	row(line int) []string
}

// copyMode is the keyboard copy mode's state machine, as tmux's vi copy
// mode: a cursor moved with vi keys over the scrollback and the screen, a
// selection started with v, V or Ctrl+V, yanked with y. It knows nothing
// of Fyne's widgets or the pane: keys come in through [copyMode.key] with
// a [copyDoc] to read the lines, and the View draws what
// [copyMode.selection], cur and top say. The zero value is not used; the
// View makes one with [newCopyMode]. It is guarded by the View's mutex.
type copyMode struct {
	cur        absPoint // the copy-mode cursor
	top        int      // absolute line of the view's top row
	rows, cols int      // the view's size in cells (at least 1)
	// want is the column vertical moves aim for; wantEnd makes them go
	// to the end of each line's text (after $).
	want    int
	wantEnd bool
	vis     visual
	anchor  absPoint // the selection's other end
	count   int      // a pending count prefix (5j), 0 when none
	// searchDir is the direction of the last search: 1 forward (/, down
	// towards newer output), -1 backward (?), 0 none yet. stepDir is the
	// direction of the match copyNextMatch asks for.
	searchDir, stepDir int
	// prompted says / or ? opened the View's find bar (closed on leaving).
	prompted bool
}

// newCopyMode starts copy mode with the cursor at cur in a view of
// rows×cols cells whose top row is absolute line top.
func newCopyMode(cur absPoint, top, rows, cols int) *copyMode {
	m := &copyMode{cur: cur, top: top, rows: max(rows, 1), cols: max(cols, 1)}
	m.want = cur.col
	return m
}

// label is the mode indicator's text.
func (m *copyMode) label() string {
	s := "COPY"
	switch m.vis {
	case visChar:
		s = "VISUAL"
	case visLine:
		s = "V-LINE"
	case visBlock:
		s = "V-BLOCK"
	}
	return s
}

// selection returns the View's selection for the visual mode (none
// without one). A character selection includes the cells under both ends.
func (m *copyMode) selection() selection {
	a, c := m.anchor, m.cur
	switch m.vis {
	case visChar:
		return selection{active: true, unit: unitChar, a0: a, a1: absPoint{a.line, a.col + 1}, h0: c, h1: absPoint{c.line, c.col + 1}}
	case visLine:
		return selection{active: true, unit: unitLine, a0: absPoint{a.line, 0}, a1: absPoint{a.line, m.cols}, h0: absPoint{c.line, 0}, h1: absPoint{c.line, m.cols}}
	case visBlock:
		return selection{active: true, block: true, unit: unitChar, a0: a, a1: absPoint{a.line, a.col + 1}, h0: c, h1: absPoint{c.line, c.col + 1}}
	}
	return selection{}
}

// key handles one key press and says what the View has to do.
//
// Keys: h j k l and the arrows move by a cell; w b e by word; 0 Home, ^,
// $ End to the line's start, first character and end; g and G to the
// oldest and newest line; H M L to the view's top, middle and bottom
// row; Ctrl+U/Ctrl+D half a page, Ctrl+B/Ctrl+F and PageUp/PageDown a
// page. A count (5j) repeats a move. v, V and Ctrl+V start (or end) a
// character, line or block selection, Space restarts a character
// selection at the cursor, o swaps its ends; y and Enter yank (without a
// selection, the cursor's line) and leave; q and Escape leave; / and ?
// search forward and backward, n and N repeat the search.
func (m *copyMode) key(k copyKey, d copyDoc) copyAction {
	if k.r >= '1' && k.r <= '9' || k.r == '0' && m.count > 0 {
		m.count = min(m.count*10+int(k.r-'0'), 100000)
		return copyMoved
	}
	n := max(m.count, 1)
	m.count = 0
	if k.ctrl {
		switch k.name {
		case fyne.KeyU:
			m.scroll(-n*max(m.rows/2, 1), d)
		case fyne.KeyD:
			m.scroll(n*max(m.rows/2, 1), d)
		case fyne.KeyB:
			m.scroll(-n*m.rows, d)
		case fyne.KeyF:
			m.scroll(n*m.rows, d)
		case fyne.KeyV:
			m.toggle(visBlock)
		case fyne.KeyC:
			return copyLeave
		default:
			return copyIgnored
		}
		return copyMoved
	}
	switch k.name {
	case "":
	case fyne.KeyLeft:
		k.r = 'h'
	case fyne.KeyRight:
		k.r = 'l'
	case fyne.KeyUp:
		k.r = 'k'
	case fyne.KeyDown:
		k.r = 'j'
	case fyne.KeyHome:
		k.r = '0'
	case fyne.KeyEnd:
		k.r = '$'
	case fyne.KeyPageUp:
		m.scroll(-n*m.rows, d)
		return copyMoved
	case fyne.KeyPageDown:
		m.scroll(n*m.rows, d)
		return copyMoved
	case fyne.KeyEscape:
		return copyLeave
	case fyne.KeyReturn, fyne.KeyEnter:
		k.r = 'y'
	default:
		return copyIgnored
	}
	switch k.r {
	case 'h':
		m.setCol(m.cur.col-n, d)
	case 'l':
		m.setCol(m.cur.col+n, d)
	case 'k':
		m.setLine(m.cur.line-n, d)
	case 'j':
		m.setLine(m.cur.line+n, d)
	case 'w':
		for range n {
			m.jumpTo(wordForward(d, m.cur), d)
		}
	case 'b':
		for range n {
			m.jumpTo(wordBackward(d, m.cur), d)
		}
	case 'e':
		for range n {
			m.jumpTo(wordEnd(d, m.cur), d)
		}
	case '0':
		m.setCol(0, d)
	case '^':
		m.setCol(firstNonBlank(d.row(m.cur.line)), d)
	case '$':
		m.setCol(lastNonBlank(d.row(m.cur.line)), d)
		m.wantEnd = true
	case 'g':
		first, _ := d.span()
		m.jumpTo(absPoint{first, 0}, d)
	case 'G':
		_, last := d.span()
		m.jumpTo(absPoint{last, 0}, d)
	case 'H':
		m.setLine(m.top, d)
	case 'M':
		_, last := d.span()
		m.setLine(m.top+(min(m.top+m.rows-1, last)-m.top)/2, d)
	case 'L':
		_, last := d.span()
		m.setLine(min(m.top+m.rows-1, last), d)
	case 'v':
		m.toggle(visChar)
	case 'V':
		m.toggle(visLine)
	case ' ':
		m.vis, m.anchor = visChar, m.cur
	case 'o':
		if m.vis != visNone {
			m.anchor, m.cur = m.cur, m.anchor
			m.want, m.wantEnd = m.cur.col, false
			m.follow(d)
		}
	case 'y':
		if m.vis == visNone {
			m.vis, m.anchor = visLine, m.cur
		}
		return copyYank
	case 'q':
		return copyLeave
	case '/':
		m.searchDir = 1
		return copySearch
	case '?':
		m.searchDir = -1
		return copySearch
	case 'n', 'N':
		if m.searchDir == 0 {
			return copyIgnored
		}
		m.stepDir = m.searchDir
		if k.r == 'N' {
			m.stepDir = -m.searchDir
		}
		return copyNextMatch
	default:
		return copyIgnored
	}
	return copyMoved
}

// toggle starts selection kind k at the cursor, switches an open
// selection to k, or ends a selection of kind k.
func (m *copyMode) toggle(k visual) {
	switch m.vis {
	case k:
		m.vis = visNone
	case visNone:
		m.vis, m.anchor = k, m.cur
	default:
		m.vis = k
	}
}

// jumpTo moves the cursor to p (a match, a word, the first line) and
// keeps it in view.
func (m *copyMode) jumpTo(p absPoint, d copyDoc) {
	m.cur = p
	m.want, m.wantEnd = p.col, false
	m.follow(d)
}

// setCol moves the cursor to column c of its line, off the second half
// of a wide character.
func (m *copyMode) setCol(c int, d copyDoc) {
	m.cur.col = snapCol(d.row(m.cur.line), min(max(c, 0), m.cols-1))
	m.want, m.wantEnd = m.cur.col, false
	m.follow(d)
}

// setLine moves the cursor to line l, at the column vertical moves aim
// for.
func (m *copyMode) setLine(l int, d copyDoc) {
	m.cur.line = l
	m.clampLine(d)
	row := d.row(m.cur.line)
	c := m.want
	if m.wantEnd {
		c = lastNonBlank(row)
	}
	m.cur.col = snapCol(row, min(max(c, 0), m.cols-1))
	m.follow(d)
}

// scroll moves the view and the cursor by n lines (n < 0 up into the
// scrollback), as vi's Ctrl+U/D/B/F: the cursor keeps its row in the view
// until the view cannot move further.
func (m *copyMode) scroll(n int, d copyDoc) {
	m.top += n
	m.clampTop(d)
	m.setLine(m.cur.line+n, d)
}

// follow clamps the cursor to the document and scrolls the view so the
// cursor's line shows.
func (m *copyMode) follow(d copyDoc) {
	m.clampLine(d)
	m.cur.col = min(max(m.cur.col, 0), m.cols-1)
	if m.cur.line < m.top {
		m.top = m.cur.line
	}
	if m.cur.line >= m.top+m.rows {
		m.top = m.cur.line - m.rows + 1
	}
	m.clampTop(d)
}

func (m *copyMode) clampLine(d copyDoc) {
	first, last := d.span()
	m.cur.line = min(max(m.cur.line, first), max(last, first))
}

// clampTop keeps the view within the document: its top at most the live
// screen's top row.
func (m *copyMode) clampTop(d copyDoc) {
	first, last := d.span()
	m.top = min(max(m.top, first), max(last-m.rows+1, first))
}

// snapCol moves column c off the second half of a wide character.
func snapCol(row []string, c int) int {
	for c > 0 && c < len(row) && row[c] == "" {
		c--
	}
	return c
}

// blank reports whether a cell's grapheme is empty space.
func blank(g string) bool { return g == " " || g == "\t" || g == "" }

// firstNonBlank is the column of the row's first character (0 for a
// blank row).
func firstNonBlank(row []string) int {
	for i, g := range row {
		if !blank(g) {
			return i
		}
	}
	return 0
}

// lastNonBlank is the column of the row's last character (0 for a blank
// row).
func lastNonBlank(row []string) int {
	for i := len(row) - 1; i >= 0; i-- {
		if !blank(row[i]) {
			return snapCol(row, i)
		}
	}
	return 0
}

// Word classes, as vi's: blanks, word characters (letters, digits, _),
// and other characters; a word is a run of one class.
const (
	classBlank = iota
	classWord
	classPunct
)

// wordClass classifies column col of row (past the row's end: blank).
func wordClass(row []string, col int) int {
	if col < 0 || col >= len(row) || blank(row[col]) {
		return classBlank
	}
	r, _ := utf8.DecodeRuneInString(row[col])
	if r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) {
		return classWord
	}
	return classPunct
}

// maxWordSteps bounds how many cells a word motion walks (a scrollback of
// blank lines).
const maxWordSteps = 1 << 20

// docWalker steps over a copyDoc's cells in reading order, skipping the
// second halves of wide characters, with the current row cached.
type docWalker struct {
	d           copyDoc
	first, last int
	p           absPoint
	row         []string
}

func newWalker(d copyDoc, p absPoint) *docWalker {
	w := &docWalker{d: d, p: p}
	w.first, w.last = d.span()
	w.row = d.row(p.line)
	return w
}

// class is the word class at the walker's cell.
func (w *docWalker) class() int { return wordClass(w.row, w.p.col) }

// next moves one cell on; crossed says it went to the next line (an
// implicit blank between lines). It reports false at the document's end.
func (w *docWalker) next() (ok, crossed bool) {
	c := w.p.col + 1
	for c < len(w.row) && w.row[c] == "" {
		c++
	}
	if c < len(w.row) {
		w.p.col = c
		return true, false
	}
	if w.p.line >= w.last {
		return false, false
	}
	w.p = absPoint{w.p.line + 1, 0}
	w.row = w.d.row(w.p.line)
	return true, true
}

// prev moves one cell back, to the previous line's last cell from column
// 0.
func (w *docWalker) prev() (ok, crossed bool) {
	c := snapCol(w.row, w.p.col-1)
	if w.p.col > 0 && c >= 0 {
		w.p.col = c
		return true, false
	}
	if w.p.line <= w.first {
		return false, false
	}
	w.p.line--
	w.row = w.d.row(w.p.line)
	w.p.col = snapCol(w.row, max(len(w.row)-1, 0))
	return true, true
}

// wordForward is vi's w: the start of the next word (a line break
// separates words).
func wordForward(d copyDoc, p absPoint) absPoint {
	w := newWalker(d, p)
	c := w.class()
	for range maxWordSteps {
		ok, crossed := w.next()
		if !ok {
			return w.p
		}
		if crossed {
			c = classBlank
		}
		cc := w.class()
		if cc != classBlank && cc != c {
			return w.p
		}
		c = cc
	}
	return w.p
}

// wordEnd is vi's e: the end of the word after the cursor's cell.
func wordEnd(d copyDoc, p absPoint) absPoint { return wordEdge(d, p, 1) }

// wordBackward is vi's b: the start of the word before the cursor (or of
// the word it is in).
func wordBackward(d copyDoc, p absPoint) absPoint { return wordEdge(d, p, -1) }

// wordEdge walks from p one cell in direction dir, over blanks, then to
// the last cell of the word it reached in that direction (a line break
// ends a word).
func wordEdge(d copyDoc, p absPoint, dir int) absPoint {
	w := newWalker(d, p)
	step := w.next
	if dir < 0 {
		step = w.prev
	}
	if ok, _ := step(); !ok {
		return w.p
	}
	for i := 0; w.class() == classBlank; i++ {
		if ok, _ := step(); !ok || i == maxWordSteps {
			return w.p
		}
	}
	c := w.class()
	for range maxWordSteps {
		edge := w.p
		if ok, crossed := step(); !ok || crossed || w.class() != c {
			return edge
		}
	}
	return w.p
}

// byteCol returns the column of byte offset b of the row's text (the
// text Pane.Lines gives: the graphemes joined), the row's last column
// past its end.
func byteCol(row []string, b int) int {
	n := 0
	for i, g := range row {
		if g == "" {
			continue
		}
		if b < n+len(g) {
			return i
		}
		n += len(g)
	}
	return max(len(row)-1, 0)
}

// colByte returns the byte offset in the row's text of column c.
func colByte(row []string, c int) int {
	n := 0
	for i, g := range row {
		if i >= c {
			break
		}
		n += len(g)
	}
	return n
}
