package terminal

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"sync"
	"time"
	"unicode"
)

// CaseMode says how a [Query] treats letter case.
type CaseMode uint8

const (
	// CaseSmart is ripgrep's smart case: case-insensitive unless the
	// pattern has an upper-case letter (in a regular expression, one
	// that is not part of an escape such as \W or \S).
	CaseSmart CaseMode = iota
	// CaseSensitive matches case exactly.
	CaseSensitive
	// CaseInsensitive ignores case.
	CaseInsensitive
)

// Query is a compiled search for [Emulator.Find]: a literal text or a
// regular expression (Go's RE2 syntax), matched within one line at a time.
// Build it with [NewQuery]; it is immutable and safe for concurrent use.
type Query struct {
	fold  bool
	lit   []byte         // literal search (lower-cased when ascii)
	ascii bool           // lit is ASCII and fold: match against lower-cased text
	re    *regexp.Regexp // regular expressions and non-ASCII folded literals
}

// ErrEmptyPattern is returned by [NewQuery] for an empty pattern.
var ErrEmptyPattern = errors.New("empty pattern")

// NewQuery compiles pattern: a literal text, or a regular expression when
// regex is set, with letter case treated as mode says. A regular
// expression that does not compile is an error naming the problem.
func NewQuery(pattern string, regex bool, mode CaseMode) (*Query, error) {
	if pattern == "" {
		return nil, ErrEmptyPattern
	}
	q := &Query{fold: mode == CaseInsensitive || (mode == CaseSmart && !hasUpper(pattern, regex))}
	switch {
	case regex:
		// Compiled alone first, so that an error quotes the user's pattern.
		if _, err := regexp.Compile(pattern); err != nil {
			return nil, fmt.Errorf("regular expression: %w", err)
		}
		expr := "(?m)" + pattern
		if q.fold {
			expr = "(?i)" + expr
		}
		q.re = regexp.MustCompile(expr)
	case !q.fold:
		q.lit = []byte(pattern)
	case isASCII([]byte(pattern)):
		q.lit, q.ascii = bytes.ToLower([]byte(pattern)), true
	default:
		q.re = regexp.MustCompile("(?i)" + regexp.QuoteMeta(pattern))
	}
	return q, nil
}

// Folded reports whether the query ignores case (after smart case).
func (q *Query) Folded() bool { return q.fold }

// hasUpper reports whether pattern has an upper-case letter; in a regular
// expression, letters right after a backslash are escapes and not counted.
func hasUpper(pattern string, regex bool) bool {
	esc := false
	for _, r := range pattern {
		switch {
		case esc:
			esc = false
		case regex && r == '\\':
			esc = true
		case unicode.IsUpper(r):
			return true
		}
	}
	return false
}

// Span is a match within a line: byte offsets [Start, End) of its text.
type Span struct{ Start, End int }

// textBuf is lines of text back to back, each followed by '\n', with the
// offset where each starts.
type textBuf struct {
	b      []byte
	starts []int
	low    []byte // b lower-cased (ASCII letters only), for ASCII folding
}

func (t *textBuf) reset() {
	t.b, t.starts = t.b[:0], t.starts[:0]
}

// endLine ends the line being appended to t.b.
func (t *textBuf) endLine() { t.b = append(t.b, '\n') }

// startLine starts a new line.
func (t *textBuf) startLine() { t.starts = append(t.starts, len(t.b)) }

// line returns line i without its '\n'.
func (t *textBuf) line(i int) []byte {
	end := len(t.b) - 1
	if i+1 < len(t.starts) {
		end = t.starts[i+1] - 1
	}
	return t.b[t.starts[i]:end]
}

// scan calls fn for each line of t with a match, in order, with the
// spans of every match in the line, until fn returns false.
func (q *Query) scan(t *textBuf, fn func(line int, spans []Span) bool) {
	hay := t.b
	if q.ascii {
		t.low = lowerASCIIInto(t.low[:0], t.b)
		hay = t.low
	}
	var spans []Span
	pos := 0
	for pos < len(hay) {
		var at, end int
		if q.re != nil {
			loc := q.re.FindIndex(hay[pos:])
			if loc == nil {
				return
			}
			at, end = pos+loc[0], pos+loc[1]
		} else {
			i := bytes.Index(hay[pos:], q.lit)
			if i < 0 {
				return
			}
			at, end = pos+i, pos+i+len(q.lit)
		}
		line := sort.SearchInts(t.starts, at+1) - 1
		if line < 0 || line >= len(t.starts) {
			return
		}
		start := t.starts[line]
		text := hay[start : start+len(t.line(line))]
		spans = q.lineSpans(spans[:0], text, at-start, min(end-start, len(text)))
		if !fn(line, spans) {
			return
		}
		pos = start + len(text) + 1
	}
}

// lineSpans appends the spans of every match in text, the first being
// [at, end) (found over the whole buffer; a match that ran past the end
// of the line was cut there).
func (q *Query) lineSpans(dst []Span, text []byte, at, end int) []Span {
	if q.re != nil {
		for _, loc := range q.re.FindAllIndex(text, -1) {
			dst = append(dst, Span{loc[0], loc[1]})
		}
		if len(dst) == 0 {
			dst = append(dst, Span{at, end})
		}
		return dst
	}
	dst = append(dst, Span{at, end})
	for p := end; ; {
		i := bytes.Index(text[p:], q.lit)
		if i < 0 {
			return dst
		}
		dst = append(dst, Span{p + i, p + i + len(q.lit)})
		p += i + len(q.lit)
	}
}

