package ipc

import (
	"fmt"
	"strings"
	"time"
)

// Admission defaults (see [Server]): sized for a fleet of 200 agents, each
// with a paneflow-mcp bridge holding an events.subscribe stream and a wait
// or two, their hooks, the window and scripts at once, with room to spare.
const (
	// DefaultMaxCalls is Server.MaxCalls's default.
	DefaultMaxCalls = 256
	// DefaultMaxStreams is Server.MaxStreams's default.
	DefaultMaxStreams = 1024
	// DefaultMaxIdle is Server.MaxIdle's default.
	DefaultMaxIdle = 512
	// DefaultFirstFrameTimeout is Server.FirstFrameTimeout's default.
	DefaultFirstFrameTimeout = 5 * time.Second
)

// Kind is the admission class of a request: what it costs the server and
// how long it holds its connection. The server counts the requests of
// each kind being served and refuses one past its kind's limit with
// [CodeBusy] and a message naming the count and the limit; connections
// themselves are never counted against a kind (see [Server.MaxIdle]).
// A method's kind follows from how it was registered, or is set with
// [Admit].
type Kind uint8

const (
	// KindCall is a short request/response: answered within the
	// dispatch timeout. Limit: [Server.MaxCalls].
	KindCall Kind = iota
	// KindStream is a long-lived request: a push stream
	// ([Registry.RegisterStream]), a [Long] method, a method with a
	// [Before] hook (which may wait). Limit: [Server.MaxStreams]. A
	// client that streams to an attached window registers its method
	// with RegisterStream (or [Admit](KindStream)) and is admitted here.
	KindStream
	// KindHook is an agent hook frame: methods named "ai.*". Never
	// refused: a lost frame would leave an agent's state wrong, and
	// hook frames are answered at once.
	KindHook

	numKinds = 3
)

// String names the kind as the busy messages and stats do.
func (k Kind) String() string {
	switch k {
	case KindCall:
		return "call"
	case KindStream:
		return "stream"
	case KindHook:
		return "hook"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Admit sets the admission kind of a method, overriding the one its other
// options imply (see [Kind]).
func Admit(k Kind) Option {
	return func(m *method) { m.kind, m.kindSet = k, true }
}

// defaultKind is the kind a method gets from its registration.
func defaultKind(m *method) Kind {
	switch {
	case m.stream != nil || m.long || m.before != nil:
		return KindStream
	case strings.HasPrefix(m.name, "ai."):
		return KindHook
	}
	return KindCall
}

// KindStats is one kind's counters in [AdmissionStats].
type KindStats struct {
	// Open is the number of requests of the kind being served now.
	Open int
	// Limit is the kind's limit; 0 means none (hooks).
	Limit int
	// Admitted and Refused count requests since the server started.
	Admitted, Refused uint64
}

// AdmissionStats is a snapshot of the server's admission counters, from
// [Server.Admission].
type AdmissionStats struct {
	Calls, Streams, Hooks KindStats
	// Idle is the number of connections waiting for a request (their
	// first or their next) with nothing in flight; IdleLimit is
	// [Server.MaxIdle].
	Idle, IdleLimit int
	// Evicted counts idle connections closed to make room for newer ones.
	Evicted uint64
	// FirstFrameTimeouts counts connections closed because their first
	// request did not arrive within [Server.FirstFrameTimeout].
	FirstFrameTimeouts uint64
}

// Admission returns the current admission counters. It is safe to call
// at any time, from any goroutine.
func (s *Server) Admission() AdmissionStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := func(kind Kind) KindStats {
		return KindStats{Open: s.open[kind], Limit: s.limit(kind), Admitted: s.admitted[kind], Refused: s.refused[kind]}
	}
	return AdmissionStats{
		Calls: k(KindCall), Streams: k(KindStream), Hooks: k(KindHook),
		Idle: s.idle.n, IdleLimit: s.maxIdle(),
		Evicted: s.evicted, FirstFrameTimeouts: s.firstFrameTimeouts,
	}
}

// limit returns the limit of kind, 0 for none.
func (s *Server) limit(kind Kind) int {
	switch kind {
	case KindCall:
		if s.MaxCalls > 0 {
			return s.MaxCalls
		}
		return DefaultMaxCalls
	case KindStream:
		if s.MaxStreams > 0 {
			return s.MaxStreams
		}
		return DefaultMaxStreams
	}
	return 0
}

func (s *Server) maxIdle() int {
	if s.MaxIdle > 0 {
		return s.MaxIdle
	}
	return DefaultMaxIdle
}

func (s *Server) firstFrameTimeout() time.Duration {
	if s.FirstFrameTimeout > 0 {
		return s.FirstFrameTimeout
	}
	return DefaultFirstFrameTimeout
}

// admit takes a slot of kind for one request, or returns the busy error
// to answer it with. Every successful admit is paired with a release.
func (s *Server) admit(kind Kind) *Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if limit := s.limit(kind); limit > 0 && s.open[kind] >= limit {
		s.refused[kind]++
		return busyError(kind, s.open[kind], limit)
	}
	s.open[kind]++
	s.admitted[kind]++
	return nil
}

