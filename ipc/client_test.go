//go:build unix

package ipc_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
)

// fakeServer serves each connection with reply, which gets the request
// line and returns what to send back ("" sends nothing and keeps the
// connection open until the client leaves; "close" closes it at once).
func fakeServer(t *testing.T, reply func(req string) string) string {
	t.Helper()
	path := ipctest.NewPath(t)
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer nc.Close()
				r := bufio.NewReader(nc)
				line, err := r.ReadString('\n')
				if err != nil {
					return
				}
				switch out := reply(strings.TrimSuffix(line, "\n")); out {
				case "":
					r.ReadString('\n') // until the client closes
				case "close":
				default:
					nc.Write([]byte(out))
				}
			}()
		}
	}()
	return path
}

// requestID returns the id of a request line.
func requestID(t *testing.T, req string) int64 {
	var r struct{ ID int64 }
	if err := json.Unmarshal([]byte(req), &r); err != nil {
		t.Errorf("request %q: %v", req, err)
	}
	return r.ID
}

func TestClientTimeouts(t *testing.T) {
	silent := fakeServer(t, func(string) string { return "" })
	tests := []struct {
		name    string
		timeout time.Duration
		ctxWait time.Duration // 0: no ctx deadline
		want    func(error) bool
		wantMsg string
	}{
		{"client timeout", 50 * time.Millisecond, 0, func(err error) bool {
			var te *ipc.TimeoutError
			return errors.As(err, &te)
		}, "paneflow did not respond within 50ms"},
		{"earlier ctx deadline wins", time.Minute, 50 * time.Millisecond, func(err error) bool {
			return errors.Is(err, context.DeadlineExceeded)
		}, context.DeadlineExceeded.Error()},
		{"negative timeout: only ctx", -1, 50 * time.Millisecond, func(err error) bool {
			return errors.Is(err, context.DeadlineExceeded)
		}, context.DeadlineExceeded.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.ctxWait > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.ctxWait)
				defer cancel()
			}
			c := &ipc.Client{Path: silent, Timeout: tt.timeout}
			err := c.Call(ctx, "test.ping", nil, nil)
			if !tt.want(err) || err.Error() != tt.wantMsg {
				t.Errorf("Call = %v (%T), want %q", err, err, tt.wantMsg)
			}
		})
	}
	if got, want := (&ipc.TimeoutError{After: ipc.DefaultCallTimeout}).Error(), "paneflow did not respond within 10s"; got != want {
		t.Errorf("default timeout message = %q, want %q", got, want)
	}
}

func TestClientUnreachable(t *testing.T) {
	missing := ipctest.NewPath(t)
	closer := fakeServer(t, func(string) string { return "close" })
	for _, tt := range []struct {
		name, path, wantInner string
	}{
		{"nothing listening", missing, "no such file or directory"},
		{"closed without a reply", closer, "connection closed without a reply"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := (&ipc.Client{Path: tt.path}).Call(context.Background(), "test.ping", nil, nil)
			var ue *ipc.UnreachableError
			if !errors.As(err, &ue) {
				t.Fatalf("Call = %v (%T), want *ipc.UnreachableError", err, err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "paneflow IPC unreachable at "+tt.path+" (") ||
				!strings.HasSuffix(msg, "); is Paneflow running?") || !strings.Contains(msg, tt.wantInner) {
				t.Errorf("message %q, want \"paneflow IPC unreachable at %s (…%s…); is Paneflow running?\"", msg, tt.path, tt.wantInner)
			}
		})
	}
	if _, err := (&ipc.Client{Path: missing}).Subscribe(context.Background(), "test.stream", nil); !errors.As(err, new(*ipc.UnreachableError)) {
		t.Errorf("Subscribe = %v, want *ipc.UnreachableError", err)
	}
}