// lowerASCIIInto appends b with ASCII letters lower-cased; other bytes,
// and so every offset, are kept.
func lowerASCIIInto(dst, b []byte) []byte {
	dst = append(dst, b...)
	for i, c := range dst {
		if c >= 'A' && c <= 'Z' {
			dst[i] = c + 'a' - 'A'
		}
	}
	return dst
}

// FindSource says where [Emulator.Find] found a line.
type FindSource uint8

const (
	// FoundScrollback is a line of the main screen's scrollback.
	FoundScrollback FindSource = iota
	// FoundScreen is a row of the main screen.
	FoundScreen
	// FoundAltScreen is a row of the alternate screen showing now.
	FoundAltScreen
	// FoundHistory is a row of a screen held in the [ScreenHistory].
	FoundHistory
)

// String returns the source's wire name: "scrollback", "screen",
// "alt_screen" or "history".
func (s FindSource) String() string {
	switch s {
	case FoundScrollback:
		return "scrollback"
	case FoundScreen:
		return "screen"
	case FoundAltScreen:
		return "alt_screen"
	}
	return "history"
}

// Found is one line [Emulator.Find] matched.
type Found struct {
	Source FindSource
	// Line is, for the scrollback and the main screen, the row's grid
	// coordinate as in [Match] (negative in the scrollback, -1 the newest
	// line; 0.. on the screen); for the alternate screen and a history
	// screen, the row on that screen (0 the top).
	Line int
	// Screen is a history screen's [ScreenRecord.Seq]; 0 otherwise.
	Screen uint64
	// Shown is when a history screen was first recorded; zero otherwise.
	Shown time.Time
	Text  string // the line, right-trimmed
	Spans []Span // every match in Text, in order
}

var findBufs = sync.Pool{New: func() any { return new(textBuf) }}

// Find searches everything the emulator holds for q: the scrollback and
// the main screen, top to bottom (even while a full-screen program hides
// them), the alternate screen if it shows, then the screens of the
// [ScreenHistory], oldest first (the alternate screen showing now is
// not repeated when the history holds it). It returns at most limit lines
// (limit < 1 means 1) and whether more matched. The emulator's lock is held
// only to copy the text; matching runs outside it.
func (e *Emulator) Find(q *Query, limit int) (found []Found, more bool) {
	limit = max(limit, 1)
	t := findBufs.Get().(*textBuf)
	defer findBufs.Put(t)
	t.reset()

	e.mu.Lock()
	hn := e.hist.n
	for i := range hn {
		t.startLine()
		t.b = append(t.b, bytes.TrimRight(e.hist.at(i).text(), " ")...)
		t.endLine()
	}
	rows := e.main.rows
	for _, r := range rows {
		t.startLine()
		t.b = e.appendRowText(t.b, r)
		t.endLine()
	}
	onAlt := e.cur == e.alt
	var alt []byte
	if onAlt {
		alt = e.altTextLocked(nil)
	}
	e.mu.Unlock()

	add := func(f Found) bool {
		if len(found) == limit {
			more = true
			return false
		}
		found = append(found, f)
		return true
	}
	q.scan(t, func(line int, spans []Span) bool {
		f := Found{Source: FoundScrollback, Line: line - hn, Text: string(t.line(line)), Spans: bytes2spans(spans)}
		if line >= hn {
			f.Source = FoundScreen
		}
		return add(f)
	})
	if more {
		return found, more
	}
	if onAlt && !e.shots.holds(alt) {
		t.reset()
		t.addText(alt)
		q.scan(t, func(line int, spans []Span) bool {
			return add(Found{Source: FoundAltScreen, Line: line, Text: string(t.line(line)), Spans: bytes2spans(spans)})
		})
	}
	if more || e.shots == nil {
		return found, more
	}
	e.shots.Screens(func(rec ScreenRecord) bool {
		t.reset()
		t.addText([]byte(rec.Text))
		q.scan(t, func(line int, spans []Span) bool {
			return add(Found{Source: FoundHistory, Line: line, Screen: rec.Seq, Shown: rec.First, Text: string(t.line(line)), Spans: bytes2spans(spans)})
		})
		return !more
	})
	return found, more
}

// appendRowText appends r's text, right-trimmed, to buf.
func (e *Emulator) appendRowText(buf []byte, r *row) []byte {
	start := len(buf)
	for _, c := range r.cells[:r.used] {
		if c.Attrs&attrWideCont == 0 {
			buf = e.appendGrapheme(buf, c.Char)
		}
	}
	return append(buf[:start], bytes.TrimRight(buf[start:], " ")...)
}

// addText appends text's lines ("\n"-separated) to t.
func (t *textBuf) addText(text []byte) {
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			i = len(text)
		}
		t.startLine()
		t.b = append(t.b, text[:i]...)
		t.endLine()
		if i == len(text) {
			return
		}
		text = text[i+1:]
	}
}

// bytes2spans copies spans (scan reuses its slice).
func bytes2spans(s []Span) []Span { return append([]Span(nil), s...) }

// holds reports whether the history holds a screen with text (false for
// a nil history).
func (h *ScreenHistory) holds(text []byte) bool {
	if h == nil {
		return false
	}
	sum := mapHash(text)
	h.mu.Lock()
	defer h.mu.Unlock()
	_, ok := h.byHash[sum]
	return ok
}