// release gives back a slot taken by admit.
func (s *Server) release(kind Kind) {
	s.mu.Lock()
	s.open[kind]--
	s.mu.Unlock()
}

// busyError is the refusal of a request of kind: it says what is full
// and what to do about it.
func busyError(kind Kind, open, limit int) *Error {
	var msg string
	switch kind {
	case KindStream:
		msg = fmt.Sprintf("server busy: %d streams and waits open, limit %d; close some (paneflow-mcp bridges, watch, wait) and retry", open, limit)
	default:
		msg = fmt.Sprintf("server busy: %d calls in progress, limit %d; retry shortly", open, limit)
	}
	return &Error{Code: CodeBusy, Message: msg}
}

// idleList is the connections waiting for a request with nothing in
// flight, oldest first: the one at the front is closed when a newer one
// needs room. Guarded by Server.mu.
type idleList struct {
	head, tail *conn
	n          int
}

func (l *idleList) push(c *conn) {
	c.idlePrev, c.idleNext = l.tail, nil
	if l.tail != nil {
		l.tail.idleNext = c
	} else {
		l.head = c
	}
	l.tail = c
	c.inIdle = true
	l.n++
}

func (l *idleList) remove(c *conn) {
	if !c.inIdle {
		return
	}
	if c.idlePrev != nil {
		c.idlePrev.idleNext = c.idleNext
	} else {
		l.head = c.idleNext
	}
	if c.idleNext != nil {
		c.idleNext.idlePrev = c.idlePrev
	} else {
		l.tail = c.idlePrev
	}
	c.idlePrev, c.idleNext, c.inIdle = nil, nil, false
	l.n--
}

// markIdle puts c on the idle list (it waits for a request and has
// nothing in flight) and, past MaxIdle, evicts the connection idle
// longest. Server.mu must not be held.
func (s *Server) markIdle(c *conn) {
	s.mu.Lock()
	if c.inIdle || c.evicted.Load() {
		s.mu.Unlock()
		return
	}
	s.idle.push(c)
	var victim *conn
	if s.idle.n > s.maxIdle() {
		victim = s.idle.head
		s.idle.remove(victim)
		s.evicted++
		victim.evicted.Store(true)
	}
	s.mu.Unlock()
	if victim != nil {
		// After the flag: the victim arms its deadline, then checks the
		// flag, so one of the two stops its read.
		victim.nc.SetReadDeadline(aLongTimeAgo)
	}
}

// unmarkIdle takes c off the idle list.
func (s *Server) unmarkIdle(c *conn) {
	s.mu.Lock()
	s.idle.remove(c)
	s.mu.Unlock()
}

// evictedError is what an evicted connection is told.
func (s *Server) evictedError() *Error {
	return &Error{Code: CodeBusy, Message: fmt.Sprintf(
		"server busy: more than %d connections waiting without a request; this one waited longest and was closed", s.maxIdle())}
}

// firstFrameTimedOut counts a connection closed before its first request.
func (s *Server) firstFrameTimedOut() {
	s.mu.Lock()
	s.firstFrameTimeouts++
	s.mu.Unlock()
}
