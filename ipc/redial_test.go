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
	dial, dials := countingDial(g.srv.Path)
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
	dial, dials := countingDial(g.srv.Path)
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

// TestRedialerStartNow: StartNow writes a request only where that cannot
// wait (a live, fresh connection with no call out and no dial under way),
// leaves the reply to Pending.Wait, and gives the connection back then; it
// never dials.
func TestRedialerStartNow(t *testing.T) {
	g := newGateServer(t, nil)
	dial, dials := countingDial(g.srv.Path)
	ctx := context.Background()

	// No connection yet: nothing is sent, nothing dialled.
	r := ipc.NewRedialer(nil, 0, dial)
	defer r.Close()
	if p, ok, err := r.StartNow("test.ping", nil); ok || p != nil || err != nil || dials.Load() != 0 {
		t.Fatalf("StartNow with no connection: %v %v %v after %d dials, want not ok and no dial", p, ok, err, dials.Load())
	}
	if err := r.Call(ctx, "test.ping", nil, nil); err != nil {
		t.Fatal(err)
	}

	// A live connection with nothing out: sent, the reply waited for.
	p, ok, err := r.StartNow("test.ping", nil)
	if !ok || err != nil {
		t.Fatalf("StartNow on an idle live connection: ok %v, %v", ok, err)
	}
	// Its call is out until Wait: a second StartNow does not write.
	if p2, ok, err := r.StartNow("test.ping", nil); ok || p2 != nil || err != nil {
		t.Fatalf("StartNow beside a started call: %v %v %v, want not ok", p2, ok, err)
	}
	var got string
	if err := p.Wait(ctx, &got); err != nil || got != "pong" {
		t.Fatalf("Wait: %q, %v; want pong", got, err)
	}
	if p, ok, err = r.StartNow("test.ping", nil); !ok || err != nil {
		t.Fatalf("StartNow after the reply: ok %v, %v", ok, err)
	}
	if err := p.Wait(ctx, nil); err != nil {
		t.Fatal(err)
	}

	// A call out on the connection (held by the server): not sent.
	gated := make(chan error, 1)
	go func() { gated <- r.Call(ctx, "test.gate", map[string]any{"n": 1}, nil) }()
	<-g.started
	if p, ok, err := r.StartNow("test.ping", nil); ok || p != nil || err != nil {
		t.Fatalf("StartNow beside a call out: %v %v %v, want not ok", p, ok, err)
	}
	close(g.gate(1))
	if err := <-gated; err != nil {
		t.Fatal(err)
	}
	if n := dials.Load(); n != 1 {
		t.Fatalf("%d dials, want 1 (StartNow never dials)", n)
	}

	// Closed: not sent.
	r.Close()
	if p, ok, err := r.StartNow("test.ping", nil); ok || p != nil || err != nil {
		t.Fatalf("StartNow after Close: %v %v %v, want not ok", p, ok, err)
	}
}

// TestRedialerStartNowIdle: a connection idle past the limit is not used
// (Call replaces it), nor one that ended.
func TestRedialerStartNowIdle(t *testing.T) {
	g := newGateServer(t, nil)
	m, err := ipc.DialMux(context.Background(), g.srv.Path)
	if err != nil {
		t.Fatal(err)
	}
	r := ipc.NewRedialer(m, time.Nanosecond, func(ctx context.Context) (*ipc.Mux, error) {
		return ipc.DialMux(ctx, g.srv.Path)
	})
	defer r.Close()
	if p, ok, err := r.StartNow("test.ping", nil); ok || p != nil || err != nil {
		t.Fatalf("StartNow on a connection idle past the limit: %v %v %v, want not ok", p, ok, err)
	}
	m2, err := ipc.DialMux(context.Background(), g.srv.Path)
	if err != nil {
		t.Fatal(err)
	}
	r2 := ipc.NewRedialer(m2, 0, nil)
	defer r2.Close()
	m2.Close()
	if p, ok, err := r2.StartNow("test.ping", nil); ok || p != nil || err != nil {
		t.Fatalf("StartNow on an ended connection: %v %v %v, want not ok", p, ok, err)
	}
}

// countingDial dials the socket at path and counts its dials.
func countingDial(path string) (func(context.Context) (*ipc.Mux, error), *atomic.Int32) {
	dials := new(atomic.Int32)
	return func(ctx context.Context) (*ipc.Mux, error) {
		dials.Add(1)
		return ipc.DialMux(ctx, path)
	}, dials
}
