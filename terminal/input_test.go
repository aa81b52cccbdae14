package terminal

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

var (
	kmNormal    = InputModes{}
	kmAppCursor = InputModes{AppCursor: true}
	kmAppKeypad = InputModes{AppKeypad: true}
)

// TestEncodeKeyNames checks the encoding of key names, parsed by
// ParseKey, in normal and application modes.
func TestEncodeKeyNames(t *testing.T) {
	tests := []struct {
		key  string
		m    InputModes
		want string // "" means no encoding (ok=false)
	}{
		// Control characters.
		{"ctrl-[", kmNormal, "\x1b"},
		{`ctrl-\`, kmNormal, "\x1c"},
		{"ctrl-]", kmNormal, "\x1d"},
		{"ctrl-^", kmNormal, "\x1e"},
		{"ctrl-_", kmNormal, "\x1f"},
		{"ctrl-@", kmNormal, "\x00"},
		{"ctrl-space", kmNormal, "\x00"},
		{"ctrl-?", kmNormal, "\x7f"},
		{"ctrl-`", kmNormal, "\x00"},
		{"ctrl-~", kmNormal, "\x1e"},
		{"ctrl-2", kmNormal, "\x00"},
		{"ctrl-3", kmNormal, "\x1b"},
		{"ctrl-4", kmNormal, "\x1c"},
		{"ctrl-5", kmNormal, "\x1d"},
		{"ctrl-6", kmNormal, "\x1e"},
		{"ctrl-7", kmNormal, "\x1f"},
		{"ctrl-8", kmNormal, "\x7f"},
		{"ctrl-/", kmNormal, "\x1f"},
		{"ctrl-1", kmNormal, "1"},
		{"ctrl--", kmNormal, "-"},
		{"ctrl-é", kmNormal, "é"},
		{"ctrl-C", kmNormal, "\x03"},
		{"ctrl-shift-c", kmNormal, "\x03"},
		{"ctrl-m", kmNormal, "\r"},
		{"ctrl-j", kmNormal, "\n"},

		// Backspace, Enter, Tab, Escape, Space.
		{"backspace", kmNormal, "\x7f"},
		{"shift-backspace", kmNormal, "\x7f"},
		{"ctrl-backspace", kmNormal, "\x08"},
		{"alt-backspace", kmNormal, "\x1b\x7f"},
		{"ctrl-alt-backspace", kmNormal, "\x1b\x08"},
		{"enter", kmNormal, "\r"},
		{"enter", kmAppKeypad, "\r"},
		{"alt-enter", kmNormal, "\x1b\r"},
		{"shift-enter", kmNormal, "\n"},
		{"alt-shift-enter", kmNormal, "\x1b\n"},
		{"ctrl-enter", kmNormal, "\r"},
		{"tab", kmNormal, "\t"},
		{"shift-tab", kmNormal, "\x1b[Z"},
		{"alt-shift-tab", kmNormal, "\x1b[Z"},
		{"ctrl-shift-tab", kmNormal, "\x1b[Z"},
		{"alt-tab", kmNormal, "\x1b\t"},
		{"ctrl-tab", kmNormal, "\t"},
		{"escape", kmNormal, "\x1b"},
		{"alt-escape", kmNormal, "\x1b\x1b"},
		{"shift-escape", kmNormal, "\x1b"},
		{"space", kmNormal, " "},
		{"shift-space", kmNormal, " "},
		{"alt-space", kmNormal, "\x1b "},
		{"ctrl-alt-space", kmNormal, "\x1b\x00"},

		// Characters and Alt.
		{"a", kmNormal, "a"},
		{"C", kmNormal, "C"},
		{"shift-1", kmNormal, "1"},
		{"é", kmNormal, "é"},
		{"shift-é", kmNormal, "É"},
		{"😀", kmNormal, "😀"},
		{"alt-x", kmNormal, "\x1bx"},
		{"alt-X", kmNormal, "\x1bX"},
		{"alt-shift-x", kmNormal, "\x1bX"},
		{"ctrl-alt-x", kmNormal, "\x1b\x18"},
		{"ctrl-alt-shift-x", kmNormal, "\x1b\x18"},
		{"alt-é", kmNormal, "\x1bé"},
		{"alt--", kmNormal, "\x1b-"},

		// Cursor keys, Home, End.
		{"up", kmNormal, "\x1b[A"},
		{"down", kmNormal, "\x1b[B"},
		{"right", kmNormal, "\x1b[C"},
		{"left", kmNormal, "\x1b[D"},
		{"home", kmNormal, "\x1b[H"},
		{"end", kmNormal, "\x1b[F"},
		{"up", kmAppCursor, "\x1bOA"},
		{"down", kmAppCursor, "\x1bOB"},
		{"right", kmAppCursor, "\x1bOC"},
		{"left", kmAppCursor, "\x1bOD"},
		{"home", kmAppCursor, "\x1bOH"},
		{"end", kmAppCursor, "\x1bOF"},
		{"up", kmAppKeypad, "\x1b[A"},
		{"shift-up", kmNormal, "\x1b[1;2A"},
		{"shift-up", kmAppCursor, "\x1b[1;2A"},
		{"alt-up", kmNormal, "\x1b[1;3A"},
		{"alt-shift-up", kmNormal, "\x1b[1;4A"},
		{"ctrl-up", kmNormal, "\x1b[1;5A"},
		{"ctrl-shift-left", kmNormal, "\x1b[1;6D"},
		{"ctrl-alt-right", kmAppCursor, "\x1b[1;7C"},
		{"ctrl-alt-shift-down", kmNormal, "\x1b[1;8B"},
		{"shift-home", kmNormal, "\x1b[1;2H"},
		{"ctrl-end", kmAppCursor, "\x1b[1;5F"},
		{"fn-up", kmNormal, "\x1b[A"},

		// Function keys.
		{"f1", kmNormal, "\x1bOP"},
		{"f2", kmNormal, "\x1bOQ"},
		{"f3", kmNormal, "\x1bOR"},
		{"f4", kmNormal, "\x1bOS"},
		{"f1", kmAppCursor, "\x1bOP"},
		{"shift-f1", kmNormal, "\x1b[1;2P"},
		{"ctrl-f4", kmNormal, "\x1b[1;5S"},
		{"alt-f2", kmAppCursor, "\x1b[1;3Q"},
		{"f5", kmNormal, "\x1b[15~"},
		{"f6", kmNormal, "\x1b[17~"},
		{"f7", kmNormal, "\x1b[18~"},
		{"f8", kmNormal, "\x1b[19~"},
		{"f9", kmNormal, "\x1b[20~"},
		{"f10", kmNormal, "\x1b[21~"},
		{"f11", kmNormal, "\x1b[23~"},
		{"f12", kmNormal, "\x1b[24~"},
		{"f13", kmNormal, "\x1b[25~"},
		{"f14", kmNormal, "\x1b[26~"},
		{"f15", kmNormal, "\x1b[28~"},
		{"f16", kmNormal, "\x1b[29~"},
		{"f17", kmNormal, "\x1b[31~"},
		{"f18", kmNormal, "\x1b[32~"},
		{"f19", kmNormal, "\x1b[33~"},
		{"f20", kmNormal, "\x1b[34~"},
		{"shift-f5", kmNormal, "\x1b[15;2~"},
		{"ctrl-f12", kmNormal, "\x1b[24;5~"},
		{"ctrl-alt-shift-f20", kmNormal, "\x1b[34;8~"},

		// Editing keys.
		{"insert", kmNormal, "\x1b[2~"},
		{"delete", kmNormal, "\x1b[3~"},
		{"pageup", kmNormal, "\x1b[5~"},
		{"pagedown", kmNormal, "\x1b[6~"},
		{"delete", kmAppCursor, "\x1b[3~"},
		{"shift-pageup", kmNormal, "\x1b[5;2~"},
		{"alt-insert", kmNormal, "\x1b[2;3~"},
		{"ctrl-delete", kmNormal, "\x1b[3;5~"},
		{"ctrl-shift-pagedown", kmNormal, "\x1b[6;6~"},

		// Numeric keypad.
		{"kp5", kmNormal, "5"},
		{"kp0", kmAppKeypad, "\x1bOp"},
		{"kp5", kmAppKeypad, "\x1bOu"},
		{"kp9", kmAppKeypad, "\x1bOy"},
		{"kpenter", kmNormal, "\r"},
		{"kpenter", kmAppKeypad, "\x1bOM"},
		{"kpadd", kmNormal, "+"},
		{"kpadd", kmAppKeypad, "\x1bOk"},
		{"kpsubtract", kmAppKeypad, "\x1bOm"},
		{"kpmultiply", kmAppKeypad, "\x1bOj"},
		{"kpdivide", kmAppKeypad, "\x1bOo"},
		{"kpdecimal", kmAppKeypad, "\x1bOn"},
		{"kpequal", kmNormal, "="},
		{"kpequal", kmAppKeypad, "\x1bOX"},
		{"ctrl-kpadd", kmAppKeypad, "\x1bO5k"},
		{"ctrl-kp5", kmNormal, "5"},
		{"kp1", kmAppCursor, "1"},

		// Super never encodes.
		{"super-c", kmNormal, ""},
		{"super-enter", kmNormal, ""},
		{"ctrl-super-c", kmNormal, ""},
		{"super-up", kmAppCursor, ""},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/%+v", tc.key, tc.m), func(t *testing.T) {
			ev, err := ParseKey(tc.key)
			if err != nil {
				t.Fatalf("ParseKey(%q): %v", tc.key, err)
			}
			got, ok := EncodeKey(ev, tc.m)
			if tc.want == "" {
				if ok {
					t.Fatalf("EncodeKey(%q): got %q, want no encoding", tc.key, got)
				}
				return
			}
			if !ok || string(got) != tc.want {
				t.Errorf("EncodeKey(%q): got %q (ok=%v), want %q", tc.key, got, ok, tc.want)
			}
		})
	}
}

