// Package tomledit changes one value of a TOML document in place, keeping
// every other byte: the user's comments, blank lines, key order, quoting
// and spelling stay as they were. It is how Paneflow's settings view
// writes paneflow.toml (config.Save).
//
// [Set] finds the key's assignment (under its [table] header, or as a
// dotted key) and replaces only the value's bytes; a trailing comment on
// that line stays. A key not yet in the document is added after the last
// key of its table, or with a new [table] appended at the end. Every
// result is decoded again and compared with the original decoded with
// the one value changed: anything else (a document that does not parse,
// a key defined in an inline table, an array of tables) is refused with
// an error and no output, never written half right.
//
// It does not format documents, remove keys, or write files.
//
// # Concurrency
//
// Every function is a pure function of its inputs, safe for concurrent
// use.
package tomledit

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/paneflow-go/paneflow/internal/tomlquote"
)

// Format returns value as TOML: a string as a basic string, a bool, an
// integer (int or int64) or a float64 (always with a decimal point or an
// exponent, so that it reads back as a float). Other types, and a NaN or
// infinite float, are an error.
func Format(value any) (string, error) {
	switch v := value.(type) {
	case string:
		return tomlquote.String(v), nil
	case bool:
		return strconv.FormatBool(v), nil
	case int:
		return strconv.Itoa(v), nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "", fmt.Errorf("tomledit: %v is not a number TOML settings take", v)
		}
		s := strconv.FormatFloat(v, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return s, nil
	}
	return "", fmt.Errorf("tomledit: cannot write a %T value", value)
}

// Set returns doc with key (its parts, as ["terminal", "scrollback_lines"]
// for terminal.scrollback_lines) set to value (see [Format] for the
// types). doc is not modified. The error says why when doc does not parse
// or the key cannot be set in place.
func Set(doc []byte, key []string, value any) ([]byte, error) {
	if len(key) == 0 {
		return nil, errors.New("tomledit: empty key")
	}
	for _, k := range key {
		if k == "" {
			return nil, fmt.Errorf("tomledit: key %q has an empty part", strings.Join(key, "."))
		}
	}
	val, err := Format(value)
	if err != nil {
		return nil, err
	}
	var orig map[string]any
	if _, err := toml.Decode(string(doc), &orig); err != nil {
		return nil, fmt.Errorf("tomledit: %v", err)
	}
	stmts, err := scan(string(doc))
	if err != nil {
		return nil, err
	}
	out := place(string(doc), stmts, key, val)
	var got map[string]any
	if _, err := toml.Decode(out, &got); err != nil {
		return nil, fmt.Errorf("tomledit: %s cannot be set in this file (%v)", strings.Join(key, "."), err)
	}
	var typed map[string]any
	if _, err := toml.Decode("v = "+val, &typed); err != nil {
		return nil, fmt.Errorf("tomledit: %v", err)
	}
	want := orig
	if want == nil {
		want = map[string]any{}
	}
	if err := setIn(want, key, typed["v"]); err != nil {
		return nil, fmt.Errorf("tomledit: %s cannot be set: %v", strings.Join(key, "."), err)
	}
	if !equal(got, want) {
		return nil, fmt.Errorf("tomledit: %s cannot be set in place in this file (an inline table or an array of tables holds it)", strings.Join(key, "."))
	}
	return []byte(out), nil
}

// setIn sets key in the decoded document m, creating tables on the way.
func setIn(m map[string]any, key []string, v any) error {
	for _, k := range key[:len(key)-1] {
		next, ok := m[k]
		if !ok {
			t := map[string]any{}
			m[k] = t
			m = t
			continue
		}
		t, ok := next.(map[string]any)
		if !ok {
			return fmt.Errorf("%s is not a table", k)
		}
		m = t
	}
	m[key[len(key)-1]] = v
	return nil
}

// equal is reflect.DeepEqual, but times compare with time.Time.Equal (a
// decoded offset has a new *time.Location each time).
func equal(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !equal(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case []map[string]any:
		y, ok := b.([]map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y)
	}
	return reflect.DeepEqual(a, b)
}

// stmtKind is what a statement of the document is.
type stmtKind int

const (
	header      stmtKind = iota // [table]
	arrayHeader                 // [[table]]
	keyValue                    // key = value
)

// stmt is one statement: a header or a key/value pair. path is the
// table's path (headers) or the key's full path (its table's and its
// own); end is where its line ends (after the newline); valStart and
// valEnd are the value's bytes; table is the path of the table the pair
// is written under (the last header's, nil at the top).
type stmt struct {
	kind             stmtKind
	path             []string
	table            []string
	start, end       int
	valStart, valEnd int
}

