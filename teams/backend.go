package teams

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
)

// Environment variables of the CustomPaneBackend protocol, set by the
// launch shim for Claude Code processes Paneflow starts.
const (
	// EnvBackendSocket is where the backend listens.
	EnvBackendSocket = "CLAUDE_PANE_BACKEND_SOCKET"
	// EnvBackendSession is the caller's own context id, which a client
	// echoes as initialize's session_hint.
	EnvBackendSession = "CLAUDE_PANE_BACKEND_SESSION_ID"
	// BackendProtocol is the protocol version served.
	BackendProtocol = "1"
)

// Backend protocol limits and error codes (those of the reference
// server, KILD, and JSON-RPC's server-error range for a busy server).
const (
	maxBackendLine  = 1 << 20
	codeInvalidReq  = -32600
	codeNoMethod    = -32601
	codeBadParams   = -32602
	codeFailed      = -32603
	codeBusy        = -32000
	backendSpawnPct = 0.7 // the first teammate's share beside its lead
)

// What the backend's connections may cost, one and all (issue 25: 500
// connections sending long lines took the server from 41 to 679 MB).
// A connection holds a 4 KiB read buffer, a line of at most smallLine
// bytes (bigLines connections at once may hold one of up to
// maxBackendLine), and at most about maxQueued bytes of replies and
// notifications waiting for its client; context_output waiting for all
// clients together is capped at maxQueuedOutputTotal.
const (
	// DefaultBackendConns is Backend.MaxConns's default: Claude Code
	// keeps one connection per lead, so 128 leads with agent teams at once.
	DefaultBackendConns = 128
	// backendFirstLine bounds the wait for a connection's first request
	// (initialize), from when it is accepted.
	backendFirstLine = 10 * time.Second
	// backendLineTime bounds a request line once its first byte arrived:
	// a client trickling it in holds the connection no longer.
	backendLineTime = 10 * time.Second
	// backendIdle closes an initialized connection that sent nothing for
	// this long and has no live context it would hear about.
	backendIdle = 10 * time.Minute
	// backendWriteTimeout closes a connection whose client has not taken
	// the lines written to it for this long.
	backendWriteTimeout = 30 * time.Second
	// smallLine is the largest line read in a connection's own buffer.
	smallLine = 64 << 10
	// bigLines is how many connections may read a line longer than
	// smallLine at once; the others wait for a turn within their line's
	// time.
	bigLines = 8
	// maxQueued is how many bytes of replies and notifications may wait
	// for (or be on their way to) a client before the connection's next
	// request is read: a client that sends requests and never reads the
	// replies stops being read, then times out.
	maxQueued = 1 << 20
	// maxQueuedOutputTotal bounds the context_output waiting for every
	// client together.
	maxQueuedOutputTotal = 32 << 20
)

// contextID is the backend's name for pane %n.
func contextID(n int) string { return "ctx_" + strconv.Itoa(n) }

// parseContext reads "ctx_N" (or "%N").
func parseContext(s string) (int, bool) {
	if v, ok := strings.CutPrefix(s, "ctx_"); ok {
		return parseNum("%"+v, '%')
	}
	return parseNum(s, '%')
}

func isGone(err error) bool { return errors.Is(err, ErrGone) }

// event is a context_exited notification.
type event struct {
	ctx  string
	code int
	lead int
}

// subscriber is one backend connection's outgoing queue: responses and
// notifications in the order they were produced. Pushes never block the
// registry; the connection's writer drains the queue.
type subscriber struct {
	self    int             // the connection's own %N, -1 when unknown; guarded by Registry.mu
	spawned map[string]bool // contexts this connection spawned; guarded by Registry.mu
	output  bool            // the client asked for context_output; guarded by Registry.mu
	taps    []func()        // removes the output taps; guarded by Registry.mu

	// outputTotal counts the context_output bytes queued for every
	// connection of the backend (nil: no bound across connections).
	outputTotal *atomic.Int64

	mu       sync.Mutex
	queue    []queued
	queued   int // bytes queued or being written
	outQueue int // of which context_output
	dropped  int // context_output lines dropped because the client reads too slowly
	done     bool
	wake     chan struct{}
	drained  chan struct{} // a write ended: queued went down
}