func TestEncodeKeyCtrlLetters(t *testing.T) {
	for c := 'a'; c <= 'z'; c++ {
		want := string(rune(c - 'a' + 1))
		for _, r := range []rune{c, c - 'a' + 'A'} {
			for _, mods := range []Mod{ModCtrl, ModCtrl | ModShift} {
				ev := KeyEvent{Rune: r, Mods: mods}
				got, ok := EncodeKey(ev, kmNormal)
				if !ok || string(got) != want {
					t.Errorf("EncodeKey(%v): got %q (ok=%v), want %q", ev, got, ok, want)
				}
			}
		}
	}
}

// TestEncodeKeyEvents covers events a GUI builds directly, including ones
// ParseKey never produces.
func TestEncodeKeyEvents(t *testing.T) {
	tests := []struct {
		name string
		ev   KeyEvent
		want string // "" means no encoding
	}{
		{"shifted rune with shift", KeyEvent{Rune: 'A', Mods: ModShift}, "A"},
		{"shifted rune alone", KeyEvent{Rune: 'A'}, "A"},
		{"shifted symbol", KeyEvent{Rune: '!', Mods: ModShift}, "!"},
		{"ctrl uppercase", KeyEvent{Rune: 'A', Mods: ModCtrl}, "\x01"},
		{"rune space", KeyEvent{Rune: ' '}, " "},
		{"rune space ctrl", KeyEvent{Rune: ' ', Mods: ModCtrl}, "\x00"},
		{"alt emoji", KeyEvent{Rune: '😀', Mods: ModAlt}, "\x1b😀"},
		{"rune ignored for named key", KeyEvent{Key: KeyEnter, Rune: 'x'}, "\r"},
		{"zero value", KeyEvent{}, ""},
		{"control rune CR", KeyEvent{Rune: '\r'}, ""},
		{"control rune DEL", KeyEvent{Rune: 0x7f}, ""},
		{"C1 rune", KeyEvent{Rune: 0x85}, ""},
		{"surrogate", KeyEvent{Rune: 0xD800}, ""},
		{"beyond Unicode", KeyEvent{Rune: 0x110000}, ""},
		{"negative rune", KeyEvent{Rune: -1}, ""},
		{"undefined key", KeyEvent{Key: Key(999)}, ""},
		{"key count", KeyEvent{Key: keyCount}, ""},
		{"undefined modifier", KeyEvent{Key: KeyEnter, Mods: 0x80}, ""},
		{"super alone", KeyEvent{Rune: 'c', Mods: ModSuper}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := EncodeKey(tc.ev, kmNormal)
			if tc.want == "" {
				if ok || got != nil {
					t.Fatalf("EncodeKey(%#v): got %q, %v; want nil, false", tc.ev, got, ok)
				}
				return
			}
			if !ok || string(got) != tc.want {
				t.Errorf("EncodeKey(%#v): got %q (ok=%v), want %q", tc.ev, got, ok, tc.want)
			}
		})
	}
}

