package ipc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// readAllFrames reads frames until an error and returns them (copied) and
// the error.
func readAllFrames(r io.Reader, max int) ([]string, error) {
	fr := newFrameReader(r, max, 16)
	var frames []string
	for {
		f, err := fr.next()
		if err != nil {
			return frames, err
		}
		frames = append(frames, string(f))
	}
}

func TestFrameReader(t *testing.T) {
	const max = 16
	tests := []struct {
		name    string
		in      string
		want    []string
		wantErr error
	}{
		{"empty", "", nil, io.EOF},
		{"one line", "abc\n", []string{"abc"}, io.EOF},
		{"several lines", "a\nbb\n\nccc\n", []string{"a", "bb", "", "ccc"}, io.EOF},
		{"final line without newline", "a\nlast", []string{"a", "last"}, io.EOF},
		{"exactly max with newline", strings.Repeat("x", max-1) + "\n", []string{strings.Repeat("x", max-1)}, io.EOF},
		{"max content without newline yet", strings.Repeat("x", max) + "\n", nil, errFrameTooLarge},
		{"max bytes, no newline, at EOF", strings.Repeat("x", max), nil, errFrameTooLarge},
		{"just under max at EOF", strings.Repeat("x", max-1), []string{strings.Repeat("x", max-1)}, io.EOF},
		{"good line then oversized", "ok\n" + strings.Repeat("y", 40) + "\n", []string{"ok"}, errFrameTooLarge},
		{"CR kept", "a\r\n", []string{"a\r"}, io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readAllFrames(strings.NewReader(tt.in), max)
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("error = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("frames mismatch (-want +got):\n%s", diff)
			}
			// The same input one byte at a time gives the same frames.
			got1, err1 := readAllFrames(iotest.OneByteReader(strings.NewReader(tt.in)), max)
			if !errors.Is(err1, tt.wantErr) || !cmp.Equal(got, got1) {
				t.Errorf("one byte at a time: got %q, %v; want %q, %v", got1, err1, got, err)
			}
		})
	}
}

// TestFrameReaderRealCap checks MaxFrame across bufio's buffer size: a line
// of exactly MaxFrame bytes with its newline is accepted, one more byte is
// not.
func TestFrameReaderRealCap(t *testing.T) {
	for _, tt := range []struct {
		n       int // bytes before the newline
		wantErr error
	}{
		{MaxFrame - 1, io.EOF},
		{MaxFrame, errFrameTooLarge},
	} {
		in := strings.Repeat("z", tt.n) + "\n"
		got, err := readAllFrames(strings.NewReader(in), MaxFrame)
		if !errors.Is(err, tt.wantErr) {
			t.Errorf("line of %d bytes + newline: error = %v, want %v", tt.n, err, tt.wantErr)
		}
		if tt.wantErr == io.EOF && (len(got) != 1 || len(got[0]) != tt.n) {
			t.Errorf("line of %d bytes + newline: got %d frames, want one of %d bytes", tt.n, len(got), tt.n)
		}
	}
}

func FuzzReadFrame(f *testing.F) {
	for _, s := range []string{"", "a\n", "a\nb", "\n\n\n", strings.Repeat("x", 40) + "\n", "abc\r\ndef", "{\"id\":1}\n{}\n"} {
		f.Add([]byte(s), uint8(8))
	}
	f.Fuzz(func(t *testing.T, data []byte, maxByte uint8) {
		limit := int(maxByte)%64 + 1
		frames, err := readAllFrames(bytes.NewReader(data), limit)
		var consumed []byte
		for _, fr := range frames {
			if len(fr)+1 > limit {
				t.Fatalf("frame %q of %d bytes exceeds cap %d", fr, len(fr), limit)
			}
			if strings.Contains(fr, "\n") {
				t.Fatalf("frame %q contains a newline", fr)
			}
			consumed = append(append(consumed, fr...), '\n')
		}
		switch {
		case errors.Is(err, io.EOF):
			// All input was consumed; only the last frame may lack its newline.
			if !bytes.Equal(consumed, data) && !bytes.Equal(consumed[:max(len(consumed)-1, 0)], data) {
				t.Fatalf("frames %q do not reassemble input %q", frames, data)
			}
		case errors.Is(err, errFrameTooLarge):
			if !bytes.HasPrefix(data, consumed) {
				t.Fatalf("frames %q are not a prefix of input %q", frames, data)
			}
			rest := data[len(consumed):]
			if i := bytes.IndexByte(rest, '\n'); i >= 0 && i+1 <= limit {
				t.Fatalf("rejected a line of %d bytes with cap %d", i+1, limit)
			}
		default:
			t.Fatalf("unexpected error %v", err)
		}
	})
}

