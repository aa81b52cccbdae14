//go:build unix

package ipc_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
)

const (
	wantTooLarge = `{"jsonrpc":"2.0","error":{"code":-32600,"message":"request exceeds maximum length"},"id":null}`
	wantPeerUID  = `{"jsonrpc":"2.0","error":{"code":-32001,"message":"permission denied: peer UID mismatch"},"id":null}`
	wantPong1    = `{"jsonrpc":"2.0","result":{"pong":true},"id":1}`
)

func TestNotificationRunsWithoutReply(t *testing.T) {
	s, st := startTest(t, nil)
	c := dialRaw(t, s.Path)
	c.send(`{"jsonrpc":"2.0","method":"test.count"}`)
	c.send(`{"jsonrpc":"2.0","method":"test.count","params":{}}`)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"test.ping"}`)
	if got := c.recv(); got != wantPong1 {
		t.Fatalf("first reply = %s, want %s (notifications must not be answered)", got, wantPong1)
	}
	if got := st.notified.Load(); got != 2 {
		t.Errorf("notifications run = %d, want 2", got)
	}
}

// TestClientErrorCodes checks that every handler-side error reaches the
// client as an *ipc.Error with the right code and message.
func TestClientErrorCodes(t *testing.T) {
	s, _ := startTest(t, nil)
	tests := []struct {
		method   string
		params   any
		wantCode int
		wantMsg  string
	}{
		{"no.such", nil, ipc.CodeMethodNotFound, "method not found: no.such"},
		{"test.params", map[string]string{"n": "x"}, ipc.CodeInvalidParams, "n must be an integer"},
		{"test.wrapped", nil, ipc.CodeInvalidParams, "wrapped invalid"},
		{"test.internal", nil, ipc.CodeInternal, "disk on fire"},
		{"test.panic", nil, ipc.CodeInternal, "internal error: handler panicked"},
		{"test.fail", nil, 1234, "custom failure"},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			err := ipctest.Client(s).Call(context.Background(), tt.method, tt.params, nil)
			var e *ipc.Error
			if !errors.As(err, &e) {
				t.Fatalf("Call(%s) = %v, want an *ipc.Error", tt.method, err)
			}
			if e.Code != tt.wantCode || e.Message != tt.wantMsg {
				t.Errorf("Call(%s) = code %d %q, want code %d %q", tt.method, e.Code, e.Message, tt.wantCode, tt.wantMsg)
			}
		})
	}
}

func TestFrameCap(t *testing.T) {
	s, _ := startTest(t, nil)
	// request returns a test.echo request line of exactly n bytes,
	// newline included.
	request := func(n int) string {
		head, tail := `{"jsonrpc":"2.0","id":1,"method":"test.echo","params":{"pad":"`, `"}}`
		return head + strings.Repeat("p", n-len(head)-len(tail)-1) + tail
	}

	t.Run("exactly MaxFrame is accepted", func(t *testing.T) {
		c := dialRaw(t, s.Path)
		c.send(request(ipc.MaxFrame))
		got := c.recv()
		var r struct {
			Result struct{ Pad string }
		}
		if err := json.Unmarshal([]byte(got), &r); err != nil || len(r.Result.Pad) == 0 {
			t.Fatalf("reply %.100q…: want the echoed params (%v)", got, err)
		}
		c.send(`{"jsonrpc":"2.0","id":1,"method":"test.ping"}`)
		if got := c.recv(); got != wantPong1 {
			t.Errorf("next reply = %s, want %s", got, wantPong1)
		}
	})
	t.Run("one byte more is refused and closed", func(t *testing.T) {
		c := dialRaw(t, s.Path)
		go c.nc.Write([]byte(request(ipc.MaxFrame+1) + "\n")) // may fail once the server closes
		if got := c.recv(); got != wantTooLarge {
			t.Fatalf("reply = %s, want %s", got, wantTooLarge)
		}
		c.expectClosed()
	})
	t.Run("endless line is refused", func(t *testing.T) {
		c := dialRaw(t, s.Path)
		go func() {
			chunk := []byte(strings.Repeat("x", 64<<10))
			for range 8 {
				if _, err := c.nc.Write(chunk); err != nil {
					return
				}
			}
		}()
		if got := c.recv(); got != wantTooLarge {
			t.Fatalf("reply = %s, want %s", got, wantTooLarge)
		}
	})
	t.Run("client refuses to send an oversized request", func(t *testing.T) {
		err := ipctest.Client(s).Call(context.Background(), "test.echo", map[string]string{"pad": strings.Repeat("p", ipc.MaxFrame)}, nil)
		var e *ipc.Error
		if !errors.As(err, &e) || e.Code != ipc.CodeInvalidRequest {
			t.Errorf("Call with oversized params = %v, want *ipc.Error code %d", err, ipc.CodeInvalidRequest)
		}
	})
}

func TestIdleTimeout(t *testing.T) {
	short := func(s *ipc.Server) { s.IdleTimeout, s.FirstFrameTimeout = 50*time.Millisecond, 50*time.Millisecond }
	s, _ := startTest(t, short)
	t.Run("silent connection is closed without a frame", func(t *testing.T) {
		dialRaw(t, s.Path).expectClosed()
	})
	t.Run("after a request", func(t *testing.T) {
		// The request is written before the server serves (see
		// listenTest): a test descheduled between its dial and its write
		// for longer than the idle timeout must not lose the race.
		s, _, serve := listenTest(t, short)
		c := dialRaw(t, s.Path)
		c.send(`{"jsonrpc":"2.0","id":1,"method":"test.ping"}`)
		serve()
		if got := c.recv(); got != wantPong1 {
			t.Fatalf("reply %s, want %s", got, wantPong1)
		}
		c.expectClosed()
	})
	t.Run("a request trickled in slowly counts as idle", func(t *testing.T) {
		c := dialRaw(t, s.Path)
		trickle(t, c, `{"jsonrpc":"2.0","id":1,"method":"test.ping"}`, 20*time.Millisecond)
		c.expectClosed()
	})
	t.Run("so does a second request trickled in", func(t *testing.T) {
		s, _, serve := listenTest(t, short)
		c := dialRaw(t, s.Path)
		c.send(`{"jsonrpc":"2.0","id":1,"method":"test.ping"}`)
		serve()
		if got := c.recv(); got != wantPong1 {
			t.Fatalf("reply %s, want %s", got, wantPong1)
		}
		trickle(t, c, `{"jsonrpc":"2.0","id":1,"method":"test.ping"}`, 20*time.Millisecond)
		c.expectClosed()
	})
}

// trickle writes line to c one byte every pause, in the background, until
// the test ends or a write fails.
func trickle(t *testing.T, c *rawConn, line string, pause time.Duration) {
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	go func() {
		for _, b := range []byte(line) {
			select {
			case <-done:
				return
			case <-time.After(pause):
			}
			if _, err := c.nc.Write([]byte{b}); err != nil {
				return
			}
		}
	}()
}

// TestHandlingIsNotIdle checks that the idle timeout does not run while a
// request is being handled.
//
// Both requests are written at once, before the server serves (see
// listenTest), so the test never has to act within the idle timeout: the
// server reads the second only after it answered the first, and a reply
// written after 6 idle timeouts of handling must still go out.
func TestHandlingIsNotIdle(t *testing.T) {
	const idle = 50 * time.Millisecond
	s, _, serve := listenTest(t, func(s *ipc.Server) { s.IdleTimeout = idle })
	c := dialRaw(t, s.Path)
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"test.sleep","params":{"ms":%d}}`, 6*idle/time.Millisecond) +
		"\n" + `{"jsonrpc":"2.0","id":1,"method":"test.ping"}`)
	serve()
	if got, want := c.recv(), `{"jsonrpc":"2.0","result":"slept","id":1}`; got != want {
		t.Fatalf("reply = %s, want %s", got, want)
	}
	if got := c.recv(); got != wantPong1 {
		t.Fatalf("second reply = %s, want %s", got, wantPong1)
	}
}

