package bustest_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/bus/bustest"
)

// fakeTB records the first Fatalf and stops the calling goroutine, as
// testing.T does, so tests can check that a helper fails.
type fakeTB struct {
	testing.TB
	failure  string
	cleanups []func()
}

func (f *fakeTB) Helper()           {}
func (f *fakeTB) Name() string      { return "fake" }
func (f *fakeTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failure = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// run calls fn with tb on a new goroutine and returns the failure message,
// "" when fn returned normally.
func (f *fakeTB) run(fn func()) string {
	f.failure = ""
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	<-done
	return f.failure
}

func TestWatcherPasses(t *testing.T) {
	b := bustest.NewBus(t)
	w := bustest.NewWatcher(t, b, nil)
	b.Publish(bus.SurfaceCreated{SurfaceID: 1, WorkspaceID: 1, Name: "a"})
	b.Publish(bus.SurfaceChanged{SurfaceID: 1, Generation: 1})
	b.Publish(bus.LayoutChanged{WorkspaceID: 1})
	b.Publish(bus.TitleChanged{SurfaceID: 1, Title: "t"})

	// One Drain takes all four; the leftovers serve the next calls.
	got := w.Expect("surface_created")
	if want := (bus.SurfaceCreated{SurfaceID: 1, WorkspaceID: 1, Name: "a"}); got[0] != want {
		t.Errorf("Expect returned %v, want %v", got[0], want)
	}
	w.ExpectEvents(bus.SurfaceChanged{SurfaceID: 1, Generation: 1})
	e := w.WaitFor(func(e bus.Event) bool { _, ok := e.(bus.TitleChanged); return ok })
	if want := (bus.TitleChanged{SurfaceID: 1, Title: "t"}); e != want {
		t.Errorf("WaitFor returned %v, want %v", e, want)
	}
	w.ExpectNone()
	if w.Subscription() == nil {
		t.Errorf("Subscription() = nil, want the watcher's subscription")
	}
}

func TestWatcherFailures(t *testing.T) {
	tests := []struct {
		name    string
		publish []bus.Event
		check   func(w *bustest.Watcher)
		want    string // substring of the failure
	}{
		{
			name:    "wrong type",
			publish: []bus.Event{bus.LayoutChanged{WorkspaceID: 1}},
			check:   func(w *bustest.Watcher) { w.Expect("surface_closed") },
			want:    `want types ["surface_closed"]`,
		},
		{
			name:    "wrong value",
			publish: []bus.Event{bus.LayoutChanged{WorkspaceID: 1}},
			check:   func(w *bustest.Watcher) { w.ExpectEvents(bus.LayoutChanged{WorkspaceID: 2}) },
			want:    "want [layout_changed{WorkspaceID:2}]",
		},
		{
			name:    "unexpected event",
			publish: []bus.Event{bus.LayoutChanged{WorkspaceID: 1}},
			check:   func(w *bustest.Watcher) { w.ExpectNone() },
			want:    "want none",
		},
		{
			name:    "too few events",
			publish: []bus.Event{bus.LayoutChanged{WorkspaceID: 1}},
			check:   func(w *bustest.Watcher) { w.Expect("layout_changed", "layout_changed") },
			want:    "then nothing",
		},
		{
			name:  "nothing arrives",
			check: func(w *bustest.Watcher) { w.Next() },
			want:  "no event arrived",
		},
		{
			name:    "no match",
			publish: []bus.Event{bus.LayoutChanged{WorkspaceID: 1}},
			check:   func(w *bustest.Watcher) { w.WaitFor(func(bus.Event) bool { return false }) },
			want:    "no matching event arrived; skipped [layout_changed",
		},
		{
			name: "drops",
			publish: func() []bus.Event {
				evs := make([]bus.Event, bus.DefaultQueue+1)
				for i := range evs {
					evs[i] = bus.LayoutChanged{WorkspaceID: uint64(i)}
				}
				return evs
			}(),
			check: func(w *bustest.Watcher) { w.Next() },
			want:  "dropped 1 events",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The bubble's fake clock makes the timeout immediate once
			// every goroutine is blocked.
			synctest.Test(t, func(t *testing.T) {
				b := bustest.NewBus(t)
				ft := &fakeTB{TB: t}
				w := bustest.NewWatcher(ft, b, nil)
				for _, e := range tt.publish {
					b.Publish(e)
				}
				got := ft.run(func() { tt.check(w) })
				if !strings.Contains(got, tt.want) {
					t.Errorf("failure = %q, want it to contain %q", got, tt.want)
				}
				for _, fn := range ft.cleanups {
					fn()
				}
			})
		})
	}
}

func TestWatcherClosedSubscription(t *testing.T) {
	b := bus.New()
	ft := &fakeTB{TB: t}
	w := bustest.NewWatcher(ft, b, nil)
	b.Publish(bus.LayoutChanged{WorkspaceID: 1})
	b.Close()
	// What was queued before the close is still seen, then Next fails
	// without waiting for the timeout.
	if got := ft.run(func() { w.Expect("layout_changed") }); got != "" {
		t.Fatalf("Expect after Close failed with %q, want success", got)
	}
	if got := ft.run(func() { w.Next() }); !strings.Contains(got, "no event arrived") {
		t.Errorf("Next on a closed, empty subscription failed with %q, want \"no event arrived\"", got)
	}
}

func TestNewBusClosesAtCleanup(t *testing.T) {
	var b *bus.Bus
	t.Run("inner", func(t *testing.T) {
		b = bustest.NewBus(t)
	})
	sub := b.Subscribe("after", nil, 0)
	select {
	case <-sub.Done():
	default:
		t.Errorf("Subscribe after the test's cleanup: Done open, want closed (bus closed)")
	}
}