func TestDecodeRequest(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		wantID     string // "" for a notification
		wantMethod string
		wantParams string
		wantCode   int    // 0: success
		wantErrID  string // id sent with the error
		wantMsg    string // prefix of the error message
	}{
		{name: "full", in: `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1}}`, wantID: "1", wantMethod: "m", wantParams: `{"a":1}`},
		{name: "string id", in: `{"id":"x","method":"m"}`, wantID: `"x"`, wantMethod: "m", wantParams: "{}"},
		{name: "null id", in: `{"id":null,"method":"m"}`, wantID: "null", wantMethod: "m", wantParams: "{}"},
		{name: "negative id", in: `{"id":-3,"method":"m"}`, wantID: "-3", wantMethod: "m", wantParams: "{}"},
		{name: "notification", in: `{"method":"m","params":[1]}`, wantMethod: "m", wantParams: "[1]"},
		{name: "null params", in: `{"id":1,"method":"m","params":null}`, wantID: "1", wantMethod: "m", wantParams: "{}"},
		{name: "surrounding space", in: " \t{\"id\":1,\"method\":\"m\"} ", wantID: "1", wantMethod: "m", wantParams: "{}"},
		{name: "parse error", in: `{"id":1,`, wantCode: CodeParse, wantErrID: "null", wantMsg: "Parse error: "},
		{name: "garbage", in: `hello`, wantCode: CodeParse, wantErrID: "null", wantMsg: "Parse error: invalid character"},
		{name: "bad array", in: `[1,`, wantCode: CodeParse, wantErrID: "null", wantMsg: "Parse error: "},
		{name: "batch", in: `[{"id":1,"method":"m"}]`, wantCode: CodeInvalidRequest, wantErrID: "null", wantMsg: msgBatch},
		{name: "empty batch", in: `[]`, wantCode: CodeInvalidRequest, wantErrID: "null", wantMsg: msgBatch},
		{name: "number", in: `42`, wantCode: CodeInvalidRequest, wantErrID: "null", wantMsg: "invalid request: not a JSON object"},
		{name: "null", in: `null`, wantCode: CodeInvalidRequest, wantErrID: "null", wantMsg: "invalid request: not a JSON object"},
		{name: "object id", in: `{"id":{},"method":"m"}`, wantCode: CodeInvalidRequest, wantErrID: "null", wantMsg: "invalid request: id must be"},
		{name: "bool id", in: `{"id":true,"method":"m"}`, wantCode: CodeInvalidRequest, wantErrID: "null", wantMsg: "invalid request: id must be"},
		{name: "missing method", in: `{"id":7}`, wantCode: CodeInvalidRequest, wantErrID: "7", wantMsg: "invalid request: missing method"},
		{name: "empty method", in: `{"id":7,"method":""}`, wantCode: CodeInvalidRequest, wantErrID: "7", wantMsg: "invalid request: missing method"},
		{name: "numeric method", in: `{"id":7,"method":3}`, wantCode: CodeInvalidRequest, wantErrID: "7", wantMsg: "invalid request: method must be a string"},
		{name: "null method", in: `{"method":null}`, wantCode: CodeInvalidRequest, wantErrID: "null", wantMsg: "invalid request: method must be a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, errID, rerr := decodeRequest([]byte(tt.in))
			if tt.wantCode != 0 {
				if rerr == nil {
					t.Fatalf("decodeRequest(%s) succeeded with %+v, want code %d", tt.in, req, tt.wantCode)
				}
				if rerr.Code != tt.wantCode || !strings.HasPrefix(rerr.Message, tt.wantMsg) || string(errID) != tt.wantErrID {
					t.Errorf("decodeRequest(%s) = code %d %q id %s, want code %d %q… id %s",
						tt.in, rerr.Code, rerr.Message, errID, tt.wantCode, tt.wantMsg, tt.wantErrID)
				}
				return
			}
			if rerr != nil {
				t.Fatalf("decodeRequest(%s) failed: %v", tt.in, rerr)
			}
			if string(req.id) != tt.wantID || req.method != tt.wantMethod || string(req.params) != tt.wantParams {
				t.Errorf("decodeRequest(%s) = id %s method %q params %s, want id %s method %q params %s",
					tt.in, req.id, req.method, req.params, tt.wantID, tt.wantMethod, tt.wantParams)
			}
			if got, want := req.notification(), tt.wantID == ""; got != want {
				t.Errorf("notification() = %v, want %v", got, want)
			}
		})
	}
}

