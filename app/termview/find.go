package termview

import (
	"image/color"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/paneflow-go/paneflow/app/render"
	"github.com/paneflow-go/paneflow/terminal"
)

// maxMatches caps find-in-pane results.
const maxMatches = 10000

// findMatch is one hit: bytes [b0, b1) of absolute line `line`'s text.
type findMatch struct{ line, b0, b1 int }

// findBar is the find-in-pane overlay: an entry, a match count, previous
// and next buttons and a close button, at the top right of the View. Its
// state is guarded by the View's mutex; its widgets call back on the UI
// goroutine.
//
// The search runs over the scrollback and the screen (Pane.Lines),
// case-insensitively, when the query changes and again on next/previous
// once new output arrived. The query is a substring, or a regular
// expression (Go syntax, case-insensitive) once the ".*" button or Alt+R
// turned regex mode on. Next moves down (towards newer output), previous
// up; a new query starts at the newest match.
type findBar struct {
	v      *View
	entry  *findEntry
	count  *widget.Label
	regexB *widget.Button
	box    *fyne.Container

	query   string
	regex   bool           // the query is a regular expression
	re      *regexp.Regexp // the compiled query in regex mode; nil when it does not compile
	reFor   string         // the query re was compiled from
	matches []findMatch
	current int
	capped  bool
	gen     uint64 // output generation the matches were computed at
}

func newFindBar(v *View) *findBar {
	f := &findBar{v: v, current: -1}
	f.entry = newFindEntry(f)
	f.entry.SetPlaceHolder("Find")
	f.count = widget.NewLabel("0/0")
	prev := widget.NewButtonWithIcon("", theme.MoveUpIcon(), func() { f.step(-1) })
	next := widget.NewButtonWithIcon("", theme.MoveDownIcon(), func() { f.step(1) })
	closeB := widget.NewButtonWithIcon("", theme.CancelIcon(), f.close)
	f.regexB = widget.NewButton(".*", f.toggleRegex)
	for _, b := range []*widget.Button{f.regexB, prev, next, closeB} {
		b.Importance = widget.LowImportance
	}
	bg := canvas.NewRectangle(theme.Color(theme.ColorNameOverlayBackground))
	bg.StrokeColor = color.NRGBA{A: 0x60}
	bg.StrokeWidth = 1
	bg.CornerRadius = theme.InputRadiusSize()
	f.entry.OnChanged = f.setQuery
	row := container.NewBorder(nil, nil, nil, container.NewHBox(f.count, f.regexB, prev, next, closeB), f.entry)
	f.box = container.NewStack(bg, container.NewPadded(row))
	f.box.Hide()
	return f
}

// visible reports whether the bar shows.
func (f *findBar) visible() bool { return f.box.Visible() }

// open shows the bar and focuses its entry.
func (f *findBar) open() {
	v := f.v
	v.mu.Lock()
	f.box.Show()
	v.placeOverlaysLocked()
	if f.query != "" {
		f.searchLocked()
		v.drawLocked()
	}
	v.mu.Unlock()
	if c := v.canvas(); c != nil {
		c.Focus(f.entry)
	}
}

// close hides the bar, drops the highlights and gives focus back.
func (f *findBar) close() {
	v := f.v
	v.mu.Lock()
	f.closeLocked()
	v.drawLocked()
	v.mu.Unlock()
	v.focusSelf()
}

// closeLocked hides the bar and drops the highlights.
func (f *findBar) closeLocked() {
	f.box.Hide()
	f.matches, f.current = f.matches[:0], -1
	f.v.placeOverlaysLocked()
}

// setQuery runs a new search (the entry's OnChanged).
func (f *findBar) setQuery(q string) {
	v := f.v
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(q) > 512 {
		q = q[:512]
	}
	f.query = q
	f.restartLocked()
}

// restartLocked searches again and makes the newest match current.
func (f *findBar) restartLocked() {
	f.searchLocked()
	f.current = len(f.matches) - 1
	f.showCurrentLocked()
}

