package terminal

import (
	"bytes"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// This file turns user input (keys, pastes, focus changes) into the bytes a
// program running in the terminal expects, following xterm with its
// default resources: modifyCursorKeys=2, modifyFunctionKeys=2,
// modifyOtherKeys=0, metaSendsEscape=true (Alt prefixes ESC) and
// Backspace sending DEL. Mouse reports are in mouse.go. Every function
// here is pure and safe for concurrent use.

const (
	byteESC = 0x1b
	byteDEL = 0x7f
)

// csiTildeCodes are the "CSI n ~" numbers of the keys that use that form
// (VT220 editing keypad and function keys, as xterm numbers them).
var csiTildeCodes = map[Key]int{
	KeyInsert:   2,
	KeyDelete:   3,
	KeyPageUp:   5,
	KeyPageDown: 6,
	KeyF5:       15,
	KeyF6:       17,
	KeyF7:       18,
	KeyF8:       19,
	KeyF9:       20,
	KeyF10:      21,
	KeyF11:      23,
	KeyF12:      24,
	KeyF13:      25,
	KeyF14:      26,
	KeyF15:      28,
	KeyF16:      29,
	KeyF17:      31,
	KeyF18:      32,
	KeyF19:      33,
	KeyF20:      34,
}

// keypadKeys gives, for each numeric-keypad key, the character it sends in
// numeric mode and the SS3 final byte it sends in application mode
// (DECKPAM), as on a VT100 plus xterm's additions for * + / =.
var keypadKeys = map[Key]struct{ numeric, app byte }{
	KeyKP0:        {'0', 'p'},
	KeyKP1:        {'1', 'q'},
	KeyKP2:        {'2', 'r'},
	KeyKP3:        {'3', 's'},
	KeyKP4:        {'4', 't'},
	KeyKP5:        {'5', 'u'},
	KeyKP6:        {'6', 'v'},
	KeyKP7:        {'7', 'w'},
	KeyKP8:        {'8', 'x'},
	KeyKP9:        {'9', 'y'},
	KeyKPDecimal:  {'.', 'n'},
	KeyKPDivide:   {'/', 'o'},
	KeyKPMultiply: {'*', 'j'},
	KeyKPSubtract: {'-', 'm'},
	KeyKPAdd:      {'+', 'k'},
	KeyKPEnter:    {'\r', 'M'},
	KeyKPEqual:    {'=', 'X'},
}

// EncodeKey returns the bytes a program expects for ev under modes m, and
// ok=false when the key has no encoding: any event with [ModSuper]
// (Super/Command combinations belong to the GUI), modifier bits that are
// not defined, a [KeyRune] event whose Rune is a control character or not
// a valid rune, and values that are not a defined [Key].
//
// The mapping follows xterm's defaults and the surface.send_keystroke
// table of the IPC spec:
//
//   - Cursor keys and Home/End send CSI A/B/C/D/H/F, or SS3 (ESC O) with
//     m.AppCursor; F1–F4 send SS3 P/Q/R/S. With Shift, Alt or Ctrl they
//     always send "CSI 1 ; mod X", where mod is 1 + Shift(1) + Alt(2) +
//     Ctrl(4).
//   - Insert, Delete, Page Up/Down and F5–F20 send "CSI n ~"
//     (2 3 5 6, 15 17 18 19 20 21 23 24, 25 26 28 29 31 32 33 34), or
//     "CSI n ; mod ~" when modified.
//   - Enter sends CR, Shift+Enter LF; Tab sends HT, Shift+Tab CSI Z;
//     Backspace sends DEL, Ctrl+Backspace BS; Escape sends ESC.
//   - A character sends its UTF-8. Shift upper-cases a letter. Ctrl turns
//     @ A–Z [ \ ] ^ _ (and their lowercase and ` { | } ~ forms) into
//     C0 controls, space and 2 into NUL, 3–7 into ESC FS GS RS US, 8 and ?
//     into DEL, and / into US; Ctrl with any other character is dropped,
//     as xterm drops it.
//   - Alt prefixes ESC to whatever the key sends otherwise (Alt+x is
//     ESC x, Alt+Backspace ESC DEL, Alt+Enter ESC CR), except for the
//     CSI/SS3 keys above, where it is part of mod, and Shift+Tab.
//   - When the program switched on the kitty keyboard protocol's
//     [KittyDisambiguate] (m.KittyKeys), Escape, Enter/Tab/Backspace
//     with a modifier (Shift+Tab excepted) and characters or Space with
//     Ctrl or Alt send "CSI code ; mod u" instead, code being 27, 13, 9,
//     127 or the lower-case character (Escape alone is CSI 27 u); see
//     kittykeys.go.
//   - Numeric-keypad keys send their character, or with m.AppKeypad
//     "SS3 X" (ESC O p … y for 0–9, M for Enter), "SS3 mod X" when
//     modified. Modifiers are otherwise dropped for keypad keys.
//
// Shift has no effect on Escape, Backspace, Space and characters without
// a case. Callers implementing a macOS "Option is not Meta" setting
// remove ModAlt from events for Enter, Backspace, Escape, Tab, Space and
// characters before calling EncodeKey.
//
// The returned slice is newly allocated and owned by the caller.
// EncodeKey is safe for concurrent use.
func EncodeKey(ev KeyEvent, m InputModes) (b []byte, ok bool) {
	mods := ev.Mods
	if mods&^modKnown != 0 || mods&ModSuper != 0 {
		return nil, false
	}
	shift := mods&ModShift != 0
	alt := mods&ModAlt != 0
	ctrl := mods&ModCtrl != 0
	param := 1
	if shift {
		param += 1
	}
	if alt {
		param += 2
	}
	if ctrl {
		param += 4
	}

	switch k := ev.Key; {
	case k >= KeyUp && k <= KeyEnd:
		final := "ABDCHF"[k-KeyUp]
		switch {
		case param > 1:
			return csiParam(1, param, final), true
		case m.AppCursor:
			return []byte{byteESC, 'O', final}, true
		default:
			return []byte{byteESC, '[', final}, true
		}
	case k >= KeyF1 && k <= KeyF4:
		final := byte('P' + (k - KeyF1))
		if param > 1 {
			return csiParam(1, param, final), true
		}
		return []byte{byteESC, 'O', final}, true
	case k >= KeyKP0 && k <= KeyKPEqual:
		kp := keypadKeys[k]
		switch {
		case !m.AppKeypad:
			return []byte{kp.numeric}, true
		case param > 1:
			b = append([]byte{byteESC, 'O'}, strconv.Itoa(param)...)
			return append(b, kp.app), true
		default:
			return []byte{byteESC, 'O', kp.app}, true
		}
	}
	if m.KittyKeys&KittyDisambiguate != 0 {
		if b, ok := encodeKittyKey(ev, param); ok {
			return b, true
		}
	}
	if n, isTilde := csiTildeCodes[ev.Key]; isTilde {
		b = append([]byte{byteESC, '['}, strconv.Itoa(n)...)
		if param > 1 {
			b = append(b, ';')
			b = strconv.AppendInt(b, int64(param), 10)
		}
		return append(b, '~'), true
	}

	// The remaining keys send characters, with Alt as an ESC prefix.
	if alt {
		b = append(b, byteESC)
	}
	switch ev.Key {
	case KeyEnter:
		if shift {
			return append(b, '\n'), true
		}
		return append(b, '\r'), true
	case KeyTab:
		if shift {
			// xterm's ISO_Left_Tab: CSI Z whatever else is held.
			return []byte{byteESC, '[', 'Z'}, true
		}
		return append(b, '\t'), true
	case KeyBackspace:
		if ctrl {
			return append(b, 0x08), true
		}
		return append(b, byteDEL), true
	case KeyEscape:
		return append(b, byteESC), true
	case KeySpace:
		return appendRune(b, ' ', shift, ctrl)
	case KeyRune:
		return appendRune(b, ev.Rune, shift, ctrl)
	}
	return nil, false
}

// csiParam returns "CSI n ; param final".
func csiParam(n, param int, final byte) []byte {
	b := []byte{byteESC, '['}
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, ';')
	b = strconv.AppendInt(b, int64(param), 10)
	return append(b, final)
}

