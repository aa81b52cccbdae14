package ipc

import (
	"errors"
	"fmt"
	"time"
)

// JSON-RPC error codes used on the wire. The first five are JSON-RPC 2.0's
// reserved codes; the last three are Paneflow's server errors.
const (
	CodeParse          = -32700 // the frame is not valid JSON
	CodeInvalidRequest = -32600 // valid JSON that is not a request, a batch, or an oversized frame
	CodeMethodNotFound = -32601 // no such method (also: a scripting gate that is closed)
	CodeInvalidParams  = -32602 // the method's params are wrong
	CodeInternal       = -32603 // the handler failed for a reason of its own
	CodeBusy           = -32000 // a kind's admission limit, a full executor queue, or shutting down
	CodePermission     = -32001 // the peer runs as another user
	CodeTimeout        = -32002 // the dispatch timeout passed before the handler answered
)

// Wire messages of the errors the transport itself produces. Clients match
// on some of them, so they are part of the protocol.
const (
	msgPeerUID       = "permission denied: peer UID mismatch"
	msgTooLarge      = "request exceeds maximum length"
	msgTimeout       = "request timeout"
	msgQueueFull     = "Paneflow is busy; retry shortly"
	msgShuttingDown  = "Paneflow is shutting down"
	msgBatch         = "batch requests are not supported"
	msgInternalPanic = "internal error: handler panicked"
	// Concurrent connections (rpc.concurrent, see [Mux]).
	msgTooManyInFlight  = "server busy: too many requests in flight on this connection"
	msgStreamConcurrent = "a stream needs a connection of its own, not a concurrent one"
)

// Error is a JSON-RPC error object. A [Handler] returns one to choose the
// code and message the client sees; [Client.Call] returns one when the
// server answered with an error. The zero value is an error with code 0 and
// no message; use [Errorf] or [InvalidParams]. Data, when not nil, is sent
// as the "data" member.
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

// UnreachableError reports that a client could not talk to the server at
// Path at all: nothing listens there, the connection broke, or the server
// closed it without an answer. Err is the transport error.
type UnreachableError struct {
	Path string
	Err  error
}

// Error returns the message the CLI prints.
func (e *UnreachableError) Error() string {
	return fmt.Sprintf("paneflow IPC unreachable at %s (%v); is Paneflow running?", e.Path, e.Err)
}

// Unwrap returns the transport error.
func (e *UnreachableError) Unwrap() error { return e.Err }

// TimeoutError reports that the server accepted a call but did not answer
// within the client's timeout, After.
type TimeoutError struct {
	After time.Duration
}

// Error returns the message the CLI prints, e.g. "paneflow did not respond
// within 10s".
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("paneflow did not respond within %v", e.After)
}

// Timeout reports true, so the error satisfies the net.Error convention.
func (e *TimeoutError) Timeout() bool { return true }

// InstanceRunningError is returned by [Server.Listen] when another Paneflow
// already answers at Path. Identify is its system.identify reply line.
type InstanceRunningError struct {
	Path     string
	Identify string
}

// Error names the path and the running instance.
func (e *InstanceRunningError) Error() string {
	return fmt.Sprintf("ipc: another Paneflow is already serving at %s (%s); close it or use another socket path", e.Path, e.Identify)
}

var (
	// ErrBusy is returned by [Executor.Do] when its queue is full. The
	// server answers the request with [CodeBusy] "Paneflow is busy; retry
	// shortly".
	ErrBusy = errors.New("ipc: executor queue full")

	// ErrExecutorClosed is returned by [QueueExecutor.Do] after
	// [QueueExecutor.Close]. The server answers with [CodeBusy] "Paneflow
	// is shutting down".
	ErrExecutorClosed = errors.New("ipc: executor closed")

	// ErrServerClosed is returned by [Server.Serve] after [Server.Shutdown],
	// and by Listen and Serve on a server that was shut down.
	ErrServerClosed = errors.New("ipc: server closed")

	// ErrResponseTooLarge is returned by the client when a reply or stream
	// frame exceeds [MaxFrame].
	ErrResponseTooLarge = errors.New("paneflow response exceeded the size cap")

	// ErrNoSocketPath is returned by the endpoint resolvers when no
	// directory for the socket can be found in the environment.
	ErrNoSocketPath = errors.New("ipc: no socket path: set PANEFLOW_SOCKET_PATH, XDG_RUNTIME_DIR, TMPDIR or HOME")
)
