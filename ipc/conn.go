package ipc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// errDeadline is what reads and writes fail with past a deadline (net and
// go-winio connections both wrap it).
var errDeadline = os.ErrDeadlineExceeded

// marshal encodes v like json.Marshal but leaves <, > and & as they are:
// terminal text is full of them, and escaping each as \u003c made a read's
// reply longer and slower to encode and decode, for the benefit of HTML
// pages the socket never feeds.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// conn is one served connection. Its goroutine (serve) owns fr and wbuf.
type conn struct {
	s    *Server
	nc   net.Conn
	fr   *frameReader
	wbuf []byte

	// disconnected is set by a watcher when the client went away while a
	// Long or stream handler ran.
	disconnected atomic.Bool

	// concurrent is set by the rpc.concurrent handshake (serve's
	// goroutine only): Long requests then run beside later ones.
	concurrent bool
	// wmu serializes replies once Long requests answer from their own
	// goroutines; it guards wbuf then.
	wmu sync.Mutex
	// lmu guards inFlight, the Long requests running on their own
	// goroutines, waiting, and the read deadline that depends on them.
	lmu      sync.Mutex
	inFlight int
	// waiting is set while serve reads the next request.
	waiting bool

	// The idle list (admission.go): idlePrev, idleNext and inIdle are
	// guarded by Server.mu; evicted is set once the server closed the
	// connection to make room.
	idlePrev, idleNext *conn
	inIdle             bool
	evicted            atomic.Bool
}

// serve runs the request loop until the client leaves, a frame is bad
// beyond repair, the connection idles out, or the server shuts down.
func (c *conn) serve(parent context.Context) {
	defer c.s.released(c)
	defer c.nc.Close()
	ctx, cancel := context.WithCancel(parent)
	defer cancel()

	if !c.s.peerAllowed(c.nc) {
		c.write(nullID, nil, &Error{Code: CodePermission, Message: msgPeerUID})
		return
	}
	ctx = withPeerPID(ctx, c.nc)
	c.fr = newFrameReader(c.nc, MaxFrame, serverReadBuffer)
	idle := c.s.idleTimeout()
	// The first request must arrive whole within the first-frame
	// timeout; later ones within the idle timeout each.
	first := time.Now().Add(c.s.firstFrameTimeout())
	for {
		deadline := time.Now().Add(idle)
		if !first.IsZero() {
			deadline = first
		}
		// Arm the deadline, then check for shutdown and eviction:
		// both set their flag, then the deadline, so one of the two
		// stops this read.
		c.beginWait(deadline)
		if c.s.closing.Load() {
			return
		}
		frame, err := c.fr.next()
		c.endWait()
		if c.evicted.Load() {
			id := nullID
			if err == nil {
				if req, _, rerr := decodeRequest(frame); rerr == nil && req.id != nil {
					id = req.id
				}
			}
			c.write(id, nil, c.s.evictedError())
			return
		}
		if errors.Is(err, errFrameTooLarge) {
			c.write(nullID, nil, &Error{Code: CodeInvalidRequest, Message: msgTooLarge})
			return
		}
		if err != nil {
			if !first.IsZero() && errors.Is(err, errDeadline) && !c.s.closing.Load() {
				c.s.firstFrameTimedOut()
			}
			return // EOF, idle deadline, shutdown: close silently
		}
		if isBlank(frame) {
			continue
		}
		first = time.Time{}
		req, errID, rerr := decodeRequest(frame)
		if rerr != nil {
			if !c.write(errID, nil, rerr) {
				return
			}
			continue
		}
		if req.method == MethodConcurrent {
			c.concurrent = true
			if !c.answer(ctx, nil, &req, json.RawMessage(`{"concurrent":true,"max_in_flight":`+strconv.Itoa(MaxInFlight)+`}`), nil) {
				return
			}
			continue
		}
		m := c.s.Registry.lookup(req.method)
		if m == nil {
			if !c.answer(ctx, nil, &req, nil, Errorf(CodeMethodNotFound, "method not found: %s", req.method)) {
				return
			}
			continue
		}
		if m.stream != nil && c.concurrent {
			if !c.answer(ctx, m, &req, nil, &Error{Code: CodeInvalidRequest, Message: msgStreamConcurrent}) {
				return
			}
			continue
		}
		if busy := c.s.admit(m.kind); busy != nil {
			if req.notification() {
				c.s.logf("ipc: refused notification %s: %s", req.method, busy.Message)
			}
			if !c.answer(ctx, m, &req, nil, busy) {
				return
			}
			continue
		}
		if m.stream != nil {
			c.serveStream(ctx, m, &req)
			c.s.release(m.kind)
			return
		}
		if (m.long || m.before != nil) && c.concurrent {
			if !c.startLong(ctx, m, req) {
				c.s.release(m.kind)
				if !c.answer(ctx, m, &req, nil, &Error{Code: CodeBusy, Message: msgTooManyInFlight}) {
					return
				}
			}
			continue
		}
		rctx, replied := withAfterReply(ctx)
		result, rpcErr, reply := c.call(rctx, m, &req)
		// The slot is free before the reply is out: a client that has
		// its reply finds it free (and a slow reader holds its own
		// connection, not a slot).
		c.s.release(m.kind)
		ok := !reply || c.answer(ctx, m, &req, result, rpcErr)
		replied()
		if !ok || c.disconnected.Load() {
			return
		}
	}
}

