package app

import (
	"context"
	"sync"
	"sync/atomic"

	"fyne.io/fyne/v2"
)

// lifetime is the shell's run from start to stop: the goroutines it
// started, the signals that end them, and the steps of a quit that must
// happen once. [newLifetime] makes one; the zero value is not usable.
//
// # The order
//
// Fyne's loop starts (markStarted), the app quits (quit: by the window,
// the quit action, o.Context or Fyne's own signal handler; Run is
// released), then the shell's stop ends the goroutines (end: cancel and
// done closed) and waits for them (wait). quit and markStarted may be
// called any number of times from any goroutine; end and wait once, by
// stop.
//
// # Concurrency
//
// The channels and wg are set by newLifetime and never replaced: any
// goroutine may use them. lost and stopping are atomic. quitting is
// guarded by shell.mu (the UI state's lock), not by anything here: it is
// read and set with the window's state. stoppedHooks is set before Fyne's
// loop runs and read after it ended, on the main goroutine.
type lifetime struct {
	// wg counts the shell's goroutines: Add(1) before each starts, Done
	// as it returns; wait waits for them after end.
	wg sync.WaitGroup
	// calls are the views' socket calls in flight, each on a goroutine
	// of its own (started by shell.goCall, holding the shell's lock);
	// closing a view cancels its calls, and stop waits for them.
	calls sync.WaitGroup
	// done is closed by end: every goroutine of the shell returns.
	done chan struct{}
	// cancel cancels the context the shell's goroutines (config watcher)
	// run with; set once by start, called by end.
	cancel context.CancelFunc
	// served receives the backend's Serve result (shell.serve), once.
	served chan error

	started     chan struct{} // closed once Fyne's loop has started
	startedOnce sync.Once
	quitCh      chan struct{} // closed once the app quits: Run returns
	quitOnce    sync.Once
	stopOnce    sync.Once // shell.stop's steps run once

	// quitting is set once the window began to quit (shell.quitLocked,
	// shell.stop): nothing new is shown after it. Guarded by shell.mu.
	quitting bool

	// lost is set while an attached window's server is gone (the reader
	// then keeps the last picture instead of an empty model); stopping
	// once "Stop everything" asked the server to end (its going away is
	// then no loss).
	lost     atomic.Bool
	stopping atomic.Bool
	// restart carries the banner's restart request to the serving
	// goroutine (shell.serve); it holds one request at most.
	restart chan struct{}

	// stoppedHooks are Fyne's lifecycle's stopped hooks (the shell's and
	// Fyne's own), taken from Fyne's desktop loop by takeStoppedHooks and
	// run by runStoppedHooks once the loop has ended; nil when the loop
	// runs them.
	stoppedHooks func()
}

// newLifetime returns the lifetime of a shell that has not started.
func newLifetime() *lifetime {
	return &lifetime{
		done:    make(chan struct{}),
		served:  make(chan error, 1),
		started: make(chan struct{}),
		quitCh:  make(chan struct{}),
		restart: make(chan struct{}, 1),
		cancel:  func() {},
	}
}

// markStarted records that Fyne's loop has started (closes started).
func (l *lifetime) markStarted() { l.startedOnce.Do(func() { close(l.started) }) }

// quit records that the app quit (closes quitCh, releasing Run).
func (l *lifetime) quit() { l.quitOnce.Do(func() { close(l.quitCh) }) }

// requestRestart asks the serving goroutine to restart the lost server,
// unless a request is already on its way.
func (l *lifetime) requestRestart() {
	select {
	case l.restart <- struct{}{}:
	default: // one is on its way
	}
}

// end tells the shell's goroutines to return: it cancels their context
// and closes done. It is called once, by shell.stop.
func (l *lifetime) end() {
	l.cancel()
	close(l.done)
}

// wait waits, after end, for the shell's goroutines and returns what the
// backend's Serve returned.
func (l *lifetime) wait() error {
	l.wg.Wait()
	return <-l.served
}

// stoppedHookOwner reaches the stopped hooks on Fyne's lifecycle: the
// shell's and the clean-up Fyne adds (it saves Fyne's preferences).
// These are exported methods of Fyne's internal lifecycle type, which an
// interface can call.
type stoppedHookOwner interface {
	OnStopped() func()
	SetOnStoppedHookExecuted(func())
}

// takeStoppedHooks takes the stopped hooks from Fyne's desktop loop, for
// Run to call once the loop has ended.
//
// Fyne 2.7.1's loop, once quit, queues the stopped hooks on its lifecycle
// goroutine, which hands them back to the loop's thread with fyne.Do and
// waits, while the loop, on its way out, releases what is still queued
// without running it and then closes its queue. Who wins is a matter of
// scheduling: the hooks run (on the lifecycle goroutine), are dropped
// (the shell then never learnt that the app quit and Run waited forever
// when Fyne's own SIGINT/SIGTERM handler had quit it), or are left in
// the closed queue with the lifecycle goroutine waiting for them, and
// App.Run, which waits for that goroutine, never returns. With no hook
// set the loop queues nothing. When Fyne lacks these methods the hooks stay
// with the loop.
func (l *lifetime) takeStoppedHooks(lc fyne.Lifecycle) {
	h, ok := lc.(stoppedHookOwner)
	if !ok {
		return
	}
	l.stoppedHooks = h.OnStopped()
	h.SetOnStoppedHookExecuted(nil)
	lc.SetOnStopped(nil)
}

// runStoppedHooks runs the hooks takeStoppedHooks took, if any, and
// releases Run.
func (l *lifetime) runStoppedHooks() {
	if l.stoppedHooks != nil {
		l.stoppedHooks()
	}
	l.quit()
}