func TestClientReplyCap(t *testing.T) {
	// sized replies a string result padded so the whole line is size bytes.
	sized := func(size int) string {
		return fakeServer(t, func(req string) string {
			head := `{"jsonrpc":"2.0","result":"`
			tail := fmt.Sprintf(`","id":%d}`, requestID(t, req))
			return head + strings.Repeat("r", size-len(head)-len(tail)-1) + tail + "\n"
		})
	}
	var got string
	if err := (&ipc.Client{Path: sized(ipc.MaxFrame)}).Call(context.Background(), "x", nil, &got); err != nil || len(got) == 0 {
		t.Errorf("reply of exactly MaxFrame: %v, want it accepted", err)
	}
	err := (&ipc.Client{Path: sized(ipc.MaxFrame + 1)}).Call(context.Background(), "x", nil, &got)
	if !errors.Is(err, ipc.ErrResponseTooLarge) || err.Error() != "paneflow response exceeded the size cap" {
		t.Errorf("reply of MaxFrame+1: %v, want %v", err, ipc.ErrResponseTooLarge)
	}
}

func TestClientReplyShapes(t *testing.T) {
	tests := []struct {
		name    string
		reply   string // %d is the request id
		wantErr string // "" for success
		want    string // result, for success
	}{
		{"result", `{"jsonrpc":"2.0","result":"fine","id":%d}`, "", "fine"},
		{"legacy error result", `{"jsonrpc":"2.0","result":{"error":"Index out of bounds"},"id":%d}`, "Index out of bounds", ""},
		{"error with other id", `{"jsonrpc":"2.0","error":{"code":-32000,"message":"server busy: too many concurrent connections"},"id":null}`, "server busy: too many concurrent connections", ""},
		{"wrong id", `{"jsonrpc":"2.0","result":"x","id":0}`, "ipc: reply has id 0, want", ""},
		{"not JSON", `garbage`, "ipc: malformed reply", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := fakeServer(t, func(req string) string {
				r := tt.reply
				if strings.Contains(r, "%d") {
					r = fmt.Sprintf(r, requestID(t, req))
				}
				return r + "\n"
			})
			var got string
			err := (&ipc.Client{Path: path}).Call(context.Background(), "x", nil, &got)
			switch {
			case tt.wantErr == "" && (err != nil || got != tt.want):
				t.Errorf("Call = %q, %v; want %q", got, err, tt.want)
			case tt.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.wantErr)):
				t.Errorf("Call error = %v, want %q…", err, tt.wantErr)
			}
		})
	}
}

func TestClientRequestLine(t *testing.T) {
	reqs := make(chan string, 2)
	path := fakeServer(t, func(req string) string {
		reqs <- req
		return fmt.Sprintf(`{"jsonrpc":"2.0","result":null,"id":%d}`+"\n", requestID(t, req))
	})
	c := &ipc.Client{Path: path}
	if err := c.Call(context.Background(), "a.b", map[string]int{"n": 1}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(context.Background(), "a.b", nil, nil); err != nil {
		t.Fatal(err)
	}
	first, second := <-reqs, <-reqs
	id1, id2 := requestID(t, first), requestID(t, second)
	if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"a.b","params":{"n":1}}`, id1); first != want {
		t.Errorf("request line = %s, want %s", first, want)
	}
	if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"a.b"}`, id2); second != want {
		t.Errorf("request line without params = %s, want %s", second, want)
	}
	if id2 <= id1 {
		t.Errorf("ids %d then %d, want increasing", id1, id2)
	}
}

func TestClientNotify(t *testing.T) {
	s, st := startTest(t, nil)
	if err := ipctest.Client(s).Notify(context.Background(), "test.count", nil); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the notification to run", func() error {
		if n := st.notified.Load(); n != 1 {
			return fmt.Errorf("test.count ran %d times, want 1", n)
		}
		return nil
	})
}

// cancelOnFirstRead is a connection whose first Read cancels the
// subscription's ctx and returns only after the ctx's watch has set its
// past deadline: the moment between Subscribe reading the first frame and
// clearing the connection's deadline for the quiet stream.
type cancelOnFirstRead struct {
	net.Conn
	cancel   context.CancelFunc
	past     chan struct{} // closed by the first past deadline
	pastOnce sync.Once
	readOnce sync.Once
}

