package conductor

import (
	"strings"
	"unicode/utf8"

	"github.com/paneflow-go/paneflow/proto"
)

// Text limits of agent sessions (spec limits.md, "Agent sessions"),
// counted in runes.
const (
	MaxMessage        = proto.MaxMessage        // the waiting question (message)
	MaxLastResult     = proto.MaxLastResult     // the turn's summary (last_result)
	MaxPrompt         = proto.MaxPrompt         // what the user submitted (prompt)
	MaxActiveToolName = proto.MaxActiveToolName // active_tool_name
	MaxReason         = proto.MaxReason         // why an agent runs without hooks (reason)
	maxPathBytes      = 4096                    // transcript_path; longer paths are ignored
	maxSessionID      = 128                     // session_id, as the hook cuts it
)

// invisible reports whether r is a character sanitize removes: bidi
// controls and marks, which can make a question read differently from what
// it says, zero-width characters, the byte-order mark, and the C0 and C1
// control characters other than newline and tab.
func invisible(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r == 0x061c || r == 0x200e || r == 0x200f,
		r >= 0x202a && r <= 0x202e,
		r >= 0x2066 && r <= 0x2069,
		r >= 0x200b && r <= 0x200d, r == 0x2060, r == 0xfeff:
		return true
	}
	return false
}

// sanitize makes agent-provided text safe to show and store: invalid UTF-8
// replaced, CR LF and CR turned into LF, tabs into spaces, invisible
// characters (see invisible) removed, and, when singleLine, newlines
// turned into spaces; then leading space dropped, the text cut to at most
// max runes and trailing space trimmed. The result is "" for blank text.
func sanitize(s string, max int, singleLine bool) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	b.Grow(min(len(s), max*4))
	n := 0
	for _, r := range s {
		switch {
		case r == '\r' || r == '\n':
			if singleLine {
				r = ' '
			} else {
				r = '\n'
			}
		case r == '\t':
			r = ' '
		case invisible(r):
			continue
		}
		if n == 0 && (r == ' ' || r == '\n') {
			continue // leading space
		}
		b.WriteRune(r)
		if n++; n == max {
			break
		}
	}
	return strings.TrimSpace(b.String())
}
