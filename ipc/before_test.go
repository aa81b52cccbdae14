//go:build unix

package ipc_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
)

// startWithExecutor serves reg with a mutation executor and a dispatch
// timeout of a minute.
func startWithExecutor(t *testing.T, reg *ipc.Registry) *ipc.Server {
	exec := ipc.NewQueueExecutor(0)
	exec.Start()
	t.Cleanup(exec.Close)
	return ipctest.StartServer(t, &ipc.Server{Registry: reg, Executor: exec, DispatchTimeout: time.Minute})
}

// heldHook is a Before hook that refuses params {"refuse":true}, and
// otherwise closes entered and waits until release is closed or its ctx
// ends.
func heldHook(entered, release chan struct{}) func(context.Context, json.RawMessage) error {
	return func(ctx context.Context, params json.RawMessage) error {
		if string(params) == `{"refuse":true}` {
			return ipc.InvalidParams("refused before")
		}
		close(entered)
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// TestBeforeRunsOutsideTheExecutor: a mutation whose Before hook is
// waiting does not hold the executor, so another mutation completes
// meanwhile; the handler runs once the hook returns, and a hook's error is
// the reply with the handler not run.
func TestBeforeRunsOutsideTheExecutor(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	ran := make(chan string, 4)
	reg := ipc.NewRegistry()
	reg.Register("slow.set", func(context.Context, json.RawMessage) (any, error) {
		ran <- "slow"
		return "slow done", nil
	}, ipc.Mutating(), ipc.Before(heldHook(entered, release)))
	reg.Register("quick.set", func(context.Context, json.RawMessage) (any, error) {
		ran <- "quick"
		return "quick done", nil
	}, ipc.Mutating())
	srv := startWithExecutor(t, reg)
	c := &ipc.Client{Path: srv.Path, Timeout: time.Minute}
	ctx := context.Background()

	slow := make(chan error, 1)
	go func() {
		var res string
		err := c.Call(ctx, "slow.set", map[string]any{}, &res)
		if err == nil && res != "slow done" {
			err = errors.New("slow.set answered " + res)
		}
		slow <- err
	}()
	<-entered
	var res string
	if err := c.Call(ctx, "quick.set", nil, &res); err != nil || res != "quick done" {
		t.Fatalf("quick.set while slow.set's hook waits = %q, %v", res, err)
	}
	select {
	case err := <-slow:
		t.Fatalf("slow.set returned (%v) before its hook was released", err)
	default:
	}
	if got := <-ran; got != "quick" {
		t.Fatalf("first handler run = %s, want quick (slow's handler must wait for its hook)", got)
	}
	close(release)
	if err := <-slow; err != nil {
		t.Fatal(err)
	}
	if got := <-ran; got != "slow" {
		t.Fatalf("second handler run = %s, want slow", got)
	}

	err := c.Call(ctx, "slow.set", map[string]any{"refuse": true}, nil)
	var ie *ipc.Error
	if !errors.As(err, &ie) || ie.Code != ipc.CodeInvalidParams || ie.Message != "refused before" {
		t.Fatalf("refusing hook: %v, want -32602 refused before", err)
	}
	select {
	case got := <-ran:
		t.Fatalf("handler %s ran after its hook refused", got)
	default:
	}
}

// TestBeforeOutlivesTheDispatchTimeout: a Before hook may wait longer
// than the dispatch timeout (its ctx ends only with the client or the
// server), and the handler still runs after it.
func TestBeforeOutlivesTheDispatchTimeout(t *testing.T) {
	const dispatch = time.Second
	reg := ipc.NewRegistry()
	reg.Register("slow.get", func(context.Context, json.RawMessage) (any, error) {
		return "done", nil
	}, ipc.Before(func(ctx context.Context, _ json.RawMessage) error {
		select {
		case <-time.After(dispatch + dispatch/2):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}))
	srv := ipctest.StartServer(t, &ipc.Server{Registry: reg, DispatchTimeout: dispatch})
	c := &ipc.Client{Path: srv.Path, Timeout: time.Minute}
	var res string
	if err := c.Call(context.Background(), "slow.get", nil, &res); err != nil || res != "done" {
		t.Fatalf("slow.get, whose hook waits past the dispatch timeout = %q, %v", res, err)
	}
}

// TestBeforeOnAConcurrentConnection: on a Mux, a request whose Before
// hook waits is in flight like a Long one: a Long call sent after it on
// the same connection is answered while the hook still waits.
func TestBeforeOnAConcurrentConnection(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	reg := ipc.NewRegistry()
	reg.Register("slow.set", func(context.Context, json.RawMessage) (any, error) {
		return "slow done", nil
	}, ipc.Mutating(), ipc.Before(heldHook(entered, release)))
	reg.Register("quick.wait", func(context.Context, json.RawMessage) (any, error) {
		return "quick done", nil
	}, ipc.Long())
	srv := startWithExecutor(t, reg)
	ctx := context.Background()
	m, err := ipc.DialMux(ctx, srv.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	slow := make(chan error, 1)
	go func() {
		var res string
		err := m.Call(ctx, "slow.set", nil, &res)
		if err == nil && res != "slow done" {
			err = errors.New("slow.set answered " + res)
		}
		slow <- err
	}()
	<-entered
	var res string
	qctx, cancel := context.WithTimeout(ctx, 20*time.Second) // a bound for the failure only
	defer cancel()
	if err := m.Call(qctx, "quick.wait", nil, &res); err != nil || res != "quick done" {
		t.Fatalf("quick.wait while slow.set's hook waits on the same connection = %q, %v", res, err)
	}
	close(release)
	if err := <-slow; err != nil {
		t.Fatal(err)
	}
}
