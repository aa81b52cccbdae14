package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
)

// fakeServer is a caller that answers from handlers and records every call,
// for driving verbs without a socket.
type fakeServer struct {
	t        *testing.T
	surfaces []surfaceInfo
	// handlers answer methods other than surface.list (which answers from
	// surfaces unless overridden). A missing handler answers -32601.
	handlers map[string]func(params map[string]any) (any, error)

	calls    []string        // "method {params}" with params as canonical JSON
	timeouts []time.Duration // the timeout of every dial
	dialErr  error           // returned by dial when set

	subscribeErr error       // returned by Subscribe when set
	stream       *fakeStream // returned by Subscribe otherwise
	subscribed   []string    // "method {params}" of Subscribe calls
}

func (f *fakeServer) dial(timeout time.Duration) (caller, error) {
	f.timeouts = append(f.timeouts, timeout)
	if f.dialErr != nil {
		return nil, f.dialErr
	}
	return f, nil
}

// canonical renders params as JSON with sorted keys.
func canonical(t *testing.T, params any) (string, map[string]any) {
	t.Helper()
	b, err := json.Marshal(params)
	if err != nil {
		t.Fatalf("marshal params %#v: %v", params, err)
	}
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatalf("params %s are not an object: %v", b, err)
	}
	out, _ := json.Marshal(m)
	return string(out), m
}

func (f *fakeServer) Call(ctx context.Context, method string, params, result any) error {
	if err := ctx.Err(); err != nil {
		return &ipc.UnreachableError{Path: "/fake.sock", Err: err}
	}
	js, m := canonical(f.t, params)
	f.calls = append(f.calls, method+" "+js)
	h := f.handlers[method]
	if h == nil && method == "surface.list" {
		h = func(map[string]any) (any, error) {
			return surfaceList{PaneCount: len(f.surfaces), Surfaces: f.surfaces}, nil
		}
	}
	if h == nil {
		return ipc.Errorf(ipc.CodeMethodNotFound, "method not found: %s", method)
	}
	v, err := h(m)
	if err != nil {
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		f.t.Fatalf("marshal result of %s: %v", method, err)
	}
	return json.Unmarshal(b, result)
}

func (f *fakeServer) Subscribe(ctx context.Context, method string, params any) (frameStream, error) {
	js, _ := canonical(f.t, params)
	f.subscribed = append(f.subscribed, method+" "+js)
	if f.subscribeErr != nil {
		return nil, f.subscribeErr
	}
	return f.stream, nil
}

// fakeStream yields frames, then err (io.EOF when nil) — or, with block set,
// calls onIdle and blocks until Close.
type fakeStream struct {
	frames []string
	err    error
	block  bool
	onIdle func()

	once   sync.Once
	closed chan struct{}
}

func newFakeStream(frames ...string) *fakeStream {
	return &fakeStream{frames: frames, closed: make(chan struct{})}
}

func (s *fakeStream) Next() (json.RawMessage, error) {
	if len(s.frames) > 0 {
		f := s.frames[0]
		s.frames = s.frames[1:]
		return json.RawMessage(f), nil
	}
	if s.block {
		if s.onIdle != nil {
			s.onIdle()
		}
		<-s.closed
		return nil, &ipc.UnreachableError{Path: "/fake.sock", Err: io.ErrClosedPipe}
	}
	if s.err != nil {
		return nil, s.err
	}
	return nil, io.EOF
}

func (s *fakeStream) Close() error {
	s.once.Do(func() { close(s.closed) })
	return nil
}

// newSession returns a session wired to f, with HOME=/home/u and the
// working directory /home/u/proj.
func newSession(f *fakeServer, stdout, stderr io.Writer) *session {
	env := map[string]string{"HOME": "/home/u"}
	return &session{
		stdin:  strings.NewReader(""),
		stdout: stdout,
		stderr: stderr,
		getenv: func(k string) string { return env[k] },
		getwd:  func() (string, error) { return "/home/u/proj", nil },
		goos:   "linux",
		dial:   f.dial,

		isTerminal: func(any) bool { return false },
	}
}

// runFake runs args against f and returns the exit code and output.
func runFake(ctx context.Context, f *fakeServer, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = newSession(f, &out, &errb).run(ctx, args)
	return code, out.String(), errb.String()
}

func strp(s string) *string { return &s }

// fixture is the pane list most tests resolve selectors against.
func fixture() []surfaceInfo {
	return []surfaceInfo{
		{ID: 1, Name: "shell", Cwd: strp("/home/u/proj"), Cmd: strp("bash"), Workspace: 0},
		{ID: 2, Name: "claude", Cwd: strp("/home/u/proj/api"), Cmd: strp("claude --resume"), Workspace: 0},
		{ID: 3, Name: "claude-2", Cwd: strp("/home/u/proj-backend"), Cmd: strp("Claude"), Workspace: 1},
		{ID: 4, Name: "vite", Title: "vite dev", Workspace: 1},
	}
}
