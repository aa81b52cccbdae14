package ipc

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestQueueExecutorRunsInOrder(t *testing.T) {
	q := NewQueueExecutor(8)
	q.Start()
	defer q.Close()
	var got []int
	for i := range 5 {
		if err := q.Do(context.Background(), func() { got = append(got, i) }); err != nil {
			t.Fatalf("Do #%d: %v", i, err)
		}
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("run order = %v, want 0..4", got)
		}
	}
}

// TestQueueExecutorSkipsTimedOut checks the central promise: a function
// whose context ends before it starts never runs, even once the queue
// drains.
func TestQueueExecutorSkipsTimedOut(t *testing.T) {
	q := NewQueueExecutor(8)
	q.Start()
	defer q.Close()

	release, started := make(chan struct{}), make(chan struct{})
	go q.Do(context.Background(), func() { close(started); <-release })
	<-started

	var ran atomic.Bool
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := q.Do(ctx, func() { ran.Store(true) }); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Do with an expiring ctx = %v, want %v", err, context.DeadlineExceeded)
	}
	close(release)
	// A later function runs, so the skipped one was dequeued before it.
	if err := q.Do(context.Background(), func() {}); err != nil {
		t.Fatalf("Do after release: %v", err)
	}
	if ran.Load() {
		t.Error("the timed-out function ran late, want it never to run")
	}
}

func TestQueueExecutorFull(t *testing.T) {
	q := NewQueueExecutor(1) // not started: nothing drains
	defer q.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := make(chan error, 1)
	go func() { first <- q.Do(ctx, func() {}) }()
	for deadline := time.Now().Add(10 * time.Second); len(q.jobs) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the first Do never queued")
		}
		time.Sleep(time.Millisecond)
	}
	if err := q.Do(context.Background(), func() {}); !errors.Is(err, ErrBusy) {
		t.Errorf("Do on a full queue = %v, want %v", err, ErrBusy)
	}
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Errorf("first Do after cancel = %v, want %v", err, context.Canceled)
	}
}

func TestQueueExecutorClose(t *testing.T) {
	q := NewQueueExecutor(4) // never started
	var ran atomic.Bool
	pending := make(chan error, 1)
	go func() { pending <- q.Do(context.Background(), func() { ran.Store(true) }) }()
	for len(q.jobs) == 0 {
		time.Sleep(time.Millisecond)
	}
	q.Close()
	if err := <-pending; !errors.Is(err, ErrExecutorClosed) {
		t.Errorf("pending Do after Close = %v, want %v", err, ErrExecutorClosed)
	}
	if err := q.Do(context.Background(), func() { ran.Store(true) }); !errors.Is(err, ErrExecutorClosed) {
		t.Errorf("Do after Close = %v, want %v", err, ErrExecutorClosed)
	}
	if ran.Load() {
		t.Error("a function ran on a closed executor")
	}
	q.Close() // idempotent
	q.Start() // no effect after Close
}

func TestQueueExecutorPanic(t *testing.T) {
	q := NewQueueExecutor(1)
	q.Start()
	defer q.Close()
	err := q.Do(context.Background(), func() { panic("boom") })
	var p *panicError
	if !errors.As(err, &p) || p.value != "boom" {
		t.Fatalf("Do(panicking fn) = %v, want a panicError with value boom", err)
	}
	if err := q.Do(context.Background(), func() {}); err != nil {
		t.Errorf("Do after a panic = %v, want nil (the worker survives)", err)
	}
}
