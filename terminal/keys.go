package terminal

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Key identifies a key on the keyboard for [EncodeKey]. Named keys
// (Enter, arrows, F1…F20, the numeric keypad, …) have their own values;
// every other key is [KeyRune], with the character in [KeyEvent.Rune].
//
// The zero value is [KeyRune], so KeyEvent{Rune: 'x'} is the key that
// types "x".
type Key uint16

// The keys [EncodeKey] knows. The numbering is not part of the API; use
// the names.
const (
	KeyRune       Key = iota // a printable character, carried in KeyEvent.Rune
	KeyEnter                 // Return / Enter on the main keyboard
	KeyTab                   // Tab
	KeyEscape                // Escape
	KeyBackspace             // Backspace (the key above Enter)
	KeySpace                 // the space bar; equivalent to KeyRune with ' '
	KeyUp                    // cursor up
	KeyDown                  // cursor down
	KeyLeft                  // cursor left
	KeyRight                 // cursor right
	KeyHome                  // Home
	KeyEnd                   // End
	KeyPageUp                // Page Up (Prior)
	KeyPageDown              // Page Down (Next)
	KeyInsert                // Insert
	KeyDelete                // Delete (forward delete, not Backspace)
	KeyF1                    // function key F1; KeyF1+n-1 is Fn for n ≤ 20
	KeyF2                    // F2
	KeyF3                    // F3
	KeyF4                    // F4
	KeyF5                    // F5
	KeyF6                    // F6
	KeyF7                    // F7
	KeyF8                    // F8
	KeyF9                    // F9
	KeyF10                   // F10
	KeyF11                   // F11
	KeyF12                   // F12
	KeyF13                   // F13
	KeyF14                   // F14
	KeyF15                   // F15
	KeyF16                   // F16
	KeyF17                   // F17
	KeyF18                   // F18
	KeyF19                   // F19
	KeyF20                   // F20
	KeyKP0                   // numeric keypad 0; KeyKP0+n is keypad digit n
	KeyKP1                   // numeric keypad 1
	KeyKP2                   // numeric keypad 2
	KeyKP3                   // numeric keypad 3
	KeyKP4                   // numeric keypad 4
	KeyKP5                   // numeric keypad 5
	KeyKP6                   // numeric keypad 6
	KeyKP7                   // numeric keypad 7
	KeyKP8                   // numeric keypad 8
	KeyKP9                   // numeric keypad 9
	KeyKPDecimal             // numeric keypad "."
	KeyKPDivide              // numeric keypad "/"
	KeyKPMultiply            // numeric keypad "*"
	KeyKPSubtract            // numeric keypad "-"
	KeyKPAdd                 // numeric keypad "+"
	KeyKPEnter               // numeric keypad Enter
	KeyKPEqual               // numeric keypad "="

	keyCount // number of defined keys; not a key
)

// keyNames holds the canonical name of every named key, as accepted by
// [ParseKey] and printed by [Key.String] and [KeyEvent.String].
var keyNames = [keyCount]string{
	KeyRune:       "rune",
	KeyEnter:      "enter",
	KeyTab:        "tab",
	KeyEscape:     "escape",
	KeyBackspace:  "backspace",
	KeySpace:      "space",
	KeyUp:         "up",
	KeyDown:       "down",
	KeyLeft:       "left",
	KeyRight:      "right",
	KeyHome:       "home",
	KeyEnd:        "end",
	KeyPageUp:     "pageup",
	KeyPageDown:   "pagedown",
	KeyInsert:     "insert",
	KeyDelete:     "delete",
	KeyF1:         "f1",
	KeyF2:         "f2",
	KeyF3:         "f3",
	KeyF4:         "f4",
	KeyF5:         "f5",
	KeyF6:         "f6",
	KeyF7:         "f7",
	KeyF8:         "f8",
	KeyF9:         "f9",
	KeyF10:        "f10",
	KeyF11:        "f11",
	KeyF12:        "f12",
	KeyF13:        "f13",
	KeyF14:        "f14",
	KeyF15:        "f15",
	KeyF16:        "f16",
	KeyF17:        "f17",
	KeyF18:        "f18",
	KeyF19:        "f19",
	KeyF20:        "f20",
	KeyKP0:        "kp0",
	KeyKP1:        "kp1",
	KeyKP2:        "kp2",
	KeyKP3:        "kp3",
	KeyKP4:        "kp4",
	KeyKP5:        "kp5",
	KeyKP6:        "kp6",
	KeyKP7:        "kp7",
	KeyKP8:        "kp8",
	KeyKP9:        "kp9",
	KeyKPDecimal:  "kpdecimal",
	KeyKPDivide:   "kpdivide",
	KeyKPMultiply: "kpmultiply",
	KeyKPSubtract: "kpsubtract",
	KeyKPAdd:      "kpadd",
	KeyKPEnter:    "kpenter",
	KeyKPEqual:    "kpequal",
}

