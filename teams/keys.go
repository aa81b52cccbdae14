package teams

import (
	"encoding/hex"
	"fmt"
	"strings"
)

// namedKeys are the key names send-keys understands, with the bytes a
// terminal in normal (not application) cursor mode sends for them.
var namedKeys = map[string]string{
	"Enter": "\r", "Tab": "\t", "BTab": "\x1b[Z", "Space": " ", "Escape": "\x1b", "BSpace": "\x7f",
	"Up": "\x1b[A", "Down": "\x1b[B", "Right": "\x1b[C", "Left": "\x1b[D",
	"Home": "\x1b[H", "End": "\x1b[F", "IC": "\x1b[2~", "Insert": "\x1b[2~", "DC": "\x1b[3~", "Delete": "\x1b[3~",
	"PPage": "\x1b[5~", "PageUp": "\x1b[5~", "PgUp": "\x1b[5~", "NPage": "\x1b[6~", "PageDown": "\x1b[6~", "PgDn": "\x1b[6~",
	"F1": "\x1bOP", "F2": "\x1bOQ", "F3": "\x1bOR", "F4": "\x1bOS", "F5": "\x1b[15~", "F6": "\x1b[17~",
	"F7": "\x1b[18~", "F8": "\x1b[19~", "F9": "\x1b[20~", "F10": "\x1b[21~", "F11": "\x1b[23~", "F12": "\x1b[24~",
}

// keyBytes returns the bytes of one send-keys argument without -l: a key
// name (Enter, C-c, M-x, C-M-a, …) or, when it is none, the text itself.
func keyBytes(k string) string {
	if b, ok := namedKeys[k]; ok {
		return b
	}
	meta := false
	rest := k
	ctrl := false
	for len(rest) > 2 && rest[1] == '-' {
		switch rest[0] {
		case 'C', 'c':
			ctrl = true
		case 'M', 'm':
			meta = true
		case 'S', 's':
		default:
			return k
		}
		rest = rest[2:]
	}
	if rest == k {
		return k
	}
	var b string
	if nb, ok := namedKeys[rest]; ok {
		b = nb
		if ctrl {
			return k // C-Enter and friends have no plain byte form
		}
	} else if len(rest) == 1 {
		ch := rest[0]
		b = rest
		if ctrl {
			switch {
			case ch >= 'a' && ch <= 'z':
				b = string(rune(ch - 'a' + 1))
			case ch >= '@' && ch <= '_':
				b = string(rune(ch - '@'))
			case ch == '?':
				b = "\x7f"
			case ch == ' ' || ch == '2':
				b = "\x00"
			default:
				return k
			}
		}
	} else {
		return k
	}
	if meta {
		b = "\x1b" + b
	}
	return b
}

// keysInput builds what send-keys types: with literal each argument's
// text as is, with hexa each argument as a hex byte, else key names or
// text; the whole repeated count times.
func keysInput(args []string, literal, hexa bool, count int) (string, error) {
	var b strings.Builder
	for _, a := range args {
		switch {
		case hexa:
			h := strings.TrimPrefix(strings.ToLower(a), "0x")
			if len(h)%2 == 1 {
				h = "0" + h
			}
			v, err := hex.DecodeString(h)
			if err != nil || len(v) != 1 {
				return "", fmt.Errorf("send-keys: bad hex key %q", a)
			}
			b.Write(v)
		case literal:
			b.WriteString(a)
		default:
			b.WriteString(keyBytes(a))
		}
	}
	return strings.Repeat(b.String(), max(count, 1)), nil
}
