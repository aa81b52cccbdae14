package ipc_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
)

// These tests exercise the blocking connection a Client uses for a call on
// Linux (callconn_linux.go) through the Client.

// TestCallCancelledWhileBlocked cancels a call whose read is blocked in
// the kernel: the shutdown must wake it.
func TestCallCancelledWhileBlocked(t *testing.T) {
	path := fakeServer(t, func(string) string { return "" }) // never answers
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	err := (&ipc.Client{Path: path, Timeout: time.Minute}).Call(ctx, "test.wait", nil, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Call = %v, want context.Canceled", err)
	}
}

// TestCallSurvivesSignals delivers signals to the process while a call
// waits for its reply: reads with a socket timeout end with EINTR even
// under SA_RESTART, and must resume.
func TestCallSurvivesSignals(t *testing.T) {
	path := fakeServer(t, func(req string) string {
		time.Sleep(300 * time.Millisecond)
		return fmt.Sprintf(`{"jsonrpc":"2.0","result":"late","id":%d}`+"\n", requestID(t, req))
	})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
				// SIGURG is the runtime's preemption signal: harmless to
				// the program, but it interrupts system calls.
				syscall.Kill(syscall.Getpid(), syscall.SIGURG)
			}
		}
	}()
	defer func() { close(stop); wg.Wait() }()
	var got string
	if err := (&ipc.Client{Path: path, Timeout: time.Minute}).Call(context.Background(), "test.slow", nil, &got); err != nil || got != "late" {
		t.Errorf("Call = %q, %v; want \"late\"", got, err)
	}
}
