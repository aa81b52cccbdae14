package conductor

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/bus/bustest"
	"github.com/paneflow-go/paneflow/internal/clock"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/subsystem"
)

// TestSubsystem runs the conductor as the core does: through a
// subsystem.Group, taking the bus and the clock from the host.
func TestSubsystem(t *testing.T) {
	reg := ipc.NewRegistry()
	fc := clock.NewFake(time.Time{})
	b := bustest.NewBus(t)
	g := subsystem.NewGroup(subsystem.Options{Registry: reg, Bus: b, Clock: fc})
	c := New(Options{Panes: &fakePanes{}, noProcs: true})
	if err := g.Start(c); err != nil {
		t.Fatal(err)
	}
	if c.clock != clock.Clock(fc) || c.o.Bus != b {
		t.Errorf("conductor clock %v, bus %v; want the host's", c.clock, c.o.Bus)
	}
	want := slices.Sorted(slices.Values(append(slices.Clone(methods), proto.MethodAIHistory)))
	if got := reg.Methods(); !slices.Equal(got, want) {
		t.Errorf("registered %v, want %v", got, want)
	}
	if err := g.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if !closed {
		t.Error("Shutdown did not close the conductor")
	}
}

// TestSubsystemKeepsOwnClock: a clock given in Options wins over the
// host's.
func TestSubsystemKeepsOwnClock(t *testing.T) {
	own := clock.NewFake(time.Time{})
	g := subsystem.NewGroup(subsystem.Options{Registry: ipc.NewRegistry(), Clock: clock.NewFake(time.Time{})})
	c := New(Options{Panes: &fakePanes{}, Clock: own, noProcs: true})
	if err := g.Start(c); err != nil {
		t.Fatal(err)
	}
	defer g.Shutdown(context.Background())
	if c.clock != clock.Clock(own) {
		t.Error("the host's clock replaced the one given in Options")
	}
}