// queued is one line waiting for the writer, newline included.
type queued struct {
	line   []byte
	output bool // a context_output notification
}

// maxQueuedOutput bounds the context_output a slow client can have
// waiting; beyond it (or beyond maxQueuedOutputTotal for all clients)
// chunks are dropped (responses and exits never are).
const maxQueuedOutput = 4 << 20

// pushOutput queues a context_output notification for a chunk of ctx's
// output, unless the client is that far behind.
func (s *subscriber) pushOutput(ctx string, chunk []byte) {
	line, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "method": "context_output",
		"params": map[string]any{"context_id": ctx, "data": base64.StdEncoding.EncodeToString(chunk)},
	})
	line = append(line, '\n')
	n := len(line)
	s.mu.Lock()
	if s.done || s.outQueue+n > maxQueuedOutput || (s.outputTotal != nil && s.outputTotal.Load()+int64(n) > maxQueuedOutputTotal) {
		s.dropped++
		s.mu.Unlock()
		return
	}
	if s.outputTotal != nil {
		s.outputTotal.Add(int64(n))
	}
	s.queue = append(s.queue, queued{line, true})
	s.queued += n
	s.outQueue += n
	s.mu.Unlock()
	s.signal(s.wake)
}

func newSubscriber() *subscriber {
	return &subscriber{self: -1, spawned: map[string]bool{}, wake: make(chan struct{}, 1), drained: make(chan struct{}, 1)}
}

// signal wakes whoever waits on c, without blocking.
func (s *subscriber) signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// push queues one line (without its newline; line itself is not
// changed, it may be pushed to other connections too).
func (s *subscriber) push(line []byte) {
	line = append(line[:len(line):len(line)], '\n')
	s.mu.Lock()
	if !s.done {
		s.queue = append(s.queue, queued{line: line})
		s.queued += len(line)
	}
	s.mu.Unlock()
	s.signal(s.wake)
}

// closeLocked ends the queue (Registry.mu held by the caller, or not: it
// only takes s.mu).
func (s *subscriber) closeLocked() {
	s.mu.Lock()
	s.done = true
	s.mu.Unlock()
	s.signal(s.wake)
	s.signal(s.drained)
}

// take returns the queued lines, and done once the queue was closed:
// then nothing more is queued, and these are the last lines. Their bytes
// still count as queued until written reports them.
func (s *subscriber) take() (lines []queued, done bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lines, s.queue = s.queue, nil
	return lines, s.done
}

// written gives back the bytes of lines taken and now written (or
// dropped with the connection).
func (s *subscriber) written(lines []queued) {
	n, out := 0, 0
	for _, q := range lines {
		n += len(q.line)
		if q.output {
			out += len(q.line)
		}
	}
	s.mu.Lock()
	s.queued -= n
	s.outQueue -= out
	s.mu.Unlock()
	if s.outputTotal != nil && out > 0 {
		s.outputTotal.Add(-int64(out))
	}
	s.signal(s.drained)
}

// waitDrained waits until at most limit bytes are queued; false when the
// connection ended first.
func (s *subscriber) waitDrained(limit int) bool {
	for {
		s.mu.Lock()
		q, done := s.queued, s.done
		s.mu.Unlock()
		if done {
			return false
		}
		if q <= limit {
			return true
		}
		<-s.drained
	}
}

// wants reports whether this connection gets ev: exits of contexts it
// spawned, of its own team's panes, and of itself.
func (s *subscriber) wants(ev event) bool {
	if s.spawned[ev.ctx] {
		return true
	}
	return s.self >= 0 && (ev.lead == s.self || ev.ctx == contextID(s.self))
}

