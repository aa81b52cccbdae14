package terminal

import (
	"fmt"
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

// BenchmarkFind searches a pane of 10,000 scrollback lines of 120
// characters and 1,000 history screens (80×24) for a literal that occurs
// once, smart case.
func BenchmarkFind(b *testing.B) {
	e := findBenchPane(b)
	q, _ := NewQuery("needle-4242", false, CaseSmart)
	b.ResetTimer()
	for range b.N {
		if found, _ := e.Find(q, 100); len(found) != 2 {
			b.Fatalf("found %d, want 2", len(found))
		}
	}
}

// findBenchPane fills an emulator with 10,000 scrollback lines and 1,000
// history screens; "needle-4242" is on one of each.
func findBenchPane(b *testing.B) *Emulator {
	e := NewEmulator(120, 24, EmulatorOptions{ScreenHistoryBytes: 64 << 20})
	pad := strings.Repeat("lorem ipsum dolor sit amet ", 3) // lines fit 120 columns: a wrapped line is two rows
	for i := range 10000 {
		e.Write([]byte(fmt.Sprintf("%06d %s needle-%d\r\n", i, pad, i)))
	}
	e.Write([]byte("\x1b[?1049h"))
	for i := range 1000 {
		e.Write([]byte(fmt.Sprintf("\x1b[H\x1b[2Jscreen %d needle-%d\r\n%s", i, i+4000, pad)))
		e.RecordScreen()
	}
	e.Write([]byte("\x1b[?1049l"))
	if n := e.ScreenHistory().Len(); n != 1000 {
		b.Fatalf("history holds %d screens, want 1000", n)
	}
	return e
}
