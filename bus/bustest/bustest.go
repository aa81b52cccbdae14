// Package bustest helps tests publish and observe events on a [bus.Bus].
//
// [NewBus] returns a bus closed when the test ends. [NewWatcher] subscribes
// to it and offers assertions that wait for events: [Watcher.Expect] checks
// the types of the next events, [Watcher.ExpectEvents] their values,
// [Watcher.WaitFor] skips to the first event matching a predicate, and
// [Watcher.ExpectNone] checks that nothing is queued.
//
// Waiting is bounded by [Watcher.Timeout] only to turn a hang into a
// failure; tests must not rely on it for timing. Inside a testing/synctest
// bubble the bound is on the bubble's fake clock, so a missing event fails
// at once when every goroutine is blocked.
package bustest

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/bus"
)

// DefaultTimeout is how long a [Watcher] waits for an event when its
// Timeout is zero.
const DefaultTimeout = 30 * time.Second

// NewBus returns a new bus that is closed when tb and its subtests finish.
func NewBus(tb testing.TB) *bus.Bus {
	tb.Helper()
	b := bus.New()
	tb.Cleanup(b.Close)
	return b
}

// Watcher is a test's subscription to a bus. Its methods fail the test (with
// Fatal) when an expectation is not met, and must be called from the test's
// goroutine. A Watcher also fails the test if its subscription dropped
// events, which means the test published more than the queue holds without
// reading: it keeps its events in its own buffer, so leftovers of one
// expectation are seen by the next.
type Watcher struct {
	// Timeout bounds each wait for an event; zero means DefaultTimeout.
	Timeout time.Duration

	tb      testing.TB
	sub     *bus.Subscription
	pending []bus.Event // drained but not yet consumed, oldest first
	scratch []bus.Event
}

// NewWatcher subscribes to b with filter f (nil for every event) and the
// default queue; the subscription is closed when tb finishes.
func NewWatcher(tb testing.TB, b *bus.Bus, f bus.Filter) *Watcher {
	tb.Helper()
	sub := b.Subscribe("bustest:"+tb.Name(), f, 0)
	tb.Cleanup(sub.Close)
	return &Watcher{tb: tb, sub: sub}
}

// Subscription returns the watcher's underlying subscription.
func (w *Watcher) Subscription() *bus.Subscription { return w.sub }

// fill moves whatever the subscription holds into w.pending, without
// waiting, failing the test on drops.
func (w *Watcher) fill() {
	w.tb.Helper()
	evs, dropped := w.sub.Drain(w.scratch)
	if dropped > 0 {
		w.tb.Fatalf("bustest: subscription dropped %d events; read events sooner or publish fewer", dropped)
	}
	w.pending = append(w.pending, evs...)
	clear(evs)
	w.scratch = evs[:0]
}

// next returns the oldest unconsumed event, waiting for one; ok is false on
// timeout or when the subscription was closed with nothing left.
func (w *Watcher) next() (e bus.Event, ok bool) {
	w.tb.Helper()
	var timer *time.Timer
	for {
		w.fill()
		if len(w.pending) > 0 {
			e = w.pending[0]
			w.pending = slices.Delete(w.pending, 0, 1)
			return e, true
		}
		if timer == nil {
			timer = time.NewTimer(w.timeout())
			defer timer.Stop()
		}
		select {
		case <-w.sub.Ready():
		case <-w.sub.Done():
			w.fill()
			if len(w.pending) == 0 {
				return nil, false
			}
		case <-timer.C:
			return nil, false
		}
	}
}

// Next returns the next event, waiting for it.
func (w *Watcher) Next() bus.Event {
	w.tb.Helper()
	e, ok := w.next()
	if !ok {
		w.tb.Fatalf("bustest: no event arrived (timeout %v or subscription closed)", w.timeout())
	}
	return e
}

// timeout returns the effective bound on one wait.
func (w *Watcher) timeout() time.Duration {
	if w.Timeout <= 0 {
		return DefaultTimeout
	}
	return w.Timeout
}

// Expect waits for the next len(types) events and checks that their wire
// types are types, in order. It returns the events for further checks.
func (w *Watcher) Expect(types ...string) []bus.Event {
	w.tb.Helper()
	got := make([]bus.Event, 0, len(types))
	for range types {
		e, ok := w.next()
		if !ok {
			w.tb.Fatalf("bustest: got events %s, then nothing; want types %q", describe(got), types)
		}
		got = append(got, e)
	}
	for i, e := range got {
		if e.EventType() != types[i] {
			w.tb.Fatalf("bustest: got events %s, want types %q", describe(got), types)
		}
	}
	return got
}

// ExpectEvents waits for the next len(want) events and checks that they
// equal want (reflect.DeepEqual), in order.
func (w *Watcher) ExpectEvents(want ...bus.Event) {
	w.tb.Helper()
	got := make([]bus.Event, 0, len(want))
	for range want {
		e, ok := w.next()
		if !ok {
			w.tb.Fatalf("bustest: got events %s, then nothing; want %s", describe(got), describe(want))
		}
		got = append(got, e)
	}
	if !reflect.DeepEqual(got, want) {
		w.tb.Fatalf("bustest: got events %s, want %s", describe(got), describe(want))
	}
}

// WaitFor discards events until one satisfies match, and returns it.
func (w *Watcher) WaitFor(match func(bus.Event) bool) bus.Event {
	w.tb.Helper()
	var skipped []bus.Event
	for {
		e, ok := w.next()
		if !ok {
			w.tb.Fatalf("bustest: no matching event arrived; skipped %s", describe(skipped))
		}
		if match(e) {
			return e
		}
		if len(skipped) < 20 {
			skipped = append(skipped, e)
		}
	}
}

// ExpectNone checks that no event is queued now, without waiting. To check
// that something did not happen, call it once every goroutine that could
// publish has finished or is blocked (synctest.Wait does this in a bubble).
func (w *Watcher) ExpectNone() {
	w.tb.Helper()
	w.fill()
	if len(w.pending) > 0 {
		w.tb.Fatalf("bustest: got events %s, want none", describe(w.pending))
	}
}

// describe formats events with their types for failure messages.
func describe(evs []bus.Event) string {
	parts := make([]string, len(evs))
	for i, e := range evs {
		parts[i] = fmt.Sprintf("%s%+v", e.EventType(), e)
	}
	return "[" + strings.Join(parts, " ") + "]"
}
