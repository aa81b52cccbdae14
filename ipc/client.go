package ipc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paneflow-go/paneflow/internal/jsonscan"
)

// DefaultCallTimeout is the per-call timeout of a [Client] whose Timeout is
// zero.
const DefaultCallTimeout = 10 * time.Second

// lastID numbers requests across all clients of the process.
var lastID atomic.Int64

// errClosedWithoutReply is the transport error when the server closes the
// connection before answering.
var errClosedWithoutReply = errors.New("connection closed without a reply")

// Client calls a Paneflow server. Each call uses a fresh connection, so a
// Client holds no resources, its zero value (with Path set) is ready to
// use, and it is safe for concurrent use.
type Client struct {
	// Path is the socket path (pipe name on Windows), e.g. from
	// ClientSocketPath.
	Path string

	// Timeout bounds each Call, from dialing to the end of the reply, and
	// the wait for a Subscribe's first frame. Zero means
	// DefaultCallTimeout (10 s); negative means no timeout. A deadline on
	// the call's ctx applies too, and the earlier one wins. Long methods
	// (e.g. surface.wait) need a Timeout longer than their own wait.
	Timeout time.Duration

	// Dial, when set, makes each connection instead of dialing Path
	// (which then only names the server in errors): a relay's channel,
	// e.g. package remote's connection to another host's socket. It must
	// honour ctx, which carries the call's deadline, and return a
	// connection whose deadlines work as a socket's do.
	Dial func(ctx context.Context) (net.Conn, error)
}

// dialer returns how c connects for a call or a stream.
func (c *Client) dialer(def dialFunc) dialFunc {
	if c.Dial == nil {
		return def
	}
	return customDial(c.Dial)
}

// customDial adapts a Dial function to a dialFunc under the call's
// deadline.
func customDial(dial func(context.Context) (net.Conn, error)) dialFunc {
	return func(ctx context.Context, _ string, deadline time.Time) (streamConn, error) {
		if !deadline.IsZero() {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, deadline)
			defer cancel()
		}
		return dial(ctx)
	}
}

// timeout returns the client's own limit, or 0 for none.
func (c *Client) timeout() time.Duration {
	switch {
	case c.Timeout == 0:
		return DefaultCallTimeout
	case c.Timeout < 0:
		return 0
	}
	return c.Timeout
}

// Call sends one request and decodes the reply's result into result (which
// may be nil to discard it; a *json.RawMessage keeps it raw). params is
// encoded as encoding/json would, by its own AppendJSON when it has one
// (package proto's params types); nil sends no params.
//
// Errors: an *[Error] when the server answered with a JSON-RPC error (or a
// legacy {"error": "..."} result, given [CodeInternal]); an
// *[UnreachableError] when the server could not be reached or closed the
// connection without answering; a *[TimeoutError] when it did not answer
// within Timeout; a *ForeignSocketError (Unix) when the socket file, or
// the process serving it, is another user's (nothing is sent then);
// ctx.Err() when ctx ended first; [ErrResponseTooLarge]
// when the reply exceeds [MaxFrame].
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	_, raw := result.(*json.RawMessage) // keeps the reply's buffer (see decodeResponse)
	return c.call(ctx, method, params, result, nil, !raw)
}

// CallRaw is Call with the raw result handed to use, which must not keep
// it, nor any part of it, once it returns: the buffer then serves the
// process's next call (see spareReader); an absent result is nil.
// CallRaw returns Call's error, or else use's.
func (c *Client) CallRaw(ctx context.Context, method string, params any, use func(result json.RawMessage) error) error {
	var raw json.RawMessage
	return c.call(ctx, method, params, &raw, func() error { return use(raw) }, true)
}

