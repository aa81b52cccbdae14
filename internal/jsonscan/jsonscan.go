// Package jsonscan validates a JSON object and hands out its top-level
// members in a single pass, and decodes JSON strings, much faster than
// encoding/json can for the few shapes the command-line client reads.
//
// Every `paneflow` command decodes one reply frame, and a `paneflow read`
// reply is a 16 KB string. encoding/json scans a document twice per
// Unmarshal (once to validate, once to decode) at under 100 MB/s, and the
// envelope and then the result each took an Unmarshal: about 0.2 ms, a
// tenth of the whole command. [Members] validates the frame and splits it
// in one pass at memory speed; [String] decodes one string value.
//
// Both follow encoding/json exactly: what it rejects they reject, and
// [String] returns the same text it would (invalid UTF-8 and lone
// surrogates become U+FFFD). The fuzz tests hold them to that.
package jsonscan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth is encoding/json's nesting limit: deeper documents are invalid
// there, so they are here.
const maxDepth = 10000

// errNotObject is returned by Members when the document is valid JSON but
// not an object.
var errNotObject = errors.New("jsonscan: not a JSON object")

// errNotArray is returned by Elements when the document is valid JSON but
// not an array.
var errNotArray = errors.New("jsonscan: not a JSON array")

// SyntaxError describes invalid JSON: what was wrong and the byte offset
// where scanning stopped.
type SyntaxError struct {
	Msg    string
	Offset int
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at offset %d: %s", e.Offset, e.Msg)
}

// Members validates data as one JSON object (surrounding whitespace
// allowed) and, only when all of it is valid, calls fn with each top-level
// member in document order: the key, decoded, and the value's raw bytes
// (a sub-slice of data, without surrounding whitespace). It returns a
// *SyntaxError for invalid JSON and an error for valid JSON that is not an
// object. A key that appears twice is passed twice; like encoding/json,
// callers that keep the last one get its behaviour.
func Members(data []byte, fn func(key string, value []byte)) error {
	s := scanner{data: data}
	s.skipSpace()
	if s.i >= len(data) || data[s.i] != '{' {
		if err := s.value(); err != nil {
			return err
		}
		if err := s.end(); err != nil {
			return err
		}
		return errNotObject
	}
	// Validate the whole document first: fn must not see members of a
	// frame that turns out to be broken further on.
	if err := s.value(); err != nil {
		return err
	}
	if err := s.end(); err != nil {
		return err
	}
	// A second walk over the top level only: skipping nested values and
	// strings of valid JSON is a tight loop.
	s.i = bytes.IndexByte(data, '{') + 1
	for {
		s.skipSpace()
		if data[s.i] == '}' {
			return nil
		}
		kStart := s.i
		s.skipValidString()
		key := data[kStart:s.i]
		s.skipSpace()
		s.i++ // ':'
		s.skipSpace()
		vStart := s.i
		s.skipValidValue()
		fn(decodeKey(key), data[vStart:s.i])
		s.skipSpace()
		if data[s.i] == ',' {
			s.i++
		}
	}
}

// Elements validates data as one JSON array (surrounding whitespace
// allowed) and, only when all of it is valid, calls fn with each element's
// raw bytes in order (a sub-slice of data, without surrounding
// whitespace), stopping at the first error fn returns, which it returns.
// It returns a *SyntaxError for invalid JSON and an error for valid JSON
// that is not an array.
func Elements(data []byte, fn func(value []byte) error) error {
	s := scanner{data: data}
	s.skipSpace()
	isArray := s.i < len(data) && data[s.i] == '['
	if err := s.value(); err != nil {
		return err
	}
	if err := s.end(); err != nil {
		return err
	}
	if !isArray {
		return errNotArray
	}
	s.i = bytes.IndexByte(data, '[') + 1
	for {
		s.skipSpace()
		if data[s.i] == ']' {
			return nil
		}
		start := s.i
		s.skipValidValue()
		if err := fn(data[start:s.i]); err != nil {
			return err
		}
		s.skipSpace()
		if data[s.i] == ',' {
			s.i++
		}
	}
}

// decodeKey returns a valid string literal's text, taking the short way
// when it has no escapes and is plain ASCII.
func decodeKey(lit []byte) string {
	inner := lit[1 : len(lit)-1]
	for _, c := range inner {
		if c == '\\' || c >= utf8.RuneSelf {
			s, _ := String(lit)
			return s
		}
	}
	return string(inner)
}

// String decodes value, which must be exactly one JSON string literal
// (surrounding whitespace allowed), the way encoding/json decodes it into a
// Go string. It returns a *SyntaxError for anything else.
func String(value []byte) (string, error) {
	inner, simple, err := stringLiteral(value)
	if err != nil {
		return "", err
	}
	if simple {
		return string(inner), nil
	}
	return string(unquote(make([]byte, 0, len(inner)), inner)), nil
}

