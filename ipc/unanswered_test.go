//go:build unix

package ipc_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
)

// TestUnansweredNotification: a notification gets no reply; one whose
// handler fails is told to the method's Unanswered hook with the error
// the reply would have had, one that succeeds is not, and a call's error
// goes in its reply, not to the hook. Notifications sent with
// Redialer.NotifyNow run in order, before a call made after them.
func TestUnansweredNotification(t *testing.T) {
	type failure struct {
		params string
		err    *ipc.Error
	}
	failed := make(chan failure, 8)
	ran := make(chan int, 8)
	reg := ipc.NewRegistry()
	reg.Register("test.note", func(_ context.Context, p json.RawMessage) (any, error) {
		var args struct{ N int }
		json.Unmarshal(p, &args)
		ran <- args.N
		if args.N < 0 {
			return nil, ipc.InvalidParams("negative %d", args.N)
		}
		return args.N, nil
	}, ipc.Inline(), ipc.Unanswered(func(_ context.Context, p json.RawMessage, err *ipc.Error) {
		failed <- failure{string(p), err}
	}))
	srv := ipctest.StartServer(t, &ipc.Server{Registry: reg})
	ctx := context.Background()
	m, err := ipc.DialMux(ctx, srv.Path)
	if err != nil {
		t.Fatal(err)
	}
	r := ipc.NewRedialer(m, 0, func(ctx context.Context) (*ipc.Mux, error) { return ipc.DialMux(ctx, srv.Path) })
	defer r.Close()
	for _, n := range []int{1, -2, 3} {
		if _, ok, err := r.NotifyNow("test.note", map[string]int{"n": n}); !ok || err != nil {
			t.Fatalf("NotifyNow(%d): ok %v, %v", n, ok, err)
		}
	}
	var got int
	if err := r.Call(ctx, "test.note", map[string]int{"n": 4}, &got); err != nil || got != 4 {
		t.Fatalf("call after the notifications: %d, %v", got, err)
	}
	for _, want := range []int{1, -2, 3, 4} {
		if n := <-ran; n != want {
			t.Fatalf("ran %d, want %d: notifications out of order", n, want)
		}
	}
	select {
	case f := <-failed:
		if f.params != `{"n":-2}` || f.err.Code != ipc.CodeInvalidParams || f.err.Message != "negative -2" {
			t.Fatalf("hook told %s: %d %q, want the -2 notification's invalid params", f.params, f.err.Code, f.err.Message)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the failed notification was not told to the hook")
	}
	if err := r.Call(ctx, "test.note", map[string]int{"n": -5}, nil); err == nil {
		t.Fatal("a failing call had no error reply")
	}
	<-ran
	select {
	case f := <-failed:
		t.Fatalf("hook told %s: %v; want only the failed notification", f.params, f.err)
	default:
	}
}

// TestUnansweredTooManyInFlight: a Long notification refused because
// MaxInFlight Long requests already run on its connection is told to the
// hook, as one refused by admission is.
func TestUnansweredTooManyInFlight(t *testing.T) {
	release := make(chan struct{})
	failed := make(chan *ipc.Error, 1)
	reg := ipc.NewRegistry()
	reg.Register("test.hold", func(ctx context.Context, _ json.RawMessage) (any, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return true, nil
	}, ipc.Long(), ipc.Unanswered(func(_ context.Context, _ json.RawMessage, err *ipc.Error) { failed <- err }))
	srv := ipctest.StartServer(t, &ipc.Server{Registry: reg})
	m, err := ipc.DialMux(context.Background(), srv.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	defer close(release)
	for range ipc.MaxInFlight {
		if _, err := m.Start("test.hold", nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.Notify("test.hold", nil); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-failed:
		if err.Code != ipc.CodeBusy {
			t.Fatalf("hook told %d %q, want busy", err.Code, err.Message)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the refused notification was not told to the hook")
	}
}