func TestKeyEventSubmits(t *testing.T) {
	tests := []struct {
		key  string
		m    InputModes
		want bool
	}{
		{"enter", kmNormal, true},
		{"shift-enter", kmNormal, true},
		{"alt-enter", kmNormal, true},
		{"ctrl-enter", kmNormal, true},
		{"ctrl-m", kmNormal, true},
		{"ctrl-j", kmNormal, true},
		{"kpenter", kmNormal, true},
		{"kpenter", kmAppKeypad, false},
		{"tab", kmNormal, false},
		{"ctrl-c", kmNormal, false},
		{"a", kmNormal, false},
		{"up", kmAppCursor, false},
		{"super-enter", kmNormal, false},
	}
	for _, tc := range tests {
		ev, err := ParseKey(tc.key)
		if err != nil {
			t.Fatalf("ParseKey(%q): %v", tc.key, err)
		}
		if got := ev.Submits(tc.m); got != tc.want {
			t.Errorf("ParseKey(%q).Submits(%+v): got %v, want %v", tc.key, tc.m, got, tc.want)
		}
	}
}

func TestEncodePaste(t *testing.T) {
	bracketed := InputModes{BracketedPaste: true}
	tests := []struct {
		name string
		text string
		m    InputModes
		want string
	}{
		{"empty", "", kmNormal, ""},
		{"empty bracketed", "", bracketed, ""},
		{"plain", "hello", kmNormal, "hello"},
		{"bracketed", "hello", bracketed, "\x1b[200~hello\x1b[201~"},
		{"LF", "a\nb", kmNormal, "a\rb"},
		{"LF bracketed", "a\nb", bracketed, "\x1b[200~a\rb\x1b[201~"},
		{"CRLF", "a\r\nb", kmNormal, "a\rb"},
		{"CR", "a\rb", kmNormal, "a\rb"},
		{"blank line", "a\n\nb", kmNormal, "a\r\rb"},
		{"CR CRLF", "a\r\r\nb", kmNormal, "a\r\rb"},
		{"LF CR", "a\n\r", kmNormal, "a\r\r"},
		{"trailing CRLF", "ls\r\n", bracketed, "\x1b[200~ls\r\x1b[201~"},
		{"end marker kept when not bracketed", "x\x1b[201~y", kmNormal, "x\x1b[201~y"},
		{"end marker removed", "x\x1b[201~y", bracketed, "\x1b[200~xy\x1b[201~"},
		{"only end marker", "\x1b[201~", bracketed, "\x1b[200~\x1b[201~"},
		{"nested end marker", "\x1b[20\x1b[201~1~rm -rf ~", bracketed, "\x1b[200~rm -rf ~\x1b[201~"},
		{"doubly nested", "\x1b[2\x1b[20\x1b[201~1~01~x", bracketed, "\x1b[200~x\x1b[201~"},
		{"start marker kept", "\x1b[200~", bracketed, "\x1b[200~\x1b[200~\x1b[201~"},
		{"other escapes kept", "\x1b[31mred", bracketed, "\x1b[200~\x1b[31mred\x1b[201~"},
		{"split by newline is not a marker", "\x1b[201\n~", bracketed, "\x1b[200~\x1b[201\r~\x1b[201~"},
		{"invalid UTF-8", "\xff\xfe", bracketed, "\x1b[200~\xff\xfe\x1b[201~"},
		{"unicode", "héllo 😀", kmNormal, "héllo 😀"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := EncodePaste(tc.text, tc.m)
			if string(got) != tc.want {
				t.Errorf("EncodePaste(%q, %+v): got %q, want %q", tc.text, tc.m, got, tc.want)
			}
			if tc.want == "" && got != nil {
				t.Errorf("EncodePaste(%q, %+v): got %#v, want nil", tc.text, tc.m, got)
			}
		})
	}
}