// appendRune appends what typing r with the given modifiers sends (Alt is
// already handled by the caller). It reports false for runes that are not
// printable characters.
func appendRune(b []byte, r rune, shift, ctrl bool) ([]byte, bool) {
	if !utf8.ValidRune(r) || unicode.IsControl(r) {
		return nil, false
	}
	if ctrl {
		if c, ok := ctrlCode(r); ok {
			return append(b, c), true
		}
	}
	if shift {
		r = unicode.ToUpper(r)
	}
	return utf8.AppendRune(b, r), true
}

// ctrlCode returns the control character Ctrl+r produces on an xterm (the
// X library's traditional translation plus Ctrl+? = DEL), and false when
// Ctrl does not change r.
func ctrlCode(r rune) (byte, bool) {
	switch {
	case r >= '@' && r <= '~':
		return byte(r) & 0x1f, true
	case r == ' ' || r == '2':
		return 0, true
	case r >= '3' && r <= '7':
		return byte(r-'3') + byteESC, true
	case r == '8' || r == '?':
		return byteDEL, true
	case r == '/':
		return 0x1f, true
	}
	return 0, false
}

// Submits reports whether the encoding of ev under m contains a carriage
// return or line feed, i.e. whether sending it would submit a line to a
// shell or an agent's prompt (Enter, Shift+Enter, Ctrl+M, Ctrl+J, keypad
// Enter in numeric mode, …). It reports false when ev has no encoding.
// The socket API uses it to refuse such keystrokes.
func (ev KeyEvent) Submits(m InputModes) bool {
	b, ok := EncodeKey(ev, m)
	return ok && bytes.ContainsAny(b, "\r\n")
}

