package ipc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Server defaults (spec limits.md, IPC rows).
const (
	// DefaultIdleTimeout is Server.IdleTimeout's default.
	DefaultIdleTimeout = 30 * time.Second
	// DefaultDispatchTimeout is Server.DispatchTimeout's default.
	DefaultDispatchTimeout = 5 * time.Second

	// shutdownGrace bounds how long Serve waits for connections when its
	// context is cancelled (an explicit Shutdown is bounded by its own ctx).
	shutdownGrace = 5 * time.Second
)

// aLongTimeAgo is a deadline in the past, which unblocks pending I/O.
var aLongTimeAgo = time.Unix(1, 0)

// Server serves a [Registry] over newline-delimited JSON-RPC 2.0 on a Unix
// socket (a named pipe on Windows). Set the exported fields, then call
// [Server.Listen] and [Server.Serve] (or Serve alone, which listens
// first), and [Server.Shutdown] to stop. The fields must not change once
// Listen has been called. A Server serves once: it cannot be restarted
// after Shutdown.
type Server struct {
	// Path is the socket path (pipe name on Windows). Empty means
	// ServerSocketPath(os.Getenv); Listen stores the resolved path here.
	Path string

	// Registry holds the methods. A nil Registry answers every method with
	// CodeMethodNotFound.
	Registry *Registry

	// Executor runs the Mutating methods. Nil means they run like plain
	// methods, on their own goroutine, concurrently with everything else.
	Executor Executor

	// Admission (see [Kind]): requests, not connections, are counted,
	// each against its kind's limit; the next one past it is answered
	// CodeBusy with a message naming the count and the limit, and its
	// connection stays open. Hook frames (ai.*) are never refused.

	// MaxCalls caps the short requests ([KindCall]) served at once. ≤ 0
	// means DefaultMaxCalls (256).
	MaxCalls int

	// MaxStreams caps the long-lived requests ([KindStream]: streams,
	// Long methods, methods with a Before hook) served at once. ≤ 0 means
	// DefaultMaxStreams (1024).
	MaxStreams int

	// MaxIdle caps the connections waiting for a request (their first,
	// or their next) with nothing in flight. Past it the one that has
	// waited longest gets a CodeBusy frame and is closed, so a newcomer
	// is always read: a flood of silent connections delays no one. ≤ 0
	// means DefaultMaxIdle (512).
	MaxIdle int

	// FirstFrameTimeout closes, silently, a connection whose first
	// request has not arrived whole within this time of the server
	// starting to read it: a client that trickles its request in (a
	// slowloris) holds no slot meanwhile, and no longer than this. ≤ 0
	// means DefaultFirstFrameTimeout (5 s).
	FirstFrameTimeout time.Duration

	// IdleTimeout closes, silently, a connection that does not complete
	// its next request within this time; the time a request spends being
	// handled does not count, and streams have no idle limit. It also
	// bounds every write. ≤ 0 means DefaultIdleTimeout (30 s).
	IdleTimeout time.Duration

	// DispatchTimeout bounds each request that is not Long: past it the
	// handler's ctx is cancelled and the client gets CodeTimeout. ≤ 0
	// means DefaultDispatchTimeout (5 s).
	DispatchTimeout time.Duration

	// ReplaceRunning makes Listen replace the socket of a live Paneflow
	// instead of refusing (the PANEFLOW_ALLOW_MULTIPLE escape hatch). The
	// old instance keeps its listener but new clients reach this server.
	// It has no effect on Windows, where a live pipe cannot be taken over.
	ReplaceRunning bool

	// Logf receives diagnostics (refused peers, panics, accept errors).
	// Nil discards them. It may be called from any goroutine.
	Logf func(format string, args ...any)

	mu           sync.Mutex
	ln           net.Listener
	removeSocket func()             // removes the socket file if it is still ours; nil before Listen
	serving      bool               // Serve was called
	cancel       context.CancelFunc // cancels baseCtx; nil before Serve
	baseCtx      context.Context    // parent of every connection's context
	conns        map[*conn]struct{}
	removed      bool

	// Admission state (admission.go), guarded by mu.
	open               [numKinds]int
	admitted, refused  [numKinds]uint64
	idle               idleList
	evicted            uint64
	firstFrameTimeouts uint64

	closing atomic.Bool    // set once by beginShutdown, under mu
	wg      sync.WaitGroup // connection and handler goroutines
}

func (s *Server) logf(format string, args ...any) {
	if s.Logf != nil {
		s.Logf(format, args...)
	}
}

func (s *Server) idleTimeout() time.Duration {
	if s.IdleTimeout <= 0 {
		return DefaultIdleTimeout
	}
	return s.IdleTimeout
}

func (s *Server) dispatchTimeout() time.Duration {
	if s.DispatchTimeout <= 0 {
		return DefaultDispatchTimeout
	}
	return s.DispatchTimeout
}

