package terminal

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

func TestNewQueryCase(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		regex   bool
		mode    CaseMode
		fold    bool
	}{
		{"error", false, CaseSmart, true},
		{"Error", false, CaseSmart, false},
		{`\Werror\S`, true, CaseSmart, true}, // escapes are not upper-case letters
		{`\WError`, true, CaseSmart, false},
		{`\\W`, false, CaseSmart, false}, // a literal backslash then W
		{"ÉCOLE", false, CaseSmart, false},
		{"Error", false, CaseInsensitive, true},
		{"error", false, CaseSensitive, false},
	} {
		q, err := NewQuery(tc.pattern, tc.regex, tc.mode)
		if err != nil {
			t.Fatalf("NewQuery(%q): %v", tc.pattern, err)
		}
		if q.Folded() != tc.fold {
			t.Errorf("NewQuery(%q, regex %v, mode %d).Folded() = %v, want %v", tc.pattern, tc.regex, tc.mode, q.Folded(), tc.fold)
		}
	}
	if _, err := NewQuery("", false, CaseSmart); err != ErrEmptyPattern {
		t.Errorf("empty pattern: %v, want ErrEmptyPattern", err)
	}
	if _, err := NewQuery("a(b", true, CaseSmart); err == nil || !strings.Contains(err.Error(), "missing closing )") {
		t.Errorf("bad regex: %v, want the compiler's reason", err)
	}
}

// findAll runs Find and renders each result as "source line[screen]: text [spans]".
func findAll(e *Emulator, pattern string, regex bool, limit int) ([]string, bool) {
	q, err := NewQuery(pattern, regex, CaseSmart)
	if err != nil {
		panic(err)
	}
	found, more := e.Find(q, limit)
	var out []string
	for _, f := range found {
		s := fmt.Sprintf("%s %d", f.Source, f.Line)
		if f.Screen != 0 {
			s += fmt.Sprintf("#%d", f.Screen)
		}
		out = append(out, fmt.Sprintf("%s: %s %v", s, f.Text, f.Spans))
	}
	return out, more
}

func TestFind(t *testing.T) {
	e := NewEmulator(30, 3, EmulatorOptions{})
	e.Write([]byte("one Error here\r\nerror error\r\nnothing\r\nlast ERROR\r\n"))
	e.Write([]byte("\x1b[?1049hfirst screen error\x1b[H\x1b[2J"))
	e.RecordScreen() // empty: not stored
	e.Write([]byte("éCole error\r\nrow two"))
	e.RecordScreen()
	e.Write([]byte("\x1b[H\x1b[2Jnow showing error"))

	for _, tc := range []struct {
		name    string
		pattern string
		regex   bool
		want    []string
	}{
		{"smart case folds", "error", false, []string{
			"scrollback -2: one Error here [{4 9}]",
			"scrollback -1: error error [{0 5} {6 11}]",
			"screen 1: last ERROR [{5 10}]",
			"alt_screen 0: now showing error [{12 17}]",
			"history 0#1: éCole error [{7 12}]",
		}},
		{"upper case is exact", "Error", false, []string{"scrollback -2: one Error here [{4 9}]"}},
		{"non-ASCII folds", "école", false, []string{"history 0#1: éCole error [{0 6}]"}},
		{"regex", `^\w+ error$`, true, []string{ // \w is ASCII, as in RE2
			"scrollback -1: error error [{0 11}]",
			"screen 1: last ERROR [{0 10}]",
		}},
		{"regex anchors per line", `^last`, true, []string{"screen 1: last ERROR [{0 4}]"}},
		{"regex metacharacters are literal otherwise", "e.r", false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, more := findAll(e, tc.pattern, tc.regex, 100)
			if more || strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("Find(%q) =\n%s\n(more %v); want\n%s", tc.pattern, strings.Join(got, "\n"), more, strings.Join(tc.want, "\n"))
			}
		})
	}

	got, more := findAll(e, "error", false, 2)
	if len(got) != 2 || !more {
		t.Fatalf("limit 2: %d results, more %v; want 2, true", len(got), more)
	}
}

// TestFindAltHeld: the alternate screen showing now is not reported
// twice when the history holds it already.
func TestFindAltHeld(t *testing.T) {
	e := NewEmulator(30, 3, EmulatorOptions{})
	e.Write([]byte("\x1b[?1049hsettled text"))
	e.RecordScreen()
	got, _ := findAll(e, "settled", false, 10)
	if want := "history 0#1: settled text [{0 7}]"; len(got) != 1 || got[0] != want {
		t.Fatalf("Find = %q, want [%s]", got, want)
	}
}

// TestFindWide: wide characters are one cell but their bytes count in
// the spans, which index Text.
func TestFindWide(t *testing.T) {
	e := NewEmulator(30, 3, EmulatorOptions{})
	e.Write([]byte("日本 needle"))
	got, _ := findAll(e, "needle", false, 10)
	if want := "screen 0: 日本 needle [{7 13}]"; len(got) != 1 || got[0] != want {
		t.Fatalf("Find = %q, want [%s]", got, want)
	}
}

// TestFindChunks: a scrollback longer than the chunk Find copies at a
// time is searched whole, its lines numbered as surface.search does.
func TestFindChunks(t *testing.T) {
	n := 3*findChunk + 100
	e := NewEmulator(40, 4, EmulatorOptions{Scrollback: n})
	for i := range n + 3 {
		l := fmt.Sprintf("line %d", i)
		if i%findChunk == 7 {
			l += " marked"
		}
		e.Write([]byte(l + "\r\n"))
	}
	got, more := findAll(e, "marked", false, 100)
	want := []string{
		fmt.Sprintf("scrollback %d: line 7 marked [{7 13}]", 7-n),
		fmt.Sprintf("scrollback %d: line %d marked [{%d %d}]", findChunk+7-n, findChunk+7, 10, 16),
		fmt.Sprintf("scrollback %d: line %d marked [{%d %d}]", 2*findChunk+7-n, 2*findChunk+7, 10, 16),
		fmt.Sprintf("scrollback %d: line %d marked [{%d %d}]", 3*findChunk+7-n, 3*findChunk+7, 10, 16),
	}
	if more || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Find = %q (more %v), want %q", got, more, want)
	}
}

