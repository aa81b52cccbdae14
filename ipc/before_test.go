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
	}, ipc.Mutating(), ipc.Before(func(ctx context.Context, params json.RawMessage) error {
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
	}))
	reg.Register("quick.set", func(context.Context, json.RawMessage) (any, error) {
		ran <- "quick"
		return "quick done", nil
	}, ipc.Mutating())
	exec := ipc.NewQueueExecutor(0)
	exec.Start()
	t.Cleanup(exec.Close)
	srv := ipctest.StartServer(t, &ipc.Server{Registry: reg, Executor: exec, DispatchTimeout: time.Minute})
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
