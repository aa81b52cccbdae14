package ipc

import (
	"context"
	"sync"
)

// afterKey is the context key of a request's afterReply.
type afterKey struct{}

// afterReply holds the functions to run once a request was answered.
// Safe for concurrent use.
type afterReply struct {
	mu  sync.Mutex
	fns []func()
	ran bool
}

// AfterReply arranges for f to run once the reply to the request of ctx
// was written (or could not be: the client left), on the connection's
// goroutine; a handler uses it for what must not happen before its client
// has the answer, as system.shutdown's stopping the server that would
// send it. f must not wait for the server's Shutdown, which waits for
// this goroutine. It reports false, and does not run f, when ctx is not a served
// request's or the reply is already out.
func AfterReply(ctx context.Context, f func()) bool {
	a, ok := ctx.Value(afterKey{}).(*afterReply)
	if !ok {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ran {
		return false
	}
	a.fns = append(a.fns, f)
	return true
}

// withAfterReply returns ctx carrying a fresh afterReply, and the function
// that runs what handlers queued on it (once).
func withAfterReply(ctx context.Context) (context.Context, func()) {
	a := new(afterReply)
	return context.WithValue(ctx, afterKey{}, a), func() {
		a.mu.Lock()
		fns := a.fns
		a.fns, a.ran = nil, true
		a.mu.Unlock()
		for _, f := range fns {
			f()
		}
	}
}
