package proto

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// JSON-RPC error codes used on the wire. The first five are JSON-RPC 2.0's
// reserved codes; the last three are Paneflow's server errors. Package ipc
// answers with the transport's own (parse, invalid request, method not
// found, busy, permission, timeout) and re-exports them under the same
// names.
const (
	CodeParse          = -32700 // the frame is not valid JSON
	CodeInvalidRequest = -32600 // valid JSON that is not a request, a batch, or an oversized frame
	CodeMethodNotFound = -32601 // no such method (also: a scripting gate that is closed)
	CodeInvalidParams  = -32602 // the method's params are wrong
	CodeInternal       = -32603 // the handler failed for a reason of its own
	CodeBusy           = -32000 // a kind's admission limit, a full executor queue, or shutting down
	CodePermission     = -32001 // the peer runs as another user
	CodeTimeout        = -32002 // the dispatch timeout passed before the handler answered, or a wait timed out
)

// Error is a JSON-RPC error object. A handler returns one to choose the
// code and message the client sees; a client's call returns one when the
// server answered with an error (package ipc's Error is this type). The
// zero value is an error with code 0 and no message; use [Errorf] or
// [InvalidParams]. Data, when not nil, is sent as the "data" member
// (worktree.create's is a [GitFailureData]).
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// Error returns the message, which is what users see; the code is for
// programs.
func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// InvalidParams returns an *Error with [CodeInvalidParams] and a formatted
// message, for handlers that reject their params.
func InvalidParams(format string, args ...any) *Error {
	return Errorf(CodeInvalidParams, format, args...)
}

// ErrorCode returns the JSON-RPC code of the *Error in err's chain, and
// whether there is one (a transport failure has none).
func ErrorCode(err error) (int, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e.Code, true
	}
	return 0, false
}

// DecodeParams unmarshals a request's params object into v, the way the
// socket API's methods and the ai.* methods read theirs: absent or null
// params are an empty object; anything but an object, or a field of the
// wrong type, is [CodeInvalidParams] "invalid params: <detail>" (see
// [JSONDetail]). Unknown fields are ignored.
func DecodeParams(params json.RawMessage, v any) error {
	p := bytes.TrimSpace(params)
	if len(p) == 0 || bytes.Equal(p, []byte("null")) {
		p = []byte("{}")
	}
	if p[0] != '{' {
		return InvalidParams("invalid params: expected an object")
	}
	if err := json.Unmarshal(p, v); err != nil {
		return InvalidParams("invalid params: %s", JSONDetail(err))
	}
	return nil
}

// JSONDetail turns a decoding error into a short client-facing text:
// "field F: expected T, got V" for a value of the wrong type, else the
// error's own text.
func JSONDetail(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			return "field " + te.Field + ": expected " + te.Type.String() + ", got " + te.Value
		}
		return "expected " + te.Type.String() + ", got " + te.Value
	}
	return err.Error()
}

// IsAbsent reports whether a raw member is absent or JSON null (after
// surrounding whitespace), as optional raw params are read.
func IsAbsent(raw json.RawMessage) bool {
	v := bytes.TrimSpace(raw)
	return len(v) == 0 || bytes.Equal(v, []byte("null"))
}
