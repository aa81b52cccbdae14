package ipc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"

	"github.com/paneflow-go/paneflow/internal/jsonscan"
)

// MaxFrame is the largest frame, newline included, that the server reads
// and that clients accept as a reply or stream frame: 256 KiB.
const MaxFrame = 256 << 10

// errFrameTooLarge is returned by frameReader.next for a line that does not
// fit in the cap.
var errFrameTooLarge = errors.New("ipc: frame exceeds maximum length")

// frameReader splits a byte stream into newline-delimited frames of at most
// max bytes, the newline included. It is not safe for concurrent use.
type frameReader struct {
	r   *bufio.Reader
	max int
	buf []byte // reused between frames
}

// newFrameReader reads frames of under max bytes from r through a buffer
// of size bytes: servers keep many connections and want a small one;
// a client reading one reply wants it large enough to take a whole read of
// a pane in one system call.
func newFrameReader(r io.Reader, max, size int) *frameReader {
	return &frameReader{r: bufio.NewReaderSize(r, size), max: max}
}

// Buffer sizes for newFrameReader.
const (
	serverReadBuffer = 4 << 10
	clientReadBuffer = 64 << 10
)

// maxKeptBuffer is the largest frame or reply buffer a connection keeps
// between frames: a connection that once sent or got a large frame does
// not pin its buffer while it idles, so a connection's steady memory is a
// few KiB and only the frame in hand may be larger (up to MaxFrame).
const maxKeptBuffer = 64 << 10

// next returns the next line without its "\n". The slice is valid until
// the next call. A final line without a newline is returned when the
// stream ends, then io.EOF; a read error cuts a partial line off and is
// returned as is. A line of max bytes or more without a newline yields
// errFrameTooLarge, after which the reader must not be used again.
func (f *frameReader) next() ([]byte, error) {
	if cap(f.buf) > maxKeptBuffer {
		f.buf = nil // do not pin a large frame's buffer for the connection's lifetime
	}
	f.buf = f.buf[:0]
	for {
		chunk, err := f.r.ReadSlice('\n')
		n := len(f.buf) + len(chunk)
		complete := err == nil // chunk ends with '\n'
		if complete && n <= f.max {
			if len(f.buf) == 0 {
				return chunk[:len(chunk)-1], nil // no copy: valid until the next read
			}
			f.buf = append(f.buf, chunk[:len(chunk)-1]...)
			return f.buf, nil
		}
		if n >= f.max {
			return nil, errFrameTooLarge
		}
		f.buf = append(f.buf, chunk...)
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && len(f.buf) > 0:
			return f.buf, nil // the next call returns io.EOF
		default:
			return nil, err
		}
	}
}

// isBlank reports whether b holds only JSON whitespace.
func isBlank(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
		default:
			return false
		}
	}
	return true
}

// request is a decoded JSON-RPC request envelope.
type request struct {
	id     json.RawMessage // nil when absent (a notification); else null, a number or a string
	method string
	params json.RawMessage // never empty: "{}" when absent or null
}

// notification reports whether the request had no "id" member, so it gets
// no reply.
func (r *request) notification() bool { return r.id == nil }

var (
	nullID      = json.RawMessage("null")
	emptyParams = json.RawMessage("{}")
)

