package subsystem

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/internal/clock"
	"github.com/paneflow-go/paneflow/ipc"
)

// Subsystem is one part of the core with a lifecycle.
//
// Init is called once, before the socket serves, with everything the
// subsystem may use; it registers the subsystem's methods, subscribes to
// the bus and starts its goroutines. If it fails it must undo what it did
// itself (Shutdown is not called for a subsystem whose Init failed); if
// the subsystem cannot run here it returns an error wrapping [ErrSkip].
// Shutdown stops what Init started and waits for it, within ctx; it is
// called once, after every subsystem started after this one was shut
// down.
type Subsystem interface {
	// Name is the subsystem's short lowercase name ("conductor", "ipc",
	// "flow"): it appears in logs and is its default method namespace.
	Name() string
	Init(h *Host) error
	Shutdown(ctx context.Context) error
}

// Namespaced is implemented by a subsystem whose methods are not all
// named after it: Namespaces lists every namespace it registers in (the
// conductor's methods are "ai.*"); an empty list means it registers no
// methods. Without it the namespace is the name.
type Namespaced interface {
	Namespaces() []string
}

// ErrSkip, returned (or wrapped) by [Subsystem.Init], means the subsystem
// is not available here (a tool it needs is missing, the platform lacks
// a feature): it is logged and left out, and the core runs without it.
var ErrSkip = errors.New("not available here")

// Host is what a subsystem receives at Init. When it comes from a
// [Group], only Bus may be nil (a group built without one, in tests).
type Host struct {
	// Bus carries the core's events; subscribe with the subsystem's name.
	Bus *bus.Bus
	// Methods registers the subsystem's socket methods.
	Methods *Methods
	// Logf logs a diagnostic line.
	Logf func(format string, args ...any)
	// Clock is the time source of every timer; tests share one fake.
	Clock clock.Clock
	// Getenv reads the server's environment.
	Getenv func(string) string
}

// Methods is a subsystem's view of the socket's method registry: it
// accepts only names in the subsystem's namespaces and holds them back
// until the subsystem's Init succeeded. It implements [ipc.Registrar]. Safe
// for concurrent use.
type Methods struct {
	g      *Group
	owner  string
	spaces []string

	mu        sync.Mutex
	pending   []func(*ipc.Registry)
	names     []string
	committed bool
}

var _ ipc.Registrar = (*Methods)(nil)

// Register adds a request/response method (see [ipc.Registry.Register]).
// It panics if name is not "<namespace>.<method>" in one of the
// subsystem's namespaces, or is already registered.
func (m *Methods) Register(name string, h ipc.Handler, opts ...ipc.Option) {
	m.add(name, func(r *ipc.Registry) { r.Register(name, h, opts...) })
}

// RegisterStream adds a push-stream method (see
// [ipc.Registry.RegisterStream]); it panics like [Methods.Register].
func (m *Methods) RegisterStream(name string, h ipc.StreamHandler) {
	m.add(name, func(r *ipc.Registry) { r.RegisterStream(name, h) })
}

// Methods lists every method the registry serves, sorted.
func (m *Methods) Methods() []string { return m.g.reg.Methods() }

func (m *Methods) add(name string, reg func(*ipc.Registry)) {
	ns, rest, ok := strings.Cut(name, ".")
	if !ok || !validName(ns) || !validMethod(rest) {
		panic(fmt.Sprintf("subsystem %s: method %q is not named <namespace>.<method> in lowercase", m.owner, name))
	}
	if !slices.Contains(m.spaces, ns) {
		panic(fmt.Sprintf("subsystem %s: method %q is outside its namespaces %q", m.owner, name, m.spaces))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if slices.Contains(m.names, name) || slices.Contains(m.g.reg.Methods(), name) {
		panic(fmt.Sprintf("subsystem %s: method %q registered twice", m.owner, name))
	}
	m.names = append(m.names, name)
	if m.committed {
		reg(m.g.reg)
		return
	}
	m.pending = append(m.pending, reg)
}

// commit registers the held-back methods; later ones go straight through.
func (m *Methods) commit() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, reg := range m.pending {
		reg(m.g.reg)
	}
	m.pending, m.committed = nil, true
}

// validName reports whether s is a lowercase identifier: [a-z][a-z0-9_]*.
func validName(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// validMethod reports whether s is one or more dot-separated lowercase
// identifiers.
func validMethod(s string) bool {
	for part := range strings.SplitSeq(s, ".") {
		if !validName(part) {
			return false
		}
	}
	return true
}
