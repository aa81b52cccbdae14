package ipc

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// Executor serializes mutations. Do runs fn unless ctx is done before fn
// starts: then it returns ctx.Err() and fn never runs, so a mutation whose
// request timed out is never applied late. Once fn has started, Do waits
// for it to return, whatever ctx does. A full queue returns [ErrBusy].
// Implementations must be safe for concurrent use.
type Executor interface {
	Do(ctx context.Context, fn func()) error
}

// DefaultExecutorQueue is the queue capacity [NewQueueExecutor] uses for a
// capacity ≤ 0 (spec limits: the UI-bound request queue holds 256).
const DefaultExecutorQueue = 256

// QueueExecutor is an [Executor] that runs functions one at a time, in
// submission order, on one goroutine of its own. Create it with
// [NewQueueExecutor], call [QueueExecutor.Start] to launch the goroutine and
// [QueueExecutor.Close] to stop it. Until Start, submitted functions wait in
// the queue. All methods are safe for concurrent use.
type QueueExecutor struct {
	jobs chan *job

	mu      sync.RWMutex // guards closed against sends to jobs
	closed  bool
	started bool
	stop    chan struct{}
	done    chan struct{} // closed when the worker has exited
}

// Job states.
const (
	jobPending int32 = iota
	jobStarted
	jobCancelled
)

type job struct {
	ctx   context.Context // the caller's: once done, fn is not started
	fn    func()
	state atomic.Int32
	done  chan struct{} // closed when fn returned or the job was dropped
	err   error         // set before done is closed: a panic in fn, or ErrExecutorClosed
}

// NewQueueExecutor returns a stopped executor whose queue holds capacity
// pending functions ([DefaultExecutorQueue] if capacity ≤ 0).
func NewQueueExecutor(capacity int) *QueueExecutor {
	if capacity <= 0 {
		capacity = DefaultExecutorQueue
	}
	return &QueueExecutor{
		jobs: make(chan *job, capacity),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
}

// Start launches the worker goroutine. Calling it again, or after Close,
// does nothing.
func (q *QueueExecutor) Start() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.started || q.closed {
		return
	}
	q.started = true
	go q.run()
}

// Close stops the worker after the function it is running (if any)
// returns, and waits for it. Queued functions that have not started never
// run; their Do returns [ErrExecutorClosed], as does every later Do. Close
// is idempotent.
func (q *QueueExecutor) Close() {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		<-q.done
		return
	}
	q.closed = true
	started := q.started
	close(q.stop)
	q.mu.Unlock()
	if started {
		<-q.done
	} else {
		close(q.done)
	}
	// No send can happen any more (closed is set under mu): drop the rest.
	for {
		select {
		case j := <-q.jobs:
			if j.state.CompareAndSwap(jobPending, jobCancelled) {
				j.err = ErrExecutorClosed
				close(j.done)
			}
		default:
			return
		}
	}
}

// Do queues fn and waits until it has run. See [Executor].
func (q *QueueExecutor) Do(ctx context.Context, fn func()) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	j := &job{ctx: ctx, fn: fn, done: make(chan struct{})}
	q.mu.RLock()
	if q.closed {
		q.mu.RUnlock()
		return ErrExecutorClosed
	}
	select {
	case q.jobs <- j:
	default:
		q.mu.RUnlock()
		return ErrBusy
	}
	q.mu.RUnlock()

	select {
	case <-j.done:
		return j.err
	case <-ctx.Done():
		if j.state.CompareAndSwap(jobPending, jobCancelled) {
			return ctx.Err() // fn will be skipped by the worker
		}
		<-j.done // fn is running (or was dropped by Close): wait for it
		return j.err
	}
}

func (q *QueueExecutor) run() {
	defer close(q.done)
	for {
		select {
		case <-q.stop:
			return
		case j := <-q.jobs:
			if j.ctx.Err() != nil {
				// Its request is over (it may already have been answered
				// "request timeout") though Do has not noticed yet.
				if j.state.CompareAndSwap(jobPending, jobCancelled) {
					j.err = j.ctx.Err()
					close(j.done)
				}
				continue
			}
			if !j.state.CompareAndSwap(jobPending, jobStarted) {
				continue // cancelled by its caller's context
			}
			j.err = runRecovered(j.fn)
			close(j.done)
		}
	}
}

// runRecovered calls fn and turns a panic into an error, so one bad
// mutation cannot take the worker (and the process) down.
func runRecovered(fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &panicError{value: r, stack: debug.Stack()}
		}
	}()
	fn()
	return nil
}

// panicError carries a recovered panic and the stack where it happened.
type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string { return fmt.Sprintf("ipc: handler panicked: %v", e.value) }

var _ Executor = (*QueueExecutor)(nil)
