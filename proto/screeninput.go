package proto

import (
	"bytes"
	"encoding/base64"
	"encoding/json"

	"github.com/paneflow-go/paneflow/internal/jsonscan"
)

// screenInputKeys are ScreenInputParams' members, for foldKey.
var screenInputKeys = []string{"token", "surface_id", "data"}

// DecodeScreenInputParams decodes screen.input's params into p as
// [DecodeParams] does, with the same result and the same errors (its fuzz
// test holds it to that), but without reflection for the params a window
// sends: the server decodes one per key an attached window types, on the
// way from the key's frame to its write to the program (issue 26's
// attached echo; BenchmarkDecodeScreenInputParams at load 13: 0.4-1.2
// against 1.2-2.6 µs of CPU). What the fast path does not take as it is (an
// error, a member of another type) goes to DecodeParams, so the errors
// are DecodeParams' own.
func DecodeScreenInputParams(params json.RawMessage, p *ScreenInputParams) error {
	if q, ok := decodeScreenInput(params, *p); ok {
		*p = q
		return nil
	}
	return DecodeParams(params, p)
}

// decodeScreenInput decodes params over p, or reports false for anything
// but an object whose known members are of their type (or null).
func decodeScreenInput(params []byte, p ScreenInputParams) (ScreenInputParams, bool) {
	v := bytes.TrimSpace(params)
	if len(v) == 0 || string(v) == "null" {
		return p, true
	}
	if v[0] != '{' {
		return p, false
	}
	ok := true
	err := decodeObject(v, "params", func(key string, v []byte) error {
		var err error
		switch foldKey(key, screenInputKeys) {
		case "token":
			err = decString(v, &p.Token)
		case "surface_id":
			err = decUint(v, 64, &p.SurfaceID)
		case "data":
			ok = ok && decBase64(v, &p.Data)
		}
		return err
	})
	return p, ok && err == nil
}

// decBase64 decodes a []byte member as encoding/json does (null makes it
// nil, a string is standard base64), reporting false for anything else.
func decBase64(v []byte, dst *[]byte) bool {
	if isNull(v) {
		*dst = nil
		return true
	}
	if len(v) == 0 || v[0] != '"' {
		return false // an array of numbers is a []byte to encoding/json too
	}
	s, err := jsonscan.AppendString(nil, v)
	if err != nil {
		return false
	}
	b := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(b, s)
	if err != nil {
		return false
	}
	*dst = b[:n]
	return true
}