// call is Call and CallRaw: then runs after the result is decoded, and
// reuse gives the read buffer to the next call once both are done.
func (c *Client) call(ctx context.Context, method string, params, result any, then func() error, reuse bool) error {
	id := lastID.Add(1)
	line, err := encodeRequest(id, method, params)
	if err != nil {
		return err
	}
	s, err := c.open(ctx, line, c.dialer(dialCall), callReader)
	if err != nil {
		return err
	}
	defer func() {
		s.Close()
		if reuse {
			putCallReader(s.fr)
		}
	}()
	frame, err := s.fr.next()
	if err != nil {
		return c.readError(ctx, s, err)
	}
	if err := decodeResponse(frame, id, result); err != nil || then == nil {
		return err
	}
	return then()
}

// spareReader keeps the read buffer of a finished call for the next call
// of the process. A long-lived client makes many calls: an MCP bridge
// forwards every hook event of its agent with one, the window calls the
// server all the time. A fresh clientReadBuffer (64 KiB) per call was
// allocated, zeroed and, as the runtime had handed its pages back to the
// system, faulted in again. One spare is enough for calls one after
// another; calls at the same time take a fresh buffer as before. (Not a
// sync.Pool: a bridge's calls run on new goroutines, often on another P
// than the one whose private slot the last Put filled, and the pool
// missed.)
var spareReader atomic.Pointer[frameReader]

// callReader returns a frame reader of nc for a Call: the spare one if
// it is there.
func callReader(nc io.Reader) *frameReader {
	if fr := spareReader.Swap(nil); fr != nil {
		fr.r.Reset(nc)
		return fr
	}
	return newFrameReader(nc, MaxFrame, clientReadBuffer)
}

// putCallReader keeps fr as the spare once its call is over and nothing
// refers to its buffers any more.
func putCallReader(fr *frameReader) {
	fr.r.Reset(nil)
	if cap(fr.buf) > maxKeptBuffer {
		fr.buf = nil
	}
	spareReader.Store(fr)
}

// streamReader returns a frame reader of nc for a Subscribe stream, which
// keeps it for its life.
func streamReader(nc io.Reader) *frameReader { return newFrameReader(nc, MaxFrame, clientReadBuffer) }

// Notify sends a notification (a request without an id, which the server
// runs but never answers) and returns once it is written.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	line, err := encodeRequest(-1, method, params)
	if err != nil {
		return err
	}
	s, err := c.open(ctx, line, c.dialer(dialCall), nil)
	if err != nil {
		return err
	}
	return s.Close()
}

// Subscribe sends a stream request (events.subscribe) and returns the
// stream once its first frame has arrived (within Timeout). If that frame
// is a JSON-RPC error reply, Subscribe returns it as an *[Error]; otherwise
// [Stream.Next] returns it first. Cancelling ctx closes the stream.
func (c *Client) Subscribe(ctx context.Context, method string, params any) (*Stream, error) {
	id := lastID.Add(1)
	line, err := encodeRequest(id, method, params)
	if err != nil {
		return nil, err
	}
	s, err := c.open(ctx, line, c.dialer(dialStream), streamReader)
	if err != nil {
		return nil, err
	}
	frame, err := s.fr.next()
	if err != nil {
		s.Close()
		return nil, c.readError(ctx, s, err)
	}
	if isErrorReply(frame) {
		s.Close()
		return nil, decodeResponse(frame, id, nil)
	}
	s.pending = bytes.Clone(frame)
	setDeadline(ctx, s.nc, time.Time{}) // a stream may be quiet for a long time
	return s, nil
}

// jsonAppender is a params value that appends its own JSON encoding,
// equal to json.Marshal's, without reflection (package proto's params
// types): json.Marshal builds its encoder for a struct type on first use,
// a tenth of a millisecond and more of a command-line call's start-up.
type jsonAppender interface {
	AppendJSON(dst []byte) []byte
}

// encodeRequest builds a request line, refusing one the server would
// reject as too long.
func encodeRequest(id int64, method string, params any) ([]byte, error) {
	var raw json.RawMessage
	switch p := params.(type) {
	case jsonAppender:
		// Package proto's params types encode themselves.
		raw = p.AppendJSON(nil)
	case map[string]any:
		if p != nil { // a nil map stays json.Marshal's: "params":null
			raw, _ = appendParams(nil, p)
		}
	}
	if raw == nil && params != nil {
		var err error
		if raw, err = json.Marshal(params); err != nil {
			return nil, fmt.Errorf("ipc: encoding params of %s: %w", method, err)
		}
	}
	line := appendRequest(nil, id, method, raw)
	if len(line) > MaxFrame {
		return nil, &Error{Code: CodeInvalidRequest, Message: msgTooLarge}
	}
	return line, nil
}