// decodeRequest parses one frame. On failure it returns an *Error to send
// (CodeParse or CodeInvalidRequest) and the id to send it with: the
// request's id when it could be read, else null. The envelope is lenient
// where JSON-RPC 2.0 clients differ: "jsonrpc" is not checked and a missing
// "params" means {}.
func decodeRequest(frame []byte) (req request, errID json.RawMessage, rerr *Error) {
	frame = bytes.TrimSpace(frame)
	if len(frame) > 0 && frame[0] == '[' {
		if json.Valid(frame) {
			return req, nullID, &Error{Code: CodeInvalidRequest, Message: msgBatch}
		}
	}
	fields, ok := scanEnvelope(frame)
	if !ok {
		if err := json.Unmarshal(frame, &fields); err != nil {
			var typeErr *json.UnmarshalTypeError
			if errors.As(err, &typeErr) {
				return req, nullID, &Error{Code: CodeInvalidRequest, Message: "invalid request: not a JSON object"}
			}
			return req, nullID, &Error{Code: CodeParse, Message: "Parse error: " + err.Error()}
		}
	}
	if fields == nil { // the frame was "null"
		return req, nullID, &Error{Code: CodeInvalidRequest, Message: "invalid request: not a JSON object"}
	}
	if id, ok := fields["id"]; ok {
		switch id[0] {
		case 'n', '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			req.id = id
		default:
			return req, nullID, &Error{Code: CodeInvalidRequest, Message: "invalid request: id must be a string, a number or null"}
		}
	}
	replyID := req.id
	if replyID == nil {
		replyID = nullID
	}
	raw, ok := fields["method"]
	if !ok {
		return req, replyID, &Error{Code: CodeInvalidRequest, Message: "invalid request: missing method"}
	}
	method, err := jsonscan.String(raw) // what json.Unmarshal would give, and an error for anything but a string
	if err != nil {
		return req, replyID, &Error{Code: CodeInvalidRequest, Message: "invalid request: method must be a string"}
	}
	req.method = method
	if req.method == "" {
		return req, replyID, &Error{Code: CodeInvalidRequest, Message: "invalid request: missing method"}
	}
	req.params = fields["params"]
	if len(req.params) == 0 || string(req.params) == "null" {
		req.params = emptyParams
	}
	return req, nil, nil
}

// scanEnvelope splits a frame that is a JSON object into the members
// decodeRequest reads, as json.Unmarshal into a map would, but in one fast
// pass: jsonscan accepts exactly the objects encoding/json accepts (its
// fuzz tests hold it to that). ok is false for anything else, which
// decodeRequest then hands to encoding/json for its error messages. The
// values are copies: frame is only valid until the next read, and a Long
// request of a concurrent connection outlives it.
func scanEnvelope(frame []byte) (fields map[string]json.RawMessage, ok bool) {
	if len(frame) == 0 || frame[0] != '{' {
		return nil, false
	}
	fields = make(map[string]json.RawMessage, 3)
	err := jsonscan.Members(frame, func(key string, value []byte) {
		switch key {
		case "id", "method", "params":
			fields[key] = bytes.Clone(value)
		}
	})
	return fields, err == nil
}

// appendResult appends a success reply for id (which must be valid JSON)
// with the already encoded result, newline included.
func appendResult(dst []byte, id, result json.RawMessage) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","result":`...)
	dst = append(dst, result...)
	dst = append(dst, `,"id":`...)
	dst = append(dst, id...)
	return append(dst, "}\n"...)
}

// appendError appends an error reply for id, newline included.
func appendError(dst []byte, id json.RawMessage, e *Error) []byte {
	obj, err := json.Marshal(e)
	if err != nil { // Data could not be encoded: send the error without it
		obj, _ = json.Marshal(&Error{Code: e.Code, Message: e.Message})
	}
	dst = append(dst, `{"jsonrpc":"2.0","error":`...)
	dst = append(dst, obj...)
	dst = append(dst, `,"id":`...)
	dst = append(dst, id...)
	return append(dst, "}\n"...)
}

// appendRequest appends a request line. id < 0 makes it a notification.
func appendRequest(dst []byte, id int64, method string, params json.RawMessage) []byte {
	dst = append(dst, `{"jsonrpc":"2.0",`...)
	if id >= 0 {
		dst = append(dst, `"id":`...)
		dst = strconv.AppendInt(dst, id, 10)
		dst = append(dst, ',')
	}
	dst = append(dst, `"method":`...)
	dst = jsonscan.AppendQuoted(dst, method) // as json.Marshal would, without its reflection
	if params != nil {
		dst = append(dst, `,"params":`...)
		dst = append(dst, params...)
	}
	return append(dst, "}\n"...)
}
