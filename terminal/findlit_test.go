package terminal

import (
	"bytes"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestFinder: the finder finds what bytes.Index finds (on lower-cased
// text when folding), on random text over a small alphabet so that
// near-misses are common.
func TestFinder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 34))
	const alphabet = "abAB-e E1\n"
	randText := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return b
	}
	for range 3000 {
		hay := randText(r.IntN(200))
		lit := randText(1 + r.IntN(4))
		for _, fold := range []bool{false, true} {
			want := bytes.Index(hay, lit)
			if fold {
				want = bytes.Index(bytes.ToLower(hay), bytes.ToLower(lit))
			}
			if got := newFinder(lit, fold).index(hay); got != want {
				t.Fatalf("finder(%q, fold %v).index(%q) = %d, want %d", lit, fold, hay, got, want)
			}
		}
	}
}

func TestRequiredLiteral(t *testing.T) {
	for _, tc := range []struct {
		expr, lit string
		fold      bool
	}{
		{`needle-\d+`, "needle-", false},
		{`(?i)needle-\d+`, "needle-", true},
		{`\d+ (error|warning): .*failed`, "failed", false},
		{`(ab)+cd`, "ab", false},
		{`x{2,}`, "x", false},
		{`a|b`, "", false},
		{`\w+`, "", false},
		{`(?i)école`, "", false}, // folded and not ASCII: not used
		{`école \d`, "école ", false},
		{`colou?r`, "colo", false},
	} {
		lit, fold := requiredLiteral(tc.expr)
		if tc.fold {
			lit = strings.ToLower(lit) // the parser upper-cases folded literals
		}
		if lit != tc.lit || (lit != "" && fold != tc.fold) {
			t.Errorf("requiredLiteral(%q) = %q, %v; want %q, %v", tc.expr, lit, fold, tc.lit, tc.fold)
		}
	}
}

// TestFindRegexPrefilter: a regular expression with a required literal
// finds exactly the lines and spans the expression alone finds.
func TestFindRegexPrefilter(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 34))
	words := []string{"err", "error", "ERROR", "x1", "12", "failed", "fail", "-", " "}
	e := NewEmulator(60, 5, EmulatorOptions{Scrollback: 5000})
	var lines []string
	for range 3000 {
		var b []byte
		for range 1 + r.IntN(8) {
			b = append(b, words[r.IntN(len(words))]...)
			b = append(b, ' ')
		}
		l := string(bytes.TrimRight(b[:min(len(b), 60)], " "))
		lines = append(lines, l)
		e.Write([]byte(l + "\r\n"))
	}
	for _, expr := range []string{`error \d+`, `(?i)error x\d`, `fail(ed)? -`, `err(or)?\s+12`} {
		q, err := NewQuery(expr, true, CaseSensitive)
		if err != nil {
			t.Fatal(err)
		}
		if q.find == nil {
			t.Fatalf("%q: no prefilter", expr)
		}
		found, _ := e.Find(q, 10000)
		re := regexp.MustCompile(expr)
		var want []string
		for _, l := range lines {
			if re.MatchString(l) {
				want = append(want, l)
			}
		}
		if len(found) != len(want) {
			t.Fatalf("%q: found %d lines, want %d", expr, len(found), len(want))
		}
		for i, f := range found {
			locs := re.FindAllStringIndex(f.Text, -1)
			if f.Text != want[i] || len(f.Spans) != len(locs) || f.Spans[0] != (Span{locs[0][0], locs[0][1]}) {
				t.Fatalf("%q: match %d = %q %v, want %q %v", expr, i, f.Text, f.Spans, want[i], locs)
			}
		}
	}
}