// beginWait marks the connection as reading its next request: with
// nothing in flight it is idle (on the server's idle list, evictable) and
// its read deadline is deadline; while Long requests run the client is
// waiting for them, not idle, and there is no deadline.
func (c *conn) beginWait(deadline time.Time) {
	c.lmu.Lock()
	defer c.lmu.Unlock()
	c.waiting = true
	if c.inFlight > 0 {
		c.nc.SetReadDeadline(time.Time{})
		return
	}
	c.s.markIdle(c)
	c.setReadDeadline(deadline)
}

// setReadDeadline sets the read deadline of an idle connection to t, or
// into the past when it has been evicted or the server shuts down: both
// set a past deadline once, from another goroutine, and a set just after
// theirs must not undo it (the flag is stored before their set, so one of
// the two always sees the other).
func (c *conn) setReadDeadline(t time.Time) {
	c.nc.SetReadDeadline(t)
	if c.evicted.Load() || c.s.closing.Load() {
		c.nc.SetReadDeadline(aLongTimeAgo)
	}
}

// endWait marks the end of a read: the connection is no longer idle.
func (c *conn) endWait() {
	c.lmu.Lock()
	c.waiting = false
	c.lmu.Unlock()
	c.s.unmarkIdle(c)
}

// startLong runs a Long request, or one whose method has a [Before] hook
// (which may wait as long), of a concurrent connection on its own
// goroutine, which answers it when done and releases its admission slot;
// false when MaxInFlight already run (the caller releases the slot). The handler's (or hook's) ctx ends when the connection does (the
// client went away: serve's read fails) or the server shuts down; after
// a hook, the handler has the dispatch timeout as in call.
func (c *conn) startLong(ctx context.Context, m *method, req request) bool {
	c.lmu.Lock()
	if c.inFlight >= MaxInFlight {
		c.lmu.Unlock()
		return false
	}
	c.inFlight++
	c.nc.SetReadDeadline(time.Time{})
	c.lmu.Unlock()
	c.s.wg.Add(1)
	go func() {
		defer c.s.wg.Done()
		// As in serve, the slot is free before the reply is written.
		ctx, replied := withAfterReply(ctx)
		defer replied()
		if m.long {
			out := c.s.invoke(ctx, m, &req)
			c.s.release(m.kind)
			if ctx.Err() == nil {
				var rpcErr *Error
				if out.err != nil {
					rpcErr = c.s.rpcError(out.err, ctx, req.method)
				}
				c.answer(ctx, m, &req, out.result, rpcErr)
			}
		} else {
			result, rpcErr, reply := c.call(ctx, m, &req)
			c.s.release(m.kind)
			if reply && ctx.Err() == nil {
				c.answer(ctx, m, &req, result, rpcErr)
			}
		}
		c.lmu.Lock()
		if c.inFlight--; c.inFlight == 0 && c.waiting {
			c.s.markIdle(c)
			c.setReadDeadline(time.Now().Add(c.s.idleTimeout()))
		}
		c.lmu.Unlock()
	}()
	return true
}

// answer answers request req of method m (nil: none was found): the
// reply, result when rpcErr is nil, else the error. A notification gets
// none; its failure rpcErr goes to m's [Unanswered] hook instead. It
// reports whether the connection can go on (false: writing the reply
// failed). It is safe for concurrent use.
func (c *conn) answer(ctx context.Context, m *method, req *request, result json.RawMessage, rpcErr *Error) bool {
	if !req.notification() {
		return c.write(req.id, result, rpcErr)
	}
	if rpcErr != nil && m != nil && m.unanswered != nil {
		m.unanswered(ctx, req.params, rpcErr)
	}
	return true
}

