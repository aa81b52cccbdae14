package terminal

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Cursor is the cursor's position and look. X and Y are zero-based cell
// coordinates on the visible screen.
type Cursor struct {
	X, Y    int
	Visible bool
	Shape   CursorShape
	Blink   bool
}

// Snapshot is a copy of the visible screen and the state a renderer or an
// API reader needs. Take one with [Emulator.Snapshot]; reusing the same
// Snapshot value across calls reuses its cell storage. A Snapshot is not
// shared with the emulator and may be read without locks.
type Snapshot struct {
	Cols, Rows int
	Cells      []Cell // Rows×Cols, row-major
	Wrapped    []bool // per row: the line continues on the next row
	// LineSizes are, per row, how the program asked for the line to be
	// drawn (DECDWL, DECDHL): a double one holds (Cols+1)/2 columns of
	// text, each meant to be drawn two cells wide (and, for the two
	// halves of a double-height line, two rows high). Rows from the
	// scrollback are single.
	LineSizes    []LineSize
	Cursor       Cursor
	Modes        InputModes
	AltScreen    bool
	ReverseVideo bool
	// SyncOutput reports that the program asked renderers to hold frames
	// (DECSET 2026) until it finishes an update.
	SyncOutput bool
	Title      string
	Cwd        string
	// Colors are the colours the program set (OSC 4, 10, 11, 12, 17, 19),
	// nil when it set none. Shared and immutable: a different pointer
	// than last frame's means the colours changed.
	Colors *ProgramColors
	// Generation is the emulator's output generation at snapshot time.
	Generation uint64
	// Offset is how many lines the view is scrolled back into the
	// scrollback ([Emulator.SnapshotAt]); 0 is the live screen.
	Offset int

	clusters []string // append-only table shared with the emulator
	links    []string
	decode   []Cell // SnapshotAt's buffer for decoding scrollback lines
}

// Row returns the cells of row y.
func (s *Snapshot) Row(y int) []Cell { return s.Cells[y*s.Cols : (y+1)*s.Cols] }

// Grapheme returns the text of a cell: its character or grapheme cluster,
// " " for a blank cell and "" for the right half of a wide character.
func (s *Snapshot) Grapheme(c Cell) string {
	switch {
	case c.Attrs&attrWideCont != 0:
		return ""
	case c.Char == 0:
		return " "
	case c.Char&clusterBit != 0:
		if i := int(c.Char &^ clusterBit); i < len(s.clusters) {
			return s.clusters[i]
		}
		return "\uFFFD"
	}
	return string(c.Char)
}

// Link returns the URI of an OSC 8 hyperlink id ("" for 0 or unknown).
func (s *Snapshot) Link(id uint16) string {
	if id == 0 || int(id) > len(s.links) {
		return ""
	}
	return s.links[id-1]
}

// RowText returns row y as text with trailing blanks removed.
func (s *Snapshot) RowText(y int) string {
	var b strings.Builder
	for _, c := range s.Row(y) {
		b.WriteString(s.Grapheme(c))
	}
	return strings.TrimRight(b.String(), " ")
}

// Snapshot copies the visible screen into s.
func (e *Emulator) Snapshot(s *Snapshot) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.snapshotLocked(s)
}

// SnapshotChanges is Snapshot for a snapshot s of this emulator kept up
// to date from one call to the next: it copies only the rows whose cells
// or wrap flag differ from what s holds, and appends their numbers to
// rows (every row's when s holds another size). The attach encoder keeps
// what it last sent a client this way: copying the whole screen to
// compare it with that cost a frame more than the comparison (issue 26,
// a key's echo).
func (e *Emulator) SnapshotChanges(s *Snapshot, rows []int) []int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if s.Cols != e.cols || s.Rows != e.rows || len(s.Cells) != e.cols*e.rows || len(s.Wrapped) != e.rows {
		e.snapshotLocked(s)
		for y := range e.rows {
			rows = append(rows, y)
		}
		return rows
	}
	s.LineSizes = growLineSizes(s.LineSizes, e.rows)
	for y, r := range e.cur.rows {
		dst := s.Cells[y*e.cols : (y+1)*e.cols]
		if s.Wrapped[y] != r.wrapped || !CellsEqual(dst, r.cells) {
			copy(dst, r.cells)
			s.Wrapped[y] = r.wrapped
			rows = append(rows, y)
		}
		s.LineSizes[y] = r.size
	}
	e.snapshotStateLocked(s)
	return rows
}

