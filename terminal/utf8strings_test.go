package terminal

import (
	"strings"
	"testing"
)

// Bytes 0x80-0x9F inside control strings are UTF-8 continuation bytes, not
// C1 controls: the string goes on to its 7-bit terminator and nothing of it
// reaches the screen.
func TestUTF8InControlStrings(t *testing.T) {
	tests := []struct {
		name, in  string
		title     string
		cwd       string
		wantShown string
	}{
		// ✳ is E2 9C B3: 0x9C is the 8-bit ST (Claude Code's title).
		{name: "OSC 0 with 0x9C in a character, BEL", in: "\x1b]0;\u2733 Claude Code\x07ok", title: "\u2733 Claude Code", wantShown: "ok"},
		{name: "OSC 2 with 0x9C, ESC \\", in: "\x1b]2;\u2733 x\x1b\\ok", title: "\u2733 x", wantShown: "ok"},
		// ✝ is E2 9C 9D (0x9D is the 8-bit OSC), ⠐ E2 A0 90 (0x90 the 8-bit DCS).
		{name: "OSC 2 with 0x9D and 0x90", in: "\x1b]2;\u271d\u2810\x07ok", title: "\u271d\u2810", wantShown: "ok"},
		{name: "OSC 7 path", in: "\x1b]7;file:///tmp/\u2733dir\x07ok", cwd: "/tmp/\u2733dir", wantShown: "ok"},
		{name: "APC with UTF-8 is swallowed whole", in: "\x1b_G\u2733\u00e9\x1b\\ok", wantShown: "ok"},
		{name: "DCS with UTF-8 is swallowed whole", in: "\x1bP1$r\u2733\x1b\\ok", wantShown: "ok"},
		{name: "PM with UTF-8 is swallowed whole", in: "\x1b^\u2733\x1b\\ok", wantShown: "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEmu(t, 40, 3).feed(tt.in)
			if got := e.Title(); got != tt.title {
				t.Errorf("title %q, want %q", got, tt.title)
			}
			if got := e.Cwd(); got != tt.cwd {
				t.Errorf("cwd %q, want %q", got, tt.cwd)
			}
			if got := strings.Join(e.screen(), "|"); got != tt.wantShown {
				t.Errorf("screen %q, want %q", got, tt.wantShown)
			}
		})
	}
}
