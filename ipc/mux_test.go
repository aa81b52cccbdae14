//go:build unix

package ipc_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
)

// gateServer serves "test.gate", a Long method that answers its "n" once
// gate n is opened (or its ctx ends, counted in cancelled), and
// "test.ping", on a server with s's admission limits (nil: the defaults).
type gateServer struct {
	srv       *ipc.Server
	mu        sync.Mutex
	gates     map[int]chan struct{}
	started   chan int
	cancelled chan int
}

func newGateServer(t *testing.T, s *ipc.Server) *gateServer {
	g := &gateServer{gates: map[int]chan struct{}{}, started: make(chan int, 2*ipc.MaxInFlight), cancelled: make(chan int, 2*ipc.MaxInFlight)}
	reg := ipc.NewRegistry()
	reg.Register("test.gate", func(ctx context.Context, p json.RawMessage) (any, error) {
		var args struct{ N int }
		json.Unmarshal(p, &args)
		gate := g.gate(args.N)
		g.started <- args.N
		select {
		case <-gate:
			return args.N, nil
		case <-ctx.Done():
			g.cancelled <- args.N
			return nil, ctx.Err()
		}
	}, ipc.Long())
	reg.Register("test.ping", func(context.Context, json.RawMessage) (any, error) { return "pong", nil })
	reg.RegisterStream("test.stream", func(context.Context, json.RawMessage, ipc.FrameWriter) error { return nil })
	if s == nil {
		s = &ipc.Server{}
	}
	s.Registry = reg
	g.srv = ipctest.StartServer(t, s)
	return g
}

func (g *gateServer) gate(n int) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gates[n] == nil {
		g.gates[n] = make(chan struct{})
	}
	return g.gates[n]
}

// TestMuxCarriesManyWaits: many Long calls run at once on one Mux (one
// connection, not one each), a plain call on the same Mux and
// another connection are answered meanwhile, replies come back out of
// order and each reaches its own call, and closing the Mux ends what
// still runs on the server.
func TestMuxCarriesManyWaits(t *testing.T) {
	g := newGateServer(t, nil)
	ctx := context.Background()
	m, err := ipc.DialMux(ctx, g.srv.Path)
	if err != nil {
		t.Fatal(err)
	}
	const n = 20
	type reply struct {
		n, got int
		err    error
	}
	replies := make(chan reply, n)
	for i := range n {
		go func() {
			var got int
			err := m.Call(ctx, "test.gate", map[string]any{"n": i}, &got)
			replies <- reply{i, got, err}
		}()
	}
	for range n {
		<-g.started
	}
	var pong string
	if err := m.Call(ctx, "test.ping", nil, &pong); err != nil || pong != "pong" {
		t.Fatalf("plain call on the Mux while %d waits run = %q, %v", n, pong, err)
	}
	if err := ipctest.Client(g.srv).Call(ctx, "test.ping", nil, &pong); err != nil {
		t.Fatalf("a second connection while %d waits run on the Mux: %v", n, err)
	}
	err = m.Call(ctx, "test.stream", nil, nil)
	var ie *ipc.Error
	if !errors.As(err, &ie) || ie.Code != ipc.CodeInvalidRequest {
		t.Fatalf("a stream on the Mux = %v, want a -32600 refusal", err)
	}
	// Open the gates last first: the replies come in that order.
	for i := n - 1; i >= 2; i-- {
		close(g.gate(i))
		r := <-replies
		if r.err != nil || r.n != i || r.got != i {
			t.Fatalf("after opening gate %d: call %d got %d, %v", i, r.n, r.got, r.err)
		}
	}
	// Two still run: closing the Mux fails them here and ends them there.
	m.Close()
	for range 2 {
		if r := <-replies; r.err == nil || errors.Is(r.err, ipc.ErrNotSent) {
			t.Fatalf("call %d after Close: %v, want a failure of a sent request", r.n, r.err)
		}
	}
	got := map[int]bool{<-g.cancelled: true, <-g.cancelled: true}
	if !got[0] || !got[1] {
		t.Fatalf("handlers ended by Close: %v, want 0 and 1", got)
	}
	if err := m.Call(ctx, "test.ping", nil, nil); !errors.Is(err, ipc.ErrNotSent) {
		t.Fatalf("a call after Close: %v, want ErrNotSent", err)
	}
}

// TestMuxServerClosedIdle: the server closes a Mux that sent nothing for
// its idle timeout; Done tells, and a later call fails as not sent (its
// caller may send it on a new connection), an *UnreachableError.
func TestMuxServerClosedIdle(t *testing.T) {
	g := newGateServer(t, &ipc.Server{IdleTimeout: 50 * time.Millisecond})
	ctx := context.Background()
	m, err := ipc.DialMux(ctx, g.srv.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	select {
	case <-m.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the server never closed the idle connection")
	}
	err = m.Call(ctx, "test.ping", nil, nil)
	var ue *ipc.UnreachableError
	if !errors.Is(err, ipc.ErrNotSent) || !errors.As(err, &ue) {
		t.Fatalf("a call after the server closed the Mux: %v, want ErrNotSent and an *UnreachableError", err)
	}
}

// TestMuxInFlightCap: past MaxInFlight Long requests on one connection,
// the next is refused at once with -32000; the connection stays usable.
func TestMuxInFlightCap(t *testing.T) {
	g := newGateServer(t, nil)
	ctx := context.Background()
	m, err := ipc.DialMux(ctx, g.srv.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	errs := make(chan error, ipc.MaxInFlight)
	for i := range ipc.MaxInFlight {
		go func() { errs <- m.Call(ctx, "test.gate", map[string]any{"n": i}, nil) }()
	}
	for range ipc.MaxInFlight {
		<-g.started
	}
	err = m.Call(ctx, "test.gate", map[string]any{"n": -1}, nil)
	var ie *ipc.Error
	if !errors.As(err, &ie) || ie.Code != ipc.CodeBusy || ie.Message != "server busy: too many requests in flight on this connection" {
		t.Fatalf("call %d = %v, want -32000 too many in flight", ipc.MaxInFlight+1, err)
	}
	for i := range ipc.MaxInFlight {
		close(g.gate(i))
	}
	for range ipc.MaxInFlight {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	close(g.gate(-2))
	var got int
	if err := m.Call(ctx, "test.gate", map[string]any{"n": -2}, &got); err != nil || got != -2 {
		t.Fatalf("a wait after the refusal = %d, %v", got, err)
	}
}
