package ipc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/paneflow-go/paneflow/internal/jsonscan"
	"github.com/paneflow-go/paneflow/proto"
)

// MethodConcurrent is the handshake that makes a connection concurrent
// (JSON-RPC reserves the "rpc." prefix for such extensions). Its reply is
// {"concurrent":true,"max_in_flight":MaxInFlight}. From then on the
// server runs each [Long] request sent on the connection on its own
// goroutine and answers it when it is done, possibly after replies to
// requests sent later (the client matches replies by id); other requests
// are still answered one at a time, in order. A stream request is
// refused there. Without the handshake a connection serves one request at
// a time and replies in request order, as always.
//
// It lets one client hold many waits at once (a flow's barriers) on one
// connection instead of one connection each; each wait is still admitted
// as a [KindStream] request against [Server.MaxStreams].
const MethodConcurrent = proto.MethodRPCConcurrent

// MaxInFlight caps the Long requests running at once on one concurrent
// connection; the next one is answered [CodeBusy] at once.
const MaxInFlight = 256

// ErrNotSent is wrapped by the error of a [Mux.Call] whose request never
// reached the connection: the Mux had already ended (see [Mux.Done]), or
// writing the request failed before any of it was written. The server did
// not see the request, so the caller may send it again on a new
// connection without running it twice.
var ErrNotSent = errors.New("ipc: the request was not sent")

// Mux is one concurrent connection to a Paneflow server (see
// [MethodConcurrent]): calls made on it concurrently share the connection
// and are answered independently. A flow run makes its blocking waits on
// one Mux. Create it with [DialMux]; it is safe for concurrent use. Once
// the connection fails or is closed every pending and later call fails
// with the same error.
type Mux struct {
	path string
	nc   streamConn
	fr   *frameReader

	wmu sync.Mutex // serializes request writes

	mu      sync.Mutex
	pending map[int64]chan muxReply // guarded by mu
	err     error                   // set once the connection is done, guarded by mu
	done    chan struct{}           // closed with err set
}

// muxReply is one reply frame, or the connection's failure.
type muxReply struct {
	frame []byte
	err   error
}

// DialMux connects to the server at path and makes the connection
// concurrent. ctx bounds the dial and the handshake only.
func DialMux(ctx context.Context, path string) (*Mux, error) {
	return dialMux(ctx, path, dialStream)
}

// DialMuxWith is [DialMux] over a connection made by dial (see
// [Client].Dial); name names the server in errors.
func DialMuxWith(ctx context.Context, name string, dial func(context.Context) (net.Conn, error)) (*Mux, error) {
	return dialMux(ctx, name, customDial(dial))
}

// dialMux connects with dial and makes the connection concurrent.
func dialMux(ctx context.Context, path string, dial dialFunc) (*Mux, error) {
	deadline := time.Now().Add(DefaultCallTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	nc, err := dial(ctx, path, deadline)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if foreign(err) {
			return nil, err
		}
		return nil, &UnreachableError{Path: path, Err: err}
	}
	m := &Mux{path: path, nc: nc, fr: newFrameReader(nc, MaxFrame, clientReadBuffer),
		pending: map[int64]chan muxReply{}, done: make(chan struct{})}
	stop := context.AfterFunc(ctx, func() { nc.SetDeadline(aLongTimeAgo) })
	setDeadline(ctx, nc, deadline)
	id := lastID.Add(1)
	line, _ := encodeRequest(id, MethodConcurrent, nil)
	_, werr := nc.Write(line)
	frame, rerr := m.fr.next()
	if !stop() || rerr != nil {
		nc.Close()
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case rerr != nil && werr != nil:
			return nil, &UnreachableError{Path: path, Err: werr}
		case errors.Is(rerr, errDeadline):
			return nil, &TimeoutError{After: DefaultCallTimeout}
		case rerr != nil:
			return nil, &UnreachableError{Path: path, Err: rerr}
		}
		return nil, ctx.Err()
	}
	var res proto.ConcurrentResult
	if err := decodeResponse(frame, id, &res); err != nil || !res.Concurrent {
		nc.Close()
		if err == nil {
			err = fmt.Errorf("ipc: the server at %s cannot run requests concurrently (is it older?)", path)
		}
		return nil, err
	}
	nc.SetDeadline(time.Time{})
	go m.read()
	return m, nil
}

// read hands each reply frame to its call until the connection fails.
func (m *Mux) read() {
	for {
		frame, err := m.fr.next()
		if err != nil {
			if errors.Is(err, errFrameTooLarge) {
				err = ErrResponseTooLarge
			} else {
				err = &UnreachableError{Path: m.path, Err: errClosedWithoutReply}
			}
			m.fail(err)
			return
		}
		id, ok := replyID(frame)
		if !ok {
			// A reply that names no call (a refusal with a null id):
			// the connection is of no further use.
			m.fail(decodeResponse(frame, -1, nil))
			return
		}
		m.mu.Lock()
		ch := m.pending[id]
		delete(m.pending, id)
		m.mu.Unlock()
		if ch != nil {
			ch <- muxReply{frame: append([]byte(nil), frame...)}
		}
	}
}

