package terminal

import (
	"strings"
	"testing"
)

// TestPrintableRun checks the word-at-a-time scan against the definition
// for every byte value at every position of a word.
func TestPrintableRun(t *testing.T) {
	want := func(p []byte) int {
		for i, c := range p {
			if c < 0x20 || c > 0x7e {
				return i
			}
		}
		return len(p)
	}
	buf := []byte(strings.Repeat("abcdefgh", 4))
	for pos := range len(buf) {
		for c := range 256 {
			p := append([]byte(nil), buf...)
			p[pos] = byte(c)
			for _, q := range [][]byte{p, p[:pos+1], p[1:]} {
				if g, w := printableRun(q), want(q); g != w {
					t.Fatalf("printableRun(%q) = %d, want %d", q, g, w)
				}
			}
		}
	}
}