// write sends a reply: result when rpcErr is nil, else the error. It
// reports whether the write succeeded. It is safe for concurrent use.
func (c *conn) write(id, result json.RawMessage, rpcErr *Error) bool {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if rpcErr != nil {
		c.wbuf = appendError(c.wbuf[:0], id, rpcErr)
	} else {
		c.wbuf = appendResult(c.wbuf[:0], id, result)
	}
	c.nc.SetWriteDeadline(time.Now().Add(c.s.idleTimeout()))
	_, err := c.nc.Write(c.wbuf)
	if cap(c.wbuf) > maxKeptBuffer {
		c.wbuf = nil // do not pin a large reply's buffer for the connection's lifetime
	}
	return err == nil
}

// outcome is what a handler goroutine hands back.
type outcome struct {
	result json.RawMessage
	err    error
}

// call runs a request/response method and returns the reply to send.
// reply is false when nothing must be sent (the client disconnected).
func (c *conn) call(ctx context.Context, m *method, req *request) (result json.RawMessage, rpcErr *Error, reply bool) {
	s := c.s
	if ctx.Err() != nil {
		return nil, &Error{Code: CodeBusy, Message: msgShuttingDown}, true
	}
	if m.before != nil {
		// The hook may wait longer than the dispatch timeout, which
		// starts once it returned: its ctx ends only when the client
		// goes away or the server shuts down.
		bctx, err := c.before(ctx, m, req)
		if err != nil {
			if c.disconnected.Load() {
				return nil, nil, false
			}
			return nil, s.rpcError(err, bctx, req.method), true
		}
	}
	var hctx context.Context
	var cancel context.CancelFunc
	if m.long {
		hctx, cancel = context.WithCancel(ctx)
		stop := c.watchDisconnect(cancel, false)
		defer stop()
	} else {
		hctx, cancel = context.WithTimeout(ctx, s.dispatchTimeout())
	}
	defer cancel()

	if m.inline {
		out := s.invoke(hctx, m, req)
		if out.err == nil {
			return out.result, nil, true
		}
		return nil, s.rpcError(out.err, hctx, req.method), true
	}
	done := make(chan outcome, 1)
	s.wg.Add(1) // the connection goroutine is counted, so the counter is > 0
	go func() {
		defer s.wg.Done()
		var out outcome
		run := func() { out = s.invoke(hctx, m, req) }
		if m.mutating && s.Executor != nil {
			if err := s.Executor.Do(hctx, run); err != nil {
				out = outcome{err: err}
			}
		} else {
			run()
		}
		done <- out
	}()

	var out outcome
	select {
	case out = <-done:
		if out.err == nil {
			return out.result, nil, true
		}
	case <-hctx.Done():
		out.err = hctx.Err()
	}
	if c.disconnected.Load() {
		return nil, nil, false
	}
	return nil, s.rpcError(out.err, hctx, req.method), true
}

// invoke calls the handler, recovering a panic, and encodes its result.
func (s *Server) invoke(ctx context.Context, m *method, req *request) (out outcome) {
	defer func() {
		if r := recover(); r != nil {
			out = outcome{err: &panicError{value: r, stack: debug.Stack()}}
		}
	}()
	v, err := m.handler(ctx, req.params)
	if err != nil {
		var e *Error
		if !errors.As(err, &e) || e != nil { // a typed nil *Error means success
			return outcome{err: err}
		}
	}
	data, err := marshal(v)
	if err != nil {
		return outcome{err: fmt.Errorf("internal error: encoding the result: %v", err)}
	}
	return outcome{result: data}
}

// before runs the method's Before hook with a ctx that ends when the
// client disconnects (on a connection that is not concurrent, watched as
// for a Long request; a concurrent one's ctx already ends with it) or the
// server shuts down, and returns that ctx with the hook's error.
func (c *conn) before(ctx context.Context, m *method, req *request) (context.Context, error) {
	bctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if !c.concurrent {
		stop := c.watchDisconnect(cancel, false)
		defer stop()
	}
	err := c.s.prepare(bctx, m, req)
	return bctx, err
}

// prepare runs the method's Before hook, recovering a panic.
func (s *Server) prepare(ctx context.Context, m *method, req *request) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &panicError{value: r, stack: debug.Stack()}
		}
	}()
	if err := m.before(ctx, req.params); err != nil {
		var e *Error
		if !errors.As(err, &e) || e != nil { // a typed nil *Error means go on
			return err
		}
	}
	return nil
}

