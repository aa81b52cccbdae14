package terminal

import (
	"bytes"
	"sort"
	"strings"
	"testing"
)

// parseKeyCases drive TestParseKey and seed FuzzParseKey. wantErr, when
// set, is the exact error message.
var parseKeyCases = []struct {
	in      string
	want    KeyEvent
	wantErr string
}{
	// Named keys and their aliases, case-insensitive.
	{in: "enter", want: KeyEvent{Key: KeyEnter}},
	{in: "return", want: KeyEvent{Key: KeyEnter}},
	{in: "ENTER", want: KeyEvent{Key: KeyEnter}},
	{in: "tab", want: KeyEvent{Key: KeyTab}},
	{in: "escape", want: KeyEvent{Key: KeyEscape}},
	{in: "esc", want: KeyEvent{Key: KeyEscape}},
	{in: "Esc", want: KeyEvent{Key: KeyEscape}},
	{in: "backspace", want: KeyEvent{Key: KeyBackspace}},
	{in: "bs", want: KeyEvent{Key: KeyBackspace}},
	{in: "space", want: KeyEvent{Key: KeySpace}},
	{in: " ", want: KeyEvent{Key: KeySpace}},
	{in: "up", want: KeyEvent{Key: KeyUp}},
	{in: "down", want: KeyEvent{Key: KeyDown}},
	{in: "left", want: KeyEvent{Key: KeyLeft}},
	{in: "right", want: KeyEvent{Key: KeyRight}},
	{in: "home", want: KeyEvent{Key: KeyHome}},
	{in: "end", want: KeyEvent{Key: KeyEnd}},
	{in: "pageup", want: KeyEvent{Key: KeyPageUp}},
	{in: "page_up", want: KeyEvent{Key: KeyPageUp}},
	{in: "pgup", want: KeyEvent{Key: KeyPageUp}},
	{in: "PageUp", want: KeyEvent{Key: KeyPageUp}},
	{in: "pagedown", want: KeyEvent{Key: KeyPageDown}},
	{in: "page_down", want: KeyEvent{Key: KeyPageDown}},
	{in: "pgdn", want: KeyEvent{Key: KeyPageDown}},
	{in: "pgdown", want: KeyEvent{Key: KeyPageDown}},
	{in: "insert", want: KeyEvent{Key: KeyInsert}},
	{in: "ins", want: KeyEvent{Key: KeyInsert}},
	{in: "delete", want: KeyEvent{Key: KeyDelete}},
	{in: "del", want: KeyEvent{Key: KeyDelete}},
	{in: "f1", want: KeyEvent{Key: KeyF1}},
	{in: "F5", want: KeyEvent{Key: KeyF5}},
	{in: "f12", want: KeyEvent{Key: KeyF12}},
	{in: "f13", want: KeyEvent{Key: KeyF13}},
	{in: "f20", want: KeyEvent{Key: KeyF20}},
	{in: "kp0", want: KeyEvent{Key: KeyKP0}},
	{in: "kpenter", want: KeyEvent{Key: KeyKPEnter}},
	{in: "KPAdd", want: KeyEvent{Key: KeyKPAdd}},

	// Characters.
	{in: "a", want: KeyEvent{Rune: 'a'}},
	{in: "C", want: KeyEvent{Rune: 'c', Mods: ModShift}},
	{in: "1", want: KeyEvent{Rune: '1'}},
	{in: "shift-1", want: KeyEvent{Rune: '1', Mods: ModShift}},
	{in: "-", want: KeyEvent{Rune: '-'}},
	{in: "é", want: KeyEvent{Rune: 'é'}},
	{in: "É", want: KeyEvent{Rune: 'É'}},
	{in: "😀", want: KeyEvent{Rune: '😀'}},
	{in: ">", want: KeyEvent{Rune: '>'}},

	// Modifiers.
	{in: "ctrl-c", want: KeyEvent{Rune: 'c', Mods: ModCtrl}},
	{in: "CTRL-c", want: KeyEvent{Rune: 'c', Mods: ModCtrl}},
	{in: "Ctrl-C", want: KeyEvent{Rune: 'c', Mods: ModCtrl | ModShift}},
	{in: "alt-x", want: KeyEvent{Rune: 'x', Mods: ModAlt}},
	{in: "alt-X", want: KeyEvent{Rune: 'x', Mods: ModAlt | ModShift}},
	{in: "shift-up", want: KeyEvent{Key: KeyUp, Mods: ModShift}},
	{in: "ctrl-shift-left", want: KeyEvent{Key: KeyLeft, Mods: ModCtrl | ModShift}},
	{in: "shift-ctrl-left", want: KeyEvent{Key: KeyLeft, Mods: ModCtrl | ModShift}},
	{in: "ctrl-alt-shift-f5", want: KeyEvent{Key: KeyF5, Mods: ModCtrl | ModAlt | ModShift}},
	{in: "ctrl-ctrl-c", want: KeyEvent{Rune: 'c', Mods: ModCtrl}},
	{in: "ctrl--", want: KeyEvent{Rune: '-', Mods: ModCtrl}},
	{in: "alt-shift--", want: KeyEvent{Rune: '-', Mods: ModAlt | ModShift}},
	{in: "ctrl->", want: KeyEvent{Rune: '>', Mods: ModCtrl}},
	{in: "ctrl-[", want: KeyEvent{Rune: '[', Mods: ModCtrl}},
	{in: `ctrl-\`, want: KeyEvent{Rune: '\\', Mods: ModCtrl}},
	{in: "ctrl-space", want: KeyEvent{Key: KeySpace, Mods: ModCtrl}},
	{in: "ctrl-é", want: KeyEvent{Rune: 'é', Mods: ModCtrl}},
	{in: "cmd-c", want: KeyEvent{Rune: 'c', Mods: ModSuper}},
	{in: "super-c", want: KeyEvent{Rune: 'c', Mods: ModSuper}},
	{in: "Win-c", want: KeyEvent{Rune: 'c', Mods: ModSuper}},
	{in: "fn-f1", want: KeyEvent{Key: KeyF1}},
	{in: "alt-enter", want: KeyEvent{Key: KeyEnter, Mods: ModAlt}},
	{in: "shift-tab", want: KeyEvent{Key: KeyTab, Mods: ModShift}},

	// Errors.
	{in: "", wantErr: `terminal: empty key name`},
	{in: "foo", wantErr: `terminal: unknown key "foo"`},
	{in: "Foo", wantErr: `terminal: unknown key "Foo"`},
	{in: "ctrl-foo", wantErr: `terminal: unknown key "foo" in "ctrl-foo"`},
	{in: "f21", wantErr: `terminal: unknown key "f21"`},
	{in: "rune", wantErr: `terminal: unknown key "rune"`},
	{in: "ab", wantErr: `terminal: unknown key "ab"`},
	{in: "ctrl+c", wantErr: `terminal: unknown key "ctrl+c"`},
	{in: "\t", wantErr: `terminal: unknown key "\t"`},
	{in: "\r", wantErr: `terminal: unknown key "\r"`},
	{in: "\n", wantErr: `terminal: unknown key "\n"`},
	{in: "\x00", wantErr: `terminal: unknown key "\x00"`},
	{in: "\xff", wantErr: `terminal: unknown key "\xff"`},
	{in: "\u200b", wantErr: `terminal: unknown key "\u200b"`},
	{in: "ctrl-", wantErr: `terminal: invalid key "ctrl-": no key after the last "-"`},
	{in: "a-", wantErr: `terminal: invalid key "a-": no key after the last "-"`},
	{in: "--", wantErr: `terminal: invalid key "--": empty modifier`},
	{in: "ctrl--a", wantErr: `terminal: invalid key "ctrl--a": empty modifier`},
	{in: "-a", wantErr: `terminal: invalid key "-a": empty modifier`},
	{in: "hyper-a", wantErr: `terminal: unknown modifier "hyper" in key "hyper-a"`},
	{in: "a-b", wantErr: `terminal: unknown modifier "a" in key "a-b"`},
	{in: "a->b", wantErr: `terminal: invalid key "a->b": literal key text ("->") is not supported`},
	{in: "ctrl-a->xyz", wantErr: `terminal: invalid key "ctrl-a->xyz": literal key text ("->") is not supported`},
	{in: "ctrl", wantErr: `terminal: invalid key "ctrl": modifiers without a key`},
	{in: "ctrl-shift", wantErr: `terminal: invalid key "ctrl-shift": modifiers without a key`},
}

func TestParseKey(t *testing.T) {
	for _, tc := range parseKeyCases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseKey(tc.in, false)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("parseKey(%q) = %v, %v; want error %q", tc.in, got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseKey(%q): got error %v, want %v", tc.in, err, tc.want)
			}
			if got != tc.want {
				t.Errorf("parseKey(%q): got %#v, want %#v", tc.in, got, tc.want)
			}
		})
	}
}

func TestParseKeySecondary(t *testing.T) {
	tests := []struct {
		darwin bool
		want   KeyEvent
	}{
		{darwin: false, want: KeyEvent{Rune: 'c', Mods: ModCtrl}},
		{darwin: true, want: KeyEvent{Rune: 'c', Mods: ModSuper}},
	}
	for _, tc := range tests {
		got, err := parseKey("Secondary-c", tc.darwin)
		if err != nil || got != tc.want {
			t.Errorf("parseKey(%q, darwin=%v): got %v, %v; want %v", "Secondary-c", tc.darwin, got, err, tc.want)
		}
	}
}

func TestKeyEventString(t *testing.T) {
	tests := []struct {
		ev   KeyEvent
		want string
	}{
		{KeyEvent{Key: KeyEnter}, "enter"},
		{KeyEvent{Key: KeyLeft, Mods: ModShift | ModCtrl}, "ctrl-shift-left"},
		{KeyEvent{Key: KeyF5, Mods: ModCtrl | ModAlt | ModShift | ModSuper}, "ctrl-alt-shift-super-f5"},
		{KeyEvent{Rune: 'x', Mods: ModAlt}, "alt-x"},
		{KeyEvent{Rune: '-', Mods: ModCtrl}, "ctrl--"},
		{KeyEvent{Rune: '-'}, "-"},
		{KeyEvent{Rune: ' '}, "space"},
		{KeyEvent{Rune: 'A'}, "A"},
		{KeyEvent{Rune: 0}, "U+0000"},
		{KeyEvent{Rune: '\n', Mods: ModCtrl}, "ctrl-U+000A"},
		{KeyEvent{Key: Key(999)}, "Key(999)"},
		{KeyEvent{Key: KeyEnter, Mods: 0x80}, "Mod(0x80)-enter"},
	}
	for _, tc := range tests {
		if got := tc.ev.String(); got != tc.want {
			t.Errorf("%#v.String(): got %q, want %q", tc.ev, got, tc.want)
		}
	}
}

func TestParseKeyStringRoundTrip(t *testing.T) {
	for _, tc := range parseKeyCases {
		if tc.wantErr != "" {
			continue
		}
		ev, err := ParseKey(tc.in)
		if err != nil {
			t.Fatalf("ParseKey(%q): %v", tc.in, err)
		}
		back, err := ParseKey(ev.String())
		if err != nil || back != ev {
			t.Errorf("ParseKey(%q).String() = %q, which parses to %v, %v; want %v", tc.in, ev.String(), back, err, ev)
		}
	}
}

// kmAll are the key-relevant mode combinations.
var kmAll = []InputModes{
	{},
	{AppCursor: true},
	{AppKeypad: true},
	{AppCursor: true, AppKeypad: true},
}

// TestEveryKeyNameEncodes checks that every name ParseKey accepts, with
// every combination of modifiers, has an encoding in every mode, except
// the documented case: events with Super never do.
func TestEveryKeyNameEncodes(t *testing.T) {
	names := make([]string, 0, len(keyByName)+8)
	for name := range keyByName {
		names = append(names, name)
	}
	sort.Strings(names)
	names = append(names, "a", "Z", "0", "-", "[", "?", "é", "😀", "~")
	prefixes := []string{""}
	for _, m := range []string{"ctrl-", "alt-", "shift-", "super-"} {
		for _, p := range prefixes {
			prefixes = append(prefixes, p+m)
		}
	}
	for _, name := range names {
		for _, p := range prefixes {
			s := p + name
			ev, err := ParseKey(s)
			if err != nil {
				t.Errorf("ParseKey(%q): %v", s, err)
				continue
			}
			for _, m := range kmAll {
				b, ok := EncodeKey(ev, m)
				wantOK := ev.Mods&ModSuper == 0
				if ok != wantOK || (ok && len(b) == 0) {
					t.Errorf("EncodeKey(%q, %+v): got %q, %v; want ok=%v and bytes", s, m, b, ok, wantOK)
				}
			}
		}
	}
}

func FuzzParseKey(f *testing.F) {
	for _, tc := range parseKeyCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ev, err := ParseKey(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "terminal: ") {
				t.Fatalf("ParseKey(%q): error %q lacks the package prefix", s, err)
			}
			return
		}
		back, err := ParseKey(ev.String())
		if err != nil || back != ev {
			t.Fatalf("ParseKey(%q) = %v; its String %q parses to %v, %v", s, ev, ev.String(), back, err)
		}
		for _, m := range kmAll {
			b1, ok1 := EncodeKey(ev, m)
			b2, ok2 := EncodeKey(ev, m)
			if ok1 != ok2 || !bytes.Equal(b1, b2) {
				t.Fatalf("EncodeKey(%v, %+v) not deterministic: %q,%v then %q,%v", ev, m, b1, ok1, b2, ok2)
			}
			if wantOK := ev.Mods&ModSuper == 0; ok1 != wantOK || (ok1 && len(b1) == 0) {
				t.Fatalf("EncodeKey(%v, %+v) = %q, %v; want ok=%v and bytes", ev, m, b1, ok1, wantOK)
			}
			if got, want := ev.Submits(m), bytes.ContainsAny(b1, "\r\n"); got != want {
				t.Fatalf("%v.Submits(%+v) = %v, want %v (encoding %q)", ev, m, got, want, b1)
			}
		}
	})
}
