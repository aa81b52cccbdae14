package mcpinstall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// A jsonc document is edited as text: we find the byte spans of the
// members we change and leave every other byte (formatting, key order,
// comments and trailing commas of JSONC) as it was.

// span is a member of an object: key start to value end, byte offsets.
type span struct {
	key        string
	start, end int // start of the key's quote, end of the value
	valStart   int
}

// objSpan is a parsed object: its braces and members.
type objSpan struct {
	open, close int // offsets of '{' and '}'
	members     []span
}

// scanner walks JSON with comments (// and /* */) and trailing commas.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) errf(format string, a ...any) error {
	line := 1 + bytes.Count(s.b[:min(s.i, len(s.b))], []byte("\n"))
	return fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, a...))
}

// skip passes white space and comments.
func (s *scanner) skip() error {
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			s.i++
		case c == '/' && s.i+1 < len(s.b) && s.b[s.i+1] == '/':
			for s.i < len(s.b) && s.b[s.i] != '\n' {
				s.i++
			}
		case c == '/' && s.i+1 < len(s.b) && s.b[s.i+1] == '*':
			end := bytes.Index(s.b[s.i+2:], []byte("*/"))
			if end < 0 {
				return s.errf("unterminated comment")
			}
			s.i += 2 + end + 2
		default:
			return nil
		}
	}
	return nil
}

// str reads a string at s.i and returns its value.
func (s *scanner) str() (string, error) {
	start := s.i
	s.i++
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '\\':
			s.i += 2
			continue
		case '"':
			s.i++
			var v string
			if err := json.Unmarshal(s.b[start:s.i], &v); err != nil {
				return "", s.errf("bad string")
			}
			return v, nil
		case '\n':
			return "", s.errf("newline in a string")
		}
		s.i++
	}
	return "", s.errf("unterminated string")
}

// value passes one value; for an object it returns its spans when want.
func (s *scanner) value(depth int) (*objSpan, error) {
	if depth > 200 {
		return nil, s.errf("nested too deeply")
	}
	if err := s.skip(); err != nil {
		return nil, err
	}
	if s.i >= len(s.b) {
		return nil, s.errf("unexpected end of file")
	}
	switch c := s.b[s.i]; {
	case c == '{':
		o := &objSpan{open: s.i}
		s.i++
		seen := map[string]bool{}
		for {
			if err := s.skip(); err != nil {
				return nil, err
			}
			if s.i >= len(s.b) {
				return nil, s.errf("unterminated object")
			}
			if s.b[s.i] == '}' {
				o.close = s.i
				s.i++
				return o, nil
			}
			if s.b[s.i] != '"' {
				return nil, s.errf("expected a member name")
			}
			m := span{start: s.i}
			k, err := s.str()
			if err != nil {
				return nil, err
			}
			if seen[k] {
				return nil, s.errf("duplicate key %q", k)
			}
			seen[k] = true
			m.key = k
			if err := s.skip(); err != nil {
				return nil, err
			}
			if s.i >= len(s.b) || s.b[s.i] != ':' {
				return nil, s.errf("expected ':'")
			}
			s.i++
			if err := s.skip(); err != nil {
				return nil, err
			}
			m.valStart = s.i
			if _, err := s.value(depth + 1); err != nil {
				return nil, err
			}
			m.end = s.i
			o.members = append(o.members, m)
			if err := s.skip(); err != nil {
				return nil, err
			}
			if s.i < len(s.b) && s.b[s.i] == ',' {
				s.i++
				continue
			}
			if err := s.skip(); err != nil {
				return nil, err
			}
			if s.i >= len(s.b) || s.b[s.i] != '}' {
				return nil, s.errf("expected ',' or '}'")
			}
		}
	case c == '[':
		s.i++
		for {
			if err := s.skip(); err != nil {
				return nil, err
			}
			if s.i < len(s.b) && s.b[s.i] == ']' {
				s.i++
				return nil, nil
			}
			if _, err := s.value(depth + 1); err != nil {
				return nil, err
			}
			if err := s.skip(); err != nil {
				return nil, err
			}
			if s.i < len(s.b) && s.b[s.i] == ',' {
				s.i++
				continue
			}
			if s.i >= len(s.b) || s.b[s.i] != ']' {
				return nil, s.errf("expected ',' or ']'")
			}
		}
	case c == '"':
		_, err := s.str()
		return nil, err
	default:
		start := s.i
		for s.i < len(s.b) && bytes.IndexByte([]byte(" \t\r\n,]}/"), s.b[s.i]) < 0 {
			s.i++
		}
		tok := s.b[start:s.i]
		if !json.Valid(tok) {
			return nil, s.errf("invalid value %q", truncate(tok))
		}
		return nil, nil
	}
}

func truncate(b []byte) string {
	if len(b) > 20 {
		return string(b[:20]) + "…"
	}
	return string(b)
}

