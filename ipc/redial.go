package ipc

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"
)

// Redialer is a concurrent connection ([Mux]) for a client that holds one
// for long and calls on it now and then (the attached window's input and
// resizes, a flow run's waits): the server closes a connection that
// sat idle for its IdleTimeout, and a Mux once ended fails every call.
// A call through a Redialer goes out on a new connection when the last
// one ended, or when it sat idle with no call out for the Redialer's
// idle limit (so no call races the server's close); a call whose request
// was never written ([ErrNotSent]) is made once more on a new connection.
// A request that may have reached the server is never sent again, so
// nothing is done twice.
//
// Create one with [NewRedialer]. It is safe for concurrent use; calls made
// while a new connection is dialled wait for that dial.
type Redialer struct {
	dial func(context.Context) (*Mux, error)
	idle time.Duration
	ctx  context.Context // ended by Close: ends a dial under way
	stop context.CancelFunc

	mu   sync.Mutex
	m    *Mux      // nil after Close, guarded by mu
	used time.Time // when a call on m last began or ended, guarded by mu
	out  int       // calls out on m, guarded by mu
}

// NewRedialer returns a Redialer whose first connection is m (nil: dial
// one at the first call) and whose later ones come from dial. A
// connection with no call out for idle is replaced before the next call;
// idle ≤ 0 replaces only ended ones. A server's default limit is
// [DefaultIdleTimeout]: half of it leaves room for a slow dial.
func NewRedialer(m *Mux, idle time.Duration, dial func(context.Context) (*Mux, error)) *Redialer {
	ctx, stop := context.WithCancel(context.Background())
	return &Redialer{dial: dial, idle: idle, ctx: ctx, stop: stop, m: m, used: time.Now()}
}

// Call makes one call as [Mux.Call] does, on a live connection.
func (r *Redialer) Call(ctx context.Context, method string, params, result any) error {
	for retried := false; ; retried = true {
		m, err := r.acquire(ctx, time.Now())
		if err != nil {
			return err
		}
		err = m.Call(ctx, method, params, result)
		r.release(m, time.Now())
		if retried || !errors.Is(err, ErrNotSent) {
			return err
		}
	}
}

// StartNow writes one call's request at once, as [Mux.Start] does, when
// that cannot wait: on the current connection, only when it is live, not
// idle past the limit, has no other call out (so the server has read every
// earlier request and the socket's buffer has room for a small one) and
// no dial or other caller holds the Redialer. ok false means none of that
// held and nothing was sent: make the call with [Redialer.Call] instead
// (also after an error matching [ErrNotSent]). The Pending's Wait gives
// the connection back.
func (r *Redialer) StartNow(method string, params any) (p *Pending, ok bool, err error) {
	m := r.acquireNow()
	if m == nil {
		return nil, false, nil
	}
	p, err = m.Start(method, params)
	if err != nil {
		r.release(m, time.Now())
		return nil, true, err
	}
	p.release = func() { r.release(m, time.Now()) }
	return p, true, nil
}

// NotifyNow writes a notification at once ([Mux.Notify], n its line's
// bytes) under [Redialer.StartNow]'s conditions; ok false means they did
// not hold and nothing was sent. The server does not answer it, so the
// caller bounds how many bytes it sends this way before a call whose
// reply shows the server read them all (the socket's buffer has room
// only for so much).
func (r *Redialer) NotifyNow(method string, params any) (n int, ok bool, err error) {
	m := r.acquireNow()
	if m == nil {
		return 0, false, nil
	}
	n, err = m.Notify(method, params)
	r.release(m, time.Now())
	return n, true, err
}

// acquireNow returns the connection for a write that cannot wait, as
// acquire does, when StartNow's conditions hold; else nil. The caller
// gives it back with release.
func (r *Redialer) acquireNow() *Mux {
	if !r.mu.TryLock() { // a dial under way holds it
		return nil
	}
	defer r.mu.Unlock()
	m := r.m
	now := time.Now()
	if m == nil || r.ctx.Err() != nil || r.out > 0 || r.idle > 0 && now.Sub(r.used) >= r.idle {
		return nil
	}
	select {
	case <-m.Done():
		return nil
	default:
	}
	r.out++
	r.used = now
	return m
}

// acquire returns the connection for a call at now, dialling a new one
// when the last ended or sat idle. The caller gives it back with release.
func (r *Redialer) acquire(ctx context.Context, now time.Time) (*Mux, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ctx.Err() != nil {
		return nil, &UnreachableError{Err: net.ErrClosed}
	}
	stale := r.m == nil || r.out == 0 && r.idle > 0 && now.Sub(r.used) >= r.idle
	if !stale {
		select {
		case <-r.m.Done():
			stale = true
		default:
		}
	}
	if stale {
		dctx, stop := context.WithCancel(ctx)
		defer context.AfterFunc(r.ctx, stop)()
		m, err := r.dial(dctx)
		stop()
		if err != nil {
			return nil, err
		}
		if r.m != nil {
			r.m.Close() // ended, or idle: no call is out on it
		}
		r.m, r.out = m, 0
	}
	r.out++
	r.used = now
	return r.m, nil
}

// release gives back the connection of a call that ended at now.
func (r *Redialer) release(m *Mux, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if m == r.m {
		r.out--
		r.used = now
	}
}

// Close closes the connection and ends a dial under way; calls fail from
// then on.
func (r *Redialer) Close() error {
	r.stop()
	r.mu.Lock()
	m := r.m
	r.m = nil
	r.mu.Unlock()
	if m != nil {
		return m.Close()
	}
	return nil
}