var (
	bracketedPasteStart = []byte("\x1b[200~")
	bracketedPasteEnd   = []byte("\x1b[201~")
)

// EncodePaste returns the bytes to write for pasting text. Line endings
// "\r\n" and "\n" become "\r", as xterm sends them. With m.BracketedPaste
// the text is wrapped in ESC[200~ … ESC[201~, and every ESC[201~ inside
// it is removed (including ones that only appear once another is removed)
// so the pasted text cannot end the paste early and have the rest run as
// typed input. Empty text gives nil. Other bytes, including invalid
// UTF-8, pass through unchanged.
//
// This is the interactive paste path; the socket API's send_text has its
// own rules (IPC spec §9). The returned slice is newly allocated and owned
// by the caller. EncodePaste is safe for concurrent use.
func EncodePaste(text string, m InputModes) []byte {
	if text == "" {
		return nil
	}
	out := make([]byte, 0, len(text)+len(bracketedPasteStart)+len(bracketedPasteEnd))
	start := 0
	if m.BracketedPaste {
		out = append(out, bracketedPasteStart...)
		start = len(out)
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch c {
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
		case '\n':
			c = '\r'
		}
		out = append(out, c)
		// The end marker can only appear ending at the byte just added,
		// and removing it leaves an earlier, marker-free state, so one
		// check per byte keeps the whole body free of it in linear time.
		if m.BracketedPaste && len(out)-start >= len(bracketedPasteEnd) && bytes.HasSuffix(out, bracketedPasteEnd) {
			out = out[:len(out)-len(bracketedPasteEnd)]
		}
	}
	if m.BracketedPaste {
		out = append(out, bracketedPasteEnd...)
	}
	return out
}

// EncodeFocus returns the focus report for a focus change — ESC[I when
// the terminal gained focus, ESC[O when it lost it — or nil when the
// program did not ask for focus events (m.FocusEvents, DECSET 1004).
// The returned slice is newly allocated. EncodeFocus is safe for
// concurrent use.
func EncodeFocus(focused bool, m InputModes) []byte {
	switch {
	case !m.FocusEvents:
		return nil
	case focused:
		return []byte{byteESC, '[', 'I'}
	default:
		return []byte{byteESC, '[', 'O'}
	}
}
