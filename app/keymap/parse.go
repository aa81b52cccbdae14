package keymap

import (
	"errors"
	"fmt"
	"runtime"
	"strings"

	"fyne.io/fyne/v2"
)

// modifierWords are the modifier spellings ParseBinding accepts; 0 stands
// for "secondary", resolved per platform.
var modifierWords = map[string]fyne.KeyModifier{
	"ctrl": fyne.KeyModifierControl, "control": fyne.KeyModifierControl,
	"shift": fyne.KeyModifierShift,
	"alt":   fyne.KeyModifierAlt, "option": fyne.KeyModifierAlt, "opt": fyne.KeyModifierAlt,
	"super": fyne.KeyModifierSuper, "cmd": fyne.KeyModifierSuper, "command": fyne.KeyModifierSuper, "win": fyne.KeyModifierSuper,
	"secondary": 0,
}

// keyWords maps the accepted key spellings (lower case) to Fyne's names.
// Letters, digits and f1–f12 are handled in keyName.
var keyWords = map[string]fyne.KeyName{
	"left": fyne.KeyLeft, "right": fyne.KeyRight, "up": fyne.KeyUp, "down": fyne.KeyDown,
	"home": fyne.KeyHome, "end": fyne.KeyEnd,
	"pageup": fyne.KeyPageUp, "pgup": fyne.KeyPageUp, "page_up": fyne.KeyPageUp, "prior": fyne.KeyPageUp,
	"pagedown": fyne.KeyPageDown, "pgdn": fyne.KeyPageDown, "pgdown": fyne.KeyPageDown, "page_down": fyne.KeyPageDown, "next": fyne.KeyPageDown,
	"tab": fyne.KeyTab, "enter": fyne.KeyReturn, "return": fyne.KeyReturn, "kp_enter": fyne.KeyEnter,
	"escape": fyne.KeyEscape, "esc": fyne.KeyEscape, "space": fyne.KeySpace,
	"backspace": fyne.KeyBackspace, "delete": fyne.KeyDelete, "del": fyne.KeyDelete,
	"insert": fyne.KeyInsert, "ins": fyne.KeyInsert,
	"=": fyne.KeyEqual, "equal": fyne.KeyEqual, "equals": fyne.KeyEqual,
	"-": fyne.KeyMinus, "minus": fyne.KeyMinus,
	"+": fyne.KeyPlus, "plus": fyne.KeyPlus,
	",": fyne.KeyComma, "comma": fyne.KeyComma,
	".": fyne.KeyPeriod, "period": fyne.KeyPeriod,
	"/": fyne.KeySlash, "slash": fyne.KeySlash,
	"\\": fyne.KeyBackslash, "backslash": fyne.KeyBackslash,
	"[": fyne.KeyLeftBracket, "bracketleft": fyne.KeyLeftBracket, "leftbracket": fyne.KeyLeftBracket,
	"]": fyne.KeyRightBracket, "bracketright": fyne.KeyRightBracket, "rightbracket": fyne.KeyRightBracket,
	";": fyne.KeySemicolon, "semicolon": fyne.KeySemicolon,
	"'": fyne.KeyApostrophe, "apostrophe": fyne.KeyApostrophe, "quote": fyne.KeyApostrophe,
	"`": fyne.KeyBackTick, "backtick": fyne.KeyBackTick, "grave": fyne.KeyBackTick,
	"*": fyne.KeyAsterisk, "asterisk": fyne.KeyAsterisk,
}

// keyWordOf is the preferred spelling of each key, for Binding.String.
var keyWordOf = map[fyne.KeyName]string{
	fyne.KeyPageUp: "pageup", fyne.KeyPageDown: "pagedown", fyne.KeyReturn: "enter", fyne.KeyEnter: "kp_enter",
	fyne.KeyEscape: "escape", fyne.KeyBackspace: "backspace",
}

// keyWord spells k for Binding.String.
func keyWord(k fyne.KeyName) string {
	if w, ok := keyWordOf[k]; ok {
		return w
	}
	return strings.ToLower(string(k))
}

// ParseBinding parses a keystroke such as "ctrl+shift+d",
// "secondary-shift-d", "cmd+=", "alt+left", "shift+pageup" or "f5" (see
// the package doc for the syntax), resolving "secondary" for the system
// it runs on. Spaces around parts are ignored; case does not matter. A
// keystroke needs exactly one key; modifiers may not repeat.
func ParseBinding(s string) (Binding, error) {
	return parseFor(s, runtime.GOOS)
}

// parseFor is ParseBinding with "secondary" resolved for goos.
func parseFor(s, goos string) (Binding, error) {
	rest := strings.ToLower(strings.TrimSpace(s))
	if rest == "" {
		return Binding{}, errors.New("empty keystroke")
	}
	var b Binding
	for {
		// A modifier is a word followed by a separator; whatever
		// remains after the last one is the key (which may itself be
		// "+" or "-").
		i := strings.IndexAny(rest, "+-")
		if i <= 0 {
			break
		}
		word := strings.TrimSpace(rest[:i])
		bit, ok := modifierWords[word]
		if !ok {
			// "page-up" and the like: the remainder is one key name.
			if _, isKey := keyName(rest); isKey {
				break
			}
			return Binding{}, fmt.Errorf("unknown modifier %q", word)
		}
		if bit == 0 {
			bit = secondaryFor(goos)
		}
		if b.Mods&bit != 0 {
			return Binding{}, fmt.Errorf("modifier %q given twice", word)
		}
		b.Mods |= bit
		rest = strings.TrimSpace(rest[i+1:])
		if rest == "" {
			return Binding{}, fmt.Errorf("no key after %q", strings.TrimSpace(s))
		}
	}
	k, ok := keyName(rest)
	if !ok {
		if _, isMod := modifierWords[rest]; isMod {
			return Binding{}, fmt.Errorf("no key after %q", strings.TrimSpace(s))
		}
		return Binding{}, fmt.Errorf("unknown key %q", rest)
	}
	b.Key = k
	return b, nil
}

// keyName maps a lower-case key spelling to Fyne's key name.
func keyName(w string) (fyne.KeyName, bool) {
	if k, ok := keyWords[w]; ok {
		return k, true
	}
	if k, ok := keyWords[strings.NewReplacer("-", "", "_", "", " ", "").Replace(w)]; ok && len(w) > 1 {
		return k, true
	}
	if len(w) == 1 {
		c := w[0]
		switch {
		case c >= 'a' && c <= 'z':
			return fyne.KeyName(strings.ToUpper(w)), true
		case c >= '0' && c <= '9':
			return fyne.KeyName(w), true
		}
	}
	if len(w) >= 2 && w[0] == 'f' {
		var n int
		if _, err := fmt.Sscanf(w[1:], "%d", &n); err == nil && fmt.Sprint(n) == w[1:] && n >= 1 && n <= 12 {
			return fyne.KeyName(fmt.Sprintf("F%d", n)), true
		}
	}
	return "", false
}