// decodeRequestReference is decodeRequest as it was before scanEnvelope:
// encoding/json only. FuzzDecodeRequest holds the two to the same answers.
func decodeRequestReference(frame []byte) (req request, errID json.RawMessage, rerr *Error) {
	frame = bytes.TrimSpace(frame)
	if len(frame) > 0 && frame[0] == '[' {
		if json.Valid(frame) {
			return req, nullID, &Error{Code: CodeInvalidRequest, Message: msgBatch}
		}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(frame, &fields); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return req, nullID, &Error{Code: CodeInvalidRequest, Message: "invalid request: not a JSON object"}
		}
		return req, nullID, &Error{Code: CodeParse, Message: "Parse error: " + err.Error()}
	}
	if fields == nil {
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
	if err := json.Unmarshal(raw, &req.method); err != nil || raw[0] != '"' {
		return req, replyID, &Error{Code: CodeInvalidRequest, Message: "invalid request: method must be a string"}
	}
	if req.method == "" {
		return req, replyID, &Error{Code: CodeInvalidRequest, Message: "invalid request: missing method"}
	}
	req.params = fields["params"]
	if len(req.params) == 0 || string(req.params) == "null" {
		req.params = emptyParams
	}
	return req, nil, nil
}

// TestDecodeRequestCopies checks that a request outlives its frame, whose
// buffer the connection reuses for the next read (a Long request of a
// concurrent connection runs meanwhile).
func TestDecodeRequestCopies(t *testing.T) {
	frame := []byte(`{"id":"abc","method":"m","params":{"x":[1,2,3]}}`)
	req, _, rerr := decodeRequest(frame)
	if rerr != nil {
		t.Fatal(rerr)
	}
	for i := range frame {
		frame[i] = ' '
	}
	if string(req.id) != `"abc"` || req.method != "m" || string(req.params) != `{"x":[1,2,3]}` {
		t.Errorf("after the frame buffer was reused: id %s method %q params %s", req.id, req.method, req.params)
	}
}

func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1}}`, `{"method":"m"}`, `[]`, `[{}]`, `42`, `null`,
		`{"id":{},"method":"m"}`, `{"id":"x","method":3}`, `{"id":1e400,"method":"m"}`, `{"id":1,`, ``, ` `,
		`{"id":1,"method":"m","params":null}`, `{"ID":1,"METHOD":"m"}`,
		`{"id":1,"id":2,"method":"a","method":"b"}`, `{"\u0069d":1,"method":"m\u00e9\ud800"}`, "{\"method\":\"\xff\"}",
		`{"method":"m","params":{"a":[1,{"b":null}]} , "x":1e5}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		req, errID, rerr := decodeRequest(data)
		rreq, rerrID, rrerr := decodeRequestReference(data)
		if string(req.id) != string(rreq.id) || (req.id == nil) != (rreq.id == nil) || req.method != rreq.method ||
			string(req.params) != string(rreq.params) || string(errID) != string(rerrID) || fmt.Sprint(rerr) != fmt.Sprint(rrerr) {
			t.Fatalf("decodeRequest(%q) = %+v, %s, %v; encoding/json's decoding gives %+v, %s, %v",
				data, req, errID, rerr, rreq, rerrID, rrerr)
		}
		if rerr != nil {
			if rerr.Code != CodeParse && rerr.Code != CodeInvalidRequest {
				t.Fatalf("error code %d, want %d or %d", rerr.Code, CodeParse, CodeInvalidRequest)
			}
			checkReply(t, appendError(nil, errID, rerr))
			return
		}
		if req.method == "" {
			t.Fatalf("accepted %q with an empty method", data)
		}
		if !json.Valid(req.params) || len(req.params) == 0 {
			t.Fatalf("params %q of %q are not valid JSON", req.params, data)
		}
		if req.id != nil {
			checkReply(t, appendResult(nil, req.id, json.RawMessage(`true`)))
		}
	})
}

// checkReply fails unless line is one valid JSON object ending in a single
// newline.
func checkReply(t *testing.T, line []byte) {
	t.Helper()
	if !bytes.HasSuffix(line, []byte("\n")) || bytes.Count(line, []byte("\n")) != 1 {
		t.Fatalf("reply %q is not one line", line)
	}
	var v map[string]json.RawMessage
	if err := json.Unmarshal(line, &v); err != nil {
		t.Fatalf("reply %q is not a JSON object: %v", line, err)
	}
	if _, ok := v["id"]; !ok {
		t.Fatalf("reply %q has no id", line)
	}
}
