package terminal

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// agentWords is the vocabulary of the synthetic agent session.
var agentWords = strings.Fields("the a file test build run error func return value pane screen agent tool read edit " +
	"write search result turn prompt model token commit branch merge diff patch line column index cache buffer " +
	"lock thread queue server client socket frame event hook status done failed passed")

// agentLine returns line n of a synthetic transcript: words, cols wide at
// most, deterministic in n.
func agentLine(n, cols int) string {
	r := rand.New(rand.NewPCG(uint64(n), 9))
	var b strings.Builder
	fmt.Fprintf(&b, "%5d ", n)
	for b.Len() < cols-12 {
		b.WriteString(agentWords[r.IntN(len(agentWords))])
		b.WriteByte(' ')
	}
	return strings.TrimRight(b.String(), " ")
}

// agentSession returns the output of a pane that printed lines of
// scrollback, then showed screens full screens (entering and leaving the
// alternate screen for each, so each is recorded): a transcript scrolling
// by two lines a screen, a status row that changes every screen, and an
// input box. mark is printed in scrollback line lines/2 and on screen
// screens/2 when not empty.
func agentSession(lines, screens, cols, rows int, mark string) []byte {
	var b strings.Builder
	for i := range lines {
		l := agentLine(i, cols)
		if mark != "" && i == lines/2 {
			l = l[:cols/2] + " " + mark
		}
		b.WriteString(l + "\r\n")
	}
	for s := range screens {
		b.WriteString("\x1b[?1049h\x1b[H\x1b[2J")
		for y := range rows - 2 {
			l := agentLine(1_000_000+2*s+y, cols)
			if mark != "" && s == screens/2 && y == 3 {
				l = l[:cols/2] + " " + mark
			}
			fmt.Fprintf(&b, "\x1b[%dH%s", y+1, l)
		}
		fmt.Fprintf(&b, "\x1b[%dH* Working... (%ds, %d tokens, esc to interrupt)", rows-1, s, 1000+7*s)
		fmt.Fprintf(&b, "\x1b[%dH> ", rows)
		b.WriteString("\x1b[?1049l")
	}
	return []byte(b.String())
}

// BenchmarkFind is one pane of the search benchmark (test/bench
// BenchmarkSearchAll runs 100 through the server): an 80×24 emulator with
// 10,000 lines of scrollback and 1,000 history screens, searched for a
// text found once in each.
func BenchmarkFind(b *testing.B) {
	e := NewEmulator(80, 24, EmulatorOptions{Scrollback: 10000})
	e.Write(agentSession(10024, 1000, 80, 24, "needle-42"))
	if n := e.ScreenHistory().Len(); n != 1000 {
		b.Fatalf("%d history screens, want 1000 (%d bytes, %d dropped)", n, e.ScreenHistory().Bytes(), e.ScreenHistory().Dropped())
	}
	for _, tc := range []struct {
		name, pattern string
		regex         bool
	}{
		{"literal", "needle-42", false},
		{"literal-fold", "NEEDLE-42", false},
		{"smartcase", "needle", false},
		{"regex", `needle-\d+`, true},
		{"regex-noliteral", `[n]e{2}dle-\d+`, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			mode := CaseSmart
			if tc.name == "literal-fold" {
				mode = CaseInsensitive
			}
			q, err := NewQuery(tc.pattern, tc.regex, mode)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				found, _ := e.Find(q, 200)
				if len(found) != 2 {
					b.Fatalf("found %d lines, want 2: %+v", len(found), found)
				}
			}
		})
	}
}
