package terminal

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
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
//
// A literal query (ASCII, or not folded) is found with [finder], which
// looks for the literal's rarest byte with bytes.IndexByte and never
// lower-cases the text. A regular expression with a literal every match
// must contain (`needle-\d+` has "needle-") is run only on the lines that
// hold that literal. Folding an ASCII literal matches ASCII letters only
// (the regular expression (?i)k also matches the Kelvin sign; a
// line where only such a fold makes the match is not a candidate).
type Query struct {
	fold bool
	// find finds the literal of a literal query, or the literal every
	// match of re holds (re's prefilter); nil for a regular expression
	// without one.
	find *finder
	re   *regexp.Regexp // regular expressions and non-ASCII folded literals
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
		if lit, fold := requiredLiteral(expr); lit != "" {
			q.find = newFinder([]byte(lit), fold)
		}
	case !q.fold || isASCII([]byte(pattern)):
		q.find = newFinder([]byte(pattern), q.fold)
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
	starts []uint32
}

func (t *textBuf) reset() {
	t.b, t.starts = t.b[:0], t.starts[:0]
}

// truncate keeps the first n lines.
func (t *textBuf) truncate(n int) {
	if n < len(t.starts) {
		t.b, t.starts = t.b[:t.starts[n]], t.starts[:n]
	}
}

// endLine ends the line being appended to t.b.
func (t *textBuf) endLine() { t.b = append(t.b, '\n') }

// startLine starts a new line.
func (t *textBuf) startLine() { t.starts = append(t.starts, uint32(len(t.b))) }

// lineText returns line i of text b (lines each ended by '\n', starting
// at starts) without its '\n'.
func lineText(b []byte, starts []uint32, i int) []byte {
	end := len(b)
	if i+1 < len(starts) {
		end = int(starts[i+1])
	}
	return b[starts[i] : end-1]
}

// scan calls fn for each line of b (lines each ended by '\n', starting
// at starts) from line first on with a match, in order, with the spans of
// every match in the line, until fn returns false. fn must not keep
// spans (the slice is reused).
func (q *Query) scan(b []byte, starts []uint32, first int, fn func(line int, spans []Span) bool) {
	if first >= len(starts) {
		return
	}
	var spans []Span
	pos := int(starts[first])
	for pos < len(b) {
		var at, end int
		if q.find != nil {
			i := q.find.index(b[pos:])
			if i < 0 {
				return
			}
			at, end = pos+i, pos+i+len(q.find.lit)
		} else {
			loc := q.re.FindIndex(b[pos:])
			if loc == nil || pos+loc[0] == len(b) {
				return // (an empty match after the last line's '\n' is on no line)
			}
			at, end = pos+loc[0], pos+loc[1]
		}
		line, _ := slices.BinarySearch(starts, uint32(at)+1)
		line--
		start := int(starts[line])
		text := lineText(b, starts, line)
		spans = q.lineSpans(spans[:0], text, at-start, min(end-start, len(text)))
		if len(spans) > 0 && !fn(line, spans) {
			return
		}
		pos = start + len(text) + 1
	}
}