// open dials, arms the deadline and ctx, and writes line. A failed write is
// not final: the server may have refused the connection with a frame
// (busy, permission) that is waiting to be read, so open returns the stream
// and leaves the verdict to the read.
func (c *Client) open(ctx context.Context, line []byte, dial dialFunc, reader func(io.Reader) *frameReader) (*Stream, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	timeout := c.timeout()
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	nc, err := dial(ctx, c.Path, deadline)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !deadline.IsZero() && !time.Now().Before(deadline) {
			return nil, &TimeoutError{After: timeout}
		}
		if foreign(err) {
			return nil, err
		}
		return nil, &UnreachableError{Path: c.Path, Err: err}
	}
	s := &Stream{ctx: ctx, nc: nc, timeout: timeout}
	if reader != nil { // nil: a notification, which reads nothing
		s.fr = reader(nc)
	}
	s.stop = context.AfterFunc(ctx, func() { nc.SetDeadline(aLongTimeAgo) })
	setDeadline(ctx, nc, deadline)
	if _, err := nc.Write(line); err != nil {
		s.writeErr = err
	}
	return s, nil
}

// setDeadline sets nc's deadline to t, or into the past once ctx has
// ended. Every connection here is unblocked by a [context.AfterFunc] that
// sets a past deadline when its ctx ends; that function runs on its own
// goroutine and may have run just before this set, which would undo it
// and leave a later read blocked for good (a web client's event stream,
// subscribed as the server shut down, hung the shutdown). ctx.Err() is
// set before the AfterFunc runs, so checking it after the set closes the
// gap.
func setDeadline(ctx context.Context, nc interface{ SetDeadline(time.Time) error }, t time.Time) {
	nc.SetDeadline(t)
	if ctx.Err() != nil {
		nc.SetDeadline(aLongTimeAgo)
	}
}

// readError turns a failed read of the reply into the error Call returns.
func (c *Client) readError(ctx context.Context, s *Stream, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, errFrameTooLarge):
		return ErrResponseTooLarge
	case errors.Is(err, os.ErrDeadlineExceeded):
		if s.timeout > 0 {
			return &TimeoutError{After: s.timeout}
		}
		return context.DeadlineExceeded // the ctx's deadline, just before ctx noticed
	case s.writeErr != nil:
		return &UnreachableError{Path: c.Path, Err: s.writeErr}
	case errors.Is(err, io.EOF):
		return &UnreachableError{Path: c.Path, Err: errClosedWithoutReply}
	}
	return &UnreachableError{Path: c.Path, Err: err}
}

// isErrorReply reports whether frame is a JSON-RPC error reply rather than
// a stream frame.
func isErrorReply(frame []byte) bool {
	var probe struct {
		JSONRPC string          `json:"jsonrpc"`
		Error   json.RawMessage `json:"error"`
	}
	return json.Unmarshal(frame, &probe) == nil && probe.JSONRPC != "" && len(probe.Error) > 0 && string(probe.Error) != "null"
}