// snapshotLocked is Snapshot with e.mu held.
func (e *Emulator) snapshotLocked(s *Snapshot) {
	n := e.cols * e.rows
	if cap(s.Cells) < n {
		s.Cells = make([]Cell, n)
	}
	s.Cells = s.Cells[:n]
	if cap(s.Wrapped) < e.rows {
		s.Wrapped = make([]bool, e.rows)
	}
	s.Wrapped = s.Wrapped[:e.rows]
	s.LineSizes = growLineSizes(s.LineSizes, e.rows)
	for y, r := range e.cur.rows {
		copy(s.Cells[y*e.cols:(y+1)*e.cols], r.cells)
		s.Wrapped[y] = r.wrapped
		s.LineSizes[y] = r.size
	}
	s.Cols, s.Rows = e.cols, e.rows
	e.snapshotStateLocked(s)
}

// snapshotStateLocked copies into s what a snapshot holds besides the
// cells (e.mu held).
func (e *Emulator) snapshotStateLocked(s *Snapshot) {
	s.Cursor = e.cursorLocked()
	s.Modes = e.in
	s.AltScreen = e.cur == e.alt
	s.ReverseVideo = e.reverseVideo
	s.SyncOutput = e.syncOutput
	s.Title, s.Cwd = e.title, e.cwd
	s.Colors = e.colors
	s.Generation = e.gen
	s.Offset = 0
	s.clusters, s.links = e.clusters, e.links
}

func (e *Emulator) cursorLocked() Cursor {
	return Cursor{X: e.x, Y: e.y, Visible: !e.cursorHidden, Shape: e.cursorShape, Blink: e.cursorBlink}
}

// Size reports the screen size in cells.
func (e *Emulator) Size() (cols, rows int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cols, e.rows
}

// Cursor reports the cursor.
func (e *Emulator) Cursor() Cursor {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cursorLocked()
}

// Title reports the window title the program set with OSC 0 or 2.
func (e *Emulator) Title() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.title
}

// Cwd reports the working directory the program announced with OSC 7
// ("" when it never did).
func (e *Emulator) Cwd() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cwd
}

// Modes reports the input modes the program enabled.
func (e *Emulator) Modes() InputModes {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.in
}

// AltScreen reports whether the alternate screen is showing.
func (e *Emulator) AltScreen() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cur == e.alt
}

// Bells reports how many BEL characters the program has printed.
func (e *Emulator) Bells() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.bells
}

// Generation reports the output generation: a counter that increases with
// every chunk of program output parsed. Equal values across two reads mean
// nothing new arrived.
func (e *Emulator) Generation() uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.gen
}

// Changed returns a channel that is closed when output arrives after the
// call (the generation advances). Each call may return a new channel; take
// the generation and the channel together with [Emulator.Watch] to avoid
// missing a change between the two.
func (e *Emulator) Changed() <-chan struct{} {
	_, ch := e.Watch()
	return ch
}

// Watch returns the current generation and a channel closed once the
// generation moves past it.
func (e *Emulator) Watch() (uint64, <-chan struct{}) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.changed == nil {
		e.changed = make(chan struct{})
	}
	return e.gen, e.changed
}

// HistoryLen reports the number of scrollback lines held. While the
// alternate screen shows, scrollback still belongs to the main screen.
func (e *Emulator) HistoryLen() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.hist.n
}

// DroppedLines reports how many lines have left the scrollback for good
// (evicted past the cap or cleared) since the emulator was created. With
// HistoryLen it turns line numbers into positions that survive eviction.
func (e *Emulator) DroppedLines() uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.hist.dropped
}

// Lines returns rows [from, to) of the main buffer as text, right-trimmed.
// Row 0 is the oldest scrollback line, HistoryLen() the top screen row;
// the range is clipped to what exists. While the alternate screen is
// showing, its rows are the screen rows.
func (e *Emulator) Lines(from, to int) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	from, to = max(from, 0), min(to, e.hist.n+e.rows)
	if from >= to {
		return nil
	}
	out := make([]string, 0, to-from)
	var buf []byte
	for i := from; i < to; i++ {
		buf = e.lineTextLocked(buf[:0], i)
		out = append(out, string(buf))
	}
	return out
}

// ScreenLines returns the visible rows as text, right-trimmed.
func (e *Emulator) ScreenLines() []string {
	e.mu.Lock()
	n := e.hist.n
	rows := e.rows
	e.mu.Unlock()
	return e.Lines(n, n+rows)
}