// lineSpans appends the spans of every match in text, given one found at
// [at, end) over the whole buffer: by the literal finder, or by the
// regular expression (a match that ran past the end of the line was cut
// there). With a prefilter, the literal at [at, end) is only a candidate:
// the regular expression decides, and may find none.
func (q *Query) lineSpans(dst []Span, text []byte, at, end int) []Span {
	if q.re != nil {
		for _, loc := range q.re.FindAllIndex(text, -1) {
			dst = append(dst, Span{loc[0], loc[1]})
		}
		if len(dst) == 0 && q.find == nil {
			dst = append(dst, Span{at, end})
		}
		return dst
	}
	dst = append(dst, Span{at, end})
	n := len(q.find.lit)
	for p := end; ; {
		i := q.find.index(text[p:])
		if i < 0 {
			return dst
		}
		dst = append(dst, Span{p + i, p + i + n})
		p += i + n
	}
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

// findChunk is how many scrollback lines Find copies per hold of the
// emulator's lock: output waits for one chunk at most (a few hundred
// microseconds), not for a whole scrollback.
const findChunk = 2048

// Find searches everything the emulator holds for q: the scrollback and
// the main screen, top to bottom (even while a full-screen program hides
// them), the alternate screen if it shows, then the screens of the
// [ScreenHistory], oldest first (the alternate screen showing now is
// not repeated when the history holds it). It returns at most limit lines
// (limit < 1 means 1) and whether more matched. The emulator's lock is
// held findChunk scrollback lines at a time: a query with a literal (a
// literal query, or a regular expression's required literal) looks for
// it where the scrollback stores its lines, under the lock, copying only
// the lines that hold it (no copy of the whole scrollback); other
// regular expressions copy the text and match outside the lock. Find is
// safe for concurrent use.
func (e *Emulator) Find(q *Query, limit int) (found []Found, more bool) {
	limit = max(limit, 1)
	t := findBufs.Get().(*textBuf)
	defer findBufs.Put(t)
	t.reset()
	add := func(f Found) bool {
		if len(found) == limit {
			more = true
			return false
		}
		found = append(found, f)
		return true
	}
	var alt []byte
	var onAlt bool
	if q.find != nil && bytes.IndexByte(q.find.lit, '\n') < 0 {
		// The literal is looked for where the scrollback's lines are
		// stored; only the screen's rows are copied.
		var sb []Found
		sb, alt, onAlt = e.findInPlace(q, limit+1, t)
		for _, f := range sb {
			if !add(f) {
				return found, more
			}
		}
		q.scan(t.b, t.starts, 0, func(line int, spans []Span) bool {
			return add(Found{Source: FoundScreen, Line: line, Text: string(lineText(t.b, t.starts, line)), Spans: bytes2spans(spans)})
		})
	} else {
		var first, hn int
		first, hn, alt, onAlt = e.copyText(t)
		q.scan(t.b, t.starts, first, func(line int, spans []Span) bool {
			f := Found{Source: FoundScrollback, Line: line - first - hn, Text: string(lineText(t.b, t.starts, line)), Spans: bytes2spans(spans)}
			if line-first >= hn {
				f.Source = FoundScreen
			}
			return add(f)
		})
	}
	if more {
		return found, more
	}
	if onAlt && !e.shots.holds(alt) {
		t.reset()
		t.addText(alt)
		q.scan(t.b, t.starts, 0, func(line int, spans []Span) bool {
			return add(Found{Source: FoundAltScreen, Line: line, Text: string(lineText(t.b, t.starts, line)), Spans: bytes2spans(spans)})
		})
	}
	if more || e.shots == nil {
		return found, more
	}
	e.shots.find(q, add)
	return found, more
}

// copyText copies the scrollback's and the main screen's lines into t,
// each right-trimmed, and the alternate screen's text when it shows.
// Scrollback lines are copied findChunk at a time, the lock released in
// between; lines that left the scrollback meanwhile are not searched:
// they are t's lines before first. hn is how many scrollback lines follow
// (then the screen's rows).
func (e *Emulator) copyText(t *textBuf) (first, hn int, alt []byte, onAlt bool) {
	e.mu.Lock()
	// Room for everything at once: the blocks hold the lines' text (and
	// their styles, a little more than needed).
	size := len(e.main.rows) * (e.cols + 1)
	for _, b := range e.hist.blocks {
		size += len(b)
	}
	t.b = slices.Grow(t.b, size)
	t.starts = slices.Grow(t.starts, e.hist.n+len(e.main.rows))
	// Lines are numbered from the first line the scrollback ever held
	// (hist.dropped counts those that left it): abs0 is t's first line.
	abs0 := e.hist.dropped
	next := abs0
	for {
		base, n := e.hist.dropped, uint64(e.hist.n)
		switch {
		case next < base:
			// Everything copied left (a reset, or output that evicted it).
			t.reset()
			abs0, next = base, base
		case next > base+n:
			// Newest lines pulled back onto a taller screen.
			if base+n < abs0 {
				t.reset()
				abs0 = base
			} else {
				t.truncate(int(base + n - abs0))
			}
			next = base + n
		}
		end := min(next-base+findChunk, n)
		for i := next - base; i < end; i++ {
			t.startLine()
			t.b = append(t.b, bytes.TrimRight(e.hist.at(int(i)).text(), " ")...)
			t.endLine()
		}
		next = base + end
		if end == n {
			first, hn = int(base-abs0), int(n)
			break
		}
		e.mu.Unlock()
		e.mu.Lock()
	}
	alt, onAlt = e.copyScreenLocked(t)
	e.mu.Unlock()
	return first, hn, alt, onAlt
}

// findInPlace finds q's literal (q.find, without '\n') in the
// scrollback's lines where the scrollback stores them, findChunk lines
// per hold of the emulator's lock, and returns up to limit of the lines
// that match, oldest first (Line set as Find sets it, from the scrollback
// at the end); then it copies the main screen's rows into t, and the
// alternate screen's text when it shows. Lines that left the scrollback
// while the lock was released are not returned; with output evicting
// lines meanwhile, fewer than limit may be returned although more
// matched.
func (e *Emulator) findInPlace(q *Query, limit int, t *textBuf) (found []Found, alt []byte, onAlt bool) {
	type hit struct {
		abs uint64 // the line's number from the first line the scrollback ever held
		f   Found
	}
	var hits []hit
	var spans []Span
	n := len(q.find.lit)
	e.mu.Lock()
	h := &e.hist
	next := h.dropped
	for {
		base, held := h.dropped, uint64(h.n)
		if next > base+held {
			// Newest lines pulled back onto a taller screen.
			for len(hits) > 0 && hits[len(hits)-1].abs >= base+held {
				hits = hits[:len(hits)-1]
			}
			next = base + held
		}
		next = max(next, base) // lines that left meanwhile are not searched
		end := int(min(next-base+findChunk, held))
		for i := int(next - base); i < end && len(hits) < limit; {
			// Lines i..k are back to back in one block: look for the
			// literal in their bytes (texts, styles and trailers), and
			// take a place found only inside a line's right-trimmed text.
			r := h.ref(i)
			b := h.blocks[r.blk-h.base]
			k := i
			for k+1 < end && h.ref(k+1).blk == r.blk {
				k++
			}
			last := h.at(k)
			segEnd := int(h.ref(k).off) + len(last)
			for pos := int(r.off); pos < segEnd && len(hits) < limit; {
				j := q.find.index(b[pos:segEnd])
				if j < 0 {
					break
				}
				p := pos + j
				x := i + sort.Search(k-i+1, func(m int) bool { return int(h.ref(i+m).off) > p }) - 1
				l, start := h.at(x), int(h.ref(x).off)
				text := bytes.TrimRight(l.text(), " ")
				if p+n <= start+len(text) {
					spans = q.lineSpans(spans[:0], text, p-start, p-start+n)
					if len(spans) > 0 {
						hits = append(hits, hit{base + uint64(x), Found{Source: FoundScrollback, Text: string(text), Spans: bytes2spans(spans)}})
					}
				}
				// Past this line: a later place in it would end past its
				// text too.
				pos = start + len(l)
			}
			i = k + 1
		}
		next = base + uint64(end)
		if end == int(held) || len(hits) == limit {
			break
		}
		e.mu.Unlock()
		e.mu.Lock()
	}
	base, held := h.dropped, uint64(h.n)
	for _, ht := range hits {
		if ht.abs >= base && ht.abs < base+held {
			ht.f.Line = int(ht.abs-base) - int(held)
			found = append(found, ht.f)
		}
	}
	alt, onAlt = e.copyScreenLocked(t)
	e.mu.Unlock()
	return found, alt, onAlt
}

// copyScreenLocked appends the main screen's rows to t, each
// right-trimmed, and returns the alternate screen's text when it shows.
func (e *Emulator) copyScreenLocked(t *textBuf) (alt []byte, onAlt bool) {
	for _, r := range e.main.rows {
		t.startLine()
		t.b = e.appendRowText(t.b, r)
		t.endLine()
	}
	if onAlt = e.cur == e.alt; onAlt {
		alt = e.altTextLocked(nil)
	}
	return alt, onAlt
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
	return h.findLocked(text, sum) >= 0
}
