package mcp

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// fenceTag is the element that wraps terminal text handed to an agent.
const fenceTag = "untrusted_terminal_output"

// FenceAttr is one attribute of a fence's opening tag.
type FenceAttr struct{ Name, Value string }

// Fence wraps text (terminal output, untrusted) for an agent:
//
//	<untrusted_terminal_output a="…" … id="<16 hex>">
//	text
//	</untrusted_terminal_output id="<16 hex>">
//
// The id is a fresh random 64-bit value per call, so output cannot guess
// it; any closing tag inside text is defanged (U+200B after its "<", in any
// letter case) so it cannot end the fence early. Attribute values lose the
// characters " < > CR and LF.
func Fence(text string, attrs ...FenceAttr) string {
	id := newFenceID()
	var b strings.Builder
	b.Grow(len(text) + 128)
	b.WriteString("<" + fenceTag)
	for _, a := range attrs {
		b.WriteString(" " + a.Name + `="` + sanitizeAttr(a.Value) + `"`)
	}
	b.WriteString(` id="` + id + "\">\n")
	body := defang(strings.TrimRight(text, "\n"))
	b.WriteString(body)
	if body != "" {
		b.WriteByte('\n')
	}
	b.WriteString("</" + fenceTag + ` id="` + id + `">`)
	return b.String()
}

// newFenceID returns 16 random hex digits.
func newFenceID() string {
	var r [8]byte
	rand.Read(r[:]) // never fails (crypto/rand panics rather than return an error)
	return hex.EncodeToString(r[:])
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

// defang inserts U+200B after the "<" of every "</untrusted_terminal_output"
// in s, matching the tag name case-insensitively (ASCII).
func defang(s string) string {
	const closing = "</" + fenceTag
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
// it is, so offsets in the result are offsets in s. (strings.ToLower
// turns invalid UTF-8 into U+FFFD and lowers some non-ASCII letters to
// ASCII ones, shifting the offsets: found by FuzzFence.)
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
