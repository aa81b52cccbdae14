// Package vis makes text that a program or a repository controls safe to
// show to a person: control characters, bytes that are not UTF-8 and
// bidirectional-text controls become visible escapes, so such text cannot
// move the cursor, rewrite what a terminal shows, or reorder what a reader
// sees (a plan, a pane title, a search hit).
//
// The functions are pure and safe for concurrent use.
package vis

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// String returns s with every C0 control (tab and newline included), DEL,
// C1 control and byte that is not UTF-8 written as \xNN, and every
// bidirectional-text control (U+061C, U+200E, U+200F, U+202A–U+202E,
// U+2066–U+2069) as \uNNNN. Backslashes are kept as they are: the result is
// for reading, not for parsing back. Text without any of these is returned
// unchanged, without allocating.
func String(s string) string { return escape(s, false) }

// Text is String for text of several lines: tab and newline are kept.
func Text(s string) string { return escape(s, true) }

func escape(s string, keepLines bool) string {
	i := firstUnsafe(s, keepLines)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafeRune(r, keepLines):
			if r < 0x100 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Safe reports whether String(s) == s: s holds nothing String escapes.
func Safe(s string) bool { return firstUnsafe(s, false) < 0 }

// firstUnsafe is the byte offset of the first rune escape would rewrite,
// or -1.
func firstUnsafe(s string, keepLines bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || unsafeRune(r, keepLines) {
			return i
		}
		i += n
	}
	return -1
}

func unsafeRune(r rune, keepLines bool) bool {
	switch {
	case r == '\n' || r == '\t':
		return !keepLines
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f,
		r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
