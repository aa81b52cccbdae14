package clock

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Fake is a manual [Clock] for tests: time stands still until
// [Fake.Advance] moves it, which runs the timers that fall due, in time
// order, each at its own time. Create one with [NewFake]; the zero value is
// not usable. A Fake is safe for concurrent use.
type Fake struct {
	mu      sync.Mutex
	changed *sync.Cond // broadcast when a timer is armed, stopped or fired
	now     time.Time
	timers  []*fakeTimer
	armed   int // AfterFunc calls so far
}

type fakeTimer struct {
	c    *Fake
	at   time.Time
	f    func()
	done bool // fired or stopped
}

// NewFake returns a fake clock reading start. A zero start means an
// arbitrary fixed instant (2025-01-02 03:04:05 UTC).
func NewFake(start time.Time) *Fake {
	if start.IsZero() {
		start = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	}
	c := &Fake{now: start}
	c.changed = sync.NewCond(&c.mu)
	return c
}

// Now returns the fake time.
func (c *Fake) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc arms a timer that runs f when Advance passes now+d. A d of
// zero or less is due at the next Advance (of any length, even 0).
func (c *Fake) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(max(d, 0)), f: f}
	c.timers = append(c.timers, t)
	c.armed++
	c.changed.Broadcast()
	return t
}

// Stop disarms the timer; it reports whether it was armed.
func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.done
	t.done = true
	t.c.changed.Broadcast()
	return was
}

// Pending counts the armed timers (neither fired nor stopped).
func (c *Fake) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pendingLocked()
}

func (c *Fake) pendingLocked() int {
	n := 0
	for _, t := range c.timers {
		if !t.done {
			n++
		}
	}
	return n
}

// Advance moves time forward by d (not at all when d ≤ 0, but due timers
// still run), running each timer that falls due at its own time, earliest
// first, on the calling goroutine. A timer armed by a callback runs in the
// same Advance if it falls due by its end.
func (c *Fake) Advance(d time.Duration) {
	c.mu.Lock()
	target := c.now.Add(max(d, 0))
	for {
		var next *fakeTimer
		for _, t := range c.timers {
			if !t.done && !t.at.After(target) && (next == nil || t.at.Before(next.at)) {
				next = t
			}
		}
		if next == nil {
			break
		}
		next.done = true
		if next.at.After(c.now) {
			c.now = next.at
		}
		c.changed.Broadcast()
		c.mu.Unlock()
		next.f()
		c.mu.Lock()
	}
	c.now = target
	c.timers = slices.DeleteFunc(c.timers, func(t *fakeTimer) bool { return t.done })
	c.mu.Unlock()
}

// BlockUntil waits until at least n timers are armed, or ctx is done (its
// error is returned). Tests use it to know that the code under test has
// reached its wait before they Advance.
func (c *Fake) BlockUntil(ctx context.Context, n int) error {
	return c.block(ctx, func() bool { return c.pendingLocked() >= n })
}

// BlockUntilArmed waits until AfterFunc was called at least n times in
// all since NewFake, or ctx is done (its error is returned). Code that
// re-arms its timer on every pass of a loop shows the test that it made a
// pass this way.
func (c *Fake) BlockUntilArmed(ctx context.Context, n int) error {
	return c.block(ctx, func() bool { return c.armed >= n })
}

// Armed counts the AfterFunc calls since NewFake: with BlockUntilArmed,
// a test waits for code that was woken to arm its next timer.
func (c *Fake) Armed() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.armed
}

// block waits, under c.mu, until ok reports true or ctx is done.
func (c *Fake) block(ctx context.Context, ok func() bool) error {
	stop := context.AfterFunc(ctx, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.changed.Broadcast()
	})
	defer stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for !ok() {
		if err := ctx.Err(); err != nil {
			return err
		}
		c.changed.Wait()
	}
	return nil
}