// keyAliases are the extra spellings [ParseKey] accepts besides the
// canonical names in keyNames.
var keyAliases = map[string]Key{
	"return":    KeyEnter,
	"esc":       KeyEscape,
	"bs":        KeyBackspace,
	"page_up":   KeyPageUp,
	"pgup":      KeyPageUp,
	"page_down": KeyPageDown,
	"pgdn":      KeyPageDown,
	"pgdown":    KeyPageDown,
	"ins":       KeyInsert,
	"del":       KeyDelete,
}

// keyByName maps every name and alias ParseKey accepts to its key.
// KeyRune's placeholder name is not included: "rune" is not a key.
var keyByName = func() map[string]Key {
	m := make(map[string]Key, len(keyNames)+len(keyAliases))
	for k, name := range keyNames {
		if Key(k) != KeyRune {
			m[name] = Key(k)
		}
	}
	for name, k := range keyAliases {
		m[name] = k
	}
	return m
}()

// String returns the key's canonical name as [ParseKey] accepts it
// ("enter", "pageup", "f5", "kpenter"), "rune" for [KeyRune], or
// "Key(n)" for a value that is not a defined key.
func (k Key) String() string {
	if k < keyCount {
		return keyNames[k]
	}
	return "Key(" + strconv.Itoa(int(k)) + ")"
}

// Mod is a set of keyboard modifiers held during a key or mouse event.
// The zero value is "no modifiers". Combine bits with |.
type Mod uint8

// The modifiers. ModAlt is Alt on Linux/Windows and Option on macOS;
// ModSuper is the Windows/Command key.
const (
	ModShift Mod = 1 << iota // Shift
	ModAlt                   // Alt / Option (meta)
	ModCtrl                  // Control
	ModSuper                 // Super / Windows / Command

	modKnown = ModShift | ModAlt | ModCtrl | ModSuper
)

// String returns the modifiers in the key-name grammar's order, joined
// with "-" ("ctrl-alt-shift-super"), "" for none, and a hexadecimal
// remainder for bits that are not defined modifiers.
func (m Mod) String() string {
	var parts []string
	if m&ModCtrl != 0 {
		parts = append(parts, "ctrl")
	}
	if m&ModAlt != 0 {
		parts = append(parts, "alt")
	}
	if m&ModShift != 0 {
		parts = append(parts, "shift")
	}
	if m&ModSuper != 0 {
		parts = append(parts, "super")
	}
	if rest := m &^ modKnown; rest != 0 {
		parts = append(parts, fmt.Sprintf("Mod(%#x)", uint8(rest)))
	}
	return strings.Join(parts, "-")
}

// KeyEvent is one key press: a key, the character for [KeyRune], and the
// modifiers held. The GUI builds it from toolkit events; [ParseKey]
// builds it from a key name. Rune is ignored for every key but KeyRune.
//
// For KeyRune, Rune is the character the key types without Shift where
// the layout allows ('a' with ModShift types "A"); a GUI that already has
// the shifted character may pass it ('A' with or without ModShift) and
// gets the same bytes. The zero value (KeyRune with Rune 0) has no
// encoding.
//
// KeyEvent is a small comparable value; it is safe to copy and share.
type KeyEvent struct {
	Key  Key
	Rune rune
	Mods Mod
}

// String returns ev in the key-name grammar ("ctrl-shift-left", "alt-x",
// "ctrl--", "space"). For every event ParseKey returns,
// ParseKey(ev.String()) returns ev again. A KeyRune event whose Rune is
// not printable is shown as "U+XXXX", which ParseKey rejects.
func (ev KeyEvent) String() string {
	var b strings.Builder
	if mods := ev.Mods.String(); mods != "" {
		b.WriteString(mods)
		b.WriteByte('-')
	}
	switch {
	case ev.Key != KeyRune:
		b.WriteString(ev.Key.String())
	case ev.Rune == ' ':
		b.WriteString(keyNames[KeySpace])
	case isKeyNameRune(ev.Rune):
		b.WriteRune(ev.Rune)
	default:
		fmt.Fprintf(&b, "%U", ev.Rune)
	}
	return b.String()
}

// isKeyNameRune reports whether r may stand for itself as the key
// component of a key name: a single visible character or space.
func isKeyNameRune(r rune) bool {
	return r != utf8.RuneError && unicode.IsGraphic(r)
}

