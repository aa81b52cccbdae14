package subsystem_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/paneflow-go/paneflow/internal/clock"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/subsystem"
)

// journal records lifecycle calls across subsystems, in order.
type journal struct {
	mu    sync.Mutex
	lines []string
}

func (j *journal) add(format string, args ...any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.lines = append(j.lines, fmt.Sprintf(format, args...))
}

func (j *journal) get() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.lines)
}

// fake is a scripted Subsystem.
type fake struct {
	name     string
	spaces   []string // nil: not Namespaced
	j        *journal
	initErr  error
	stopErr  error
	register []string // methods Init registers
	host     *subsystem.Host
}

func (f *fake) Name() string { return f.name }

func (f *fake) Init(h *subsystem.Host) error {
	f.host = h
	f.j.add("init %s", f.name)
	for _, m := range f.register {
		h.Methods.Register(m, func(context.Context, json.RawMessage) (any, error) { return f.name, nil })
	}
	return f.initErr
}

func (f *fake) Shutdown(ctx context.Context) error {
	f.j.add("shutdown %s", f.name)
	return f.stopErr
}

// namespaced is a fake with its own namespaces.
type namespaced struct{ *fake }

func (n namespaced) Namespaces() []string { return n.spaces }

func newGroup(t *testing.T) (*subsystem.Group, *ipc.Registry, *[]string) {
	t.Helper()
	reg := ipc.NewRegistry()
	var mu sync.Mutex
	var logs []string
	g := subsystem.NewGroup(subsystem.Options{Registry: reg, Logf: func(f string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		logs = append(logs, fmt.Sprintf(f, a...))
	}})
	return g, reg, &logs
}

func TestStartAndShutdownOrder(t *testing.T) {
	g, reg, _ := newGroup(t)
	j := &journal{}
	a := &fake{name: "alpha", j: j, register: []string{"alpha.ping"}}
	b := namespaced{&fake{name: "beta", spaces: []string{"surface", "fleet"}, j: j, register: []string{"surface.list", "fleet.list"}}}
	c := &fake{name: "gamma", j: j}
	if err := g.Start(a, b); err != nil {
		t.Fatal(err)
	}
	if err := g.Start(c); err != nil { // a later Start adds to the same list
		t.Fatal(err)
	}
	if got, want := g.Started(), []string{"alpha", "beta", "gamma"}; !slices.Equal(got, want) {
		t.Errorf("Started = %v, want %v", got, want)
	}
	if got, want := reg.Methods(), []string{"alpha.ping", "fleet.list", "surface.list"}; !slices.Equal(got, want) {
		t.Errorf("registered %v, want %v", got, want)
	}
	if err := g.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []string{"init alpha", "init beta", "init gamma", "shutdown gamma", "shutdown beta", "shutdown alpha"}
	if got := j.get(); !slices.Equal(got, want) {
		t.Errorf("calls = %v, want %v", got, want)
	}
	if err := g.Shutdown(context.Background()); err != nil || len(j.get()) != len(want) {
		t.Errorf("second Shutdown = %v and called %v, want nothing", err, j.get()[len(want):])
	}
}

