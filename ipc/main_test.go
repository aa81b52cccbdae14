package ipc_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
)

// TestMain lets the test binary act as a helper client (see helperClient)
// when IPC_TEST_HELPER is set, e.g. for running as another user.
func TestMain(m *testing.M) {
	if os.Getenv("IPC_TEST_HELPER") == "client" {
		os.Exit(helperClient(os.Getenv("IPC_TEST_SOCKET")))
	}
	os.Exit(m.Run())
}

// helperClient connects to path, sends one test.ping and prints the first
// line it gets back.
func helperClient(path string) int {
	nc, err := net.DialTimeout("unix", path, 5*time.Second)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dial:", err)
		return 1
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(5 * time.Second))
	nc.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"test.ping"}` + "\n")) // may fail: the refusal is read below
	line, err := bufio.NewReader(nc).ReadString('\n')
	if err != nil {
		fmt.Fprintln(os.Stderr, "read:", err)
		return 1
	}
	fmt.Print(line)
	return 0
}

// testState is what the test registry's handlers record.
type testState struct {
	mutations atomic.Int64 // test.mutate runs
	notified  atomic.Int64 // test.count runs
	// blockStarted receives once per test.block or test.long start.
	blockStarted chan struct{}
	// longDone receives the ctx error a test.long handler ended with.
	longDone chan error
}

// newTestRegistry returns the small registry the server tests use.
func newTestRegistry() (*ipc.Registry, *testState) {
	st := &testState{blockStarted: make(chan struct{}, 16), longDone: make(chan error, 16)}
	r := ipc.NewRegistry()
	r.Register("system.identify", func(context.Context, json.RawMessage) (any, error) {
		return map[string]string{"name": "PaneFlow", "version": "test", "protocol": "jsonrpc-2.0"}, nil
	})
	r.Register("test.ping", func(context.Context, json.RawMessage) (any, error) {
		return map[string]bool{"pong": true}, nil
	})
	r.Register("test.echo", func(_ context.Context, p json.RawMessage) (any, error) {
		return p, nil
	})
	r.Register("test.null", func(context.Context, json.RawMessage) (any, error) { return nil, nil })
	r.Register("test.params", func(_ context.Context, p json.RawMessage) (any, error) {
		var args struct {
			N *int `json:"n"`
		}
		if err := json.Unmarshal(p, &args); err != nil || args.N == nil {
			return nil, ipc.InvalidParams("n must be an integer")
		}
		return map[string]int{"double": 2 * *args.N}, nil
	})
	r.Register("test.fail", func(context.Context, json.RawMessage) (any, error) {
		return nil, &ipc.Error{Code: 1234, Message: "custom failure", Data: map[string]string{"hint": "x"}}
	})
	r.Register("test.wrapped", func(context.Context, json.RawMessage) (any, error) {
		return nil, fmt.Errorf("context: %w", ipc.InvalidParams("wrapped invalid"))
	})
	r.Register("test.typednil", func(context.Context, json.RawMessage) (any, error) {
		var e *ipc.Error
		return "ok", e
	})
	r.Register("test.internal", func(context.Context, json.RawMessage) (any, error) {
		return nil, errors.New("disk on fire")
	})
	r.Register("test.panic", func(context.Context, json.RawMessage) (any, error) { panic("boom") })
	r.Register("test.unencodable", func(context.Context, json.RawMessage) (any, error) {
		return map[string]any{"f": func() {}}, nil
	})
	r.Register("test.count", func(context.Context, json.RawMessage) (any, error) {
		st.notified.Add(1)
		return nil, nil
	})
	r.Register("test.mutate", func(context.Context, json.RawMessage) (any, error) {
		return map[string]int64{"mutations": st.mutations.Add(1)}, nil
	}, ipc.Mutating())
	r.Register("test.block", func(ctx context.Context, _ json.RawMessage) (any, error) {
		st.blockStarted <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	r.Register("test.sleep", func(ctx context.Context, p json.RawMessage) (any, error) {
		var args struct{ Ms int }
		json.Unmarshal(p, &args)
		select {
		case <-time.After(time.Duration(args.Ms) * time.Millisecond):
			return "slept", nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	r.Register("test.long", func(ctx context.Context, p json.RawMessage) (any, error) {
		var args struct{ Ms int }
		json.Unmarshal(p, &args)
		st.blockStarted <- struct{}{}
		select {
		case <-time.After(time.Duration(args.Ms) * time.Millisecond):
			return "waited", nil
		case <-ctx.Done():
			st.longDone <- ctx.Err()
			return nil, ctx.Err()
		}
	}, ipc.Long())
	r.Register("ai.test", func(context.Context, json.RawMessage) (any, error) { // a hook frame (KindHook)
		return map[string]bool{"ok": true}, nil
	})
	r.Register("test.big", func(_ context.Context, p json.RawMessage) (any, error) {
		var args struct{ N int }
		json.Unmarshal(p, &args)
		return strings.Repeat("b", args.N), nil
	})
	r.RegisterStream("test.stream", func(ctx context.Context, p json.RawMessage, w ipc.FrameWriter) error {
		var args struct {
			Frames int
			Fail   bool
		}
		json.Unmarshal(p, &args)
		if args.Fail {
			return ipc.InvalidParams("unknown event type: nope")
		}
		if err := w.WriteFrame(map[string]any{"type": "subscribed", "id": 1}); err != nil {
			return err
		}
		for i := range args.Frames {
			if err := w.WriteFrame(map[string]any{"type": "tick", "n": i}); err != nil {
				return err
			}
		}
		<-ctx.Done()
		return nil
	})
	return r, st
}

// startTest starts a server with the test registry; configure may set
// fields before it listens.
func startTest(t *testing.T, configure func(*ipc.Server)) (*ipc.Server, *testState) {
	t.Helper()
	reg, st := newTestRegistry()
	s := &ipc.Server{Registry: reg}
	if configure != nil {
		configure(s)
	}
	return ipctest.StartServer(t, s), st
}

// listenTest is startTest in two steps: the server listens, and serve
// starts it (see ipctest.Listen). A test that dials and writes in between
// has its request in place before the server's idle timer starts.
func listenTest(t *testing.T, configure func(*ipc.Server)) (*ipc.Server, *testState, func()) {
	t.Helper()
	reg, st := newTestRegistry()
	s := &ipc.Server{Registry: reg}
	if configure != nil {
		configure(s)
	}
	serve := ipctest.Listen(t, s)
	return s, st, func() { serve() }
}

// rawConn is a line-oriented test connection.
type rawConn struct {
	t  *testing.T
	nc net.Conn
	r  *bufio.Reader
}

func dialRaw(t *testing.T, path string) *rawConn {
	t.Helper()
	nc, err := net.DialTimeout("unix", path, 10*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", path, err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(30 * time.Second))
	return &rawConn{t: t, nc: nc, r: bufio.NewReaderSize(nc, 1<<20)}
}

func (c *rawConn) send(line string) {
	c.t.Helper()
	if _, err := c.nc.Write([]byte(line + "\n")); err != nil {
		c.t.Fatalf("write %.80q: %v", line, err)
	}
}

// recv reads one line, without its newline.
func (c *rawConn) recv() string {
	c.t.Helper()
	line, err := c.r.ReadString('\n')
	if err != nil {
		c.t.Fatalf("read: %v (partial %q)", err, line)
	}
	return strings.TrimSuffix(line, "\n")
}

// expectClosed checks that the server closes the connection without
// sending anything more.
func (c *rawConn) expectClosed() {
	c.t.Helper()
	line, err := c.r.ReadString('\n')
	if err == nil || line != "" {
		c.t.Fatalf("read %q, %v; want the connection closed with nothing more", line, err)
	}
	if !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) {
		c.t.Fatalf("read error %v, want EOF", err)
	}
}

// rpcError decodes an error reply.
func rpcError(t *testing.T, line string) (code int, msg string, id string) {
	t.Helper()
	var r struct {
		Error *ipc.Error      `json:"error"`
		ID    json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal([]byte(line), &r); err != nil || r.Error == nil {
		t.Fatalf("reply %q is not an error reply (%v)", line, err)
	}
	return r.Error.Code, r.Error.Message, string(r.ID)
}

// eventually retries f until it returns nil or 10 s pass.
func eventually(t *testing.T, what string, f func() error) {
	t.Helper()
	var err error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if err = f(); err == nil {
			return
		}
	}
	t.Fatalf("%s: still failing after 10s: %v", what, err)
}
