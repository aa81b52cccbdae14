package termview

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
)

// press simulates what Fyne's GLFW driver delivers for a key press with
// modifiers held: KeyDown for the modifiers and the key, then a shortcut
// (Ctrl/Alt/Super held) or TypedKey, then TypedRune for a character.
func press(v *View, name fyne.KeyName, mods fyne.KeyModifier, r rune) {
	var held []fyne.KeyName
	for _, m := range []struct {
		bit  fyne.KeyModifier
		name fyne.KeyName
	}{
		{fyne.KeyModifierShift, desktop.KeyShiftLeft},
		{fyne.KeyModifierControl, desktop.KeyControlLeft},
		{fyne.KeyModifierAlt, desktop.KeyAltLeft},
		{fyne.KeyModifierSuper, desktop.KeySuperLeft},
	} {
		if mods&m.bit != 0 {
			v.KeyDown(&fyne.KeyEvent{Name: m.name})
			held = append(held, m.name)
		}
	}
	v.KeyDown(&fyne.KeyEvent{Name: name})
	switch {
	case mods&^fyne.KeyModifierShift != 0:
		v.TypedShortcut(fyneShortcut(name, mods))
	default:
		v.TypedKey(&fyne.KeyEvent{Name: name})
		if r != 0 {
			v.TypedRune(r)
		}
	}
	v.KeyUp(&fyne.KeyEvent{Name: name})
	for _, n := range held {
		v.KeyUp(&fyne.KeyEvent{Name: n})
	}
}

// fyneShortcut builds the shortcut Fyne's driver sends for a chord.
func fyneShortcut(name fyne.KeyName, mods fyne.KeyModifier) fyne.Shortcut {
	if mods == fyne.KeyModifierShortcutDefault {
		switch name {
		case fyne.KeyC:
			return &fyne.ShortcutCopy{}
		case fyne.KeyV:
			return &fyne.ShortcutPaste{}
		case fyne.KeyX:
			return &fyne.ShortcutCut{}
		case fyne.KeyZ:
			return &fyne.ShortcutUndo{}
		case fyne.KeyY:
			return &fyne.ShortcutRedo{}
		case fyne.KeyA:
			return &fyne.ShortcutSelectAll{}
		}
	}
	return &desktop.CustomShortcut{KeyName: name, Modifier: mods}
}