// toggleRegex switches between substring and regular-expression queries
// and searches again (the ".*" button and Alt+R).
func (f *findBar) toggleRegex() {
	v := f.v
	v.mu.Lock()
	defer v.mu.Unlock()
	f.regex = !f.regex
	f.regexB.Importance = widget.LowImportance
	placeholder := "Find"
	if f.regex {
		f.regexB.Importance = widget.HighImportance
		placeholder = "Find (regex)"
	}
	f.regexB.Refresh()
	f.entry.SetPlaceHolder(placeholder)
	f.restartLocked()
}

// step moves to the next (dir 1) or previous (dir -1) match.
func (f *findBar) step(dir int) {
	v := f.v
	v.mu.Lock()
	defer v.mu.Unlock()
	if g, _ := v.pane.Watch(); g != f.gen && f.query != "" {
		// New output: search again, keeping the position.
		var cur findMatch
		if f.current >= 0 && f.current < len(f.matches) {
			cur = f.matches[f.current]
		}
		f.searchLocked()
		f.current = sort.Search(len(f.matches), func(i int) bool {
			m := f.matches[i]
			return m.line > cur.line || m.line == cur.line && m.b0 >= cur.b0
		})
		if f.current < len(f.matches) && f.matches[f.current] != cur && dir > 0 {
			f.current-- // the old match is gone; the next one is the one found
		}
	}
	if n := len(f.matches); n > 0 {
		f.current = ((f.current+dir)%n + n) % n
	}
	f.showCurrentLocked()
}

// showCurrentLocked updates the count and scrolls the current match into
// view.
func (f *findBar) showCurrentLocked() {
	v := f.v
	n := len(f.matches)
	switch {
	case n == 0 && f.badRegexLocked():
		f.count.SetText("bad regex")
	case n == 0:
		f.count.SetText("0/0")
	default:
		s := strconv.Itoa(f.current+1) + "/" + strconv.Itoa(n)
		if f.capped {
			s += "+"
		}
		f.count.SetText(s)
	}
	if f.current >= 0 && f.current < n {
		v.anchorLocked()
		line := f.matches[f.current].line
		top := v.topLineLocked()
		rows := max(v.snap.Rows, 1)
		if line < top || line >= top+rows {
			newTop := line - rows/2
			v.offset = min(max(v.lastTotal-newTop, 0), v.histLen)
		}
	}
	v.drawLocked()
}

// badRegexLocked reports whether the query is a regular expression that
// does not compile.
func (f *findBar) badRegexLocked() bool { return f.regex && f.query != "" && f.re == nil }

// searchLocked finds every case-insensitive occurrence of the query in
// the scrollback and the screen, oldest first, up to maxMatches.
func (f *findBar) searchLocked() {
	v := f.v
	f.matches, f.capped = f.matches[:0], false
	f.gen, _ = v.pane.Watch()
	if f.query == "" {
		return
	}
	total, hist := v.totalLocked()
	base := total - hist
	lines := v.pane.Lines(0, hist+max(v.snap.Rows, v.rows))
	if f.regex {
		f.searchRegexLocked(lines, base)
		return
	}
	q := strings.ToLower(f.query)
	for i, l := range lines {
		for from := 0; from < len(l); {
			b0, b1, ok := indexFold(l[from:], q)
			if !ok {
				break
			}
			if len(f.matches) == maxMatches {
				f.capped = true
				return
			}
			f.matches = append(f.matches, findMatch{base + i, from + b0, from + b1})
			from += max(b1, 1)
		}
	}
}

// searchRegexLocked is searchLocked in regex mode. Empty matches (of
// "x*", say) are skipped: there is nothing to highlight.
func (f *findBar) searchRegexLocked(lines []string, base int) {
	if f.reFor != f.query {
		f.re, _ = regexp.Compile("(?i)" + f.query)
		f.reFor = f.query
	}
	if f.re == nil {
		return
	}
	for i, l := range lines {
		for _, m := range f.re.FindAllStringIndex(l, maxMatches+1) {
			if m[0] == m[1] {
				continue
			}
			if len(f.matches) == maxMatches {
				f.capped = true
				return
			}
			f.matches = append(f.matches, findMatch{base + i, m[0], m[1]})
		}
	}
}

// indexFold finds lower-cased q in s ignoring case and returns the byte
// range of the first match.
func indexFold(s, q string) (int, int, bool) {
	if q == "" {
		return 0, 0, false
	}
	if isASCII(s) && isASCII(q) {
		i := strings.Index(strings.ToLower(s), q)
		return i, i + len(q), i >= 0
	}
	for i := range s {
		if n, ok := prefixFold(s[i:], q); ok {
			return i, i + n, true
		}
	}
	return 0, 0, false
}