// AppendString is [String] appending the text to dst instead: no string
// is made, which saves a copy of a large value on its way to a writer.
func AppendString(dst, value []byte) ([]byte, error) {
	inner, simple, err := stringLiteral(value)
	if err != nil {
		return dst, err
	}
	if simple {
		return append(dst, inner...), nil
	}
	return unquote(dst, inner), nil
}

// stringLiteral validates value as one string literal and returns its
// inside, and whether that is its text as it is (no escapes, all ASCII).
func stringLiteral(value []byte) (inner []byte, simple bool, err error) {
	s := scanner{data: value}
	s.skipSpace()
	if s.i >= len(value) || value[s.i] != '"' {
		if s.i < len(value) {
			if err := s.value(); err != nil {
				return nil, false, err
			}
		}
		return nil, false, &SyntaxError{Msg: "not a string", Offset: s.i}
	}
	start := s.i
	simple, err = s.str()
	if err != nil {
		return nil, false, err
	}
	end := s.i
	if err := s.end(); err != nil {
		return nil, false, err
	}
	return value[start+1 : end-1], simple, nil
}

// unquote appends the text of the inside of a valid string literal to b,
// decoding escapes and replacing invalid UTF-8 as encoding/json does.
func unquote(b, inner []byte) []byte {
	for i := 0; i < len(inner); {
		c := inner[i]
		switch {
		case c == '\\':
			e := inner[i+1]
			i += 2
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r := rune(hex4(inner[i:]))
				i += 4
				if utf16.IsSurrogate(r) {
					// The scanner checked every escape, so a backslash
					// and a u here start another \uXXXX.
					r2 := utf8.RuneError
					if i+6 <= len(inner) && inner[i] == '\\' && inner[i+1] == 'u' {
						r2 = rune(hex4(inner[i+2:]))
					}
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						i += 6
						r = dec
					} else {
						r = utf8.RuneError
					}
				}
				b = utf8.AppendRune(b, r)
			}
		case c < utf8.RuneSelf:
			j := plainRun(inner, i+1)
			b = append(b, inner[i:j]...)
			i = j
		default:
			r, size := utf8.DecodeRune(inner[i:])
			i += size
			b = utf8.AppendRune(b, r)
		}
	}
	return b
}

// hex4 returns the value of four hex digits already checked by the scanner.
func hex4(h []byte) int {
	v := 0
	for _, c := range h[:4] {
		v <<= 4
		switch {
		case c <= '9':
			v |= int(c - '0')
		case c <= 'F':
			v |= int(c - 'A' + 10)
		default:
			v |= int(c - 'a' + 10)
		}
	}
	return v
}

// scanner walks data from i. Its methods validate (value, str, end) or
// skip what is already known to be valid (skipValid*).
type scanner struct {
	data []byte
	i    int
}

func (s *scanner) fail(msg string) error { return &SyntaxError{Msg: msg, Offset: s.i} }

func (s *scanner) skipSpace() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// end checks that only whitespace follows.
func (s *scanner) end() error {
	s.skipSpace()
	if s.i != len(s.data) {
		return s.fail("data after the top-level value")
	}
	return nil
}

// value validates one value and whatever it contains, iteratively: an
// explicit stack of open brackets keeps deep nesting off the goroutine
// stack.
func (s *scanner) value() error {
	var stack []byte // '{' or '['
	for {
		// A value is expected at s.i.
		s.skipSpace()
		if s.i >= len(s.data) {
			return s.fail("unexpected end of input")
		}
		switch c := s.data[s.i]; {
		case c == '{' || c == '[':
			if len(stack) == maxDepth {
				return s.fail("nested too deeply")
			}
			stack = append(stack, c)
			s.i++
			s.skipSpace()
			if s.i < len(s.data) && (s.data[s.i] == '}' && c == '{' || s.data[s.i] == ']' && c == '[') {
				s.i++
				stack = stack[:len(stack)-1]
				break
			}
			if c == '{' {
				if err := s.key(); err != nil {
					return err
				}
			}
			continue
		case c == '"':
			if _, err := s.str(); err != nil {
				return err
			}
		case c == '-' || c >= '0' && c <= '9':
			if err := s.number(); err != nil {
				return err
			}
		case c == 't':
			if err := s.literal("true"); err != nil {
				return err
			}
		case c == 'f':
			if err := s.literal("false"); err != nil {
				return err
			}
		case c == 'n':
			if err := s.literal("null"); err != nil {
				return err
			}
		default:
			return s.fail(fmt.Sprintf("invalid character %q looking for a value", c))
		}
		// A value ended: close brackets or move to the next element.
		for {
			if len(stack) == 0 {
				return nil
			}
			s.skipSpace()
			if s.i >= len(s.data) {
				return s.fail("unexpected end of input")
			}
			top := stack[len(stack)-1]
			c := s.data[s.i]
			if c == ',' {
				s.i++
				if top == '{' {
					s.skipSpace()
					if err := s.key(); err != nil {
						return err
					}
				}
				break
			}
			if top == '{' && c == '}' || top == '[' && c == ']' {
				s.i++
				stack = stack[:len(stack)-1]
				continue
			}
			return s.fail(fmt.Sprintf("invalid character %q after a value", c))
		}
	}
}