// TestSlowClient checks that a client that never reads its replies cannot
// hold a slot forever: the write deadline drops it.
func TestSlowClient(t *testing.T) {
	s, _ := startTest(t, func(s *ipc.Server) {
		s.MaxCalls = 1
		s.IdleTimeout = 100 * time.Millisecond
	})
	slow := dialRaw(t, s.Path)
	go func() { // ask for 200 KiB replies and never read them
		req := []byte(`{"jsonrpc":"2.0","id":1,"method":"test.big","params":{"n":204800}}` + "\n")
		for range 64 {
			if _, err := slow.nc.Write(req); err != nil {
				return
			}
		}
	}()
	eventually(t, "a call while a slow client holds the only slot", func() error {
		return ipctest.Client(s).Call(context.Background(), "test.ping", nil, nil)
	})
}

func TestDispatchTimeout(t *testing.T) {
	s, st := startTest(t, func(s *ipc.Server) { s.DispatchTimeout = 50 * time.Millisecond })
	c := dialRaw(t, s.Path)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"test.block"}`)
	<-st.blockStarted
	code, msg, id := rpcError(t, c.recv())
	if code != ipc.CodeTimeout || msg != "request timeout" || id != "1" {
		t.Errorf("reply = code %d %q id %s, want code %d \"request timeout\" id 1", code, msg, id, ipc.CodeTimeout)
	}
	// A Long method, which the 50 ms dispatch timeout does not bound: a
	// plain one could time out too on a loaded machine.
	c.send(`{"jsonrpc":"2.0","id":2,"method":"test.long","params":{"ms":0}}`)
	if got, want := c.recv(), `{"jsonrpc":"2.0","result":"waited","id":2}`; got != want {
		t.Errorf("after a timeout: reply %s, want %s (the connection stays usable)", got, want)
	}
}

// TestInlineMethod checks what sets an [ipc.Inline] method apart: its
// handler runs on the connection's goroutine, so the connection's answer
// is the handler's own, even one given after the dispatch timeout ended
// its ctx (a plain method is answered "request timeout" at that moment,
// see TestDispatchTimeout), and the next request waits for it.
func TestInlineMethod(t *testing.T) {
	ctxDone, release := make(chan error, 1), make(chan struct{})
	s, _ := startTest(t, func(s *ipc.Server) {
		s.DispatchTimeout = 50 * time.Millisecond
		s.Registry.Register("test.inline", func(ctx context.Context, _ json.RawMessage) (any, error) {
			if _, ok := ctx.Deadline(); !ok {
				return nil, errors.New("the handler's ctx has no deadline")
			}
			<-ctx.Done()
			ctxDone <- ctx.Err()
			<-release
			return "late answer", nil
		}, ipc.Inline())
	})
	c := dialRaw(t, s.Path)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"test.inline"}`)
	if err := <-ctxDone; !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("inline handler's ctx ended with %v, want %v", err, context.DeadlineExceeded)
	}
	// A plain method's timeout reply would be on its way now; an inline
	// one's connection is still in the handler.
	c.send(`{"jsonrpc":"2.0","id":2,"method":"test.ping"}`)
	close(release)
	if got, want := c.recv(), `{"jsonrpc":"2.0","result":"late answer","id":1}`; got != want {
		t.Errorf("reply = %s, want %s", got, want)
	}
	if got := c.recv(); !strings.Contains(got, `"id":2`) || strings.Contains(got, "error") {
		t.Errorf("next request's reply = %s, want test.ping's result", got)
	}
}

