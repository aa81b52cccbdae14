package conductor

import "time"

// Clock is the time source of the conductor's timers (stall detection,
// scan debouncing) and of waiting_ms and idle_ms. Tests give a fake one;
// nil in [Options] means the system clock.
//
// Implementations must be safe for concurrent use. AfterFunc runs f on a
// goroutine of its choosing once d has passed, unless the returned timer
// was stopped first; f must not be called with any lock of the caller
// held.
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

// systemClock is the real clock.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