// publishLocked pushes context_exited to the connections that want it.
func (r *Registry) publishLocked(ev event) {
	if len(r.subs) == 0 {
		return
	}
	line, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "method": "context_exited",
		"params": map[string]any{"context_id": ev.ctx, "exit_code": ev.code},
	})
	for s := range r.subs {
		if s.wants(ev) {
			s.push(line)
		}
	}
}

// Backend serves the CustomPaneBackend protocol (spec agent-teams.md §3)
// on a socket of its own, against a [Registry]. Set the fields, then call
// [Backend.Listen] and [Backend.Serve]; [Backend.Close] stops it. Its
// methods are safe for concurrent use. What each connection, and all of
// them, may cost is bounded (see DefaultBackendConns and the constants
// beside it).
type Backend struct {
	// Registry holds the panes; required.
	Registry *Registry
	// Path is the socket path (a pipe name on Windows); required.
	Path string
	// Logf receives diagnostics; nil discards them.
	Logf func(format string, args ...any)
	// MaxConns caps the connections served at once; the next one is
	// answered a -32000 error and closed. ≤ 0 means DefaultBackendConns.
	MaxConns int

	// Timing of a connection (tests shorten them); zero means the
	// constants backendFirstLine, backendLineTime, backendIdle and
	// backendWriteTimeout.
	firstLine, lineTime, idle, writeTimeout time.Duration

	mu     sync.Mutex
	ln     net.Listener
	remove func()
	conns  map[net.Conn]struct{}
	closed bool
	done   chan struct{} // closed by Close
	wg     sync.WaitGroup

	big         chan struct{} // a token per connection reading a line over smallLine
	outputTotal atomic.Int64  // context_output bytes queued for all connections
}

func (b *Backend) logf(format string, args ...any) {
	if b.Logf != nil {
		b.Logf(format, args...)
	}
}

// or returns d, or def when d is zero.
func or(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// Listen binds the socket (private to this user).
func (b *Backend) Listen() error {
	ln, remove, err := ipc.ListenSide(b.Path, b.Logf)
	if err != nil {
		return fmt.Errorf("teams: backend socket: %w", err)
	}
	b.mu.Lock()
	b.ln, b.remove, b.conns = ln, remove, map[net.Conn]struct{}{}
	b.done, b.big = make(chan struct{}), make(chan struct{}, bigLines)
	b.mu.Unlock()
	return nil
}

// Serve accepts connections until Close; it returns nil after Close.
func (b *Backend) Serve() error {
	b.mu.Lock()
	ln := b.ln
	b.mu.Unlock()
	if ln == nil {
		return errors.New("teams: backend Serve before Listen")
	}
	limit := b.MaxConns
	if limit <= 0 {
		limit = DefaultBackendConns
	}
	for {
		nc, err := ln.Accept()
		if err != nil {
			b.mu.Lock()
			closed := b.closed
			b.mu.Unlock()
			if closed {
				return nil
			}
			return fmt.Errorf("teams: backend accept: %w", err)
		}
		if !ipc.PeerSameUser(nc) {
			b.logf("teams: backend refused a connection from another user")
			nc.Close()
			continue
		}
		b.mu.Lock()
		if b.closed {
			b.mu.Unlock()
			nc.Close()
			return nil
		}
		full := len(b.conns) >= limit
		if !full {
			b.conns[nc] = struct{}{}
		}
		b.wg.Add(1)
		b.mu.Unlock()
		if full {
			go func() { // off the accept loop: the write may wait
				defer b.wg.Done()
				b.logf("teams: backend refused a connection: %d open, limit %d", limit, limit)
				nc.SetWriteDeadline(time.Now().Add(time.Second))
				nc.Write(append(reply(json.RawMessage("null"), nil, &backendError{codeBusy,
					fmt.Sprintf("server busy: %d backend connections open, limit %d", limit, limit)}), '\n'))
				nc.Close()
			}()
			continue
		}
		go func() {
			defer b.wg.Done()
			b.serveConn(nc)
			b.mu.Lock()
			delete(b.conns, nc)
			b.mu.Unlock()
		}()
	}
}

// Close stops accepting, closes every connection, waits for them and
// removes the socket file.
func (b *Backend) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	var err error
	if b.ln != nil {
		err = b.ln.Close()
		close(b.done)
	}
	for nc := range b.conns {
		nc.Close()
	}
	b.mu.Unlock()
	b.wg.Wait()
	if b.remove != nil {
		b.remove()
	}
	return err
}