func TestFailedInitUnwindsInReverse(t *testing.T) {
	g, reg, _ := newGroup(t)
	j := &journal{}
	boom := errors.New("boom")
	subs := []subsystem.Subsystem{
		&fake{name: "one", j: j},
		&fake{name: "two", j: j, stopErr: errors.New("two stuck")},
		&fake{name: "three", j: j},
		&fake{name: "bad", j: j, initErr: boom, register: []string{"bad.call"}},
		&fake{name: "never", j: j},
	}
	err := g.Start(subs...)
	if !errors.Is(err, boom) {
		t.Fatalf("Start = %v, want it to wrap the init failure", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "bad: boom") || !strings.Contains(msg, "two: two stuck") {
		t.Errorf("Start error %q, want the failure and the unwind's error, each with its subsystem's name", msg)
	}
	want := []string{"init one", "init two", "init three", "init bad", "shutdown three", "shutdown two", "shutdown one"}
	if got := j.get(); !slices.Equal(got, want) {
		t.Errorf("calls = %v, want %v", got, want)
	}
	if s := g.Started(); len(s) != 0 {
		t.Errorf("Started after a failed start = %v, want none", s)
	}
	if m := reg.Methods(); len(m) != 0 {
		t.Errorf("a failed subsystem left methods %v registered", m)
	}
}

func TestSkip(t *testing.T) {
	g, reg, logs := newGroup(t)
	j := &journal{}
	skip := &fake{name: "worktree", j: j, initErr: fmt.Errorf("git not found: %w", subsystem.ErrSkip), register: []string{"worktree.list"}}
	after := &fake{name: "after", j: j}
	if err := g.Start(&fake{name: "before", j: j}, skip, after); err != nil {
		t.Fatalf("Start = %v, want a skip not to fail it", err)
	}
	if got, want := g.Started(), []string{"before", "after"}; !slices.Equal(got, want) {
		t.Errorf("Started = %v, want %v (the skipped one left out)", got, want)
	}
	if m := reg.Methods(); len(m) != 0 {
		t.Errorf("the skipped subsystem left methods %v registered", m)
	}
	if want := "paneflow: worktree skipped: git not found: not available here"; !slices.Contains(*logs, want) {
		t.Errorf("logs = %q, want %q", *logs, want)
	}
	if err := g.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := j.get(), []string{"init before", "init worktree", "init after", "shutdown after", "shutdown before"}; !slices.Equal(got, want) {
		t.Errorf("calls = %v, want %v", got, want)
	}
}

func TestHost(t *testing.T) {
	reg := ipc.NewRegistry()
	fc := clock.NewFake(clock.Real{}.Now())
	g := subsystem.NewGroup(subsystem.Options{Registry: reg, Clock: fc, Getenv: func(k string) string { return "v-" + k }})
	f := &fake{name: "probe", j: &journal{}}
	if err := g.Start(f); err != nil {
		t.Fatal(err)
	}
	h := f.host
	if h.Clock != clock.Clock(fc) || h.Getenv("X") != "v-X" || h.Logf == nil || h.Methods == nil {
		t.Errorf("host = %+v, want the group's clock, getenv and a logger", h)
	}
	// After Init, registration goes straight to the registry.
	h.Methods.Register("probe.late", func(context.Context, json.RawMessage) (any, error) { return nil, nil })
	if got := h.Methods.Methods(); !slices.Equal(got, []string{"probe.late"}) {
		t.Errorf("Methods = %v, want [probe.late]", got)
	}
}

// mustPanic runs f and returns the panic's message, failing when f does
// not panic.
func mustPanic(t *testing.T, f func()) (msg string) {
	t.Helper()
	defer func() {
		r := recover()
		if r == nil {
			t.Fatal("no panic")
		}
		msg = fmt.Sprint(r)
	}()
	f()
	return ""
}

func TestProgrammingErrorsPanic(t *testing.T) {
	tests := []struct {
		name string
		subs func(j *journal) []subsystem.Subsystem
		want string
	}{
		{"un-namespaced method", func(j *journal) []subsystem.Subsystem {
			return []subsystem.Subsystem{&fake{name: "flow", j: j, register: []string{"run"}}}
		}, `method "run" is not named <namespace>.<method>`},
		{"method in another namespace", func(j *journal) []subsystem.Subsystem {
			return []subsystem.Subsystem{&fake{name: "flow", j: j, register: []string{"surface.send_text"}}}
		}, `method "surface.send_text" is outside its namespaces ["flow"]`},
		{"uppercase method", func(j *journal) []subsystem.Subsystem {
			return []subsystem.Subsystem{&fake{name: "flow", j: j, register: []string{"flow.Run"}}}
		}, `method "flow.Run" is not named`},
		{"empty method", func(j *journal) []subsystem.Subsystem {
			return []subsystem.Subsystem{&fake{name: "flow", j: j, register: []string{"flow."}}}
		}, `method "flow." is not named`},
		{"duplicate method in one subsystem", func(j *journal) []subsystem.Subsystem {
			return []subsystem.Subsystem{&fake{name: "flow", j: j, register: []string{"flow.run", "flow.run"}}}
		}, `method "flow.run" registered twice`},
		{"method in a namespace of another subsystem", func(j *journal) []subsystem.Subsystem {
			return []subsystem.Subsystem{
				&fake{name: "flow", j: j, register: []string{"flow.run"}},
				namespaced{&fake{name: "teams", spaces: []string{"teams"}, j: j, register: []string{"flow.run"}}},
			}
		}, `method "flow.run" is outside its namespaces ["teams"]`},
		{"namespace claimed twice", func(j *journal) []subsystem.Subsystem {
			return []subsystem.Subsystem{
				namespaced{&fake{name: "api", spaces: []string{"surface"}, j: j}},
				namespaced{&fake{name: "flow", spaces: []string{"flow", "surface"}, j: j}},
			}
		}, `namespace "surface" already belongs to api`},
		{"duplicate subsystem name", func(j *journal) []subsystem.Subsystem {
			return []subsystem.Subsystem{&fake{name: "flow", j: j}, &fake{name: "flow", j: j}}
		}, `name "flow" is invalid or used twice`},
		{"invalid subsystem name", func(j *journal) []subsystem.Subsystem {
			return []subsystem.Subsystem{&fake{name: "Flow", j: j}}
		}, `name "Flow" is invalid`},
		{"nil subsystem", func(*journal) []subsystem.Subsystem { return []subsystem.Subsystem{nil} }, "nil Subsystem"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, _, _ := newGroup(t)
			msg := mustPanic(t, func() { _ = g.Start(tt.subs(&journal{})...) })
			if !strings.Contains(msg, tt.want) {
				t.Errorf("panic %q, want it to contain %q", msg, tt.want)
			}
		})
	}
}

func TestDuplicateOfExistingMethodPanics(t *testing.T) {
	g, reg, _ := newGroup(t)
	reg.Register("flow.run", func(context.Context, json.RawMessage) (any, error) { return nil, nil })
	msg := mustPanic(t, func() { _ = g.Start(&fake{name: "flow", j: &journal{}, register: []string{"flow.run"}}) })
	if !strings.Contains(msg, `method "flow.run" registered twice`) {
		t.Errorf("panic %q, want a duplicate-method panic", msg)
	}
}

func TestErrorNamesSubsystemOnce(t *testing.T) {
	g, _, _ := newGroup(t)
	err := g.Start(&fake{name: "ipc", j: &journal{}, initErr: errors.New("ipc: already serving at /x")})
	if err == nil || err.Error() != "ipc: already serving at /x" {
		t.Errorf("Start = %v, want the error as is (it names its subsystem)", err)
	}
}
