package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// member is one "key": value pair of a JSON object, its value kept raw so
// that whatever we do not edit is written back as it was (numbers, nested
// objects, key order).
type member struct {
	key string
	val json.RawMessage
}

// object is a JSON object with its key order, for editing a user's file
// without reordering it.
type object []member

// errDuplicateKey is returned for an object that names a key twice: which
// value the user meant is ambiguous, so we do not edit it.
var errDuplicateKey = errors.New("duplicate key")

// parseObject parses raw, which must be one JSON object.
func parseObject(raw []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object")
	}
	o := object{}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string) // inside an object the decoder yields only string keys here
		if seen[key] {
			return nil, fmt.Errorf("%w %q", errDuplicateKey, key)
		}
		seen[key] = true
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, err
		}
		o = append(o, member{key, val})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("data after the JSON object")
	}
	return o, nil
}

// index returns the position of key, or -1.
func (o object) index(key string) int {
	for i, m := range o {
		if m.key == key {
			return i
		}
	}
	return -1
}

// get returns the value of key, or nil.
func (o object) get(key string) json.RawMessage {
	if i := o.index(key); i >= 0 {
		return o[i].val
	}
	return nil
}

// set replaces the value of key in place, or appends the key.
func (o *object) set(key string, val json.RawMessage) {
	if i := o.index(key); i >= 0 {
		(*o)[i].val = val
		return
	}
	*o = append(*o, member{key, val})
}

// del removes key if present.
func (o *object) del(key string) {
	if i := o.index(key); i >= 0 {
		*o = append((*o)[:i], (*o)[i+1:]...)
	}
}

// encode returns the object as compact JSON.
func (o object) encode() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(marshalNoEscape(m.key))
		b.WriteByte(':')
		if err := json.Compact(&b, m.val); err != nil {
			b.Write(m.val) // unreachable: values come from a decoder or from us
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// parseArray parses raw if it is a JSON array.
func parseArray(raw json.RawMessage) ([]json.RawMessage, bool) {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 || raw[0] != '[' {
		return nil, false
	}
	var a []json.RawMessage
	if json.Unmarshal(raw, &a) != nil {
		return nil, false
	}
	return a, true
}

// encodeArray returns a as compact JSON.
func encodeArray(a []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, v := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := json.Compact(&b, v); err != nil {
			b.Write(v)
		}
	}
	b.WriteByte(']')
	return b.Bytes()
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	return len(raw) > 0 && raw[0] == '{'
}

// marshalNoEscape encodes v as JSON without HTML escaping, so a command
// such as PowerShell's `& '…'` stays readable in the file.
func marshalNoEscape(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("hook: encoding " + fmt.Sprintf("%T", v) + ": " + err.Error()) // only our own plain values get here
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// pretty returns compact JSON indented by two spaces with a trailing
// newline, the format we write files in.
func pretty(compact []byte) []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, compact, "", "  "); err != nil {
		return append(append([]byte(nil), compact...), '\n')
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// compactOf returns data as compact JSON, or nil when it is not valid JSON.
func compactOf(data []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, data) != nil {
		return nil
	}
	return b.Bytes()
}