// scan splits a document that parses into its statements.
func scan(doc string) ([]stmt, error) {
	var out []stmt
	var table []string
	i := 0
	for i < len(doc) {
		lineStart := i
		i = skipSpace(doc, i)
		if i >= len(doc) {
			break
		}
		switch c := doc[i]; {
		case c == '\n':
			i++
			continue
		case c == '\r':
			i++
			continue
		case c == '#':
			i = lineEnd(doc, i)
			continue
		case c == '[':
			kind := header
			i++
			if i < len(doc) && doc[i] == '[' {
				kind = arrayHeader
				i++
			}
			path, j, err := parseKey(doc, i)
			if err != nil {
				return nil, err
			}
			j = skipSpace(doc, j)
			closing := "]"
			if kind == arrayHeader {
				closing = "]]"
			}
			if !strings.HasPrefix(doc[j:], closing) {
				return nil, fmt.Errorf("tomledit: unexpected text in a table header at byte %d", j)
			}
			i = lineEnd(doc, j+len(closing))
			table = path
			out = append(out, stmt{kind: kind, path: path, start: lineStart, end: i})
		default:
			key, j, err := parseKey(doc, i)
			if err != nil {
				return nil, err
			}
			j = skipSpace(doc, j)
			if j >= len(doc) || doc[j] != '=' {
				return nil, fmt.Errorf("tomledit: expected = at byte %d", j)
			}
			vs := skipSpace(doc, j+1)
			ve, err := valueEnd(doc, vs, true)
			if err != nil {
				return nil, err
			}
			i = lineEnd(doc, ve)
			full := append(append([]string{}, table...), key...)
			out = append(out, stmt{kind: keyValue, path: full, table: table, start: lineStart, end: i, valStart: vs, valEnd: ve})
		}
	}
	return out, nil
}

// skipSpace skips spaces and tabs.
func skipSpace(doc string, i int) int {
	for i < len(doc) && (doc[i] == ' ' || doc[i] == '\t') {
		i++
	}
	return i
}