func (c *cancelOnFirstRead) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.readOnce.Do(func() {
		c.cancel()
		<-c.past
	})
	return n, err
}

func (c *cancelOnFirstRead) SetDeadline(t time.Time) error {
	if !t.IsZero() && t.Before(time.Now()) {
		c.pastOnce.Do(func() { close(c.past) })
	}
	return c.Conn.SetDeadline(t)
}

// TestSubscribeCancelledAtFirstFrame: a subscription whose ctx ends while
// its first frame is read must not be left blocked on a quiet stream (the
// web client's event stream did that when the server shut down just after
// it subscribed, and the shutdown waited out its deadline).
func TestSubscribeCancelledAtFirstFrame(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client, server := net.Pipe()
	defer server.Close()
	go func() { // answers the request with one frame, then stays quiet
		if _, err := bufio.NewReader(server).ReadString('\n'); err == nil {
			server.Write([]byte(`{"event":"first"}` + "\n"))
		}
	}()
	nc := &cancelOnFirstRead{Conn: client, cancel: cancel, past: make(chan struct{})}
	c := &ipc.Client{Path: "pipe", Dial: func(context.Context) (net.Conn, error) { return nc, nil }}
	st, err := c.Subscribe(ctx, "test.stream", nil)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Subscribe = %v, want the stream or context.Canceled", err)
		}
		return
	}
	defer st.Close()
	if _, err := st.Next(); err != nil { // the first frame
		t.Fatalf("first Next = %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := st.Next()
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Next = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second): // a guard against a hang, not a timing
		t.Fatal("Next still blocked 10 s after the ctx ended")
	}
}

// TestCallRawResultKept: a json.RawMessage result refers to the reply's
// buffer without a copy, so Call must not give that buffer to a later
// call (spareReader); other results are copied out and their buffer is
// reused. Each result must stay as it was after many more calls.
func TestCallRawResultKept(t *testing.T) {
	s, _ := startTest(t, nil)
	c := ipctest.Client(s)
	ctx := context.Background()
	var raws []json.RawMessage
	for i := range 20 {
		var raw json.RawMessage
		if err := c.Call(ctx, "test.echo", map[string]int{"n": i}, &raw); err != nil {
			t.Fatal(err)
		}
		raws = append(raws, raw)
		var typed struct{ N int }
		if err := c.Call(ctx, "test.echo", map[string]int{"n": 100 + i}, &typed); err != nil || typed.N != 100+i {
			t.Fatalf("typed call %d = %+v, %v", i, typed, err)
		}
	}
	for i, raw := range raws {
		if want := fmt.Sprintf(`{"n":%d}`, i); string(raw) != want {
			t.Errorf("raw result %d is now %s, want %s", i, raw, want)
		}
	}
}

// TestCallRaw: CallRaw hands the raw result to use and returns use's
// error; a server error is returned without calling use.
func TestCallRaw(t *testing.T) {
	s, _ := startTest(t, nil)
	c := ipctest.Client(s)
	ctx := context.Background()
	for i := range 3 {
		var got string
		err := c.CallRaw(ctx, "test.echo", map[string]int{"n": i}, func(raw json.RawMessage) error {
			got = string(raw) // a copy: raw is the next call's buffer
			return nil
		})
		if want := fmt.Sprintf(`{"n":%d}`, i); err != nil || got != want {
			t.Fatalf("CallRaw %d: %s, %v; want %s", i, got, err, want)
		}
	}
	useErr := errors.New("use failed")
	if err := c.CallRaw(ctx, "test.null", nil, func(raw json.RawMessage) error {
		if string(raw) != "null" {
			t.Errorf("null result = %q, want null", raw)
		}
		return useErr
	}); err != useErr {
		t.Errorf("CallRaw returned %v, want use's error", err)
	}
	called := false
	err := c.CallRaw(ctx, "test.fail", nil, func(json.RawMessage) error { called = true; return nil })
	var e *ipc.Error
	if !errors.As(err, &e) || e.Code != 1234 || called {
		t.Errorf("CallRaw of a failing method = %v (use called: %v), want the *ipc.Error 1234 and no call", err, called)
	}
}
