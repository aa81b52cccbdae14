package ipc

import (
	"errors"
	"fmt"
	"time"

	"github.com/paneflow-go/paneflow/proto"
)

// JSON-RPC error codes used on the wire: package proto's, under the
// transport's names (see there for what each means).
const (
	CodeParse          = proto.CodeParse
	CodeInvalidRequest = proto.CodeInvalidRequest
	CodeMethodNotFound = proto.CodeMethodNotFound
	CodeInvalidParams  = proto.CodeInvalidParams
	CodeInternal       = proto.CodeInternal
	CodeBusy           = proto.CodeBusy
	CodePermission     = proto.CodePermission
	CodeTimeout        = proto.CodeTimeout
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

// Error is a JSON-RPC error object ([proto.Error]). A [Handler] returns
// one to choose the code and message the client sees; [Client.Call]
// returns one when the server answered with an error. Data, when not nil,
// is sent as the "data" member.
type Error = proto.Error

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code int, format string, args ...any) *Error {
	return proto.Errorf(code, format, args...)
}

// InvalidParams returns an *Error with [CodeInvalidParams] and a formatted
// message, for handlers that reject their params.
func InvalidParams(format string, args ...any) *Error {
	return proto.Errorf(CodeInvalidParams, format, args...)
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

// foreign reports whether a dial failed because the socket is another
// user's (a *ForeignSocketError, Unix only): a refusal the client reports
// as it is, not as an unreachable server.
func foreign(err error) bool {
	var f interface{ foreignSocket() }
	return errors.As(err, &f)
}

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
// already answers at Path, or holds Path's lock file (Unix) and is still
// starting. Identify is its system.identify reply line, "" when it did not
// answer.
type InstanceRunningError struct {
	Path     string
	Identify string
}

// Error names the path and the running instance.
func (e *InstanceRunningError) Error() string {
	who := e.Identify
	if who == "" {
		who = "still starting; it holds " + e.Path + ".lock"
	}
	return fmt.Sprintf("ipc: another Paneflow server is running on %s (%s); close it or use another socket path", e.Path, who)
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
