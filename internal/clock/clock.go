// Package clock is the time source that Paneflow's timed logic shares: the
// conductor's stall and scan timers, surface.wait's timeout and idle
// windows, and the flow engine's settle floor and step durations. Production code
// takes a [Clock] and uses [Real] when given nil; tests give every party
// the same [Fake], so time moves only when the test says so and nothing
// waits on the wall clock.
//
// The package is a leaf (standard library only). It does not offer
// tickers or channel timers: a callback from [Clock.AfterFunc] that sends
// on a channel of the caller's own is all the timed code here needs, and
// keeps the fake small and exact.
//
// # Concurrency
//
// [Real] and [Fake] are safe for concurrent use. A [Fake] runs due
// callbacks on the goroutine that calls [Fake.Advance], one after the
// other in time order, with no lock held.
package clock

import "time"

// Clock tells the time and runs functions later.
//
// Implementations must be safe for concurrent use. AfterFunc runs f on a
// goroutine of the implementation's choosing once d has passed, unless the
// returned timer was stopped first; f is never called with a lock of the
// caller's held, so it may take the caller's locks.
type Clock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending [Clock.AfterFunc] call.
type Timer interface {
	// Stop prevents the call if it has not started and reports whether it
	// did so.
	Stop() bool
}

// Real is the system clock: time.Now and time.AfterFunc. Its zero value is
// ready to use.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// AfterFunc calls time.AfterFunc.
func (Real) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// Or returns c, or [Real] when c is nil: what a constructor does with an
// optional Clock.
func Or(c Clock) Clock {
	if c == nil {
		return Real{}
	}
	return c
}