// parseDoc parses a whole document, which must be one object (white space
// or comments only around it). jsonc allows comments and trailing commas.
func parseDoc(b []byte, jsonc bool) (*objSpan, error) {
	if !jsonc && len(bytes.TrimSpace(b)) > 0 && !json.Valid(b) {
		var v any
		err := json.Unmarshal(b, &v)
		return nil, fmt.Errorf("not valid JSON (%v)", err)
	}
	s := &scanner{b: b}
	if err := s.skip(); err != nil {
		return nil, err
	}
	if s.i >= len(b) || b[s.i] != '{' {
		return nil, errors.New("the file is not a JSON object")
	}
	o, err := s.value(0)
	if err != nil {
		return nil, err
	}
	if err := s.skip(); err != nil {
		return nil, err
	}
	if s.i != len(b) {
		return nil, s.errf("data after the JSON object")
	}
	return o, nil
}

// member returns the member named key, if any.
func (o *objSpan) member(key string) (span, bool) {
	for _, m := range o.members {
		if m.key == key {
			return m, true
		}
	}
	return span{}, false
}

// child parses the object value of member m of doc b.
func child(b []byte, m span) (*objSpan, error) {
	s := &scanner{b: b, i: m.valStart}
	if b[m.valStart] != '{' {
		return nil, fmt.Errorf("%q is not an object", m.key)
	}
	return s.value(0)
}

// lineIndent returns the white space that starts the line holding off.
func lineIndent(b []byte, off int) string {
	start := bytes.LastIndexByte(b[:off], '\n') + 1
	end := start
	for end < len(b) && (b[end] == ' ' || b[end] == '\t') {
		end++
	}
	return string(b[start:end])
}

// memberIndent guesses the indentation of a new member of o.
func memberIndent(b []byte, o *objSpan, parentIndent string) string {
	if len(o.members) > 0 {
		ind := lineIndent(b, o.members[0].start)
		if bytes.LastIndexByte(b[:o.members[0].start], '\n') > o.open {
			return ind
		}
	}
	return parentIndent + "  "
}

// reindent indents every line of v after the first by ind.
func reindent(v []byte, ind string) string {
	return string(bytes.ReplaceAll(v, []byte("\n"), []byte("\n"+ind)))
}

// setMember returns b with member key of object o set to val (pretty JSON
// without trailing newline), inserted before o's closing brace when new.
func setMember(b []byte, o *objSpan, key string, val []byte, parentIndent string) []byte {
	ind := memberIndent(b, o, parentIndent)
	if m, ok := o.member(key); ok {
		return splice(b, m.valStart, m.end, reindent(val, ind))
	}
	k, _ := json.Marshal(key)
	text := string(k) + ": " + reindent(val, ind)
	if len(o.members) == 0 {
		return splice(b, o.open+1, o.close, "\n"+ind+text+"\n"+parentIndent)
	}
	last := o.members[len(o.members)-1]
	// A trailing comma (JSONC) already separates the last member.
	s := &scanner{b: b, i: last.end}
	s.skip()
	if s.i < len(b) && b[s.i] == ',' {
		at := s.i + 1
		// Keep a comment that ends the comma's line with the member
		// before it.
		for at < len(b) && (b[at] == ' ' || b[at] == '\t') {
			at++
		}
		if at+1 < len(b) && b[at] == '/' && b[at+1] == '/' {
			if nl := bytes.IndexByte(b[at:], '\n'); nl >= 0 {
				at += nl
			} else {
				at = len(b)
			}
		} else {
			at = s.i + 1
		}
		return splice(b, at, at, "\n"+ind+text)
	}
	return splice(b, last.end, last.end, ",\n"+ind+text)
}

// deleteMember returns b without member key of o, and its separator.
func deleteMember(b []byte, o *objSpan, key string) []byte {
	idx := -1
	for i, m := range o.members {
		if m.key == key {
			idx = i
		}
	}
	if idx < 0 {
		return b
	}
	m := o.members[idx]
	start := m.start
	// Take the white space before the member back to the end of the
	// previous token (so its line goes).
	for start > 0 && (b[start-1] == ' ' || b[start-1] == '\t') {
		start--
	}
	if start > 0 && b[start-1] == '\n' {
		start--
		if start > 0 && b[start-1] == '\r' {
			start--
		}
	}
	s := &scanner{b: b, i: m.end}
	s.skip()
	end := m.end
	if s.i < len(b) && b[s.i] == ',' {
		end = s.i + 1 // the member's own comma goes with it
		if idx == 0 {
			// First member: keep the line break before the next member.
			return splice(b, start, end, "")
		}
		return splice(b, start, end, "")
	}
	// The last member: drop the comma before it instead.
	if idx > 0 {
		prev := o.members[idx-1]
		t := &scanner{b: b, i: prev.end}
		t.skip()
		if t.i < start && b[t.i] == ',' {
			return splice(splice(b, start, end, ""), t.i, t.i+1, "")
		}
	}
	return splice(b, start, end, "")
}

// splice replaces b[i:j] with s in a copy.
func splice(b []byte, i, j int, s string) []byte {
	out := make([]byte, 0, len(b)+len(s))
	out = append(out, b[:i]...)
	out = append(out, s...)
	return append(out, b[j:]...)
}