func TestKeyEncoding(t *testing.T) {
	const (
		ctrl  = fyne.KeyModifierControl
		shift = fyne.KeyModifierShift
		alt   = fyne.KeyModifierAlt
	)
	tests := []struct {
		name  string
		modes string // program output before the key (mode changes)
		key   fyne.KeyName
		mods  fyne.KeyModifier
		r     rune
		want  string
		linux bool // Ctrl is the secondary modifier (not macOS)
	}{
		{name: "up", key: fyne.KeyUp, want: "\x1b[A"},
		{name: "up app cursor", modes: "\x1b[?1h", key: fyne.KeyUp, want: "\x1bOA"},
		{name: "left app cursor", modes: "\x1b[?1h", key: fyne.KeyLeft, want: "\x1bOD"},
		{name: "shift up", key: fyne.KeyUp, mods: shift, want: "\x1b[1;2A"},
		{name: "ctrl right", key: fyne.KeyRight, mods: ctrl, want: "\x1b[1;5C"},
		{name: "ctrl right app cursor", modes: "\x1b[?1h", key: fyne.KeyRight, mods: ctrl, want: "\x1b[1;5C"},
		{name: "home", key: fyne.KeyHome, want: "\x1b[H"},
		{name: "end app cursor", modes: "\x1b[?1h", key: fyne.KeyEnd, want: "\x1bOF"},
		{name: "enter", key: fyne.KeyReturn, want: "\r"},
		{name: "shift enter", key: fyne.KeyReturn, mods: shift, want: "\n"},
		{name: "keypad enter", key: fyne.KeyEnter, want: "\r"},
		{name: "backspace", key: fyne.KeyBackspace, want: "\x7f"},
		{name: "ctrl backspace", key: fyne.KeyBackspace, mods: ctrl, want: "\x08"},
		{name: "alt backspace", key: fyne.KeyBackspace, mods: alt, want: "\x1b\x7f"},
		{name: "tab", key: fyne.KeyTab, want: "\t"},
		{name: "shift tab", key: fyne.KeyTab, mods: shift, want: "\x1b[Z"},
		{name: "escape", key: fyne.KeyEscape, want: "\x1b"},
		{name: "delete", key: fyne.KeyDelete, want: "\x1b[3~"},
		{name: "page up", key: fyne.KeyPageUp, want: "\x1b[5~"},
		{name: "f1", key: fyne.KeyF1, want: "\x1bOP"},
		{name: "f5", key: fyne.KeyF5, want: "\x1b[15~"},
		{name: "f12", key: fyne.KeyF12, want: "\x1b[24~"},
		{name: "ctrl f5", key: fyne.KeyF5, mods: ctrl, want: "\x1b[15;5~"},
		{name: "letter", key: fyne.KeyA, r: 'a', want: "a"},
		{name: "shifted letter", key: fyne.KeyA, mods: shift, r: 'A', want: "A"},
		{name: "composed", key: fyne.KeyE, r: 'é', want: "é"},
		{name: "space", key: fyne.KeySpace, r: ' ', want: " "},
		{name: "ctrl d", key: fyne.KeyD, mods: ctrl, want: "\x04"},
		{name: "ctrl space", key: fyne.KeySpace, mods: ctrl, want: "\x00"},
		{name: "ctrl [", key: fyne.KeyLeftBracket, mods: ctrl, want: "\x1b"},
		{name: "ctrl c reaches program", key: fyne.KeyC, mods: ctrl, want: "\x03", linux: true},
		{name: "ctrl v reaches program", key: fyne.KeyV, mods: ctrl, want: "\x16", linux: true},
		{name: "ctrl a", key: fyne.KeyA, mods: ctrl, want: "\x01", linux: true},
		{name: "ctrl z", key: fyne.KeyZ, mods: ctrl, want: "\x1a", linux: true},
		{name: "alt x", key: fyne.KeyX, mods: alt, want: "\x1bx"},
		{name: "alt shift x", key: fyne.KeyX, mods: alt | shift, want: "\x1bX"},
		{name: "alt up", key: fyne.KeyUp, mods: alt, want: "\x1b[1;3A"},
		{name: "ctrl alt a", key: fyne.KeyA, mods: ctrl | alt, want: "\x1b\x01"},
		{name: "super is the app's", key: fyne.KeyK, mods: fyne.KeyModifierSuper, want: ""},
		{name: "ctrl shift c copies", key: fyne.KeyC, mods: ctrl | shift, want: "", linux: true},
		{name: "shift page up scrolls", key: fyne.KeyPageUp, mods: shift, want: ""},
		{name: "shift page up on alt screen", modes: "\x1b[?1049h", key: fyne.KeyPageUp, mods: shift, want: "\x1b[5;2~"},
		// A program that pushed the kitty keyboard protocol's first flag
		// (Claude Code, Codex, Gemini CLI, opencode do) gets unambiguous keys.
		{name: "kitty escape", modes: "\x1b[>1u", key: fyne.KeyEscape, want: "\x1b[27u"},
		{name: "kitty shift enter", modes: "\x1b[>1u", key: fyne.KeyReturn, mods: shift, want: "\x1b[13;2u"},
		{name: "kitty enter", modes: "\x1b[>1u", key: fyne.KeyReturn, want: "\r"},
		{name: "kitty ctrl c", modes: "\x1b[>1u", key: fyne.KeyC, mods: ctrl, want: "\x1b[99;5u", linux: true},
		{name: "kitty alt x", modes: "\x1b[>1u", key: fyne.KeyX, mods: alt, want: "\x1b[120;3u"},
		{name: "kitty letter", modes: "\x1b[>1u", key: fyne.KeyA, r: 'a', want: "a"},
		{name: "kitty popped", modes: "\x1b[>1u\x1b[<u", key: fyne.KeyEscape, want: "\x1b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.linux && isMac {
				t.Skip("Cmd is the secondary modifier on macOS")
			}
			h := newHarness(t, 20, 5, Options{})
			if tc.modes != "" {
				h.output(tc.modes)
			}
			press(h.v, tc.key, tc.mods, tc.r)
			if got := h.p.takeInput(); got != tc.want {
				t.Errorf("sent %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCopyPasteChords(t *testing.T) {
	if isMac {
		t.Skip("Linux/Windows chords")
	}
	h := newHarness(t, 20, 5, Options{})
	h.output("hello world")
	h.v.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: h.pos(0, 0)}, Button: desktop.MouseButtonPrimary})
	h.v.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: h.pos(4, 0)}})
	h.v.DragEnd()
	h.v.MouseUp(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: h.pos(4, 0)}, Button: desktop.MouseButtonPrimary})

	fyne.CurrentApp().Clipboard().SetContent("other")
	press(h.v, fyne.KeyC, fyne.KeyModifierControl, 0)
	if got := h.p.takeInput(); got != "\x03" {
		t.Errorf("Ctrl+C sent %q, want ^C", got)
	}
	if got := clipboardText(); got != "other" {
		t.Errorf("Ctrl+C changed the clipboard to %q", got)
	}
	press(h.v, fyne.KeyC, fyne.KeyModifierControl|fyne.KeyModifierShift, 0)
	if got := clipboardText(); got != "hello" {
		t.Errorf("Ctrl+Shift+C copied %q, want %q", got, "hello")
	}
	if got := h.p.takeInput(); got != "" {
		t.Errorf("Ctrl+Shift+C sent %q", got)
	}

	fyne.CurrentApp().Clipboard().SetContent("ls\n")
	press(h.v, fyne.KeyV, fyne.KeyModifierControl|fyne.KeyModifierShift, 0)
	if got := h.p.takeInput(); got != "ls\r" {
		t.Errorf("Ctrl+Shift+V sent %q, want %q", got, "ls\r")
	}
	// Shift+Insert arrives as fyne's Paste shortcut after KeyDown(Insert).
	h.v.KeyDown(&fyne.KeyEvent{Name: fyne.KeyInsert})
	h.v.TypedShortcut(&fyne.ShortcutPaste{})
	if got := h.p.takeInput(); got != "ls\r" {
		t.Errorf("Shift+Insert sent %q, want %q", got, "ls\r")
	}
}

