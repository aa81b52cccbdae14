package ipc

import (
	"slices"
	"strconv"
	"unicode/utf8"
)

// appendParams appends the JSON encoding of m to dst, byte for byte what
// json.Marshal produces (keys sorted, HTML characters escaped), for the
// value types the CLI's params use: strings, booleans, integers, nil,
// string slices and nested maps of the same. ok is false, and dst is
// returned unchanged, when m holds anything else; the caller then uses
// json.Marshal.
//
// It exists for speed: json.Marshal of a map builds its reflection-driven
// encoders on first use, which cost every `paneflow` command about a tenth
// of a millisecond of its start-up.
func appendParams(dst []byte, m map[string]any) (_ []byte, ok bool) {
	out, ok := appendObject(dst, m)
	if !ok {
		return dst, false
	}
	return out, true
}

func appendObject(dst []byte, m map[string]any) ([]byte, bool) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, k)
		dst = append(dst, ':')
		var ok bool
		if dst, ok = appendValue(dst, m[k]); !ok {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

func appendValue(dst []byte, v any) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), true
	case string:
		return appendString(dst, v), true
	case bool:
		return strconv.AppendBool(dst, v), true
	case int:
		return strconv.AppendInt(dst, int64(v), 10), true
	case int64:
		return strconv.AppendInt(dst, v, 10), true
	case uint64:
		return strconv.AppendUint(dst, v, 10), true
	case []string:
		if v == nil {
			return append(dst, "null"...), true
		}
		dst = append(dst, '[')
		for i, s := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, s)
		}
		return append(dst, ']'), true
	case map[string]any:
		if v == nil {
			return append(dst, "null"...), true
		}
		return appendObject(dst, v)
	}
	return dst, false
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string exactly as encoding/json writes
// it with HTML escaping on: <, > and & as \u003c..., control characters
// as \n-style or \u00XX escapes, invalid UTF-8 as \ufffd, and U+2028 and
// U+2029 escaped.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
