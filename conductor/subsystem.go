package conductor

import (
	"context"

	"github.com/paneflow-go/paneflow/subsystem"
)

var (
	_ subsystem.Subsystem  = (*Conductor)(nil)
	_ subsystem.Namespaced = (*Conductor)(nil)
)

// Name is the conductor's subsystem name, "conductor".
func (c *Conductor) Name() string { return "conductor" }

// Namespaces lists the conductor's method namespace: "ai".
func (c *Conductor) Namespaces() []string { return []string{"ai"} }

// Init registers the ai.* methods on h and starts the conductor (see
// [Conductor.Start]). Left nil in [Options], the bus and the clock are the
// host's. The core starts it before any pane exists, so it sees every one.
func (c *Conductor) Init(h *subsystem.Host) error {
	if c.o.Bus == nil {
		c.o.Bus = h.Bus
	}
	if c.o.Clock == nil && h.Clock != nil {
		c.clock = h.Clock
	}
	c.Register(h.Methods)
	c.Start()
	return nil
}

// Shutdown stops the conductor (see [Conductor.Close]); it waits only for
// the conductor's own goroutines, which stop promptly, so ctx is not
// needed.
func (c *Conductor) Shutdown(context.Context) error {
	c.Close()
	return nil
}