// lineTextLocked appends the right-trimmed text of absolute row i.
func (e *Emulator) lineTextLocked(buf []byte, i int) []byte {
	if i < e.hist.n {
		buf = append(buf, e.hist.at(i).text()...)
	} else {
		r := e.cur.rows[i-e.hist.n]
		for _, c := range r.cells[:r.used] {
			if c.Attrs&attrWideCont == 0 {
				buf = e.appendGrapheme(buf, c.Char)
			}
		}
	}
	return bytes.TrimRight(buf, " ")
}

// TextWindow is a page of terminal text, as returned by [Emulator.ReadText].
type TextWindow struct {
	Text       string // the lines joined with "\n"
	Lines      int    // lines in Text
	TotalLines int    // lines available (scrollback + screen, trailing empty rows dropped)
	EOF        bool   // the window reaches the oldest line
	Generation uint64 // output generation the text was read at
}

// ErrOffsetRange is returned by [Emulator.ReadText] for an offset past the
// oldest line.
var ErrOffsetRange = errors.New("offset out of range")

// ReadText returns up to lines rows ending offset rows before the newest
// one. Rows are physical (soft-wrapped lines appear as several rows),
// right-trimmed; trailing empty rows are not counted. On the alternate
// screen only its rows are visible, as in full-screen programs.
func (e *Emulator) ReadText(lines, offset int) (TextWindow, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	first := 0
	if e.cur == e.alt {
		first = e.hist.n
	}
	last := e.hist.n + e.rows // exclusive
	var buf []byte
	for last > first {
		buf = e.lineTextLocked(buf[:0], last-1)
		if len(buf) > 0 {
			break
		}
		last--
	}
	total := last - first
	w := TextWindow{TotalLines: total, Generation: e.gen}
	if offset < 0 || offset > total {
		return w, fmt.Errorf("%w: offset %d (total_lines=%d)", ErrOffsetRange, offset, total)
	}
	end := first + total - offset
	start := max(first, end-max(lines, 0))
	w.EOF = start == first
	// Size the text first (scrollback lines exactly, screen rows by
	// their cells; wider characters grow it), so that it is built in one
	// allocation and not copied again.
	size := max(end-start-1, 0)
	for i := start; i < end; i++ {
		if i < e.hist.n {
			size += len(e.hist.at(i).text())
		} else {
			size += e.cur.rows[i-e.hist.n].used
		}
	}
	var b strings.Builder
	b.Grow(size)
	for i := start; i < end; i++ {
		if i > start {
			b.WriteByte('\n')
		}
		if i < e.hist.n {
			b.Write(bytes.TrimRight(e.hist.at(i).text(), " "))
			continue
		}
		buf = e.lineTextLocked(buf[:0], i)
		b.Write(buf)
	}
	w.Text, w.Lines = b.String(), end-start
	return w, nil
}

// Match is one row found by [Emulator.Search].
type Match struct {
	// Line is the row's grid coordinate: 0..rows-1 on the screen, negative
	// in the scrollback (-1 is the newest scrollback line).
	Line int
	Text string // the row, right-trimmed
}

// Search finds rows containing pattern, case-insensitively, over the whole
// scrollback and screen, top to bottom, one physical row at a time. It
// returns at most max matches (max < 1 means 1) and whether more existed.
func (e *Emulator) Search(pattern string, max int) ([]Match, bool) {
	if max < 1 {
		max = 1
	}
	if pattern == "" {
		return nil, false
	}
	lower := []byte(strings.ToLower(pattern))
	ascii := isASCII(lower)
	e.mu.Lock()
	defer e.mu.Unlock()
	first := 0
	if e.cur == e.alt {
		first = e.hist.n
	}
	var out []Match
	var buf, low []byte
	for i := first; i < e.hist.n+e.rows; i++ {
		buf = e.lineTextLocked(buf[:0], i)
		var hit bool
		if ascii && isASCII(buf) {
			hit = containsFoldASCII(buf, lower)
		} else {
			low = append(low[:0], strings.ToLower(string(buf))...)
			hit = bytes.Contains(low, lower)
		}
		if !hit {
			continue
		}
		if len(out) == max {
			return out, true
		}
		out = append(out, Match{Line: i - e.hist.n, Text: string(buf)})
	}
	return out, false
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// containsFoldASCII reports whether lowercase pattern p occurs in s,
// ignoring ASCII case.
func containsFoldASCII(s, p []byte) bool {
	if len(p) == 0 {
		return true
	}
	first := p[0]
	for i := 0; i+len(p) <= len(s); i++ {
		if lowerASCII(s[i]) != first {
			continue
		}
		j := 1
		for j < len(p) && lowerASCII(s[i+j]) == p[j] {
			j++
		}
		if j == len(p) {
			return true
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
