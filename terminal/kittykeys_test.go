package terminal

import (
	"fmt"
	"strings"
	"testing"
)

// TestKittyKeyFlags drives the flag stacks through the escape sequences
// and checks both the query's answer and the modes EncodeKey sees.
func TestKittyKeyFlags(t *testing.T) {
	tests := []struct {
		name, in string
		want     uint8
	}{
		{"fresh", "", 0},
		{"push", "\x1b[>1u", 1},
		{"push masks unsupported flags", "\x1b[>31u", 1},
		{"push without flags", "\x1b[>1u\x1b[>u", 0},
		{"pop", "\x1b[>1u\x1b[>0u\x1b[<u", 1},
		{"pop all", "\x1b[>1u\x1b[>1u\x1b[<2u", 0},
		{"pop past the bottom", "\x1b[>1u\x1b[<16u", 0},
		{"pop an empty stack", "\x1b[<u", 0},
		{"set on an empty stack", "\x1b[=1u", 1},
		{"set replaces", "\x1b[>1u\x1b[=0;1u", 0},
		{"set adds", "\x1b[>0u\x1b[=1;2u", 1},
		{"set removes", "\x1b[>1u\x1b[=1;3u", 0},
		{"set ignores an unknown mode", "\x1b[>1u\x1b[=0;9u", 1},
		{"SCORC is not a pop", "\x1b[>1u\x1b[u", 1},
		{"RIS empties the stack", "\x1b[>1u\x1bc", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEmu(t, 10, 2).feed(tt.in)
			if got := e.Modes().KittyKeys; got != tt.want {
				t.Errorf("KittyKeys = %d, want %d", got, tt.want)
			}
			e.replies = nil
			e.feed("\x1b[?u")
			if got, want := string(e.replies), fmt.Sprintf("\x1b[?%du", tt.want); got != want {
				t.Errorf("query answered %q, want %q", got, want)
			}
		})
	}
}

// TestKittyKeyFlagsDepth: a push onto a full stack drops the oldest
// entry, so popping the newest maxKeyFlagDepth leaves nothing.
func TestKittyKeyFlagsDepth(t *testing.T) {
	e := newEmu(t, 10, 2).feed("\x1b[>1u" + strings.Repeat("\x1b[>0u", maxKeyFlagDepth))
	e.feed(fmt.Sprintf("\x1b[<%du", maxKeyFlagDepth-1))
	if got := e.Modes().KittyKeys; got != 0 {
		t.Errorf("KittyKeys = %d, want 0: the oldest entry (1) should have been dropped", got)
	}
}

// TestKittyKeyFlagsScreens: the main and the alternate screen keep their
// own stacks, and entering the alternate screen starts it empty.
func TestKittyKeyFlagsScreens(t *testing.T) {
	e := newEmu(t, 10, 2).feed("\x1b[>1u")
	for _, enter := range []string{"\x1b[?1049h", "\x1b[?1047h", "\x1b[?47h"} {
		e.feed(enter)
		if got := e.Modes().KittyKeys; got != 0 {
			t.Errorf("%q: KittyKeys on the alternate screen = %d, want 0", enter, got)
		}
		e.feed("\x1b[>1u")
		if got := e.Modes().KittyKeys; got != 1 {
			t.Errorf("%q: KittyKeys after a push on the alternate screen = %d, want 1", enter, got)
		}
		e.feed("\x1b[?1049l\x1b[?1047l\x1b[?47l")
		if got := e.Modes().KittyKeys; got != 1 {
			t.Errorf("%q: KittyKeys back on the main screen = %d, want its own 1", enter, got)
		}
	}
	e.feed("\x1b[?1049h\x1b[>1u\x1b[?1049l\x1b[<u\x1b[?1047h")
	if got := e.Modes().KittyKeys; got != 0 {
		t.Errorf("KittyKeys on re-entering the alternate screen = %d, want 0", got)
	}
	e.feed("\x1b[?1047l")
	if got := e.Modes().KittyKeys; got != 0 {
		t.Errorf("KittyKeys after popping the main screen's entry = %d, want 0", got)
	}
}