// TestTimedOutMutationNeverRuns blocks the executor so a mutation cannot
// start within the dispatch timeout, then checks it was answered -32002 and
// never applied, even after the executor frees up.
func TestTimedOutMutationNeverRuns(t *testing.T) {
	exec := ipc.NewQueueExecutor(8)
	exec.Start()
	defer exec.Close()
	s, st := startTest(t, func(s *ipc.Server) {
		s.Executor = exec
		s.DispatchTimeout = 50 * time.Millisecond
	})
	// The last mutation goes through a second server on the same registry
	// and executor, with the default dispatch timeout: within 50 ms, a
	// loaded machine could time it out too.
	patient := ipctest.StartServer(t, &ipc.Server{Registry: s.Registry, Executor: exec})

	release, started := make(chan struct{}), make(chan struct{})
	go exec.Do(context.Background(), func() { close(started); <-release })
	<-started

	err := ipctest.Client(s).Call(context.Background(), "test.mutate", nil, nil)
	var e *ipc.Error
	if !errors.As(err, &e) || e.Code != ipc.CodeTimeout {
		t.Fatalf("mutation behind a blocked executor = %v, want *ipc.Error code %d", err, ipc.CodeTimeout)
	}
	close(release)
	if err := exec.Do(context.Background(), func() {}); err != nil { // the queue has drained
		t.Fatal(err)
	}
	if got := st.mutations.Load(); got != 0 {
		t.Fatalf("mutations applied = %d, want 0: a timed-out mutation ran late", got)
	}
	var res struct{ Mutations int64 }
	if err := ipctest.Client(patient).Call(context.Background(), "test.mutate", nil, &res); err != nil || res.Mutations != 1 {
		t.Errorf("mutation on a free executor = %+v, %v; want mutations 1", res, err)
	}
}