// rpcError maps a handler's or the executor's error to the error sent.
func (s *Server) rpcError(err error, hctx context.Context, method string) *Error {
	var e *Error
	var p *panicError
	switch {
	case errors.As(err, &e) && e != nil:
		return e
	case errors.Is(err, ErrBusy):
		return &Error{Code: CodeBusy, Message: msgQueueFull}
	case errors.Is(err, ErrExecutorClosed):
		return &Error{Code: CodeBusy, Message: msgShuttingDown}
	case errors.As(err, &p):
		s.logf("ipc: %s: %v\n%s", method, p.value, p.stack)
		return &Error{Code: CodeInternal, Message: msgInternalPanic}
	case hctx.Err() != nil && s.closing.Load():
		return &Error{Code: CodeBusy, Message: msgShuttingDown}
	case errors.Is(hctx.Err(), context.DeadlineExceeded):
		return &Error{Code: CodeTimeout, Message: msgTimeout}
	}
	return &Error{Code: CodeInternal, Message: err.Error()}
}

// watchDisconnect watches the connection while a Long or stream handler
// runs, and calls cancel when the client goes away (a read fails with
// anything but a deadline). With discard, it consumes and drops whatever the
// client sends (streams); otherwise it only peeks, so a pipelined next
// request stays buffered for the request loop. The returned stop function
// ends the watch and must be called before the connection is read again.
func (c *conn) watchDisconnect(cancel context.CancelFunc, discard bool) (stop func()) {
	c.nc.SetReadDeadline(time.Time{})
	done := make(chan struct{})
	c.s.wg.Add(1)
	go func() {
		defer c.s.wg.Done()
		defer close(done)
		for {
			var err error
			if discard {
				_, err = c.fr.r.Discard(max(c.fr.r.Buffered(), 1))
			} else {
				_, err = c.fr.r.Peek(1)
				if err == nil {
					return // the client sent more: it is still there
				}
			}
			if err != nil {
				if !errors.Is(err, errDeadline) {
					c.disconnected.Store(true)
					cancel()
				}
				return
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			c.nc.SetReadDeadline(aLongTimeAgo)
			<-done
		})
	}
}

// serveStream hands the connection to a stream handler.
func (c *conn) serveStream(ctx context.Context, m *method, req *request) {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := c.watchDisconnect(cancel, true)
	defer stop()
	c.nc.SetWriteDeadline(time.Time{})
	w := &frameWriter{ctx: sctx, nc: c.nc, timeout: c.s.idleTimeout()}
	err := m.stream(sctx, req.params, w)
	if err == nil {
		return
	}
	if w.started() || req.notification() || c.disconnected.Load() {
		c.s.logf("ipc: %s stream ended: %v", req.method, err)
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	c.write(req.id, nil, c.s.rpcError(err, sctx, req.method))
}

// frameWriter is the FrameWriter of a stream connection.
type frameWriter struct {
	ctx     context.Context // the stream's: once done, writes fail
	nc      net.Conn
	timeout time.Duration

	mu    sync.Mutex
	wrote bool  // guarded by mu
	err   error // first write error, guarded by mu
	buf   []byte
}

// WriteFrame implements [FrameWriter].
func (w *frameWriter) WriteFrame(v any) error {
	data, err := frameData(v)
	if err != nil {
		return fmt.Errorf("ipc: encoding a frame: %w", err)
	}
	if len(data)+1 > MaxFrame {
		return fmt.Errorf("ipc: frame of %d bytes exceeds the %d-byte cap", len(data)+1, MaxFrame)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if err := w.ctx.Err(); err != nil {
		return err
	}
	w.buf = append(append(w.buf[:0], data...), '\n')
	w.nc.SetWriteDeadline(time.Now().Add(w.timeout))
	_, err = w.nc.Write(w.buf)
	if cap(w.buf) > maxKeptBuffer {
		w.buf = nil // as conn.write: a stream lives long
	}
	if err != nil {
		w.err = fmt.Errorf("ipc: writing a frame: %w", err)
		return w.err
	}
	w.wrote = true
	return nil
}

// frameData is v's encoding as a frame's line. A json.RawMessage (a
// frame its stream encoded itself: the screen stream's) is taken as it
// is when it holds no line break: re-encoding it only checked and
// compacted what was already compact, a pass over every byte of every
// frame (1.5 µs of a key's echo, more for a flood's large frames).
func frameData(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok && len(raw) > 0 && bytes.IndexByte(raw, '\n') < 0 {
		return raw, nil
	}
	return marshal(v)
}

// SetWriteBuffer sets the size of the stream's socket send buffer (the
// bytes the kernel holds that the client has not read yet), where the
// connection has one (a Unix socket); otherwise it does nothing. A stream
// that must not queue much behind a slow client sets it small: a frame
// written after a backlog waits for the whole backlog to be read.
func (w *frameWriter) SetWriteBuffer(bytes int) error {
	if c, ok := w.nc.(interface{ SetWriteBuffer(int) error }); ok {
		return c.SetWriteBuffer(bytes)
	}
	return nil
}

func (w *frameWriter) started() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.wrote || w.err != nil
}