func TestPasteBracketed(t *testing.T) {
	h := newHarness(t, 20, 5, Options{})
	fyne.CurrentApp().Clipboard().SetContent("a\nb\x1b[201~c")
	h.v.Paste()
	if got, want := h.p.takeInput(), "a\rb\x1b[201~c"; got != want {
		t.Errorf("plain paste sent %q, want %q", got, want)
	}
	h.output("\x1b[?2004h")
	h.v.Paste()
	if got, want := h.p.takeInput(), "\x1b[200~a\rbc\x1b[201~"; got != want {
		t.Errorf("bracketed paste sent %q, want %q", got, want)
	}
}

func TestKeysHandler(t *testing.T) {
	type call struct {
		key  fyne.KeyName
		mods fyne.KeyModifier
	}
	var calls []call
	keys := func(k fyne.KeyName, m fyne.KeyModifier) bool {
		calls = append(calls, call{k, m})
		return k == fyne.KeyT || k == fyne.KeyF2 || k == fyne.KeyQ
	}
	h := newHarness(t, 20, 5, Options{Keys: keys})

	press(h.v, fyne.KeyT, fyne.KeyModifierControl|fyne.KeyModifierShift, 0)
	press(h.v, fyne.KeyF2, 0, 0)
	press(h.v, fyne.KeyQ, 0, 'q') // consumed in TypedKey: its rune is dropped
	if got := h.p.takeInput(); got != "" {
		t.Errorf("consumed keys sent %q", got)
	}
	press(h.v, fyne.KeyW, 0, 'w')
	press(h.v, fyne.KeyLeft, fyne.KeyModifierAlt, 0)
	if got, want := h.p.takeInput(), "w\x1b[1;3D"; got != want {
		t.Errorf("unconsumed keys sent %q, want %q", got, want)
	}
	want := []call{
		{fyne.KeyT, fyne.KeyModifierControl | fyne.KeyModifierShift},
		{fyne.KeyF2, 0},
		{fyne.KeyQ, 0},
		{fyne.KeyW, 0},
		{fyne.KeyLeft, fyne.KeyModifierAlt},
	}
	if len(calls) != len(want) {
		t.Fatalf("handler saw %v, want %v", calls, want)
	}
	for i := range want {
		if calls[i] != want[i] {
			t.Errorf("call %d = %v, want %v", i, calls[i], want[i])
		}
	}
}

func TestTypeAndFocus(t *testing.T) {
	focused := 0
	h := newHarness(t, 20, 5, Options{OnFocus: func() { focused++ }})
	h.output("\x1b[?1004h")
	test.FocusNext(h.w.Canvas())
	if h.w.Canvas().Focused() != fyne.Focusable(h.v) {
		t.Fatalf("focused %v, want the view", h.w.Canvas().Focused())
	}
	if focused != 1 {
		t.Errorf("OnFocus called %d times, want 1", focused)
	}
	test.Type(h.v, "ls -l")
	if got, want := h.p.takeInput(), "\x1b[Ils -l"; got != want {
		t.Errorf("sent %q, want %q", got, want)
	}
	// Tab stays in the terminal.
	if !h.v.AcceptsTab() {
		t.Error("AcceptsTab = false")
	}
	h.w.Canvas().Unfocus()
	if got := h.p.takeInput(); got != "\x1b[O" {
		t.Errorf("focus loss sent %q, want ESC [ O", got)
	}
}

func TestTypingScrollsToBottom(t *testing.T) {
	h := newHarness(t, 20, 5, Options{})
	for range 30 {
		h.p.write("line\r\n")
	}
	h.settle()
	h.v.ScrollPages(-1)
	if got := h.v.Offset(); got != 4 {
		t.Fatalf("offset after one page up = %d, want 4", got)
	}
	h.v.ScrollPages(-1)
	h.v.ScrollPages(1)
	if got := h.v.Offset(); got != 4 {
		t.Fatalf("offset after a page up and a page down = %d, want 4", got)
	}
	test.Type(h.v, "x")
	if got := h.v.Offset(); got != 0 {
		t.Errorf("offset after typing = %d, want 0", got)
	}
}
