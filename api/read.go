package api

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/paneflow-go/paneflow/terminal"
)

// Read limits (spec limits.md).
const (
	readDefaultLines = 200
	readMaxRows      = 4000    // rows in the read source
	readMaxChars     = 400_000 // characters in the read source
	// readMaxEncoded bounds a window's text as encoded in the JSON reply,
	// so that the reply fits the socket's frame cap (ipc.MaxFrame, 256
	// KiB, the clients' reply cap too) with room for the envelope, the
	// fence and defang's growth: 400,000 characters can take 1.6 MB.
	readMaxEncoded = 192 << 10
)

// page is one surface.read window.
type page struct {
	text       string
	lines      int
	total      int // rows in the source (the newest ≤ readMaxRows)
	eof        bool
	generation uint64
}

// readPage returns up to lines rows ending offset rows before the newest
// one, from a source made of the newest ≤4000 grid rows (right-trimmed,
// trailing empty rows dropped). The window is cut to its newest
// ≤400,000 characters, and then to what encodes in readMaxEncoded bytes
// of JSON, at a line boundary (eof is then false; older rows stay
// reachable with an offset). Reading
// costs the window, not the whole source. ok is false, with the source's
// size in total, when offset is out of range.
func readPage(emu *terminal.Emulator, lines, offset int) (p page, ok bool) {
	if offset < 0 || offset > readMaxRows {
		w, _ := emu.ReadText(0, 0)
		return page{total: min(w.TotalLines, readMaxRows)}, false
	}
	w, err := emu.ReadText(min(lines, readMaxRows-offset), offset)
	p = page{total: min(w.TotalLines, readMaxRows), generation: w.Generation}
	if err != nil {
		return p, false
	}
	p.text, p.lines = w.Text, w.Lines
	p.eof = p.total-offset-p.lines == 0
	cut := 0
	if len(p.text) > readMaxChars { // bytes ≥ characters: only then can the cap apply
		cut = charCut(p.text, readMaxChars)
	}
	if len(p.text)-cut > readMaxEncoded/6 { // each byte encodes in at most 6
		cut += encodedCut(p.text[cut:], readMaxEncoded)
	}
	if cut > 0 {
		p.text = p.text[cut:]
		p.lines = strings.Count(p.text, "\n") + 1
		if p.text == "" {
			p.lines = 0
		}
		p.eof = false
	}
	return p, true
}

// charCut returns the byte offset where the newest whole lines of text
// holding at most max characters start (0 when all of it fits).
func charCut(text string, max int) int {
	n := utf8.RuneCountInString(text)
	if n <= max {
		return 0
	}
	cut := 0
	for skip := n - max; skip > 0; skip-- {
		_, size := utf8.DecodeRuneInString(text[cut:])
		cut += size
	}
	return lineStart(text, cut)
}

// encodedCut returns the byte offset where the newest whole lines of
// text whose JSON string encoding (as the socket writes it: no HTML
// escaping) takes at most max bytes start (0 when all of it fits).
func encodedCut(text string, max int) int {
	n := encodedLen(text)
	if n <= max {
		return 0
	}
	cut := 0
	for n > max {
		r, size := utf8.DecodeRuneInString(text[cut:])
		n -= encodedRuneLen(r, size)
		cut += size
	}
	return lineStart(text, cut)
}

// encodedLen is the length of text encoded as a JSON string by
// encoding/json with HTML escaping off, without the quotes; an upper
// bound for the few runes whose encoding changed between Go releases.
func encodedLen(text string) int {
	n := 0
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		n += encodedRuneLen(r, size)
		i += size
	}
	return n
}

// encodedRuneLen is the encoded length of rune r, read from size bytes.
func encodedRuneLen(r rune, size int) int {
	switch {
	case r == utf8.RuneError && size == 1:
		return 6 // an invalid byte becomes \ufffd
	case r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t':
		return 2
	case r < 0x20 || r == '\u2028' || r == '\u2029':
		return 6
	}
	return size
}

// lineStart moves cut, a byte offset in text, forward to the start of
// the next line unless a line starts there (len(text) when none does).
func lineStart(text string, cut int) int {
	if cut == 0 || cut >= len(text) || text[cut-1] == '\n' {
		return min(cut, len(text))
	}
	if i := strings.IndexByte(text[cut:], '\n'); i >= 0 {
		return cut + i + 1
	}
	return len(text)
}

// keepTail returns the newest whole lines of text whose JSON encoding
// fits in max bytes.
func keepTail(text string, max int) string {
	return text[encodedCut(text, max):]
}

// fenceTag is the envelope element around untrusted terminal text.
const fenceTag = "untrusted_terminal_output"

// newFenceID returns 16 lowercase hex characters from 64 random bits.
func newFenceID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go ≥ 1.24)
	return hex.EncodeToString(b[:])
}

// fence wraps body in the untrusted-output envelope (spec ipc.md
// surface.read). Every closing tag in body, in any letter case, is
// defanged with a zero-width space after "<" so it cannot end the
// envelope early.
func fence(body string, surfaceID uint64, totalLines int, eof bool, id string) string {
	var b strings.Builder
	b.Grow(len(body) + 200)
	b.WriteString("<" + fenceTag + ` source="surface:`)
	b.WriteString(strconv.FormatUint(surfaceID, 10))
	b.WriteString(`" total_lines="`)
	b.WriteString(strconv.Itoa(totalLines))
	b.WriteString(`" eof="`)
	b.WriteString(strconv.FormatBool(eof))
	b.WriteString(`" id="` + id + "\">\n")
	b.WriteString(defang(body))
	b.WriteString("\n</" + fenceTag + ` id="` + id + `">`)
	return b.String()
}

// closingTag is what defang neutralizes.
const closingTag = "</" + fenceTag

// defang rewrites every case-insensitive occurrence of
// "</untrusted_terminal_output" to "<\u200b/untrusted_terminal_output"
// (keeping the original letters).
func defang(s string) string {
	if !containsFold(s, closingTag) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for {
		i := indexFold(s, closingTag)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString("<\u200b")
		b.WriteString(s[i+1 : i+len(closingTag)])
		s = s[i+len(closingTag):]
	}
}

func containsFold(s, sub string) bool { return indexFold(s, sub) >= 0 }

// indexFold finds sub (ASCII, lowercase) in s ignoring ASCII case.
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i] != '<' {
			continue
		}
		j := 1
		for j < len(sub) && lowerASCII(s[i+j]) == sub[j] {
			j++
		}
		if j == len(sub) {
			return i
		}
	}
	return -1
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
