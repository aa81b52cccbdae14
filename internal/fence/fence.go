// Package fence wraps terminal text for an agent in the untrusted-output
// envelope, so that the agent reads it as data, not as instructions:
//
//	<untrusted_terminal_output a="…" … id="<16 hex>">
//	text
//	</untrusted_terminal_output id="<16 hex>">
//
// The flow engine fences the captures it hands to an agent with it, and
// the MCP bridge (mcp.Fence) everything it hands one. (The socket's
// surface.read, api/read.go, still writes the same envelope itself, with
// the id it also reports.)
//
// It is a leaf (standard library only); its functions are safe for
// concurrent use.
package fence

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// Tag is the envelope's element name.
const Tag = "untrusted_terminal_output"

// Attr is one attribute of the opening tag.
type Attr struct{ Name, Value string }

// Wrap fences text. The id is a fresh random 64-bit value per call, so
// the text cannot guess it; every closing tag inside text is defanged
// (U+200B after its "<", in any letter case) so it cannot end the fence
// early; attribute values lose the characters " < > CR and LF. Trailing
// line breaks of text are dropped.
func Wrap(text string, attrs ...Attr) string {
	var r [8]byte
	rand.Read(r[:]) // never fails (crypto/rand panics rather than return an error)
	id := hex.EncodeToString(r[:])
	var b strings.Builder
	b.Grow(len(text) + 128)
	b.WriteString("<" + Tag)
	for _, a := range attrs {
		b.WriteString(" " + a.Name + `="` + sanitizeAttr(a.Value) + `"`)
	}
	b.WriteString(` id="` + id + "\">\n")
	body := Defang(strings.TrimRight(text, "\n"))
	b.WriteString(body)
	if body != "" {
		b.WriteByte('\n')
	}
	b.WriteString("</" + Tag + ` id="` + id + `">`)
	return b.String()
}

// sanitizeAttr deletes the characters that could end an attribute or a tag.
func sanitizeAttr(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '"', '<', '>', '\n', '\r':
			return -1
		}
		return r
	}, s)
}

// Defang inserts U+200B after the "<" of every "</untrusted_terminal_output"
// in s, matching the tag name case-insensitively (ASCII).
func Defang(s string) string {
	const closing = "</" + Tag
	lower := asciiLower(s)
	if !strings.Contains(lower, closing) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for {
		i := strings.Index(lower, closing)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+1])
		b.WriteString("\u200b")
		s, lower = s[i+1:], lower[i+1:]
	}
}

// asciiLower lowers the ASCII letters of s and leaves every other byte as
// it is, so offsets in the result are offsets in s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
