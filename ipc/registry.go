package ipc

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
)

// Handler answers one request. params is the raw "params" value ("{}" when
// absent or null). Returning an *[Error] (or an error wrapping one) sends it
// as the JSON-RPC error; any other non-nil error becomes [CodeInternal] with
// its message. The result is encoded with encoding/json; nil becomes null.
//
// ctx is cancelled when the dispatch timeout passes, when the server shuts
// down, and, for [Long] methods, when the client disconnects. A handler that
// ignores ctx keeps its goroutine busy but cannot delay the reply: the
// server answers [CodeTimeout] at the deadline and drops the late result.
// Handlers run concurrently with each other unless they are [Mutating] and
// the server has an [Executor].
type Handler func(ctx context.Context, params json.RawMessage) (any, error)

// StreamHandler takes over a connection for a push stream
// (events.subscribe): it writes frames with w.WriteFrame until ctx is done
// or a write fails, then returns. After it returns the connection is
// closed. The idle read deadline does not apply to streams; ctx is
// cancelled when the client disconnects or the server shuts down.
//
// If the handler returns a non-nil error before writing any frame, the
// server sends it as a JSON-RPC error reply (with the request's id, mapped
// like a [Handler]'s error); errors after the first frame are only logged.
type StreamHandler func(ctx context.Context, params json.RawMessage, w FrameWriter) error

// FrameWriter writes push frames on a stream connection. WriteFrame encodes
// v as one line of JSON followed by "\n". It is safe for concurrent use
// (frames are serialized), fails once the client is gone or a write stalls
// past the server's idle timeout, and refuses (without writing) a frame
// whose encoding exceeds [MaxFrame], which clients could not read.
type FrameWriter interface {
	WriteFrame(v any) error
}

// method is one registered method.
type method struct {
	name     string
	handler  Handler
	stream   StreamHandler
	mutating bool
	long     bool
	inline   bool
	// before runs ahead of handler, outside the executor; nil for none.
	before func(ctx context.Context, params json.RawMessage) error
	// kind is the method's admission class (see [Kind]); kindSet when
	// [Admit] chose it.
	kind    Kind
	kindSet bool
	// unanswered is told about a notification that failed (see
	// [Unanswered]); nil for none.
	unanswered func(ctx context.Context, params json.RawMessage, err *Error)
}

// Option changes how a registered method is dispatched.
type Option func(*method)

// Mutating marks a method that changes state: it runs through the server's
// [Executor] (serialized with the other mutations), and if it has not
// started when the dispatch timeout passes it never runs.
func Mutating() Option { return func(m *method) { m.mutating = true } }

// Long marks a method that may run longer than the dispatch timeout (e.g.
// surface.wait). It does not go through the executor, and its ctx is only
// cancelled by client disconnect or shutdown. The client must allow for it
// with a longer [Client.Timeout].
func Long() Option { return func(m *method) { m.long = true } }

// Inline marks a method whose handler never waits: it answers from memory
// under short locks (system.ping, surface.read). It runs on the
// connection's own goroutine instead of a goroutine of its own, which saves
// a hand-off between goroutines on every request: on surface.read about
// 40 µs of server CPU and a thread wake-up. Its ctx still ends at the
// dispatch timeout, but nothing else interrupts it, so a handler that can
// block (on another request, a process, the executor) must not be Inline.
// It cannot be combined with [Mutating], [Long] or [Before].
func Inline() Option { return func(m *method) { m.inline = true } }

// Before runs h ahead of the method's handler, outside the [Executor] and
// before the dispatch timeout starts: h's ctx ends only when the client
// disconnects or the server shuts down, as a [Long] handler's, so h must
// bound its own wait (the client must allow for it with a longer
// [Client.Timeout]); the handler then has the whole dispatch timeout. On a
// concurrent connection ([MethodConcurrent]) the request is in flight
// meanwhile like a Long one, so the connection goes on reading. A
// [Mutating] method does there the waiting that must not hold up every
// other mutation (surface.send_text waits there, up to its input_wait_ms,
// for an agent to read its input). An error from h is the reply and the
// handler does not run; a panic in h is answered like one in a handler. h
// must not change state: the handler, in the executor, does that, and must
// not rely on what h saw still holding.
func Before(h func(ctx context.Context, params json.RawMessage) error) Option {
	return func(m *method) { m.before = h }
}

// Unanswered tells h about each notification of the method (a request
// without an id, which gets no reply) that failed: refused as busy, or
// its handler's error (a [CodeTimeout] for one past the dispatch
// timeout). err is what the reply would have said. A method whose
// notifications must not fail silently reports them another way with it
// (screen.input's refusals go to the attachment's stream). h runs on the
// connection's goroutine: it must not block.
func Unanswered(h func(ctx context.Context, params json.RawMessage, err *Error)) Option {
	return func(m *method) { m.unanswered = h }
}

// Registry maps method names to handlers. The zero value is not usable;
// call [NewRegistry]. Registration normally happens at start-up, but all
// methods are safe for concurrent use, including registering while a
// [Server] dispatches.
type Registry struct {
	mu      sync.RWMutex
	methods map[string]*method
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{methods: make(map[string]*method)}
}

// Register adds a request/response method. It panics if name is empty, h
// is nil, name is already registered, opts hold both [Mutating] and
// [Long], or [Inline] with any of Mutating, Long and [Before]: those are
// programming errors. The method's admission [Kind] is [KindStream] when
// it is Long or has a Before hook, [KindHook] when its name starts with
// "ai.", else [KindCall]; [Admit] overrides it.
func (r *Registry) Register(name string, h Handler, opts ...Option) {
	if h == nil {
		panic(fmt.Sprintf("ipc: Register(%q) with a nil handler", name))
	}
	m := &method{name: name, handler: h}
	for _, o := range opts {
		o(m)
	}
	if m.mutating && m.long {
		panic(fmt.Sprintf("ipc: Register(%q): a method cannot be both Mutating and Long", name))
	}
	if m.inline && (m.mutating || m.long || m.before != nil) {
		panic(fmt.Sprintf("ipc: Register(%q): an Inline method cannot be Mutating, Long or have a Before hook", name))
	}
	r.add(m)
}

// RegisterStream adds a push-stream method, admitted as [KindStream].
// It panics like [Registry.Register].
func (r *Registry) RegisterStream(name string, h StreamHandler) {
	if h == nil {
		panic(fmt.Sprintf("ipc: RegisterStream(%q) with a nil handler", name))
	}
	r.add(&method{name: name, stream: h})
}

func (r *Registry) add(m *method) {
	if m.name == "" {
		panic("ipc: registering a method with an empty name")
	}
	if !m.kindSet {
		m.kind = defaultKind(m)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.methods[m.name]; dup {
		panic(fmt.Sprintf("ipc: method %q registered twice", m.name))
	}
	r.methods[m.name] = m
}

// Methods returns the registered method names, sorted.
func (r *Registry) Methods() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.methods))
	for n := range r.methods {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// lookup returns the method called name, or nil.
func (r *Registry) lookup(name string) *method {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.methods[name]
}

// Registrar adds methods to a registry: a *[Registry] itself, or a view of
// one that checks the names a subsystem may use (subsystem.Methods).
// Methods lists every method of the underlying registry, as
// [Registry.Methods] does.
type Registrar interface {
	Register(name string, h Handler, opts ...Option)
	RegisterStream(name string, h StreamHandler)
	Methods() []string
}

var _ Registrar = (*Registry)(nil)
