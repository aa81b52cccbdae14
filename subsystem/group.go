package subsystem

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/internal/clock"
	"github.com/paneflow-go/paneflow/ipc"
)

// Options configures [NewGroup]: what every subsystem's [Host] holds.
type Options struct {
	// Registry serves the subsystems' methods; required.
	Registry *ipc.Registry
	// Bus is the core's event bus; nil means a subsystem gets nil (only
	// tests of subsystems that need no events do that).
	Bus *bus.Bus
	// Logf receives diagnostics; nil discards them.
	Logf func(format string, args ...any)
	// Clock is the time source; nil means the system clock.
	Clock clock.Clock
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
}

// Group is the list of running subsystems that the core keeps. Create it
// with [NewGroup]; the zero value is not usable.
type Group struct {
	mu      sync.Mutex // held by Start and Shutdown for their whole run
	o       Options
	reg     *ipc.Registry
	owners  map[string]string // namespace → subsystem name
	names   map[string]bool   // subsystems seen, started or not
	started []Subsystem
}

// NewGroup returns an empty group whose subsystems register methods on
// o.Registry. It panics if o.Registry is nil.
func NewGroup(o Options) *Group {
	if o.Registry == nil {
		panic("subsystem: Options.Registry is nil")
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	o.Clock = clock.Or(o.Clock)
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	return &Group{o: o, reg: o.Registry, owners: map[string]string{}, names: map[string]bool{}}
}

// Start initialises subs in order. A subsystem whose Init returns
// [ErrSkip] is logged and left out. When an Init fails otherwise, the
// subsystems already started (by this call or an earlier one) are shut
// down in reverse order and Start returns the failure, joined with any
// shutdown errors; the group is then empty. Start panics on a programming
// error: a nil subsystem, an invalid or duplicate name, a namespace
// claimed twice, a method outside the subsystem's namespaces or registered
// twice.
func (g *Group) Start(subs ...Subsystem) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, s := range subs {
		if s == nil {
			panic("subsystem: Start with a nil Subsystem")
		}
		name := s.Name()
		if !validName(name) || g.names[name] {
			panic(fmt.Sprintf("subsystem: name %q is invalid or used twice", name))
		}
		g.names[name] = true
		spaces := []string{name}
		if n, ok := s.(Namespaced); ok {
			spaces = n.Namespaces()
		}
		for _, ns := range spaces {
			if !validName(ns) {
				panic(fmt.Sprintf("subsystem %s: namespace %q is not a lowercase name", name, ns))
			}
			if other, taken := g.owners[ns]; taken {
				panic(fmt.Sprintf("subsystem %s: namespace %q already belongs to %s", name, ns, other))
			}
			g.owners[ns] = name
		}
		m := &Methods{g: g, owner: name, spaces: slices.Clone(spaces)}
		h := &Host{Bus: g.o.Bus, Methods: m, Logf: g.o.Logf, Clock: g.o.Clock, Getenv: g.o.Getenv}
		err := s.Init(h)
		switch {
		case err == nil:
			m.commit()
			g.started = append(g.started, s)
		case errors.Is(err, ErrSkip):
			g.o.Logf("paneflow: %s skipped: %v", name, err)
			g.release(name)
		default:
			g.release(name)
			err = named(name, err)
			// A start-up failure is not bounded by the caller: the
			// subsystems' own Shutdown bounds apply.
			return errors.Join(err, g.shutdownLocked(context.Background()))
		}
	}
	return nil
}

// release frees the namespaces of a subsystem that did not start.
func (g *Group) release(name string) {
	for ns, owner := range g.owners {
		if owner == name {
			delete(g.owners, ns)
		}
	}
}

// Started lists the names of the running subsystems in start order.
func (g *Group) Started() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	names := make([]string, len(g.started))
	for i, s := range g.started {
		names[i] = s.Name()
	}
	return names
}

// Shutdown shuts the running subsystems down in reverse start order, each
// with ctx, and empties the group. Every subsystem is shut down even when
// an earlier one failed or ctx is done; the errors are joined, each
// prefixed with the subsystem's name. Calling it again does nothing.
func (g *Group) Shutdown(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.shutdownLocked(ctx)
}

func (g *Group) shutdownLocked(ctx context.Context) error {
	var errs []error
	for i := len(g.started) - 1; i >= 0; i-- {
		s := g.started[i]
		if err := s.Shutdown(ctx); err != nil {
			errs = append(errs, named(s.Name(), err))
		}
	}
	g.started = nil
	return errors.Join(errs...)
}

// named prefixes err's message with the subsystem's name, unless it
// already starts with it (errors of package ipc start with "ipc: ").
func named(name string, err error) error {
	if strings.HasPrefix(err.Error(), name+": ") {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}
