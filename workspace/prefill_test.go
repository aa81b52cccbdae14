package workspace

import (
	"testing"

	"github.com/paneflow-go/paneflow/terminal"
)

func TestPrefillBytes(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		bracketed  bool
		want       string
	}{
		{"plain", "review the diff", false, "review the diff"},
		{"line break, no paste mode", "echo a\nrm -rf x\r\n", false, `echo a\x0arm -rf x\x0a`},
		{"controls, no paste mode", "a\x1b[2K\x03\tb\x7f", false, `a\x1b[2K\x03\x09b\x7f`},
		{"bracketed keeps lines", "line1\r\nline2\n", true, "\x1b[200~line1\rline2\r\x1b[201~"},
		{"bracketed cannot end the paste", "x\x1b[201~echo pwned\r", true, "\x1b[200~x\\x1b[201~echo pwned\\x0d\x1b[201~"},
		{"bidi shown", "a\u202eb", true, "\x1b[200~a\\u202eb\x1b[201~"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := string(PrefillBytes(tc.text, terminal.InputModes{BracketedPaste: tc.bracketed}))
			if got != tc.want {
				t.Errorf("PrefillBytes(%q) = %q, want %q", tc.text, got, tc.want)
			}
		})
	}
}