// TestEncodePasteNeverEndsEarly builds every text of up to four pieces
// that could assemble an end marker and checks the bracketed body never
// contains one and never contains LF.
func TestEncodePasteNeverEndsEarly(t *testing.T) {
	pieces := []string{"\x1b[20", "\x1b[201~", "1~", "\x1b", "[", "201~", "\r", "\n", "a"}
	var all []string
	level := []string{""}
	for range 4 {
		var next []string
		for _, s := range level {
			for _, p := range pieces {
				next = append(next, s+p)
			}
		}
		all = append(all, next...)
		level = next
	}
	m := InputModes{BracketedPaste: true}
	for _, text := range all {
		got := string(EncodePaste(text, m))
		body, ok := strings.CutPrefix(got, "\x1b[200~")
		if ok {
			body, ok = strings.CutSuffix(body, "\x1b[201~")
		}
		if !ok {
			t.Fatalf("EncodePaste(%q): got %q, want it wrapped in the paste markers", text, got)
		}
		if strings.Contains(body, "\x1b[201~") || strings.Contains(body, "\n") {
			t.Fatalf("EncodePaste(%q): body %q contains an end marker or LF", text, body)
		}
	}
}

func TestEncodeFocus(t *testing.T) {
	tests := []struct {
		focused bool
		m       InputModes
		want    []byte
	}{
		{true, InputModes{FocusEvents: true}, []byte("\x1b[I")},
		{false, InputModes{FocusEvents: true}, []byte("\x1b[O")},
		{true, InputModes{}, nil},
		{false, InputModes{}, nil},
	}
	for _, tc := range tests {
		got := EncodeFocus(tc.focused, tc.m)
		if !bytes.Equal(got, tc.want) || (tc.want == nil) != (got == nil) {
			t.Errorf("EncodeFocus(%v, %+v): got %q, want %q", tc.focused, tc.m, got, tc.want)
		}
	}
}