// TestFindWhileWriting: Find runs while output scrolls lines out of a
// full scrollback; every line it returns is one that was written, with
// its match (run with -race: the copy is chunked under the lock).
func TestFindWhileWriting(t *testing.T) {
	e := NewEmulator(40, 4, EmulatorOptions{Scrollback: findChunk + 50})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 20000 {
			e.Write([]byte(fmt.Sprintf("line %d marked\r\n", i)))
		}
	}()
	q, _ := NewQuery("marked", false, CaseSmart)
	for {
		found, _ := e.Find(q, 10000)
		for _, f := range found {
			var n int
			if _, err := fmt.Sscanf(f.Text, "line %d marked", &n); err != nil || f.Spans[0].End-f.Spans[0].Start != 6 {
				t.Fatalf("found %+v", f)
			}
		}
		select {
		case <-done:
			return
		default:
		}
	}
}

// TestScanEmptyMatchAtEnd: a regular expression matching the empty text
// after the last line's '\n' matches no line (it was reported as a
// match on the last line).
func TestScanEmptyMatchAtEnd(t *testing.T) {
	var tb textBuf
	tb.addText([]byte("a\n\nb"))
	for _, tc := range []struct {
		pattern string
		want    []int
	}{{"^$", []int{1}}, {"$", []int{0, 1, 2}}, {"x*", []int{0, 1, 2}}} {
		q, err := NewQuery(tc.pattern, true, CaseSensitive)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		q.scan(tb.b, tb.starts, 0, func(line int, _ []Span) bool {
			got = append(got, line)
			return true
		})
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%q matched lines %v, want %v", tc.pattern, got, tc.want)
		}
	}
}

// TestFindInPlace: a literal looked for where the scrollback stores its
// lines (texts, style runs and trailers back to back) finds exactly the
// lines a search of their text finds: not a place in a line's styles or
// trailer, nor one running into the next line or into trailing blanks;
// with the limit, the oldest lines and more. Styles are random SGR
// colours and styled trailing blanks, so their encoded bytes hold every byte value.
func TestFindInPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 2))
	words := []string{"mark", "ma", "rk", "MARK", "x", "é", "漢字", "mar"}
	e := NewEmulator(30, 3, EmulatorOptions{Scrollback: 5000})
	var lines []string
	for range 3000 {
		var plain, out strings.Builder
		for plain.Len() < 20 {
			w := words[r.IntN(len(words))]
			if r.IntN(3) == 0 {
				fmt.Fprintf(&out, "\x1b[38;2;%d;%d;%dm", r.IntN(256), r.IntN(256), r.IntN(256))
			}
			plain.WriteString(w + " ")
			out.WriteString(w + " ")
		}
		if r.IntN(2) == 0 {
			out.WriteString("\x1b[41m   ") // blanks kept as cells (styled), trimmed by a search
		}
		out.WriteString("\x1b[m")
		lines = append(lines, strings.TrimRight(plain.String(), " "))
		e.Write([]byte(out.String() + "\r\n"))
	}
	for _, tc := range []struct {
		pattern string
		regex   bool
		mode    CaseMode
	}{
		{"mark", false, CaseSensitive}, {"mark", false, CaseInsensitive}, {"rk ma", false, CaseSensitive},
		{"k m", false, CaseSensitive}, {"mar ", false, CaseSensitive}, {"é 漢", false, CaseSensitive},
		{`mark \S+ x`, true, CaseSensitive},
	} {
		q, err := NewQuery(tc.pattern, tc.regex, tc.mode)
		if err != nil || q.find == nil {
			t.Fatalf("%q: %v, literal %v", tc.pattern, err, q.find)
		}
		re := regexp.MustCompile(map[bool]string{false: "", true: "(?i)"}[tc.mode == CaseInsensitive] + map[bool]string{false: regexp.QuoteMeta(tc.pattern), true: tc.pattern}[tc.regex])
		// The last two lines are on the screen (its third row is empty).
		var want []string
		all := 0
		for i, l := range lines {
			if re.MatchString(l) {
				all++
				if i < len(lines)-2 {
					want = append(want, fmt.Sprintf("%d %q", i-(len(lines)-2), l))
				}
			}
		}
		for _, limit := range []int{5000, 3} {
			found, more := e.Find(q, limit)
			var got []string
			for _, f := range found {
				if f.Source == FoundScrollback {
					got = append(got, fmt.Sprintf("%d %q", f.Line, f.Text))
				}
			}
			w := want
			if len(w) > limit {
				w = w[:limit]
			}
			if len(w) == 0 || fmt.Sprint(got) != fmt.Sprint(w) || more != (all > limit) {
				t.Errorf("%q limit %d: %d lines (more %v), want %d of %d\n got %v\nwant %v", tc.pattern, limit, len(got), more, len(w), len(want), got, w)
			}
		}
	}
	// A literal that ends in a line's trailing blanks (styled, so kept
	// as cells) is not in its right-trimmed text.
	e = NewEmulator(30, 3, EmulatorOptions{Scrollback: 50})
	e.Write([]byte("ab mar \x1b[41m   \x1b[m\r\nx\r\ny\r\nz\r\n"))
	if got, _ := findAll(e, "mar ", false, 10); len(got) != 0 {
		t.Errorf("found %q in trailing blanks", got)
	}
}
