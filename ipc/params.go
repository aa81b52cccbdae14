package ipc

import (
	"slices"
	"strconv"

	"github.com/paneflow-go/paneflow/internal/jsonscan"
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
		dst = jsonscan.AppendQuoted(dst, k)
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
		return jsonscan.AppendQuoted(dst, v), true
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
			dst = jsonscan.AppendQuoted(dst, s)
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
