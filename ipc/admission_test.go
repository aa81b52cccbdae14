//go:build unix

package ipc_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
)

const wantHookOK1 = `{"jsonrpc":"2.0","result":{"ok":true},"id":1}`

// subscribe opens a test.stream and reads its first frame, failing the
// test unless it is served; the stream is closed when the test ends.
func subscribe(t *testing.T, s *ipc.Server) {
	t.Helper()
	st, err := ipctest.Client(s).Subscribe(context.Background(), "test.stream", nil)
	if err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	t.Cleanup(func() { st.Close() })
}

// TestStreamsDoNotStarveCalls is issue 25's third finding: every
// paneflow-mcp bridge holds an events.subscribe stream for its life, and
// sixteen of them made `paneflow ls` fail "server busy" and hook frames
// get lost. Streams now have a limit of their own: with 40 open (the
// default server), calls and hook frames are served.
func TestStreamsDoNotStarveCalls(t *testing.T) {
	s, _ := startTest(t, nil)
	for range 40 {
		subscribe(t, s)
	}
	if err := ipctest.Client(s).Call(context.Background(), "test.ping", nil, nil); err != nil {
		t.Fatalf("a call with 40 streams open: %v", err)
	}
	c := dialRaw(t, s.Path)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"ai.test"}`)
	if got := c.recv(); got != wantHookOK1 {
		t.Fatalf("a hook frame with 40 streams open: %s, want %s", got, wantHookOK1)
	}
	if a := s.Admission(); a.Streams.Open != 40 || a.Streams.Limit != ipc.DefaultMaxStreams {
		t.Errorf("admission streams = %+v, want 40 open of %d", a.Streams, ipc.DefaultMaxStreams)
	}
}

// TestAdmissionPerKind fills each kind's limit (1 here) and checks the
// refusal: -32000 with the request's id and a message naming the count and
// the limit, on a connection that stays usable; that the other kinds are
// served meanwhile, hook frames always; and that a freed slot serves again.
func TestAdmissionPerKind(t *testing.T) {
	s, st := startTest(t, func(s *ipc.Server) { s.MaxCalls, s.MaxStreams = 1, 1 })
	ctx := context.Background()

	subscribe(t, s)
	var e *ipc.Error
	_, err := ipctest.Client(s).Subscribe(ctx, "test.stream", nil)
	if !errors.As(err, &e) || e.Code != ipc.CodeBusy || !strings.HasPrefix(e.Message, "server busy: 1 streams and waits open, limit 1;") {
		t.Fatalf("a second stream = %v, want -32000 \"server busy: 1 streams and waits open, limit 1; …\"", err)
	}
	// A Long method is a wait: the same kind.
	c := dialRaw(t, s.Path)
	c.send(`{"jsonrpc":"2.0","id":7,"method":"test.long","params":{"ms":0}}`)
	if code, msg, id := rpcError(t, c.recv()); code != ipc.CodeBusy || id != "7" || !strings.Contains(msg, "streams and waits") {
		t.Fatalf("a wait while the stream slot is taken: code %d %q id %s, want -32000 about streams and waits, id 7", code, msg, id)
	}
	// The connection stays usable: a call on it is served.
	c.send(`{"jsonrpc":"2.0","id":1,"method":"test.ping"}`)
	if got := c.recv(); got != wantPong1 {
		t.Fatalf("a call on the refused connection: %s, want %s", got, wantPong1)
	}

	blocked := dialRaw(t, s.Path)
	blocked.send(`{"jsonrpc":"2.0","id":1,"method":"test.block"}`)
	<-st.blockStarted // the one call slot is taken
	c.send(`{"jsonrpc":"2.0","id":2,"method":"test.ping"}`)
	code, msg, id := rpcError(t, c.recv())
	if code != ipc.CodeBusy || id != "2" || msg != "server busy: 1 calls in progress, limit 1; retry shortly" {
		t.Fatalf("a second call: code %d %q id %s, want -32000 \"server busy: 1 calls in progress, limit 1; retry shortly\" id 2", code, msg, id)
	}
	c.send(`{"jsonrpc":"2.0","id":1,"method":"ai.test"}`)
	if got := c.recv(); got != wantHookOK1 {
		t.Fatalf("a hook frame while calls and streams are full: %s, want %s", got, wantHookOK1)
	}

	// A slot is given back once the reply is written, which may be just
	// after the client read it.
	want := ipc.AdmissionStats{
		Calls:   ipc.KindStats{Open: 1, Limit: 1, Admitted: 2, Refused: 1},
		Streams: ipc.KindStats{Open: 1, Limit: 1, Admitted: 1, Refused: 2},
		Hooks:   ipc.KindStats{Open: 0, Limit: 0, Admitted: 1},
	}
	eventually(t, "the admission counters", func() error {
		a := s.Admission()
		a.Idle, a.IdleLimit = 0, 0
		if a != want {
			return fmt.Errorf("admission = %+v, want %+v", a, want)
		}
		return nil
	})

	blocked.nc.Close() // the client goes away; its call ends at the dispatch timeout
	eventually(t, "a call once the slot is free", func() error {
		return ipctest.Client(s).Call(ctx, "test.ping", nil, nil)
	})
}

// TestHooksNeverRefused fires 64 hook frames at once at a server whose
// call and stream slots are all taken: every one is answered.
func TestHooksNeverRefused(t *testing.T) {
	s, st := startTest(t, func(s *ipc.Server) { s.MaxCalls, s.MaxStreams = 1, 1 })
	subscribe(t, s)
	dialRaw(t, s.Path).send(`{"jsonrpc":"2.0","id":1,"method":"test.block"}`)
	<-st.blockStarted
	const n = 64
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			var res struct{ OK bool }
			err := ipctest.Client(s).Call(context.Background(), "ai.test", map[string]any{"n": i}, &res)
			if err == nil && !res.OK {
				err = fmt.Errorf("hook %d: no ok in the reply", i)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if a := s.Admission().Hooks; a.Admitted != n || a.Refused != 0 {
		t.Errorf("hooks = %+v, want %d admitted, 0 refused", a, n)
	}
}

// TestMuxWaitsAreStreams: the Long requests of a concurrent connection
// are admitted one by one as waits; past MaxStreams the next is refused
// and the connection goes on.
func TestMuxWaitsAreStreams(t *testing.T) {
	g := newGateServer(t, &ipc.Server{MaxStreams: 2})
	ctx := context.Background()
	m, err := ipc.DialMux(ctx, g.srv.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	errs := make(chan error, 2)
	for i := range 2 {
		go func() { errs <- m.Call(ctx, "test.gate", map[string]any{"n": i}, nil) }()
	}
	<-g.started
	<-g.started
	err = m.Call(ctx, "test.gate", map[string]any{"n": 9}, nil)
	var ie *ipc.Error
	if !errors.As(err, &ie) || ie.Code != ipc.CodeBusy || !strings.HasPrefix(ie.Message, "server busy: 2 streams and waits open, limit 2;") {
		t.Fatalf("a third wait = %v, want -32000 \"server busy: 2 streams and waits open, limit 2; …\"", err)
	}
	close(g.gate(0))
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	close(g.gate(3))
	eventually(t, "a wait once one ended", func() error {
		return m.Call(ctx, "test.gate", map[string]any{"n": 3}, nil)
	})
	close(g.gate(1))
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
}

// TestSlowlorisHoldsNoSlot is the slowloris of issue 25: connections
// that trickle their first request in at 1 byte/s hold no call or stream
// slot, so with one of each and 20 tricklers, calls and a stream are
// served; past MaxIdle the connections waiting longest are closed with a
// busy frame, and the rest at the first-frame timeout, silently.
func TestSlowlorisHoldsNoSlot(t *testing.T) {
	const n, maxIdle = 20, 4
	s, _ := startTest(t, func(s *ipc.Server) {
		s.MaxCalls, s.MaxStreams, s.MaxIdle = 1, 1, maxIdle
		s.FirstFrameTimeout = 2 * time.Second
	})
	slow := make([]*rawConn, n)
	for i := range slow {
		slow[i] = dialRaw(t, s.Path)
		trickle(t, slow[i], `{"jsonrpc":"2.0","id":1,"method":"test.ping"}`, time.Second)
	}
	eventually(t, "the oldest tricklers evicted", func() error {
		if a := s.Admission(); a.Evicted < n-maxIdle || a.Idle > maxIdle {
			return fmt.Errorf("%d evicted, %d idle; want at least %d, at most %d", a.Evicted, a.Idle, n-maxIdle, maxIdle)
		}
		return nil
	})
	for range 5 {
		if err := ipctest.Client(s).Call(context.Background(), "test.ping", nil, nil); err != nil {
			t.Fatalf("a call among tricklers: %v", err)
		}
	}
	subscribe(t, s)
	// Every trickler is closed: evicted ones after a busy frame, the
	// others at the first-frame timeout, without one.
	evicted := 0
	for _, c := range slow {
		line, err := c.r.ReadString('\n')
		if err == nil {
			code, msg, _ := rpcError(t, strings.TrimSuffix(line, "\n"))
			if code != ipc.CodeBusy || !strings.HasPrefix(msg, "server busy: more than 4 connections waiting without a request;") {
				t.Fatalf("evicted connection got code %d %q", code, msg)
			}
			evicted++
		}
		c.expectClosed()
	}
	a := s.Admission()
	if evicted < n-maxIdle || uint64(n-evicted) != a.FirstFrameTimeouts || a.Calls.Refused != 0 {
		t.Errorf("%d tricklers evicted, admission %+v; want at least %d evicted, the other %d timed out, no call refused",
			evicted, a, n-maxIdle, n-evicted)
	}
}

// TestFirstFrameTimeout: a connection whose first request has not
// arrived whole within FirstFrameTimeout is closed without a frame and
// counted; one that sent a request then has the idle timeout.
func TestFirstFrameTimeout(t *testing.T) {
	s, _ := startTest(t, func(s *ipc.Server) { s.FirstFrameTimeout = 50 * time.Millisecond; s.IdleTimeout = time.Hour })
	c := dialRaw(t, s.Path)
	trickle(t, c, `{"jsonrpc":"2.0","id":1,"method":"test.ping"}`, 20*time.Millisecond)
	c.expectClosed()
	eventually(t, "the timeout counted", func() error {
		if got := s.Admission().FirstFrameTimeouts; got != 1 {
			return fmt.Errorf("first-frame timeouts = %d, want 1", got)
		}
		return nil
	})
}
