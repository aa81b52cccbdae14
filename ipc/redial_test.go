//go:build unix

package ipc_test

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
)

// TestRedialerAfterServerClose: once the server closed the idle
// connection, the next call goes out on a new one (a bare Mux fails it:
// TestMuxServerClosedIdle).
func TestRedialerAfterServerClose(t *testing.T) {
	g := newGateServer(t, &ipc.Server{IdleTimeout: 50 * time.Millisecond})
	var dials atomic.Int32
	dial := func(ctx context.Context) (*ipc.Mux, error) {
		dials.Add(1)
		return ipc.DialMux(ctx, g.srv.Path)
	}
	m, err := dial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r := ipc.NewRedialer(m, 0, dial)
	defer r.Close()
	select {
	case <-m.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the server never closed the idle connection")
	}
	if err := r.Call(context.Background(), "test.ping", nil, nil); err != nil {
		t.Fatalf("a call after the server closed the first connection: %v", err)
	}
	if n := dials.Load(); n != 2 {
		t.Fatalf("%d dials, want 2", n)
	}
	// The new connection is kept while it lives (idle 0: never replaced
	// for idleness).
	if err := r.Call(context.Background(), "test.ping", nil, nil); err != nil || dials.Load() != 2 {
		t.Fatalf("second call: %v after %d dials, want the same connection", err, dials.Load())
	}
}

// TestRedialerReplacesIdle: a connection with no call out for the idle
// limit is replaced before the next call, and never while a call is out
// on it.
func TestRedialerReplacesIdle(t *testing.T) {
	g := newGateServer(t, nil)
	var dials atomic.Int32
	dial := func(ctx context.Context) (*ipc.Mux, error) {
		dials.Add(1)
		return ipc.DialMux(ctx, g.srv.Path)
	}
	r := ipc.NewRedialer(nil, time.Nanosecond, dial)
	defer r.Close()
	ctx := context.Background()
	gated := make(chan error, 1)
	go func() { gated <- r.Call(ctx, "test.gate", map[string]any{"n": 1}, nil) }()
	<-g.started
	if n := dials.Load(); n != 1 {
		t.Fatalf("%d dials for the first call, want 1", n)
	}
	// A call out on the connection keeps it however long it was idle.
	if err := r.Call(ctx, "test.ping", nil, nil); err != nil || dials.Load() != 1 {
		t.Fatalf("a call beside one out: %v after %d dials, want the same connection", err, dials.Load())
	}
	close(g.gate(1))
	if err := <-gated; err != nil {
		t.Fatal(err)
	}
	if err := r.Call(ctx, "test.ping", nil, nil); err != nil || dials.Load() != 2 {
		t.Fatalf("a call after the idle limit: %v after %d dials, want a new connection", err, dials.Load())
	}
}

// TestRedialerClose: Close ends a dial under way, and calls fail from
// then on without dialling.
func TestRedialerClose(t *testing.T) {
	dialing := make(chan struct{})
	var dials atomic.Int32
	r := ipc.NewRedialer(nil, 0, func(ctx context.Context) (*ipc.Mux, error) {
		dials.Add(1)
		close(dialing)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	errc := make(chan error, 1)
	go func() { errc <- r.Call(context.Background(), "test.ping", nil, nil) }()
	<-dialing
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("the call whose dial Close ended: %v, want context.Canceled", err)
	}
	if err := r.Call(context.Background(), "test.ping", nil, nil); !errors.Is(err, net.ErrClosed) || dials.Load() != 1 {
		t.Fatalf("a call after Close: %v after %d dials, want net.ErrClosed and no dial", err, dials.Load())
	}
}
