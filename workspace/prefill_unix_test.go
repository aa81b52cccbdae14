//go:build !windows

package workspace

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestPrefillNeverSubmits prefills a prompt with line breaks into real
// shells, one that reads pastes (bash turns bracketed paste on) and one
// that does not (dash): the text shows up typed, and no part of it runs.
// A marker command typed afterwards orders the check: once its output is
// on the screen, anything the prefill had submitted would have run first.
func TestPrefillNeverSubmits(t *testing.T) {
	for _, tc := range []struct {
		shell string
		clear string // the keys that empty the typed line
	}{
		{"/bin/sh", "\x15"},  // dash reads lines from the terminal: its kill character
		{"bash", "\x01\x0b"}, // readline: beginning of line, kill to the end
	} {
		shell := tc.shell
		t.Run(shell, func(t *testing.T) {
			path, err := exec.LookPath(shell)
			if err != nil {
				t.Fatalf("%s is not installed (scripts/deps.sh installs it): %v", shell, err)
			}
			m, _ := newProcessManager(t, Options{PromptSettle: Settle{Floor: time.Millisecond, Quiet: 100 * time.Millisecond, Max: 5 * time.Second}})
			cmd := path
			if shell == "bash" {
				cmd = path + " --norc --noprofile -i"
			}
			_, ss, err := m.Up(UpSpec{Panes: []PaneSpec{{Name: "sh", Command: "PS1='$ ' exec " + cmd, Prompt: "echo PRE''FILL-RAN\necho SECOND''-RAN\n"}}})
			if err != nil {
				t.Fatal(err)
			}
			s := ss[0]
			waitText(t, s, "SECOND''-RAN")
			// Empty the typed line, then run the marker.
			if err := s.Terminal().SendInput([]byte(tc.clear)); err != nil {
				t.Fatal(err)
			}
			if err := s.Terminal().SendInput([]byte("echo MARK''ER-DONE\r")); err != nil {
				t.Fatal(err)
			}
			text := waitText(t, s, "\nMARKER-DONE")
			if strings.Contains(text, "PREFILL-RAN") || strings.Contains(text, "SECOND-RAN") {
				t.Fatalf("the prefilled prompt ran:\n%s", text)
			}
		})
	}
}

// TestPrefillWaitsForFirstOutput checks that a start prompt is not typed
// while the pane's program has printed nothing: quiet counts from its first
// output. A loaded machine took a shell longer than Quiet to print its
// first prompt, and the prefill went to the terminal's echo ahead of it
// (CI: TestPrefillNeverSubmits saw "echo MARK”ER-DONE" above "$ "). A
// notice Paneflow writes into the pane (a restored session's) is not
// output either.
func TestPrefillWaitsForFirstOutput(t *testing.T) {
	m, _ := newManager(t, Options{PromptSettle: Settle{Floor: time.Millisecond, Quiet: time.Millisecond, Max: time.Hour}})
	_, ss, err := m.Up(UpSpec{Panes: []PaneSpec{{Name: "p", Prompt: "typed-prompt"}}})
	if err != nil {
		t.Fatal(err)
	}
	emu := ss[0].Terminal().Emulator()
	// A restored pane shows a notice before its program prints: the
	// notice is not the program's output.
	emu.Notice([]byte("restored\r\n"))
	// Give a wrong prefill (typed after Quiet, 1 ms) time to show itself.
	// This wait cannot fail the test; it only lets the old behaviour be seen.
	time.Sleep(100 * time.Millisecond)
	emu.Write([]byte("$ "))
	if text := waitText(t, ss[0], "typed-prompt"); !strings.Contains(text, "$ typed-prompt") {
		t.Fatalf("the prompt was typed before the program printed anything; the pane shows:\n%s", text)
	}
}