// ParseKey parses a key name as used by the socket API's
// surface.send_keystroke and the CLI's "paneflow key":
//
//	[modifier-]…key
//
// Components are separated by "-". Modifiers are case-insensitive:
// "ctrl", "alt", "shift", "super" (also "cmd" and "win"), "fn" (accepted
// and ignored: it never reaches the terminal), and "secondary" (Command
// on macOS, Ctrl elsewhere, decided by the platform this runs on).
//
// The key is the last component, lowercased (ASCII only): a key name —
// "enter" ("return"), "tab", "escape" ("esc"), "backspace" ("bs"),
// "space", "up", "down", "left", "right", "home", "end", "pageup"
// ("page_up", "pgup"), "pagedown" ("page_down", "pgdn", "pgdown"),
// "insert" ("ins"), "delete" ("del"), "f1"…"f20", and the numeric keypad
// "kp0"…"kp9", "kpdecimal", "kpdivide", "kpmultiply", "kpsubtract",
// "kpadd", "kpenter", "kpequal" — or any single visible character, which
// becomes a [KeyRune] event. A single uppercase ASCII letter means Shift
// plus that letter ("C" is "shift-c"). A trailing "-" is the minus key
// ("-", "ctrl--").
//
// Unknown names give an error such as `terminal: unknown key "foo"`. The
// upstream "key->text" literal-text form is not supported and is
// reported as such. Every event ParseKey returns either has an encoding
// under [EncodeKey] or carries [ModSuper], which never has one.
//
// ParseKey is safe for concurrent use.
func ParseKey(s string) (KeyEvent, error) {
	return parseKey(s, runtime.GOOS == "darwin")
}

// parseKey is ParseKey with the platform choice for "secondary" made
// explicit, so both meanings can be tested anywhere.
func parseKey(s string, darwin bool) (KeyEvent, error) {
	if s == "" {
		return KeyEvent{}, fmt.Errorf("terminal: empty key name")
	}

	// Split into modifier components and the key component. A trailing
	// "-" is the minus key, so "ctrl--" is ctrl plus "-" and "-" alone is
	// minus; any other trailing "-" ("ctrl-") is missing its key.
	var mods []string
	keyPart := ""
	if strings.HasSuffix(s, "-") {
		keyPart = "-"
		rest := s[:len(s)-1]
		if rest != "" {
			if !strings.HasSuffix(rest, "-") {
				return KeyEvent{}, fmt.Errorf("terminal: invalid key %q: no key after the last \"-\"", s)
			}
			mods = strings.Split(rest[:len(rest)-1], "-")
		}
	} else {
		parts := strings.Split(s, "-")
		keyPart = parts[len(parts)-1]
		mods = parts[:len(parts)-1]
	}

	var ev KeyEvent
	for i, m := range mods {
		switch strings.ToLower(m) {
		case "ctrl":
			ev.Mods |= ModCtrl
		case "alt":
			ev.Mods |= ModAlt
		case "shift":
			ev.Mods |= ModShift
		case "cmd", "super", "win":
			ev.Mods |= ModSuper
		case "secondary":
			if darwin {
				ev.Mods |= ModSuper
			} else {
				ev.Mods |= ModCtrl
			}
		case "fn":
			// A hardware modifier; keyboards resolve it before the key
			// reaches a terminal, so it changes no bytes.
		case "":
			return KeyEvent{}, fmt.Errorf("terminal: invalid key %q: empty modifier", s)
		default:
			if i == len(mods)-1 && len(keyPart) > 1 && keyPart[0] == '>' {
				return KeyEvent{}, fmt.Errorf("terminal: invalid key %q: literal key text (\"->\") is not supported", s)
			}
			return KeyEvent{}, fmt.Errorf("terminal: unknown modifier %q in key %q", m, s)
		}
	}

	if len(keyPart) == 1 && keyPart[0] >= 'A' && keyPart[0] <= 'Z' {
		ev.Key = KeyRune
		ev.Rune = rune(keyPart[0] - 'A' + 'a')
		ev.Mods |= ModShift
		return ev, nil
	}
	name := asciiLower(keyPart)
	if k, ok := keyByName[name]; ok {
		ev.Key = k
		return ev, nil
	}
	if r, size := utf8.DecodeRuneInString(name); size == len(name) && isKeyNameRune(r) {
		if r == ' ' {
			ev.Key = KeySpace
		} else {
			ev.Key = KeyRune
			ev.Rune = r
		}
		return ev, nil
	}
	switch name {
	case "ctrl", "alt", "shift", "cmd", "super", "win", "secondary", "fn":
		return KeyEvent{}, fmt.Errorf("terminal: invalid key %q: modifiers without a key", s)
	}
	if len(mods) == 0 {
		return KeyEvent{}, fmt.Errorf("terminal: unknown key %q", keyPart)
	}
	return KeyEvent{}, fmt.Errorf("terminal: unknown key %q in %q", keyPart, s)
}

// asciiLower lowercases the ASCII letters of s and leaves every other
// byte alone, so "É" stays "É" while "F5" becomes "f5".
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