// errLineTooLong ends a connection whose request line exceeds
// maxBackendLine; errIdle is a read deadline met between requests.
var (
	errLineTooLong = fmt.Errorf("request line longer than %d bytes", maxBackendLine)
	errIdle        = errors.New("idle")
)

// lineReader reads a connection's request lines: newline-terminated, at
// most maxBackendLine bytes, in a buffer of its own up to smallLine and
// past that only with one of the backend's bigLines tokens. It belongs to
// the connection's goroutine.
type lineReader struct {
	b   *Backend
	nc  net.Conn
	r   *bufio.Reader
	buf []byte
	big bool // holds a token
}

// next returns the next line without its newline, valid until the next
// call. It waits for the line's first byte until idle (errIdle past
// it), then for the rest for the backend's line time.
func (l *lineReader) next(idle time.Time) ([]byte, error) {
	l.release()
	l.nc.SetReadDeadline(idle)
	if _, err := l.r.Peek(1); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, errIdle
		}
		return nil, err
	}
	deadline := time.Now().Add(or(l.b.lineTime, backendLineTime))
	l.nc.SetReadDeadline(deadline)
	for {
		chunk, err := l.r.ReadSlice('\n')
		n := len(l.buf) + len(chunk)
		if n > maxBackendLine {
			return nil, errLineTooLong
		}
		if n > smallLine && !l.big {
			if err := l.acquire(deadline); err != nil {
				return nil, err
			}
		}
		if err == nil {
			if len(l.buf) == 0 {
				return chunk[:len(chunk)-1], nil
			}
			l.buf = append(l.buf, chunk[:len(chunk)-1]...)
			return l.buf, nil
		}
		l.buf = append(l.buf, chunk...)
		if err != bufio.ErrBufferFull {
			return nil, err
		}
	}
}

// acquire takes a token for a long line, waiting until deadline.
func (l *lineReader) acquire(deadline time.Time) error {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case l.b.big <- struct{}{}:
		l.big = true
		return nil
	case <-t.C:
		return fmt.Errorf("no room for another line over %d bytes within %v", smallLine, or(l.b.lineTime, backendLineTime))
	case <-l.b.done:
		return net.ErrClosed
	}
}

// release drops a long line's buffer and token.
func (l *lineReader) release() {
	if l.big {
		<-l.b.big
		l.big = false
	}
	if cap(l.buf) > smallLine {
		l.buf = nil
	}
	l.buf = l.buf[:0]
}

// backendRequest is one incoming line. IDs may be strings or numbers
// and are echoed as they came.
type backendRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

type backendError struct {
	code int
	msg  string
}

func (e *backendError) Error() string { return e.msg }

func badParams(format string, args ...any) error {
	return &backendError{codeBadParams, fmt.Sprintf(format, args...)}
}

// reply encodes a response line.
func reply(id json.RawMessage, result any, err error) []byte {
	m := map[string]any{"jsonrpc": "2.0", "id": id}
	if err != nil {
		code := codeFailed
		var be *backendError
		if errors.As(err, &be) {
			code = be.code
		}
		m["error"] = map[string]any{"code": code, "message": err.Error()}
	} else {
		m["result"] = result
	}
	b, _ := json.Marshal(m)
	return b
}

