//go:build !windows

package workspace

import (
	"strings"
	"testing"
	"time"

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

// TestPrefillWaitsForFirstOutput checks that a start prompt is not typed
// while the pane's program has printed nothing: quiet counts from its first
// output. A loaded machine took a shell longer than Quiet to print its
// first prompt, and the prefill went to the terminal's echo ahead of it
// (CI: TestPrefillNeverSubmits saw "echo MARK”ER-DONE" above "$ ").
func TestPrefillWaitsForFirstOutput(t *testing.T) {
	m, _ := newManager(t, Options{PromptSettle: Settle{Floor: time.Millisecond, Quiet: time.Millisecond, Max: time.Hour}})
	_, ss, err := m.Up(UpSpec{Panes: []PaneSpec{{Name: "p", Prompt: "typed-prompt"}}})
	if err != nil {
		t.Fatal(err)
	}
	emu := ss[0].Terminal().Emulator()
	// Give a wrong prefill (typed after Quiet, 1 ms) time to show itself.
	// This wait cannot fail the test; it only lets the old behaviour be seen.
	time.Sleep(100 * time.Millisecond)
	emu.Write([]byte("$ "))
	if text := waitText(t, ss[0], "typed-prompt"); !strings.Contains(text, "$ typed-prompt") {
		t.Fatalf("the prompt was typed before the program printed anything; the pane shows:\n%s", text)
	}
}
