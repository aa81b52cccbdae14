package app

import (
	"errors"
	"sync"

	"github.com/paneflow-go/paneflow/workspace"
)

// workQueue is how many model changes may wait for the worker before
// mutate blocks.
const workQueue = 256

// worker runs the window's model changes in order off the UI goroutine
// (model methods start programs and read /proc, too slow for it), and
// saves the session file after structural changes. It knows nothing of
// the shell but the two functions it is built with; its methods are safe
// for concurrent use.
type worker struct {
	queue chan func()
	// done is the shell's life.done: closed when the shell stops, after
	// which nothing more runs and mutate no longer blocks.
	done <-chan struct{}
	// failed reports a change that failed (the shell puts it in the
	// banner); called on the worker's goroutine.
	failed func(what string, err error)
	// saver writes the session file; nil when the window has none.
	saver *saver
}

// newWorker returns a worker that stops when done is closed; run starts it.
func newWorker(done <-chan struct{}, failed func(what string, err error)) *worker {
	return &worker{queue: make(chan func(), workQueue), done: done, failed: failed}
}

// saveTo makes the worker save the session with save, debounced; logf
// reports a failed save.
func (w *worker) saveTo(save func() error, logf func(string, ...any)) {
	w.saver = newSaver(save, logf)
}

// run runs queued changes until done is closed; wg.Done when it returns.
func (w *worker) run(wg *sync.WaitGroup) {
	defer wg.Done()
	for {
		select {
		case f := <-w.queue:
			f()
		case <-w.done:
			return
		}
	}
}

// mutate queues a model change; a failure (other than the model having
// closed) is reported, labelled with what. It blocks while the queue is
// full, until the shell stops.
func (w *worker) mutate(what string, f func() error) {
	select {
	case w.queue <- func() {
		if err := f(); err != nil && !errors.Is(err, workspace.ErrClosed) {
			w.failed(what, err)
		}
	}:
	case <-w.done:
	}
}

// try queues f unless the queue is full; it reports whether it did.
func (w *worker) try(f func()) bool {
	select {
	case w.queue <- f:
		return true
	default:
		return false
	}
}

// saveSoon asks for the session to be saved once changes stop.
func (w *worker) saveSoon() {
	if w.saver != nil {
		w.saver.trigger()
	}
}

// close saves the session a last time (while the panes still exist) and
// stops the saver.
func (w *worker) close() {
	if w.saver != nil {
		w.saver.close()
	}
}