// decodeResponse decodes a reply to request id into result.
func decodeResponse(frame []byte, id int64, result any) error {
	// jsonscan validates and splits the frame in one pass: encoding/json
	// took two over a reply that can be a 16 KB read. Keys match the way
	// encoding/json matches struct fields (case-insensitively, the last
	// duplicate winning), and a null error is no error, as it was for the
	// *Error field there.
	var resResult, resError, resID []byte
	err := jsonscan.Members(frame, func(key string, value []byte) {
		switch {
		case strings.EqualFold(key, "result"):
			resResult = value
		case strings.EqualFold(key, "error"):
			resError = value
		case strings.EqualFold(key, "id"):
			resID = value
		}
	})
	if err != nil {
		return fmt.Errorf("ipc: malformed reply: %v", err)
	}
	if resError != nil && string(resError) != "null" {
		var e Error
		if err := json.Unmarshal(resError, &e); err != nil {
			return fmt.Errorf("ipc: malformed reply: %v", err)
		}
		return &e
	}
	var gotID int64
	if err := json.Unmarshal(resID, &gotID); err != nil || gotID != id {
		return fmt.Errorf("ipc: reply has id %s, want %d", resID, id)
	}
	if msg, ok := LegacyError(resResult); ok {
		return &Error{Code: CodeInternal, Message: msg}
	}
	if result == nil || len(resResult) == 0 {
		return nil
	}
	if raw, ok := result.(*json.RawMessage); ok {
		// Already validated with the envelope, and not copied either:
		// the frame's buffer belongs to this call's connection, which
		// is never read again, and Call does not keep it as its
		// spareReader, so the result can keep it. The capacity
		// is cut so that appending to the result cannot write into the
		// rest of the frame.
		*raw = resResult[:len(resResult):len(resResult)]
		return nil
	}
	if err := json.Unmarshal(resResult, result); err != nil {
		return fmt.Errorf("ipc: decoding the result: %w", err)
	}
	return nil
}

// LegacyError reports whether a result has the legacy failure shape
// {"error":"<text>"} (a top-level string "error", which our server never
// produces but older ones do) and returns the text. Results without the
// word in them are not decoded: a large surface.read costs one scan.
func LegacyError(result json.RawMessage) (string, bool) {
	t := bytes.TrimSpace(result)
	if len(t) == 0 || t[0] != '{' || !bytes.Contains(t, []byte(`"error"`)) {
		return "", false
	}
	var legacy struct {
		Error *string `json:"error"`
	}
	if json.Unmarshal(t, &legacy) != nil || legacy.Error == nil {
		return "", false
	}
	return *legacy.Error, true
}

// streamConn is the connection under a [Stream]: a net.Conn, or for a
// one-shot call on Linux a blockingConn (see dialCall).
type streamConn interface {
	io.ReadWriteCloser
	SetDeadline(time.Time) error
}

// dialFunc connects to the server at path, giving up at deadline (none
// when zero) or when ctx ends.
type dialFunc func(ctx context.Context, path string, deadline time.Time) (streamConn, error)

// dialStream connects for a push stream, which another goroutine may close
// to unblock a read: always through package net.
func dialStream(ctx context.Context, path string, deadline time.Time) (streamConn, error) {
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	return dialEndpoint(ctx, path)
}

// Stream is the reading end of a push stream opened with
// [Client.Subscribe]. Next must not be called concurrently with itself;
// Close may be called from any goroutine, including to unblock Next.
type Stream struct {
	ctx      context.Context
	nc       streamConn
	fr       *frameReader
	stop     func() bool // stops the ctx watch
	timeout  time.Duration
	writeErr error  // a failed request write (see open)
	pending  []byte // the first frame, read by Subscribe

	closeOnce sync.Once
	closed    atomic.Bool
}

// Next returns the next frame, one JSON value without its newline, in a
// slice the caller may keep. It returns io.EOF when the server closed the
// stream, ctx.Err() once the Subscribe ctx is done, [net.ErrClosed] after
// Close, and [ErrResponseTooLarge] for a frame over [MaxFrame] (the stream
// is then unusable).
func (s *Stream) Next() (json.RawMessage, error) {
	if p := s.pending; p != nil {
		s.pending = nil
		return p, nil
	}
	frame, err := s.fr.next()
	if err == nil {
		return bytes.Clone(frame), nil
	}
	switch {
	case s.closed.Load():
		return nil, net.ErrClosed
	case s.ctx.Err() != nil:
		return nil, s.ctx.Err()
	case errors.Is(err, errFrameTooLarge):
		return nil, ErrResponseTooLarge
	}
	return nil, err
}

// Close closes the connection, which ends the subscription on the server.
// It is idempotent.
func (s *Stream) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		s.stop()
		err = s.nc.Close()
	})
	return err
}
