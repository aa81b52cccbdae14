package clock_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/internal/clock"
)

var (
	_ clock.Clock = clock.Real{}
	_ clock.Clock = (*clock.Fake)(nil)
)

func TestOr(t *testing.T) {
	if _, ok := clock.Or(nil).(clock.Real); !ok {
		t.Errorf("Or(nil) = %T, want clock.Real", clock.Or(nil))
	}
	f := clock.NewFake(time.Time{})
	if got := clock.Or(f); got != f {
		t.Errorf("Or(fake) = %v, want the fake", got)
	}
}

func TestRealFires(t *testing.T) {
	done := make(chan struct{})
	clock.Real{}.AfterFunc(0, func() { close(done) })
	<-done
	if tm := (clock.Real{}).AfterFunc(time.Hour, func() { t.Error("fired") }); !tm.Stop() {
		t.Error("Stop of an armed real timer = false, want true")
	}
}

func TestFakeAdvanceOrder(t *testing.T) {
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	c := clock.NewFake(start)
	var mu sync.Mutex
	var got []string
	at := func(name string) func() {
		return func() {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, name+"@"+c.Now().Sub(start).String())
		}
	}
	c.AfterFunc(3*time.Second, at("c"))
	c.AfterFunc(time.Second, at("a"))
	stopped := c.AfterFunc(2*time.Second, at("never"))
	c.AfterFunc(2*time.Second, func() {
		at("b")()
		c.AfterFunc(500*time.Millisecond, at("b2")) // due inside this Advance
	})
	if !stopped.Stop() || stopped.Stop() {
		t.Error("Stop = false on an armed timer or true on a stopped one")
	}
	if n := c.Pending(); n != 3 {
		t.Errorf("Pending = %d, want 3", n)
	}
	c.Advance(2600 * time.Millisecond)
	want := []string{"a@1s", "b@2s", "b2@2.5s"}
	if !slices.Equal(got, want) {
		t.Errorf("fired %v, want %v", got, want)
	}
	if now := c.Now().Sub(start); now != 2600*time.Millisecond {
		t.Errorf("Now = start+%v, want start+2.6s", now)
	}
	c.Advance(time.Hour)
	if want = append(want, "c@3s"); !slices.Equal(got, want) {
		t.Errorf("fired %v, want %v", got, want)
	}
	if n := c.Pending(); n != 0 {
		t.Errorf("Pending = %d after everything fired, want 0", n)
	}
}

func TestFakeZeroDelay(t *testing.T) {
	c := clock.NewFake(time.Time{})
	fired := false
	c.AfterFunc(-time.Second, func() { fired = true })
	c.Advance(0)
	if !fired {
		t.Error("a timer with a negative delay did not fire on Advance(0)")
	}
}

func TestFakeBlockUntil(t *testing.T) {
	c := clock.NewFake(time.Time{})
	armed := make(chan error, 1)
	go func() { armed <- c.BlockUntil(context.Background(), 2) }()
	c.AfterFunc(time.Second, func() {})
	c.AfterFunc(time.Second, func() {})
	if err := <-armed; err != nil {
		t.Fatalf("BlockUntil = %v", err)
	}
	if err := c.BlockUntilArmed(context.Background(), 2); err != nil {
		t.Fatalf("BlockUntilArmed = %v", err)
	}
	c.Advance(time.Second)
	if err := c.BlockUntilArmed(context.Background(), 2); err != nil { // counts fired timers too
		t.Fatalf("BlockUntilArmed after Advance = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go cancel()
	if err := c.BlockUntil(ctx, 3); err != context.Canceled {
		t.Errorf("BlockUntil with a cancelled context = %v, want context.Canceled", err)
	}
}