// prefixFold reports whether s starts with q ignoring case (q is lower
// case) and how many bytes of s matched.
func prefixFold(s, q string) (int, bool) {
	n := 0
	for _, qr := range q {
		r, size := utf8.DecodeRuneInString(s[n:])
		if size == 0 || unicode.ToLower(r) != qr {
			return 0, false
		}
		n += size
	}
	return n, true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// visibleMatchesLocked appends the spans of the matches on the snapshot's
// rows (top is the absolute line of row 0) to buf and returns them with
// the index of the current one (-1 when not visible).
func (f *findBar) visibleMatchesLocked(buf []render.Span, top int, s *terminal.Snapshot) ([]render.Span, int) {
	cur := -1
	if !f.visible() || len(f.matches) == 0 {
		return buf, cur
	}
	i := sort.Search(len(f.matches), func(i int) bool { return f.matches[i].line >= top })
	var cols []int
	row := -1
	for ; i < len(f.matches) && f.matches[i].line < top+s.Rows; i++ {
		m := f.matches[i]
		if y := m.line - top; y != row {
			row = y
			cols = byteColumns(cols[:0], s, y)
		}
		if m.b0 >= len(cols) {
			continue
		}
		c0 := cols[m.b0]
		c1 := s.Cols
		if m.b1 <= len(cols) && m.b1 > 0 {
			c1 = cols[m.b1-1] + 1
		}
		if i == f.current {
			cur = len(buf)
		}
		buf = append(buf, render.Span{Row: row, Col0: c0, Col1: c1})
	}
	return buf, cur
}

// byteColumns returns, for every byte of row y's text (as Pane.Lines
// gives it), the column it is drawn in.
func byteColumns(cols []int, s *terminal.Snapshot, y int) []int {
	for x, c := range s.Row(y) {
		if c.IsWideContinuation() {
			continue
		}
		for range len(s.Grapheme(c)) {
			cols = append(cols, x)
		}
	}
	return cols
}

// findEntry is the find bar's entry: Enter goes to the next match,
// Shift+Enter to the previous one, Escape closes the bar, Alt+R toggles
// regex mode.
type findEntry struct {
	widget.Entry
	f     *findBar
	shift bool
}

func newFindEntry(f *findBar) *findEntry {
	e := &findEntry{f: f}
	e.ExtendBaseWidget(e)
	return e
}

// KeyDown tracks Shift.
func (e *findEntry) KeyDown(ev *fyne.KeyEvent) {
	if ev.Name == desktop.KeyShiftLeft || ev.Name == desktop.KeyShiftRight {
		e.shift = true
	}
	e.Entry.KeyDown(ev)
}

// KeyUp tracks Shift.
func (e *findEntry) KeyUp(ev *fyne.KeyEvent) {
	if ev.Name == desktop.KeyShiftLeft || ev.Name == desktop.KeyShiftRight {
		e.shift = false
	}
	e.Entry.KeyUp(ev)
}

// TypedShortcut toggles regex mode on Alt+R and leaves the rest to the
// entry.
func (e *findEntry) TypedShortcut(s fyne.Shortcut) {
	if cs, ok := s.(*desktop.CustomShortcut); ok && cs.KeyName == fyne.KeyR && cs.Modifier == fyne.KeyModifierAlt {
		e.f.toggleRegex()
		return
	}
	e.Entry.TypedShortcut(s)
}

// TypedKey handles Enter, Shift+Enter and Escape.
func (e *findEntry) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyEscape:
		e.f.close()
	case fyne.KeyReturn, fyne.KeyEnter:
		if e.f.v.copySearchAccept() {
			return // copy mode's / or ? prompt
		}
		shift := e.shift
		if a := fyne.CurrentApp(); a != nil {
			if d, ok := a.Driver().(desktop.Driver); ok {
				shift = d.CurrentKeyModifiers()&fyne.KeyModifierShift != 0
			}
		}
		if shift {
			e.f.step(-1)
		} else {
			e.f.step(1)
		}
	default:
		e.Entry.TypedKey(ev)
	}
}