// busyExecutor is an Executor whose queue is always full.
type busyExecutor struct{}

func (busyExecutor) Do(context.Context, func()) error { return ipc.ErrBusy }

func TestExecutorRefusals(t *testing.T) {
	closed := ipc.NewQueueExecutor(1)
	closed.Close()
	tests := []struct {
		name     string
		exec     ipc.Executor
		wantCode int
		wantMsg  string
	}{
		{"full queue", busyExecutor{}, ipc.CodeBusy, "Paneflow is busy; retry shortly"},
		{"closed executor", closed, ipc.CodeBusy, "Paneflow is shutting down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, st := startTest(t, func(s *ipc.Server) { s.Executor = tt.exec })
			err := ipctest.Client(s).Call(context.Background(), "test.mutate", nil, nil)
			var e *ipc.Error
			if !errors.As(err, &e) || e.Code != tt.wantCode || e.Message != tt.wantMsg {
				t.Fatalf("Call = %v, want code %d %q", err, tt.wantCode, tt.wantMsg)
			}
			if n := st.mutations.Load(); n != 0 {
				t.Errorf("mutations = %d, want 0", n)
			}
			// Plain methods do not use the executor.
			if err := ipctest.Client(s).Call(context.Background(), "test.ping", nil, nil); err != nil {
				t.Errorf("plain call = %v, want nil", err)
			}
		})
	}
}

func TestLongMethod(t *testing.T) {
	s, st := startTest(t, func(s *ipc.Server) { s.DispatchTimeout = 20 * time.Millisecond })
	t.Run("outlives the dispatch timeout", func(t *testing.T) {
		var got string
		err := ipctest.Client(s).Call(context.Background(), "test.long", map[string]int{"ms": 200}, &got)
		<-st.blockStarted
		if err != nil || got != "waited" {
			t.Fatalf("Call(test.long) = %q, %v; want \"waited\"", got, err)
		}
	})
	t.Run("cancelled when the client disconnects", func(t *testing.T) {
		c := dialRaw(t, s.Path)
		c.send(`{"jsonrpc":"2.0","id":1,"method":"test.long","params":{"ms":600000}}`)
		<-st.blockStarted
		c.nc.Close()
		if err := <-st.longDone; !errors.Is(err, context.Canceled) {
			t.Errorf("handler ctx error = %v, want %v", err, context.Canceled)
		}
	})
	t.Run("pipelined request is kept", func(t *testing.T) {
		c := dialRaw(t, s.Path)
		// Both Long: the 20 ms dispatch timeout could cut a plain one
		// short on a loaded machine.
		c.send(`{"jsonrpc":"2.0","id":1,"method":"test.long","params":{"ms":50}}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"test.long","params":{"ms":0}}`)
		<-st.blockStarted
		if got, want := c.recv(), `{"jsonrpc":"2.0","result":"waited","id":1}`; got != want {
			t.Errorf("first reply = %s, want %s", got, want)
		}
		if got, want := c.recv(), `{"jsonrpc":"2.0","result":"waited","id":2}`; got != want {
			t.Errorf("second reply = %s, want %s", got, want)
		}
	})
}