// serveConn runs one connection: initialize first, then requests; a
// writer goroutine sends responses and pushed notifications in order.
// initialize must arrive within the first-line time; after it, a
// connection idle for backendIdle is closed unless it still has a live
// context to hear about; a client that does not read is not read either
// (maxQueued), then closed when a write stalls.
func (b *Backend) serveConn(nc net.Conn) {
	r := b.Registry
	sub := newSubscriber()
	sub.outputTotal = &b.outputTotal
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		for range sub.wake {
			lines, done := sub.take()
			if len(lines) > 0 {
				bufs := make(net.Buffers, len(lines))
				for i, q := range lines {
					bufs[i] = q.line
				}
				nc.SetWriteDeadline(time.Now().Add(or(b.writeTimeout, backendWriteTimeout)))
				_, err := bufs.WriteTo(nc)
				sub.written(lines)
				if err != nil {
					nc.Close()
					sub.closeLocked()
					rest, _ := sub.take() // nothing is queued after the close
					sub.written(rest)
					return
				}
			}
			if done {
				nc.Close()
				return
			}
		}
	}()
	lr := &lineReader{b: b, nc: nc, r: bufio.NewReaderSize(nc, 4<<10)}
	defer func() {
		lr.release()
		r.mu.Lock()
		delete(r.subs, sub)
		for _, remove := range sub.taps {
			remove()
		}
		sub.taps = nil
		r.mu.Unlock()
		sub.closeLocked()
		<-writerDone
		nc.Close()
	}()
	first := time.Now().Add(or(b.firstLine, backendFirstLine))
	initialized := false
	for {
		deadline := first
		if initialized {
			deadline = time.Now().Add(or(b.idle, backendIdle))
		}
		raw, err := lr.next(deadline)
		switch {
		case err == errIdle && initialized && r.backendListening(sub):
			continue // quiet, but waiting to hear of its contexts
		case err == errLineTooLong:
			sub.push(reply(json.RawMessage("null"), nil, &backendError{codeInvalidReq, err.Error()}))
			return
		case err != nil:
			if err != errIdle && !errors.Is(err, net.ErrClosed) && !errors.Is(err, io.EOF) {
				b.logf("teams: backend connection: %v", err)
			}
			return
		}
		line := bytes.TrimSpace(raw)
		if len(line) == 0 {
			continue
		}
		var req backendRequest
		if err := json.Unmarshal(line, &req); err != nil || req.Method == "" {
			sub.push(reply(json.RawMessage("null"), nil, &backendError{codeInvalidReq, "not a JSON-RPC request"}))
			if !initialized {
				return
			}
			continue
		}
		if len(req.ID) == 0 || string(req.ID) == "null" {
			continue // a notification: nothing to answer
		}
		if !initialized {
			res, err := r.backendInit(sub, req)
			sub.push(reply(req.ID, res, err))
			if err != nil {
				return
			}
			initialized = true
			continue
		}
		res, err := r.backendCall(sub, req)
		sub.push(reply(req.ID, res, err))
		if !sub.waitDrained(maxQueued) {
			return
		}
	}
}

// backendListening reports whether a backend connection still has a
// live context it would hear about: its own pane or one it spawned.
func (r *Registry) backendListening(sub *subscriber) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if sub.self >= 0 {
		if _, _, ok := r.liveLocked(sub.self); ok {
			return true
		}
	}
	for ctx := range sub.spawned {
		if n, ok := parseContext(ctx); ok {
			if _, _, ok := r.liveLocked(n); ok {
				return true
			}
		}
	}
	return false
}

// backendInit answers initialize: protocol "1"; the session hint (the
// caller's CLAUDE_PANE_BACKEND_SESSION_ID) names the caller's own pane.
func (r *Registry) backendInit(sub *subscriber, req backendRequest) (any, error) {
	if req.Method != "initialize" {
		return nil, &backendError{codeInvalidReq, "the first request must be initialize"}
	}
	var p struct {
		Version     string   `json:"protocol_version"`
		Caps        []string `json:"capabilities"`
		SessionHint string   `json:"session_hint"`
	}
	if err := strictParams(req.Params, &p); err != nil {
		return nil, err
	}
	if p.Version != BackendProtocol {
		return nil, badParams("unsupported protocol_version %q (this server speaks %q)", p.Version, BackendProtocol)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, errClosed
	}
	self := ""
	for _, c := range p.Caps {
		sub.output = sub.output || c == "output" || c == "context_output"
	}
	if n, ok := parseContext(p.SessionHint); ok {
		if _, _, ok := r.liveLocked(n); ok {
			sub.self = n
			self = contextID(n)
		}
	}
	r.subs[sub] = struct{}{}
	return map[string]any{
		"protocol_version": BackendProtocol,
		"capabilities":     []string{"events", "capture", "output"},
		"self_context_id":  self,
	}, nil
}

