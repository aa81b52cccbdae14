package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
)

// caller is the part of the ipc client the verbs use; tests substitute a
// fake. Call decodes the result into result (a *json.RawMessage here) and
// returns *ipc.Error for JSON-RPC errors and *ipc.UnreachableError for
// transport failures. Subscribe opens a push stream. Implementations must be
// safe for use by one goroutine at a time.
type caller interface {
	Call(ctx context.Context, method string, params, result any) error
	Subscribe(ctx context.Context, method string, params any) (frameStream, error)
}

// frameStream is an open push stream: Next returns one frame at a time and
// io.EOF when the server closed it. Close may be called concurrently with a
// blocked Next to unblock it.
type frameStream interface {
	Next() (json.RawMessage, error)
	Close() error
}

// errNoSocket is the spec's message for a socket path that cannot be
// computed from the environment.
var errNoSocket = errors.New("cannot locate the IPC socket; is Paneflow running? (set PANEFLOW_SOCKET_PATH if you launched the CLI outside a Paneflow pane)")

// dialIPC resolves the socket path from the session's environment and
// returns an ipc client for it. timeout 0 keeps the client's default.
func (s *session) dialIPC(timeout time.Duration) (caller, error) {
	path, err := ipc.ClientSocketPath(s.getenv)
	if err != nil || path == "" {
		return nil, errNoSocket
	}
	return ipcCaller{&ipc.Client{Path: path, Timeout: timeout}}, nil
}

// dialIPCMux opens an [ipc.Mux] to the server.
func (s *session) dialIPCMux(ctx context.Context) (caller, io.Closer, error) {
	path, err := ipc.ClientSocketPath(s.getenv)
	if err != nil || path == "" {
		return nil, nil, errNoSocket
	}
	return redialMux(ctx, func(ctx context.Context) (*ipc.Mux, error) { return ipc.DialMux(ctx, path) })
}

// redialMux dials a concurrent connection and returns it as a caller
// that outlives the server closing it (an ipc.Redialer: a flow's waits
// may start minutes after the dial, once its worktrees and setups are
// done, and the server closes a connection idle for its IdleTimeout).
// The first dial's error is returned as is, so that an old server that
// refuses the handshake is told apart.
func redialMux(ctx context.Context, dial func(context.Context) (*ipc.Mux, error)) (caller, io.Closer, error) {
	m, err := dial(ctx)
	if err != nil {
		return nil, nil, err
	}
	r := ipc.NewRedialer(m, ipc.DefaultIdleTimeout/2, dial)
	return muxCaller{r}, r, nil
}

// muxCaller adapts an ipc.Redialer to caller; it makes no streams.
type muxCaller struct{ m *ipc.Redialer }

func (a muxCaller) Call(ctx context.Context, method string, params, result any) error {
	return a.m.Call(ctx, method, params, result)
}

func (a muxCaller) Subscribe(context.Context, string, any) (frameStream, error) {
	return nil, errors.New("a stream needs a connection of its own")
}

// ipcCaller adapts *ipc.Client to caller.
type ipcCaller struct{ c *ipc.Client }

func (a ipcCaller) Call(ctx context.Context, method string, params, result any) error {
	return a.c.Call(ctx, method, params, result)
}

func (a ipcCaller) Subscribe(ctx context.Context, method string, params any) (frameStream, error) {
	st, err := a.c.Subscribe(ctx, method, params)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// rpcError is a JSON-RPC error answer, printed the way the spec words it:
// "paneflow error <code>: <message>". It unwraps to the *ipc.Error.
type rpcError struct{ e *ipc.Error }

func (r *rpcError) Error() string { return fmt.Sprintf("paneflow error %d: %s", r.e.Code, r.e.Message) }
func (r *rpcError) Unwrap() error { return r.e }

// rpcCode returns the JSON-RPC error code inside err, and whether there is one.
func rpcCode(err error) (int, bool) {
	var e *ipc.Error
	if errors.As(err, &e) {
		return e.Code, true
	}
	return 0, false
}

// isUnreachable reports whether err is a transport failure (the server could
// not be reached or the connection broke).
func isUnreachable(err error) bool {
	var u *ipc.UnreachableError
	return errors.As(err, &u)
}

// emptyParams is sent to methods that take no parameters.
var emptyParams noParams

// noParams is "{}". It encodes itself (ipc uses AppendJSON, as for
// package proto's params): json.Marshal of an empty struct built its
// encoder by reflection, whose field scan has a 2.4 KB stack frame, and
// in `ls` that frame was enough to grow the stack of every call to 16 KB.
type noParams struct{}

// AppendJSON appends {} to dst.
func (noParams) AppendJSON(dst []byte) []byte { return append(dst, "{}"...) }

// call makes one request and returns its raw result. JSON-RPC errors come
// back as *rpcError, and a legacy result carrying a top-level string "error"
// (which our server never produces, but older ones do) as a plain error with
// that text.
func call(ctx context.Context, c caller, method string, params any) (json.RawMessage, error) {
	var raw json.RawMessage
	if err := c.Call(ctx, method, params, &raw); err != nil {
		var e *ipc.Error
		if errors.As(err, &e) {
			return nil, &rpcError{e}
		}
		return nil, err
	}
	if msg, ok := ipc.LegacyError(raw); ok {
		return nil, errors.New(msg)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, fmt.Errorf("%s: the server answered with neither a result nor an error", method)
	}
	return raw, nil
}

// callInto makes one request and decodes its result into out, unless out
// is nil.
func callInto(ctx context.Context, c caller, method string, params, out any) (json.RawMessage, error) {
	raw, err := call(ctx, c, method, params)
	if err != nil || out == nil {
		return raw, err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return nil, fmt.Errorf("%s: unexpected result from the server: %v", method, err)
	}
	return raw, nil
}