// TestStream runs with the default idle timeout: with 20 ms, as it did, a
// loaded machine could let a client's request or a frame's write miss it
// (a write deadline already past fails at once). The 100 ms pause it then
// took "longer than the idle timeout" proved nothing: Next after Close
// fails whatever the server did.
func TestStream(t *testing.T) {
	s, _ := startTest(t, nil)
	ctx := context.Background()
	t.Run("frames", func(t *testing.T) {
		st, err := ipctest.Client(s).Subscribe(ctx, "test.stream", map[string]int{"frames": 3})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		want := []string{`{"id":1,"type":"subscribed"}`, `{"n":0,"type":"tick"}`, `{"n":1,"type":"tick"}`, `{"n":2,"type":"tick"}`}
		for i, w := range want {
			got, err := st.Next()
			if err != nil || string(got) != w {
				t.Fatalf("frame %d = %s, %v; want %s", i, got, err, w)
			}
		}
		st.Close()
		if _, err := st.Next(); !errors.Is(err, net.ErrClosed) {
			t.Errorf("Next after Close = %v, want %v", err, net.ErrClosed)
		}
	})
	t.Run("error before the first frame", func(t *testing.T) {
		_, err := ipctest.Client(s).Subscribe(ctx, "test.stream", map[string]bool{"fail": true})
		var e *ipc.Error
		if !errors.As(err, &e) || e.Code != ipc.CodeInvalidParams || e.Message != "unknown event type: nope" {
			t.Errorf("Subscribe = %v, want *ipc.Error %d \"unknown event type: nope\"", err, ipc.CodeInvalidParams)
		}
	})
	t.Run("ctx cancellation closes the stream", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		st, err := ipctest.Client(s).Subscribe(cctx, "test.stream", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if _, err := st.Next(); err != nil {
			t.Fatal(err)
		}
		cancel()
		if _, err := st.Next(); !errors.Is(err, context.Canceled) {
			t.Errorf("Next after cancel = %v, want %v", err, context.Canceled)
		}
	})
}

// TestStreamSlotReleased checks that a client closing its stream frees the
// server's slot (the handler's ctx is cancelled on disconnect).
func TestStreamSlotReleased(t *testing.T) {
	s, _ := startTest(t, func(s *ipc.Server) { s.MaxStreams = 1 })
	st, err := ipctest.Client(s).Subscribe(context.Background(), "test.stream", nil)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	eventually(t, "a stream after the first one closed", func() error {
		st, err := ipctest.Client(s).Subscribe(context.Background(), "test.stream", nil)
		if err == nil {
			st.Close()
		}
		return err
	})
}

func TestShutdown(t *testing.T) {
	reg, st := newTestRegistry()
	s := &ipc.Server{Path: ipctest.NewPath(t), Registry: reg}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(context.Background()) }()

	stream, err := ipctest.Client(s).Subscribe(context.Background(), "test.stream", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	if _, err := stream.Next(); err != nil {
		t.Fatal(err)
	}
	inflight := dialRaw(t, s.Path)
	inflight.send(`{"jsonrpc":"2.0","id":1,"method":"test.block"}`)
	<-st.blockStarted
	idle := dialRaw(t, s.Path)
	idle.send(`{"jsonrpc":"2.0","id":1,"method":"test.ping"}`)
	idle.recv()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown = %v, want nil", err)
	}
	if err := <-served; !errors.Is(err, ipc.ErrServerClosed) {
		t.Errorf("Serve = %v, want %v", err, ipc.ErrServerClosed)
	}
	if _, err := os.Lstat(s.Path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("socket after Shutdown: Lstat error %v, want not exist", err)
	}
	if _, err := stream.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("stream Next after Shutdown = %v, want %v", err, io.EOF)
	}
	code, msg, _ := rpcError(t, inflight.recv())
	if code != ipc.CodeBusy || msg != "Paneflow is shutting down" {
		t.Errorf("in-flight request got code %d %q, want %d \"Paneflow is shutting down\"", code, msg, ipc.CodeBusy)
	}
	inflight.expectClosed()
	idle.expectClosed()

	if err := s.Shutdown(ctx); err != nil {
		t.Errorf("second Shutdown = %v, want nil", err)
	}
	if err := s.Serve(context.Background()); !errors.Is(err, ipc.ErrServerClosed) {
		t.Errorf("Serve after Shutdown = %v, want %v", err, ipc.ErrServerClosed)
	}
	if err := s.Listen(); !errors.Is(err, ipc.ErrServerClosed) {
		t.Errorf("Listen after Shutdown = %v, want %v", err, ipc.ErrServerClosed)
	}
}