// lineEnd returns the index after the newline ending the line i is on
// (the rest of it being space or a comment), or len(doc).
func lineEnd(doc string, i int) int {
	if j := strings.IndexByte(doc[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(doc)
}

var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+`)

// parseKey reads a dotted key at i; it returns its parts and the index
// after it.
func parseKey(doc string, i int) ([]string, int, error) {
	var parts []string
	for {
		i = skipSpace(doc, i)
		if i >= len(doc) {
			return nil, i, errors.New("tomledit: a key ends the file")
		}
		switch doc[i] {
		case '"':
			end, err := stringEnd(doc, i)
			if err != nil {
				return nil, i, err
			}
			s, err := strconv.Unquote(doc[i:end])
			if err != nil {
				// TOML escapes Go does not know (\e): decode through TOML.
				var m map[string]any
				if _, err := toml.Decode("v = "+doc[i:end], &m); err != nil {
					return nil, i, fmt.Errorf("tomledit: key at byte %d: %v", i, err)
				}
				s, _ = m["v"].(string)
			}
			parts = append(parts, s)
			i = end
		case '\'':
			end, err := stringEnd(doc, i)
			if err != nil {
				return nil, i, err
			}
			parts = append(parts, doc[i+1:end-1])
			i = end
		default:
			m := bareKey.FindString(doc[i:])
			if m == "" {
				return nil, i, fmt.Errorf("tomledit: expected a key at byte %d", i)
			}
			parts = append(parts, m)
			i += len(m)
		}
		j := skipSpace(doc, i)
		if j < len(doc) && doc[j] == '.' {
			i = j + 1
			continue
		}
		return parts, i, nil
	}
}

// stringEnd returns the index after the string starting at i (any of
// TOML's four kinds).
func stringEnd(doc string, i int) (int, error) {
	q := doc[i]
	if strings.HasPrefix(doc[i:], strings.Repeat(string(q), 3)) {
		j := i + 3
		for j < len(doc) {
			if q == '"' && doc[j] == '\\' {
				j += 2
				continue
			}
			if strings.HasPrefix(doc[j:], strings.Repeat(string(q), 3)) {
				j += 3
				for j < len(doc) && doc[j] == q { // up to two quotes end the content
					j++
				}
				return j, nil
			}
			j++
		}
		return 0, fmt.Errorf("tomledit: unterminated string at byte %d", i)
	}
	for j := i + 1; j < len(doc); j++ {
		switch doc[j] {
		case '\\':
			if q == '"' {
				j++
			}
		case q:
			return j + 1, nil
		case '\n':
			return 0, fmt.Errorf("tomledit: unterminated string at byte %d", i)
		}
	}
	return 0, fmt.Errorf("tomledit: unterminated string at byte %d", i)
}

// valueEnd returns the index after the value starting at i. A value at
// the top of a line (top) runs to a comment or the line's end; one inside
// an array or inline table also ends at , ] or }.
func valueEnd(doc string, i int, top bool) (int, error) {
	if i >= len(doc) {
		return 0, errors.New("tomledit: a value is missing at the end")
	}
	switch doc[i] {
	case '"', '\'':
		return stringEnd(doc, i)
	case '[', '{':
		closing := byte(']')
		if doc[i] == '{' {
			closing = '}'
		}
		j := i + 1
		for {
			for j < len(doc) && strings.IndexByte(" \t\r\n,", doc[j]) >= 0 {
				j++
			}
			if j >= len(doc) {
				return 0, fmt.Errorf("tomledit: unterminated array or table at byte %d", i)
			}
			switch {
			case doc[j] == closing:
				return j + 1, nil
			case doc[j] == '#':
				j = lineEnd(doc, j)
			case closing == '}':
				_, k, err := parseKey(doc, j)
				if err != nil {
					return 0, err
				}
				k = skipSpace(doc, k)
				if k >= len(doc) || doc[k] != '=' {
					return 0, fmt.Errorf("tomledit: expected = at byte %d", k)
				}
				if j, err = valueEnd(doc, skipSpace(doc, k+1), false); err != nil {
					return 0, err
				}
			default:
				var err error
				if j, err = valueEnd(doc, j, false); err != nil {
					return 0, err
				}
			}
		}
	}
	// A number, boolean or date-time: up to a comment or the line's end
	// (a date-time may hold a space), or, inside a container, a delimiter.
	j := i
	for j < len(doc) && doc[j] != '\n' && doc[j] != '#' && (top || strings.IndexByte(",]}", doc[j]) < 0) {
		j++
	}
	for j > i && (doc[j-1] == ' ' || doc[j-1] == '\t' || doc[j-1] == '\r') {
		j--
	}
	if j == i {
		return 0, fmt.Errorf("tomledit: a value is missing at byte %d", i)
	}
	return j, nil
}

// place writes val for key into doc: over its old value, else as a new
// line in its table, else in a new table at the end.
func place(doc string, stmts []stmt, key []string, val string) string {
	for _, s := range stmts {
		if s.kind == keyValue && samePath(s.path, key) {
			return doc[:s.valStart] + val + doc[s.valEnd:]
		}
	}
	nl := "\n"
	if strings.Contains(doc, "\r\n") {
		nl = "\r\n"
	}
	table, leaf := key[:len(key)-1], key[len(key)-1]
	// The table's section: its header (none for the top) up to the next
	// header.
	found, at := len(table) == 0, -1
	for i, s := range stmts {
		if s.kind == header && samePath(s.path, table) {
			found, at = true, s.end
			for _, t := range stmts[i+1:] {
				if t.kind != keyValue {
					break
				}
				at = t.end
			}
			break
		}
	}
	if found && len(table) == 0 {
		at = 0
		for _, s := range stmts {
			if s.kind != keyValue {
				break
			}
			at = s.end
		}
		if at == 0 {
			return topInsert(doc, stmts, quoteKey([]string{leaf})+" = "+val+nl, nl)
		}
	}
	if !found {
		// A table made by dotted keys (terminal.env.X = …) takes another
		// dotted key beside them.
		for i := len(stmts) - 1; i >= 0; i-- {
			s := stmts[i]
			if s.kind == keyValue && len(s.path) > len(table) && samePath(s.path[:len(table)], table) && len(s.table) < len(table) {
				return insertAt(doc, s.end, quoteKey(key[len(s.table):])+" = "+val+nl, nl)
			}
		}
		return appendTable(doc, table, quoteKey([]string{leaf})+" = "+val+nl, nl)
	}
	return insertAt(doc, at, quoteKey([]string{leaf})+" = "+val+nl, nl)
}

// insertAt inserts line at offset at (the start of a line, or the end of
// a document whose last line has no newline).
func insertAt(doc string, at int, line, nl string) string {
	if at > 0 && doc[at-1] != '\n' {
		line = nl + line
	}
	return doc[:at] + line + doc[at:]
}

// topInsert adds line to a document with no top-level key: before the
// first table and the comments directly above it, or at the end when it
// has no table.
func topInsert(doc string, stmts []stmt, line, nl string) string {
	first := -1
	for _, s := range stmts {
		if s.kind != keyValue {
			first = s.start
			break
		}
	}
	if first < 0 {
		return insertAt(doc, len(doc), line, nl)
	}
	// Walk back over comment lines directly above the header.
	at := first
	for at > 0 {
		prev := strings.LastIndexByte(doc[:at-1], '\n') + 1
		if t := strings.TrimSpace(doc[prev:at]); !strings.HasPrefix(t, "#") {
			break
		}
		at = prev
	}
	return doc[:at] + line + nl + doc[at:]
}

// appendTable adds [table] with line at the end of doc (line alone for
// the top-level table).
func appendTable(doc string, table []string, line, nl string) string {
	var b strings.Builder
	b.WriteString(doc)
	if len(doc) > 0 {
		if !strings.HasSuffix(doc, "\n") {
			b.WriteString(nl)
		}
		b.WriteString(nl)
	}
	b.WriteString("[" + quoteKey(table) + "]" + nl)
	b.WriteString(line)
	return b.String()
}

// quoteKey writes a dotted key, quoting the parts that are not bare.
func quoteKey(parts []string) string {
	q := make([]string, len(parts))
	for i, p := range parts {
		if bareKey.FindString(p) == p {
			q[i] = p
		} else {
			q[i] = tomlquote.String(p)
		}
	}
	return strings.Join(q, ".")
}

func samePath(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