// key validates `"key" :` inside an object, leaving s.i after the colon.
func (s *scanner) key() error {
	if s.i >= len(s.data) {
		return s.fail("unexpected end of input")
	}
	if s.data[s.i] != '"' {
		return s.fail(fmt.Sprintf("invalid character %q looking for an object key", s.data[s.i]))
	}
	if _, err := s.str(); err != nil {
		return err
	}
	s.skipSpace()
	if s.i >= len(s.data) {
		return s.fail("unexpected end of input")
	}
	if s.data[s.i] != ':' {
		return s.fail(fmt.Sprintf("invalid character %q after an object key", s.data[s.i]))
	}
	s.i++
	return nil
}

// plain marks the bytes a string may contain as they are: everything but
// control characters, the quote, the backslash, and non-ASCII bytes (which
// are valid too, but make the string need decoding).
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// plainRun returns the index of the first byte at or after i that is not
// plain (or len(d)). It tests eight bytes at a time: a block whose word has
// no quote, no backslash, no byte under 0x20 and no high bit is skipped
// whole. The bit tricks can only flag a block falsely above a byte that
// really is special, so the byte loop always stops inside a flagged block.
func plainRun(d []byte, i int) int {
	const (
		lo = 0x0101010101010101
		hi = 0x8080808080808080
	)
	for ; i+8 <= len(d); i += 8 {
		x := binary.LittleEndian.Uint64(d[i:])
		q := x ^ (lo * '"')
		b := x ^ (lo * '\\')
		if ((q-lo)&^q|(b-lo)&^b|(x-lo*0x20)&^x|x)&hi != 0 {
			break
		}
	}
	for i < len(d) && plain[d[i]] {
		i++
	}
	return i
}

// str validates the string literal at s.i and leaves s.i after its closing
// quote. simple reports that it has no escapes and is all ASCII, so its
// text is its inside as it is.
func (s *scanner) str() (simple bool, err error) {
	d := s.data
	i := s.i + 1
	simple = true
	for {
		i = plainRun(d, i)
		if i >= len(d) {
			s.i = i
			return false, s.fail("unterminated string")
		}
		switch c := d[i]; {
		case c == '"':
			s.i = i + 1
			return simple, nil
		case c == '\\':
			simple = false
			if i+1 >= len(d) {
				s.i = i
				return false, s.fail("unterminated string")
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for k := i + 2; k < i+6; k++ {
					if k >= len(d) || !isHex(d[k]) {
						s.i = k
						return false, s.fail("invalid \\u escape")
					}
				}
				i += 6
			default:
				s.i = i + 1
				return false, s.fail(fmt.Sprintf("invalid escape \\%c", d[i+1]))
			}
		case c < 0x20:
			s.i = i
			return false, s.fail("control character in a string")
		default: // non-ASCII
			simple = false
			i++
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// number validates -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *scanner) number() error {
	d := s.data
	i := s.i
	if d[i] == '-' {
		i++
	}
	digits := func() bool {
		start := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		return i > start
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case !digits():
		s.i = i
		return s.fail("invalid number")
	}
	if i < len(d) && d[i] == '.' {
		i++
		if !digits() {
			s.i = i
			return s.fail("invalid number")
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if !digits() {
			s.i = i
			return s.fail("invalid number")
		}
	}
	s.i = i
	return nil
}

func (s *scanner) literal(word string) error {
	if !bytes.HasPrefix(s.data[s.i:], []byte(word)) {
		return s.fail("invalid literal")
	}
	s.i += len(word)
	return nil
}

// skipValidString moves past the valid string literal at s.i.
func (s *scanner) skipValidString() {
	d := s.data
	i := s.i + 1
	for {
		q := i + bytes.IndexByte(d[i:], '"')
		// The quote ends the string unless an odd number of backslashes
		// escapes it.
		n := 0
		for k := q - 1; k >= i && d[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			s.i = q + 1
			return
		}
		i = q + 1
	}
}

// skipValidValue moves past the valid value at s.i.
func (s *scanner) skipValidValue() {
	d := s.data
	switch d[s.i] {
	case '"':
		s.skipValidString()
	case '{', '[':
		depth := 0
		for {
			switch d[s.i] {
			case '"':
				s.skipValidString()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.i++
					return
				}
			}
			s.i++
		}
	default: // a number or a literal
		for s.i < len(d) {
			switch d[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return
			}
			s.i++
		}
	}
}
