package core

import (
	"context"

	"github.com/paneflow-go/paneflow/api"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/subsystem"
	"github.com/paneflow-go/paneflow/workspace"
)

// The subsystems core adapts itself: packages that predate the contract
// or have no lifecycle of their own. The conductor implements the
// contract in its own package.
var (
	_ subsystem.Namespaced = (*modelMethods)(nil)
	_ subsystem.Namespaced = (*socket)(nil)
)

// modelMethods is the "workspace" subsystem: the socket methods over the
// workspace model (package api), and the model's own lifetime: shutting
// it down closes every pane.
type modelMethods struct {
	m *workspace.Manager
	o api.Options
}

func (*modelMethods) Name() string { return "workspace" }

func (*modelMethods) Namespaces() []string {
	return []string{"system", "workspace", "surface", "fleet", "events", "screen"}
}

// Init registers the api's methods; surface.wait runs on the host's clock.
func (s *modelMethods) Init(h *subsystem.Host) error {
	o := s.o
	o.Clock = h.Clock
	api.Register(h.Methods, s.m, h.Bus, o)
	return nil
}

// Shutdown closes every pane, bounded by the terminals' kill grace.
func (s *modelMethods) Shutdown(context.Context) error {
	s.m.Close()
	return nil
}

// socket is the "ipc" subsystem: the JSON-RPC listener and the executor
// of mutating methods. It registers no methods. Init claims the socket
// (failing when another live Paneflow serves there); [Core.Serve] answers
// on it.
type socket struct {
	srv  *ipc.Server
	exec *ipc.QueueExecutor
}

func (*socket) Name() string { return "ipc" }

func (*socket) Namespaces() []string { return nil }

func (s *socket) Init(*subsystem.Host) error {
	s.exec.Start()
	if err := s.srv.Listen(); err != nil {
		s.exec.Close()
		return err
	}
	return nil
}

// Shutdown stops serving (removing the socket file), then the executor.
func (s *socket) Shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	s.exec.Close()
	return err
}