// strictParams decodes params (absent or null is {}).
func strictParams(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return badParams("invalid params: %v", err)
	}
	return nil
}

// backendCall runs one request after initialize.
func (r *Registry) backendCall(sub *subscriber, req backendRequest) (any, error) {
	var p struct {
		ContextID string            `json:"context_id"`
		Command   []string          `json:"command"`
		Cwd       string            `json:"cwd"`
		Env       map[string]string `json:"env"`
		Metadata  map[string]any    `json:"metadata"`
		Data      string            `json:"data"`
		Lines     *int              `json:"lines"`
	}
	if err := strictParams(req.Params, &p); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, errClosed
	}
	switch req.Method {
	case "initialize":
		return nil, &backendError{codeInvalidReq, "already initialized"}
	case "get_self_id":
		if sub.self < 0 {
			return map[string]any{"context_id": ""}, nil
		}
		return map[string]any{"context_id": contextID(sub.self)}, nil
	case "spawn_agent":
		if len(p.Command) == 0 || p.Command[0] == "" {
			return nil, badParams("command must be a non-empty argv array")
		}
		ctx, err := r.spawnLocked(sub, p.Command, p.Cwd, p.Env, p.Metadata)
		if err != nil {
			return nil, err
		}
		return map[string]any{"context_id": ctx}, nil
	case "write":
		t, err := r.contextLocked(p.ContextID)
		if err != nil {
			return nil, err
		}
		if !t.owned {
			return nil, &backendError{codeFailed, "write: context " + p.ContextID + " was not spawned by a backend or a team; Paneflow types only into teammates' panes"}
		}
		data, err := base64.StdEncoding.DecodeString(p.Data)
		if err != nil {
			return nil, badParams("data is not base64: %v", err)
		}
		if err := r.host.Input(t.surface, data); err != nil {
			return nil, err
		}
		return struct{}{}, nil
	case "capture":
		t, err := r.contextLocked(p.ContextID)
		if err != nil {
			return nil, err
		}
		back := maxCapture
		if p.Lines != nil {
			if *p.Lines < 0 {
				return nil, badParams("lines must not be negative")
			}
			back = min(*p.Lines, maxCapture)
		}
		text, ok := r.host.Text(t.surface, back)
		if !ok {
			return nil, badParams("unknown context_id %q", p.ContextID)
		}
		return map[string]any{"text": tailText(text, p.Lines)}, nil
	case "kill":
		n, ok := parseContext(p.ContextID)
		if !ok {
			return nil, badParams("unknown context_id %q", p.ContextID)
		}
		pn, _, live := r.liveLocked(n)
		if !live {
			return struct{}{}, nil // already gone
		}
		if err := r.killLocked(pn); err != nil {
			return nil, err
		}
		return struct{}{}, nil
	case "list":
		return map[string]any{"contexts": r.contextsLocked(sub)}, nil
	}
	return nil, &backendError{codeNoMethod, "unknown method: " + req.Method}
}

// contextLocked finds a live context.
func (r *Registry) contextLocked(ctx string) (*pane, error) {
	n, ok := parseContext(ctx)
	if !ok {
		return nil, badParams("unknown context_id %q", ctx)
	}
	p, _, ok := r.liveLocked(n)
	if !ok {
		return nil, badParams("unknown context_id %q", ctx)
	}
	return p, nil
}