// Listen creates the endpoint. On Unix it creates the parent directory
// (0700), takes the lock file Path+".lock" for the server's lifetime
// (unless ReplaceRunning), refuses with an *[InstanceRunningError] when
// another process holds it or a live Paneflow answers system.identify at
// Path (unless ReplaceRunning), removes a stale
// socket (nothing listening, or something that is not Paneflow), refuses a
// path that exists and is not a socket, binds, and sets the socket's mode
// to 0600, refusing to serve if that fails. On Windows it creates the named
// pipe, accessible to the current user only.
func (s *Server) Listen() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing.Load() {
		return ErrServerClosed
	}
	if s.ln != nil {
		return errors.New("ipc: Listen called twice")
	}
	if s.Path == "" {
		p, err := ServerSocketPath(nil)
		if err != nil {
			return err
		}
		s.Path = p
	}
	ln, remove, err := listenEndpoint(s.Path, s.ReplaceRunning, s.logf)
	if err != nil {
		return err
	}
	s.ln, s.removeSocket = ln, remove
	return nil
}

// Serve accepts connections until [Server.Shutdown] or until ctx is done,
// listening first if Listen was not called. ctx is the parent of every
// handler's context. Serve always returns a non-nil error: ErrServerClosed
// after Shutdown; ctx.Err() when ctx ended it, in which case Serve has also
// done Shutdown's work, waiting up to 5 s for connections to finish;
// otherwise the listener's error.
func (s *Server) Serve(ctx context.Context) error {
	if s.closing.Load() {
		return ErrServerClosed
	}
	s.mu.Lock()
	needListen := s.ln == nil
	s.mu.Unlock()
	if needListen {
		if err := s.Listen(); err != nil {
			return err
		}
	}
	s.mu.Lock()
	if s.closing.Load() {
		s.mu.Unlock()
		return ErrServerClosed
	}
	if s.serving {
		s.mu.Unlock()
		return errors.New("ipc: Serve called twice")
	}
	s.serving = true
	s.baseCtx, s.cancel = context.WithCancel(ctx)
	s.conns = make(map[*conn]struct{})
	ln := s.ln
	s.mu.Unlock()

	stop := context.AfterFunc(ctx, s.beginShutdown)
	defer stop()

	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.closing.Load() {
				if ctx.Err() != nil {
					sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
					_ = s.Shutdown(sctx) // best effort: ctx.Err() is the answer
					cancel()
					return ctx.Err()
				}
				return ErrServerClosed
			}
			if te, ok := err.(interface{ Temporary() bool }); ok && te.Temporary() {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				s.logf("ipc: accept: %v; retrying in %v", err, backoff)
				time.Sleep(backoff)
				continue
			}
			return fmt.Errorf("ipc: accept: %w", err)
		}
		backoff = 0
		s.accepted(nc)
	}
}

// accepted starts serving nc. No connection is refused here: admission
// counts requests, once their first frame says what they are.
func (s *Server) accepted(nc net.Conn) {
	s.mu.Lock()
	if s.closing.Load() {
		s.mu.Unlock()
		nc.Close()
		return
	}
	c := &conn{s: s, nc: nc}
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	ctx := s.baseCtx
	s.mu.Unlock()
	go c.serve(ctx)
}

// released is called by a connection's goroutine when it is done.
func (s *Server) released(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.idle.remove(c)
	s.mu.Unlock()
	s.wg.Done()
}

// beginShutdown stops accepting, cancels every handler context and
// unblocks every connection's I/O. It does not wait.
func (s *Server) beginShutdown() {
	s.mu.Lock()
	s.closing.Store(true)
	ln, cancel := s.ln, s.cancel
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
	// Unblock I/O before cancelling: a connection woken by the cancellation
	// re-arms its write deadline to send "shutting down", and that must not
	// be undone by this loop.
	for _, c := range conns {
		c.nc.SetDeadline(aLongTimeAgo)
	}
	if cancel != nil {
		cancel()
	}
}

// Shutdown stops the server: it stops accepting, cancels every handler's
// context, closes the connections once their goroutines notice (a request
// that arrives meanwhile is answered "Paneflow is shutting down"), waits for
// the connection and handler goroutines, and removes the socket file if it
// is still the one Listen created. If ctx ends first, Shutdown closes the
// remaining connections, removes the socket and returns ctx.Err(); handler
// goroutines that ignore their context may then outlive it. Shutdown may be
// called more than once and from any goroutine; it does not close the
// Executor.
func (s *Server) Shutdown(ctx context.Context) error {
	s.beginShutdown()
	done := make(chan struct{})
	go func() { // ends when the last tracked goroutine does
		s.wg.Wait()
		close(done)
	}()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
		s.mu.Lock()
		for c := range s.conns {
			c.nc.Close()
		}
		s.mu.Unlock()
	}
	s.mu.Lock()
	remove := s.removeSocket
	if s.removed {
		remove = nil
	}
	s.removed = true
	s.mu.Unlock()
	if remove != nil {
		remove()
	}
	return err
}

// errNoPeerCheck is peerUID's answer on platforms where the endpoint's own
// access control replaces the check (Windows: the pipe's DACL).
var errNoPeerCheck = errors.New("ipc: no peer credential check on this platform")

// peerAllowed reports whether the peer of nc may be served, logging a
// credential query that failed (the socket's file mode is then the
// boundary).
func (s *Server) peerAllowed(nc net.Conn) bool {
	uid, err := peerUID(nc)
	switch {
	case errors.Is(err, errNoPeerCheck):
		return true
	case err != nil:
		s.logf("ipc: peer credentials unavailable (%v); relying on the socket's file mode", err)
		return true
	case uid != os.Geteuid():
		s.logf("ipc: refused a connection from UID %d (server runs as %d)", uid, os.Geteuid())
		return false
	}
	return true
}