func TestServeContextCancel(t *testing.T) {
	reg, _ := newTestRegistry()
	s := &ipc.Server{Path: ipctest.NewPath(t), Registry: reg}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx) }() // Serve listens itself
	eventually(t, "serving", func() error {
		return ipctest.Client(s).Call(context.Background(), "test.ping", nil, nil)
	})
	stream, err := ipctest.Client(s).Subscribe(context.Background(), "test.stream", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	cancel()
	if err := <-served; !errors.Is(err, context.Canceled) {
		t.Errorf("Serve = %v, want %v", err, context.Canceled)
	}
	if _, err := os.Lstat(s.Path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("socket after cancellation: Lstat error %v, want not exist", err)
	}
	for {
		if _, err := stream.Next(); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Errorf("stream after cancellation: %v, want %v", err, io.EOF)
			}
			break
		}
	}
}

func TestConcurrentClients(t *testing.T) {
	s, _ := startTest(t, nil)
	const clients, calls = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, clients*calls)
	for i := range clients {
		wg.Go(func() {
			c := ipctest.Client(s)
			for j := range calls {
				want := fmt.Sprintf("client %d call %d", i, j)
				var got struct{ S string }
				if err := c.Call(context.Background(), "test.echo", map[string]string{"s": want}, &got); err != nil {
					errs <- err
				} else if got.S != want {
					errs <- fmt.Errorf("echo = %q, want %q", got.S, want)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestSocketPermissions(t *testing.T) {
	base, err := os.MkdirTemp("", "pf")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	mode := func(p string) fs.FileMode {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}

	t.Run("new directories", func(t *testing.T) {
		s := ipctest.StartServer(t, &ipc.Server{Path: filepath.Join(base, "new", "paneflow", "paneflow.sock")})
		if got := mode(s.Path); got != 0o600 {
			t.Errorf("socket mode = %v, want 0600", got)
		}
		for _, d := range []string{filepath.Join(base, "new"), filepath.Join(base, "new", "paneflow")} {
			if got := mode(d); got != 0o700 {
				t.Errorf("%s mode = %v, want 0700", d, got)
			}
		}
	})
	t.Run("existing paneflow directory is tightened", func(t *testing.T) {
		dir := filepath.Join(base, "old", "paneflow")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		ipctest.StartServer(t, &ipc.Server{Path: filepath.Join(dir, "paneflow.sock")})
		if got := mode(dir); got != 0o700 {
			t.Errorf("%s mode = %v, want 0700", dir, got)
		}
	})
	t.Run("other existing directory is left alone", func(t *testing.T) {
		ipctest.StartServer(t, &ipc.Server{Path: filepath.Join(base, "custom.sock")})
		if got := mode(base); got != 0o755 {
			t.Errorf("%s mode = %v, want 0755 (not ours to change)", base, got)
		}
	})
}

// listenStale leaves a socket file at path with nothing listening.
func listenStale(t *testing.T, path string) {
	t.Helper()
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	if _, err := os.Lstat(path); err != nil {
		t.Fatalf("stale socket was not left behind: %v", err)
	}
}

func TestStaleSocketReplaced(t *testing.T) {
	path := ipctest.NewPath(t)
	listenStale(t, path)
	s, _ := startTest(t, func(s *ipc.Server) { s.Path = path })
	if err := ipctest.Client(s).Call(context.Background(), "test.ping", nil, nil); err != nil {
		t.Errorf("call after replacing a stale socket: %v", err)
	}
}

func TestSquatterReplaced(t *testing.T) {
	path := ipctest.NewPath(t)
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // answers like something that is not Paneflow
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			nc.Write([]byte(`{"jsonrpc":"2.0","result":{"name":"other"},"id":1}` + "\n"))
			nc.Close()
		}
	}()
	s, _ := startTest(t, func(s *ipc.Server) { s.Path = path })
	if err := ipctest.Client(s).Call(context.Background(), "test.ping", nil, nil); err != nil {
		t.Errorf("call after replacing a squatter: %v", err)
	}
}

func TestLiveInstanceRefused(t *testing.T) {
	first, _ := startTest(t, nil)
	reg, _ := newTestRegistry()
	second := &ipc.Server{Path: first.Path, Registry: reg}
	err := second.Listen()
	var running *ipc.InstanceRunningError
	if !errors.As(err, &running) {
		t.Fatalf("Listen on a live instance's path = %v, want *ipc.InstanceRunningError", err)
	}
	if running.Path != first.Path || !strings.Contains(running.Identify, `"PaneFlow"`) || !strings.Contains(err.Error(), first.Path) {
		t.Errorf("error %q (identify %q), want it to name %s and carry the identify line", err, running.Identify, first.Path)
	}
	if err := ipctest.Client(first).Call(context.Background(), "test.ping", nil, nil); err != nil {
		t.Errorf("the first instance stopped serving: %v", err)
	}
	line, alive := ipc.ProbeInstance(first.Path, 0)
	if !alive || !strings.Contains(line, `"PaneFlow"`) {
		t.Errorf("ProbeInstance = %q, %v; want the identify line, true", line, alive)
	}
}

func TestReplaceRunning(t *testing.T) {
	first, _ := startTest(t, nil)
	s, _ := startTest(t, func(s *ipc.Server) {
		s.Path = first.Path
		s.ReplaceRunning = true
	})
	if err := ipctest.Client(s).Call(context.Background(), "test.ping", nil, nil); err != nil {
		t.Errorf("call to the replacing server: %v", err)
	}
	// The first server must not remove the second one's socket.
	if err := first.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(s.Path); err != nil {
		t.Errorf("socket after the replaced server shut down: %v, want it kept", err)
	}
}

func TestListenRefusesNonSocket(t *testing.T) {
	path := ipctest.NewPath(t)
	if err := os.WriteFile(path, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &ipc.Server{Path: path}
	if err := s.Listen(); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Errorf("Listen over a regular file = %v, want a \"not a socket\" error", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "precious" {
		t.Errorf("file content = %q, want it untouched", data)
	}
}

func TestProbeInstanceNothingThere(t *testing.T) {
	line, alive := ipc.ProbeInstance(ipctest.NewPath(t), 50*time.Millisecond)
	if alive || line != "" {
		t.Errorf("ProbeInstance on a missing socket = %q, %v; want \"\", false", line, alive)
	}
}

func TestRegistry(t *testing.T) {
	r := ipc.NewRegistry()
	h := func(context.Context, json.RawMessage) (any, error) { return nil, nil }
	r.Register("b", h)
	r.Register("a", h, ipc.Mutating())
	r.RegisterStream("c", func(context.Context, json.RawMessage, ipc.FrameWriter) error { return nil })
	if got := strings.Join(r.Methods(), ","); got != "a,b,c" {
		t.Errorf("Methods() = %s, want a,b,c", got)
	}
	for name, f := range map[string]func(){
		"duplicate": func() { r.Register("a", h) },
		"duplicate stream": func() {
			r.RegisterStream("b", func(context.Context, json.RawMessage, ipc.FrameWriter) error { return nil })
		},
		"empty name":          func() { r.Register("", h) },
		"nil handler":         func() { r.Register("d", nil) },
		"mutating and long":   func() { r.Register("e", h, ipc.Mutating(), ipc.Long()) },
		"inline and mutating": func() { r.Register("f", h, ipc.Inline(), ipc.Mutating()) },
		"long and inline":     func() { r.Register("g", h, ipc.Long(), ipc.Inline()) },
		"inline with before": func() {
			r.Register("i", h, ipc.Inline(), ipc.Before(func(context.Context, json.RawMessage) error { return nil }))
		},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic, want one")
				}
			}()
			f()
		})
	}
}

// TestShutdownAnswersItsTrigger: a handler that starts the shutdown (as
// system.shutdown does) with AfterReply has its result sent first; the
// shutdown then runs, and AfterReply outside a request reports false.
func TestShutdownAnswersItsTrigger(t *testing.T) {
	var s *ipc.Server
	shutdown := make(chan error, 1)
	s, _ = startTest(t, func(srv *ipc.Server) {
		srv.Registry.Register("test.stop", func(ctx context.Context, _ json.RawMessage) (any, error) {
			ok := ipc.AfterReply(ctx, func() {
				go func() {
					sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					defer cancel()
					shutdown <- s.Shutdown(sctx)
				}()
			})
			return ok, nil
		})
	})
	c := dialRaw(t, s.Path)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"test.stop"}`)
	if got, want := c.recv(), `{"jsonrpc":"2.0","result":true,"id":1}`; got != want {
		t.Errorf("reply = %s, want %s", got, want)
	}
	if err := <-shutdown; err != nil {
		t.Errorf("Shutdown = %v", err)
	}
	if ipc.AfterReply(context.Background(), func() { t.Error("ran outside a request") }) {
		t.Error("AfterReply(Background) = true")
	}
}