// replyID returns a reply frame's numeric id.
func replyID(frame []byte) (int64, bool) {
	var raw []byte
	if err := jsonscan.Members(frame, func(key string, value []byte) {
		if strings.EqualFold(key, "id") {
			raw = value
		}
	}); err != nil || raw == nil {
		return 0, false
	}
	var id int64
	if err := json.Unmarshal(raw, &id); err != nil {
		return 0, false
	}
	return id, true
}

// fail ends the Mux with err: pending calls and later ones get it.
func (m *Mux) fail(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return
	}
	m.err = err
	for id, ch := range m.pending {
		ch <- muxReply{err: err}
		delete(m.pending, id)
	}
	close(m.done)
	m.nc.Close()
}

// Call sends one request on the shared connection and waits for its
// reply, decoding its result into result like [Client.Call]. It returns
// ctx.Err() when ctx ends first; the server is not told (it goes on until
// the request is done or the Mux is closed). Errors: an *[Error] reply,
// an *[UnreachableError] once the connection failed or was closed (also
// matching [ErrNotSent] when the request was not sent).
func (m *Mux) Call(ctx context.Context, method string, params, result any) error {
	p, err := m.Start(method, params)
	if err != nil {
		return err
	}
	return p.Wait(ctx, result)
}

// Pending is a call whose request [Mux.Start] wrote: Wait waits for its
// reply. It is used by one goroutine at a time, and Wait at most once.
type Pending struct {
	m  *Mux
	id int64
	ch chan muxReply
	// release, when set, runs once Wait returned (the Redialer's
	// bookkeeping of calls out).
	release func()
}

// Start writes one call's request on the shared connection and returns
// without waiting for the reply: the caller waits with [Pending.Wait]
// (a writer that must not wait for the server, and hands the wait to
// another goroutine). The write itself waits only while the socket's
// send buffer is full. Errors are [Mux.Call]'s for a request that
// failed before or while it was written.
func (m *Mux) Start(method string, params any) (*Pending, error) {
	id := lastID.Add(1)
	line, err := encodeRequest(id, method, params)
	if err != nil {
		return nil, err
	}
	ch := make(chan muxReply, 1)
	m.mu.Lock()
	if m.err != nil {
		m.mu.Unlock()
		return nil, notSent{m.err}
	}
	m.pending[id] = ch
	m.mu.Unlock()
	if err := m.write(line); err != nil {
		m.forget(id)
		return nil, err
	}
	return &Pending{m: m, id: id, ch: ch}, nil
}

// write writes one request line; a failed write ends the Mux, and its
// error matches [ErrNotSent] when none of the line was written.
func (m *Mux) write(line []byte) error {
	m.wmu.Lock()
	n, err := m.nc.Write(line)
	m.wmu.Unlock()
	if err != nil {
		m.fail(&UnreachableError{Path: m.path, Err: err})
		if n == 0 {
			return notSent{&UnreachableError{Path: m.path, Err: err}}
		}
		return &UnreachableError{Path: m.path, Err: err}
	}
	return nil
}

// Notify writes a notification (a request without an id: the server
// runs it and never answers, see [Unanswered]) on the shared connection
// and returns once it is written, with the bytes of its line (what the
// server has to read); the write waits only while the socket's send
// buffer is full. Its errors are [Mux.Start]'s.
func (m *Mux) Notify(method string, params any) (n int, err error) {
	line, err := encodeRequest(-1, method, params)
	if err != nil {
		return 0, err
	}
	m.mu.Lock()
	err = m.err
	m.mu.Unlock()
	if err != nil {
		return 0, notSent{err}
	}
	return len(line), m.write(line)
}

// Wait waits for the reply of a started call and decodes its result into
// result like [Mux.Call]; it returns ctx.Err() when ctx ends first.
func (p *Pending) Wait(ctx context.Context, result any) error {
	if p.release != nil {
		defer p.release()
	}
	select {
	case r := <-p.ch:
		if r.err != nil {
			return r.err
		}
		return decodeResponse(r.frame, p.id, result)
	case <-ctx.Done():
		p.m.forget(p.id)
		return ctx.Err()
	}
}

// forget drops call id's reply channel.
func (m *Mux) forget(id int64) {
	m.mu.Lock()
	delete(m.pending, id)
	m.mu.Unlock()
}

// Done is closed once the connection has ended (it failed, the server
// closed it, or Close was called): every later Call fails with
// [ErrNotSent].
func (m *Mux) Done() <-chan struct{} { return m.done }

// notSent is a Call's error for a request that never reached the
// connection: err, which also matches [ErrNotSent].
type notSent struct{ err error }

func (e notSent) Error() string   { return e.err.Error() }
func (e notSent) Unwrap() []error { return []error{e.err, ErrNotSent} }

// Close closes the connection; the server ends the requests still running
// on it. Pending calls fail.
func (m *Mux) Close() error {
	m.fail(&UnreachableError{Path: m.path, Err: net.ErrClosed})
	return nil
}