// contextsLocked lists the connection's live contexts: itself, its
// team's panes and what it spawned; a connection without a context of
// its own sees every pane a team started.
func (r *Registry) contextsLocked(sub *subscriber) []string {
	ns := make([]int, 0, len(r.panes))
	for n, p := range r.panes {
		mine := sub.spawned[contextID(n)] || (sub.self >= 0 && (n == sub.self || p.lead == sub.self)) || (sub.self < 0 && p.owned)
		if mine {
			ns = append(ns, n)
		}
	}
	sort.Ints(ns)
	out := make([]string, 0, len(ns))
	for _, n := range ns {
		if _, _, ok := r.liveLocked(n); ok {
			out = append(out, contextID(n))
		}
	}
	return out
}

// tailText is capture's text: the last lines (all when nil) of the
// scrollback and screen, blank rows at the bottom left out.
func tailText(t Text, lines *int) string {
	all := append(append([]string(nil), t.History...), t.Screen...)
	for len(all) > 0 && all[len(all)-1] == "" {
		all = all[:len(all)-1]
	}
	if lines != nil && *lines < len(all) {
		all = all[len(all)-*lines:]
	}
	if len(all) == 0 {
		return ""
	}
	return strings.Join(all, "\n") + "\n"
}

// metaString reads a string field of spawn_agent's metadata.
func metaString(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// spawnLocked starts a teammate for the connection's lead: the first one
// beside the lead (70 % of the width), later ones stacked evenly under
// the lead's last teammate — the layout Claude Code asks tmux for. The
// pane runs argv with the lead's environment (as the launch shim reported
// it), then env; it is named after metadata.name and stays visible when
// it fails (remain-on-exit failed).
func (r *Registry) spawnLocked(sub *subscriber, argv []string, cwd string, extra map[string]string, meta map[string]any) (string, error) {
	lead := sub.self
	var leadPane *pane
	if lead >= 0 {
		if p, _, ok := r.liveLocked(lead); ok {
			leadPane = p
		} else {
			lead = -1
		}
	}
	var last *pane
	for _, p := range r.panes {
		if p.owned && p.lead == lead && lead >= 0 && (last == nil || p.n > last.n) {
			if _, _, ok := r.liveLocked(p.n); ok {
				last = p
			}
		}
	}
	var target uint64
	side := false
	switch {
	case last != nil:
		target = last.surface
	case leadPane != nil:
		target, side = leadPane.surface, true
	}
	n := r.nextPane
	r.nextPane++
	env := map[string]string{}
	if leadPane != nil {
		for _, kv := range leadPane.env {
			if k, v, ok := strings.Cut(kv, "="); ok && inherited(k) {
				env[k] = v
			}
		}
	}
	for k, v := range extra {
		env[k] = v
	}
	env["TMUX_PANE"] = paneID(n)
	env[EnvBackendSession] = contextID(n)
	name := metaString(meta, "name")
	sid, err := r.host.Split(target, side, Spec{Name: name, Cwd: cwd, Argv: append([]string(nil), argv...), Env: env})
	if err != nil {
		return "", &backendError{codeFailed, "spawn failed: " + err.Error()}
	}
	p := r.registerLocked(n, sid, lead)
	p.title, p.agent = name, name
	p.color, p.role, p.team = metaString(meta, "color"), metaString(meta, "role"), metaString(meta, "team")
	if p.team == "" && leadPane != nil {
		p.team = leadPane.team
	}
	p.remain = "failed"
	if side {
		err = r.host.SetShare(sid, true, backendSpawnPct)
	} else if last != nil {
		err = r.host.EqualizeAround(sid, false)
	}
	if err != nil {
		r.logf("teams: layout of %s: %v", paneID(n), err)
	}
	ctx := contextID(n)
	sub.spawned[ctx] = true
	if sub.output {
		if remove, ok := r.host.Tap(sid, func(b []byte) { sub.pushOutput(ctx, b) }); ok {
			sub.taps = append(sub.taps, remove)
		}
	}
	return ctx, nil
}
