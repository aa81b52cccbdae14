package terminal

import (
	"strings"
	"testing"
)

// TestInvalidUTF8BeforeControl: a lead byte cut short by a control in the
// same Write is one U+FFFD where it stands, however the bytes are split
// across Writes (vttest's Latin-1-in-GR page lost its last cell when
// 0xDF and the next CUP came in one Write).
func TestInvalidUTF8BeforeControl(t *testing.T) {
	var gr []byte
	for b := 0xc0; b <= 0xdf; b++ {
		gr = append(gr, byte(b))
	}
	in := append(append([]byte("\x1b[6;10H"), gr...), "\x1b[7;10Hx"...)
	want := strings.Repeat("\ufffd", 32)
	for i := 0; i <= len(in); i++ {
		for j := i; j <= len(in); j++ {
			e := NewEmulator(80, 24, EmulatorOptions{})
			_, _ = e.Write(in[:i])
			_, _ = e.Write(in[i:j])
			_, _ = e.Write(in[j:])
			if got := strings.TrimSpace(e.Lines(5, 6)[0]); got != want {
				t.Fatalf("written as %d, %d, %d bytes: row 6 is %q, want 32 × U+FFFD", i, j-i, len(in)-j, got)
			}
		}
	}
}
