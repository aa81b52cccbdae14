package proto

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"

	"github.com/paneflow-go/paneflow/internal/jsonscan"
)

// The params types implement AppendJSON(dst []byte) []byte: the type's
// encoding/json encoding (the same members, values and omissions; members
// in field order), appended to dst without reflection. Package ipc uses it
// when it encodes a request: json.Marshal builds its encoder for a struct
// type on first use, which costs a command-line call about 0.2 ms of its
// start-up. TestAppendJSON holds every one to json.Marshal.

// object writes the members of one JSON object; the zero value is not
// usable, start one with [openObject].
type object struct {
	b    []byte
	more bool // a member was written
}

func openObject(dst []byte) object { return object{b: append(dst, '{')} }

// close ends the object and returns the buffer.
func (o *object) close() []byte { return append(o.b, '}') }

func (o *object) key(k string) {
	if o.more {
		o.b = append(o.b, ',')
	}
	o.more = true
	o.b = jsonscan.AppendQuoted(o.b, k)
	o.b = append(o.b, ':')
}

// str writes "k":"v".
func (o *object) str(k, v string) {
	o.key(k)
	o.b = jsonscan.AppendQuoted(o.b, v)
}

// strOmit writes "k":"v" unless v is "" (omitempty).
func (o *object) strOmit(k, v string) {
	if v != "" {
		o.str(k, v)
	}
}

// strPtr writes "k":"*v" unless v is nil (a pointer with omitempty).
func (o *object) strPtr(k string, v *string) {
	if v != nil {
		o.str(k, *v)
	}
}

func (o *object) boolean(k string, v bool) {
	o.key(k)
	o.b = strconv.AppendBool(o.b, v)
}

func (o *object) boolOmit(k string, v bool) {
	if v {
		o.boolean(k, v)
	}
}

func (o *object) boolPtr(k string, v *bool) {
	if v != nil {
		o.boolean(k, *v)
	}
}

func (o *object) uint(k string, v uint64) {
	o.key(k)
	o.b = strconv.AppendUint(o.b, v, 10)
}

func (o *object) uintOmit(k string, v uint64) {
	if v != 0 {
		o.uint(k, v)
	}
}

func (o *object) uintPtr(k string, v *uint64) {
	if v != nil {
		o.uint(k, *v)
	}
}

func (o *object) int(k string, v int64) {
	o.key(k)
	o.b = strconv.AppendInt(o.b, v, 10)
}

func (o *object) intPtr(k string, v *int) {
	if v != nil {
		o.int(k, int64(*v))
	}
}

func (o *object) int64Ptr(k string, v *int64) {
	if v != nil {
		o.int(k, *v)
	}
}

// uints writes "k":[…], or "k":null for a nil slice (no omitempty).
func (o *object) uints(k string, v []uint64) {
	o.key(k)
	o.b = appendUints(o.b, v)
}

func appendUints(b []byte, v []uint64) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, n := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, n, 10)
	}
	return append(b, ']')
}

// strs writes "k":[…], or "k":null for a nil slice (no omitempty).
func (o *object) strs(k string, v []string) {
	o.key(k)
	o.b = appendStrings(o.b, v)
}

// strsOmit writes "k":[…] unless v is empty (omitempty).
func (o *object) strsOmit(k string, v []string) {
	if len(v) > 0 {
		o.strs(k, v)
	}
}

func appendStrings(b []byte, v []string) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonscan.AppendQuoted(b, s)
	}
	return append(b, ']')
}

// rawOmit writes "k":v unless v is empty (a json.RawMessage with
// omitempty). v is copied as it is: encoding/json would compact it,
// escape <, > and & in its strings and refuse invalid JSON (which the
// server refuses anyway); the server reads the same value.
func (o *object) rawOmit(k string, v json.RawMessage) {
	if len(v) > 0 {
		o.key(k)
		o.b = append(o.b, v...)
	}
}

// stringMapOmit writes "k":{…} with the keys sorted, unless m is empty
// (omitempty).
func (o *object) stringMapOmit(k string, m map[string]string) {
	if len(m) == 0 {
		return
	}
	o.key(k)
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	sub := openObject(o.b)
	for _, key := range keys {
		sub.str(key, m[key])
	}
	o.b = sub.close()
}

// appender is a params value that encodes itself.
type appender interface{ AppendJSON(dst []byte) []byte }

// embed writes the members of v's object into o (an embedded struct).
func (o *object) embed(v appender) {
	inner := v.AppendJSON(nil) // {…}
	if len(inner) <= 2 {
		return
	}
	if o.more {
		o.b = append(o.b, ',')
	}
	o.more = true
	o.b = append(o.b, inner[1:len(inner)-1]...)
}

// floatPtr writes "k":*v unless v is nil, formatted as encoding/json
// formats a float64 (see appendFloat).
func (o *object) floatPtr(k string, v *float64) {
	if v == nil {
		return
	}
	o.key(k)
	o.b = appendFloat(o.b, *v)
}

// floats writes "k":[…], or "k":null for a nil slice (no omitempty).
func (o *object) floats(k string, v []float64) {
	o.key(k)
	if v == nil {
		o.b = append(o.b, "null"...)
		return
	}
	o.b = append(o.b, '[')
	for i, f := range v {
		if i > 0 {
			o.b = append(o.b, ',')
		}
		o.b = appendFloat(o.b, f)
	}
	o.b = append(o.b, ']')
}

// ints writes "k":[…], or "k":null for a nil slice (no omitempty).
func (o *object) ints(k string, v []int) {
	o.key(k)
	if v == nil {
		o.b = append(o.b, "null"...)
		return
	}
	o.b = append(o.b, '[')
	for i, n := range v {
		if i > 0 {
			o.b = append(o.b, ',')
		}
		o.b = strconv.AppendInt(o.b, int64(n), 10)
	}
	o.b = append(o.b, ']')
}

// appendFloat appends f as encoding/json formats a float64 (shortest
// form; exponent only below 1e-6 or from 1e21).
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9, as encoding/json does
		if n := len(b) - start; n >= 4 && b[len(b)-4] == 'e' && b[len(b)-3] == '-' && b[len(b)-2] == '0' {
			b[len(b)-2] = b[len(b)-1]
			b = b[:len(b)-1]
		}
	}
	return b
}

// object writes "k":{…}, v's own encoding (the caller omits a nil
// pointer).
func (o *object) object(k string, v appender) {
	o.key(k)
	o.b = v.AppendJSON(o.b)
}
