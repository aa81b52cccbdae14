package termview

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/paneflow-go/paneflow/app/render"
	"github.com/paneflow-go/paneflow/internal/vis"
	"github.com/paneflow-go/paneflow/terminal"
)

// urlPattern finds plain URLs in row text. Trailing punctuation is trimmed
// afterwards by trimURL.
var urlPattern = regexp.MustCompile(`(?i)\b(?:https?://|file://)[^\s<>"'` + "`" + `]+`)

// urlSpan is a URL found in a text: bytes [start, end).
type urlSpan struct{ start, end int }

// detectURLs returns the http, https and file URLs in text, with trailing
// punctuation (".,;:!?" and closing brackets that have no opening one in
// the URL) removed.
func detectURLs(text string) []urlSpan {
	var out []urlSpan
	for _, m := range urlPattern.FindAllStringIndex(text, -1) {
		end := m[0] + len(trimURL(text[m[0]:m[1]]))
		if _, ok := safeURL(text[m[0]:end]); ok {
			out = append(out, urlSpan{m[0], end})
		}
	}
	return out
}

// trimURL removes trailing characters that end a sentence rather than
// the URL.
func trimURL(s string) string {
	for len(s) > 0 {
		c := s[len(s)-1]
		switch c {
		case '.', ',', ';', ':', '!', '?', '*':
			s = s[:len(s)-1]
			continue
		case ')', ']', '}':
			open := map[byte]byte{')': '(', ']': '[', '}': '{'}[c]
			if strings.Count(s, string(open)) < strings.Count(s, string(c)) {
				s = s[:len(s)-1]
				continue
			}
		}
		break
	}
	return s
}

// safeURL parses a link target and accepts only schemes that open a page
// or a file: http and https (with a host), file (on this machine:
// terminal.LocalHost; a file:// link to another host would have the
// desktop reach out to it) and mailto.
func safeURL(raw string) (*url.URL, bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		return u, u.Host != ""
	case "file":
		return u, u.Path != "" && terminal.LocalHost(u.Host)
	case "mailto":
		return u, u.Opaque != ""
	}
	return nil, false
}

// linkAtLocked returns the link under a snapshot cell and the cells it
// covers on that row: an OSC 8 hyperlink, or a plain URL in the row's
// text. Unsafe targets are no link.
func (v *View) linkAtLocked(cell render.Point) (*url.URL, render.Span) {
	s := &v.snap
	if cell.Row < 0 || cell.Row >= s.Rows || cell.Col < 0 || cell.Col >= s.Cols {
		return nil, render.Span{}
	}
	row := s.Row(cell.Row)
	if id := row[cell.Col].Link; id != 0 {
		u, ok := safeURL(s.Link(id))
		if !ok {
			return nil, render.Span{}
		}
		c0, c1 := cell.Col, cell.Col+1
		for c0 > 0 && row[c0-1].Link == id {
			c0--
		}
		for c1 < len(row) && row[c1].Link == id {
			c1++
		}
		return u, render.Span{Row: cell.Row, Col0: c0, Col1: c1}
	}
	// Plain URL: build the row text with the column of every byte.
	var b strings.Builder
	cols := make([]int, 0, len(row))
	for x, c := range row {
		if c.IsWideContinuation() {
			continue
		}
		g := s.Grapheme(c)
		b.WriteString(g)
		for range len(g) {
			cols = append(cols, x)
		}
	}
	text := b.String()
	for _, m := range detectURLs(text) {
		c0, c1 := cols[m.start], cols[m.end-1]+1
		if cell.Col >= c0 && cell.Col < c1 {
			u, _ := safeURL(text[m.start:m.end])
			return u, render.Span{Row: cell.Row, Col0: c0, Col1: c1}
		}
	}
	return nil, render.Span{}
}

// maxShownTarget bounds, in runes, the link target the View shows.
const maxShownTarget = 160

// shortTarget is a link target as the View shows it: control and
// bidirectional-text characters as escapes (a program chose the target),
// cut in the middle with "…" when long.
func shortTarget(target string) string {
	r := []rune(vis.String(target))
	if len(r) <= maxShownTarget {
		return string(r)
	}
	half := maxShownTarget / 2
	return string(r[:half]) + "…" + string(r[len(r)-half+1:])
}