// TestEncodeKeyKitty checks the disambiguate flag's encodings, and that
// the keys it leaves alone keep their legacy bytes.
func TestEncodeKeyKitty(t *testing.T) {
	kitty := InputModes{KittyKeys: KittyDisambiguate}
	tests := []struct {
		key  string
		m    InputModes
		want string
	}{
		{"escape", kitty, "\x1b[27u"},
		{"shift-escape", kitty, "\x1b[27;2u"},
		{"alt-escape", kitty, "\x1b[27;3u"},
		{"enter", kitty, "\r"},
		{"shift-enter", kitty, "\x1b[13;2u"},
		{"alt-enter", kitty, "\x1b[13;3u"},
		{"ctrl-enter", kitty, "\x1b[13;5u"},
		{"tab", kitty, "\t"},
		{"shift-tab", kitty, "\x1b[Z"},
		{"ctrl-tab", kitty, "\x1b[9;5u"},
		{"backspace", kitty, "\x7f"},
		{"ctrl-backspace", kitty, "\x1b[127;5u"},
		{"alt-backspace", kitty, "\x1b[127;3u"},
		{"a", kitty, "a"},
		{"shift-a", kitty, "A"},
		{"é", kitty, "é"},
		{"space", kitty, " "},
		{"ctrl-space", kitty, "\x1b[32;5u"},
		{"ctrl-c", kitty, "\x1b[99;5u"},
		{"ctrl-C", kitty, "\x1b[99;6u"}, // "C" is shift-c
		{"ctrl-shift-c", kitty, "\x1b[99;6u"},
		{"ctrl-i", kitty, "\x1b[105;5u"},
		{"ctrl-m", kitty, "\x1b[109;5u"},
		{"ctrl-[", kitty, "\x1b[91;5u"},
		{"alt-x", kitty, "\x1b[120;3u"},
		{"alt-shift-x", kitty, "\x1b[120;4u"},
		{"ctrl-alt-é", kitty, "\x1b[233;7u"},
		// Already unambiguous: legacy bytes.
		{"up", kitty, "\x1b[A"},
		{"up", InputModes{KittyKeys: KittyDisambiguate, AppCursor: true}, "\x1bOA"},
		{"ctrl-up", kitty, "\x1b[1;5A"},
		{"f1", kitty, "\x1bOP"},
		{"f5", kitty, "\x1b[15~"},
		{"shift-delete", kitty, "\x1b[3;2~"},
		{"kpenter", kitty, "\r"},
		// Without the flag nothing changes.
		{"escape", kmNormal, "\x1b"},
		{"shift-enter", kmNormal, "\n"},
		{"ctrl-c", kmNormal, "\x03"},
	}
	for _, tt := range tests {
		ev, err := ParseKey(tt.key)
		if err != nil {
			t.Fatalf("ParseKey(%q): %v", tt.key, err)
		}
		got, ok := EncodeKey(ev, tt.m)
		if !ok || string(got) != tt.want {
			t.Errorf("EncodeKey(%s, %+v) = %q, %t; want %q", tt.key, tt.m, got, ok, tt.want)
		}
	}
	// A control character is no key, with or without the flag.
	if b, ok := EncodeKey(KeyEvent{Rune: '\x01', Mods: ModCtrl}, kitty); ok {
		t.Errorf("EncodeKey(ctrl+U+0001) = %q, want no encoding", b)
	}
	// Shift+Enter and Ctrl+M no longer carry a CR or LF, so the socket
	// API lets them through as the newline keys they are to such a program.
	for _, k := range []string{"shift-enter", "ctrl-m", "ctrl-j"} {
		ev, _ := ParseKey(k)
		if ev.Submits(kitty) {
			t.Errorf("%s submits under the kitty flag", k)
		}
		if !ev.Submits(kmNormal) {
			t.Errorf("%s does not submit without the kitty flag", k)
		}
	}
}
