package app

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeWaiter is an EventWaiter whose WaitEvents blocks until Wake is
// called or the test ends the wait, optionally moving a fake clock.
type fakeWaiter struct {
	mu       sync.Mutex
	timeouts []time.Duration
	wakes    int
	entered  chan struct{} // receives when WaitEvents starts
	end      chan struct{} // ends a wait, as an event or a timeout would
	woke     chan struct{} // Wake's signal to the wait in progress
	during   func()        // runs inside WaitEvents (e.g. a post)
	advance  func()        // runs as the wait ends (moves the clock)
}

func newFakeWaiter() *fakeWaiter {
	return &fakeWaiter{entered: make(chan struct{}, 16), end: make(chan struct{}, 16), woke: make(chan struct{}, 16)}
}

func (f *fakeWaiter) WaitEvents(timeout time.Duration) {
	f.mu.Lock()
	f.timeouts = append(f.timeouts, timeout)
	during := f.during
	f.mu.Unlock()
	f.entered <- struct{}{}
	if during != nil {
		during()
	}
	select {
	case <-f.woke:
	case <-f.end:
	}
	if f.advance != nil {
		f.advance()
	}
}

func (f *fakeWaiter) Wake() {
	f.mu.Lock()
	f.wakes++
	f.mu.Unlock()
	f.woke <- struct{}{}
}

func (f *fakeWaiter) counts() (waits, wakes int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.timeouts), f.wakes
}

// fakeClock is a settable monotonic clock for an idler.
type fakeClock struct{ now atomic.Int64 }

func (c *fakeClock) get() time.Duration  { return time.Duration(c.now.Load()) }
func (c *fakeClock) set(d time.Duration) { c.now.Store(int64(d)) }
func (c *fakeClock) add(d time.Duration) { c.now.Add(int64(d)) }
func allow() bool                        { return true }
func newTestIdler(w EventWaiter) (*idler, *fakeClock) {
	c := &fakeClock{}
	i := newIdler(w)
	i.clock = c.get
	i.lastPost, i.lastInput, i.lastNap = 0, -time.Hour, -time.Hour
	return i, c
}

func TestIdlerDue(t *testing.T) {
	i, c := newTestIdler(newFakeWaiter())
	if d := i.due(); d != quietAfterPost {
		t.Errorf("due right after a post = %v, want %v", d, quietAfterPost)
	}
	c.set(time.Minute)
	i.posted()
	c.add(100 * time.Millisecond)
	if d := i.due(); d != quietAfterPost-100*time.Millisecond {
		t.Errorf("due 100 ms after a post = %v, want %v", d, quietAfterPost-100*time.Millisecond)
	}
	i.noteInput()
	if d := i.due(); d != quietAfterInput {
		t.Errorf("due right after input = %v, want %v", d, quietAfterInput)
	}
	c.add(quietAfterInput)
	if d := i.due(); d > 0 {
		t.Errorf("due after quietAfterInput = %v, want ≤ 0", d)
	}
}

func TestIdlerNapSkippedWhenBusy(t *testing.T) {
	w := newFakeWaiter()
	i, c := newTestIdler(w)
	c.set(time.Minute)
	i.posted() // work arrived after the idler decided to nap
	i.nap(allow)
	if waits, _ := w.counts(); waits != 0 {
		t.Errorf("nap slept %d time(s) right after a post, want none", waits)
	}

	c.add(time.Minute)
	i.nap(func() bool { return false })
	if waits, _ := w.counts(); waits != 0 {
		t.Errorf("nap slept %d time(s) though not allowed, want none", waits)
	}
	if d := i.due(); d != quietAfterInput {
		t.Errorf("due after a refused nap = %v, want %v (look again later)", d, quietAfterInput)
	}
}

func TestIdlerPostWakesNap(t *testing.T) {
	w := newFakeWaiter()
	i, c := newTestIdler(w)
	c.set(time.Minute)
	i.posted() // not napping: no wake
	if _, wakes := w.counts(); wakes != 0 {
		t.Fatalf("a post while awake woke the waiter %d time(s)", wakes)
	}
	c.add(quietAfterPost)
	done := make(chan struct{})
	go func() {
		defer close(done)
		i.nap(allow)
	}()
	<-w.entered
	c.add(10 * time.Millisecond)
	i.posted()
	i.posted() // a second post in the same nap does not wake again
	<-done
	waits, wakes := w.counts()
	if waits != 1 || wakes != 1 {
		t.Errorf("one nap with two posts: %d wait(s), %d wake(s), want 1 and 1", waits, wakes)
	}
	if w.timeouts[0] != napMax {
		t.Errorf("the nap waited up to %v, want napMax %v", w.timeouts[0], napMax)
	}
	if d := i.due(); d != quietAfterPost {
		t.Errorf("due right after a woken nap = %v, want %v", d, quietAfterPost)
	}
}

func TestIdlerPostFromInsideWait(t *testing.T) {
	// Fyne runs its callbacks inside the wait; one that posts must wake
	// the wait it runs in.
	w := newFakeWaiter()
	i, c := newTestIdler(w)
	c.set(time.Minute)
	w.during = i.posted
	i.nap(allow)
	if waits, wakes := w.counts(); waits != 1 || wakes != 1 {
		t.Errorf("a post from inside the wait: %d wait(s), %d wake(s), want 1 and 1", waits, wakes)
	}
}

func TestIdlerNapEnd(t *testing.T) {
	for _, tc := range []struct {
		name   string
		during func(*idler)
		slept  time.Duration
		due    time.Duration
		probe  string
	}{
		{"an event cut it short", nil, 20 * time.Millisecond, quietAfterInput, "end=event"},
		{"it timed out", nil, napMax, awakeBetweenNaps, "end=timeout"},
		// The post and the input come 20 ms before the wait ends.
		{"a post woke it", (*idler).posted, 20 * time.Millisecond, quietAfterPost - 20*time.Millisecond, "end=post"},
		// A key press handled inside the wait, whose handler posts.
		{"input inside the wait", func(i *idler) { i.noteInput(); i.posted() }, 20 * time.Millisecond, quietAfterInput - 20*time.Millisecond, "end=event"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newFakeWaiter()
			i, c := newTestIdler(w)
			var probe strings.Builder
			i.probe = &probe
			c.set(time.Minute)
			w.advance = func() { c.add(tc.slept) }
			if tc.during != nil {
				w.during = func() { tc.during(i) }
			} else {
				w.end <- struct{}{}
			}
			i.nap(allow)
			if d := i.due(); d != tc.due {
				t.Errorf("due after the nap = %v, want %v", d, tc.due)
			}
			if got := probe.String(); !strings.HasPrefix(got, "idle-probe slept_ms=") || !strings.HasSuffix(got, " "+tc.probe+"\n") {
				t.Errorf("probe line %q, want idle-probe slept_ms=... %s", got, tc.probe)
			}
		})
	}
}

func TestIdlerRun(t *testing.T) {
	t.Run("naps on the UI thread until done", func(t *testing.T) {
		w := newFakeWaiter()
		i := newIdler(w)
		var posts atomic.Int32
		post := func(f func()) { posts.Add(1); go f() }
		done := make(chan struct{})
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			i.run(done, post, allow)
		}()
		<-w.entered // the first nap, once quiet
		i.posted()  // wakes it
		<-w.entered // naps again once quiet again
		close(done)
		w.end <- struct{}{}
		<-stopped
		if n := posts.Load(); n < 2 {
			t.Errorf("run posted %d nap(s), want at least 2", n)
		}
	})
	t.Run("returns when posts are dropped", func(t *testing.T) {
		// Once Fyne's loop has ended, the shell drops posted work.
		var posts atomic.Int32
		done := make(chan struct{})
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			newIdler(newFakeWaiter()).run(done, func(func()) { posts.Add(1) }, allow)
		}()
		for posts.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		close(done)
		<-stopped
	})
}

// TestShortNapFollowsTicks: a short nap starts only after the last due
// tick ran, ends a margin before the next one, and not at all too close
// to it or before any tick was seen.
func TestShortNapFollowsTicks(t *testing.T) {
	i, c := newTestIdler(newFakeWaiter())
	c.set(time.Second)
	i.mu.Lock()
	_, ok := i.shortNapUntilLocked(c.get())
	i.mu.Unlock()
	if ok {
		t.Fatal("a short nap before any tick was seen")
	}
	c.set(10*tickPeriod + 3*time.Millisecond) // a tick 3 ms into a period
	i.ticked()
	c.add(2 * time.Millisecond)
	i.mu.Lock()
	until, ok := i.shortNapUntilLocked(c.get())
	i.mu.Unlock()
	if want := 11*tickPeriod + 3*time.Millisecond - tickMargin; !ok || until != want {
		t.Errorf("short nap until %v (%v), want %v", until, ok, want)
	}
	c.set(11*tickPeriod + 3*time.Millisecond - tickMargin) // too close to the next tick
	i.mu.Lock()
	_, ok = i.shortNapUntilLocked(c.get())
	i.mu.Unlock()
	if ok {
		t.Error("a short nap starting a margin before the tick")
	}
	c.set(11*tickPeriod + 5*time.Millisecond) // that tick is due but has not run
	i.mu.Lock()
	_, ok = i.shortNapUntilLocked(c.get())
	i.mu.Unlock()
	if ok {
		t.Error("a short nap while a due tick has not run")
	}
	c.set(11*tickPeriod + 4*time.Millisecond) // it runs late: the phase stays
	i.ticked()
	c.add(time.Millisecond)
	i.mu.Lock()
	until, ok = i.shortNapUntilLocked(c.get())
	i.mu.Unlock()
	if want := 12*tickPeriod + 3*time.Millisecond - tickMargin; !ok || until != want {
		t.Errorf("after a late tick: short nap until %v (%v), want %v", until, ok, want)
	}
}

// TestShortNapWoken: posted work ends a short nap; the wait's timeout is
// the time left to the nap's end.
func TestShortNapWoken(t *testing.T) {
	w := newFakeWaiter()
	i, c := newTestIdler(w)
	c.set(10 * tickPeriod)
	i.ticked()
	w.during = func() { go i.posted() }
	if waited, behind := i.shortNap(allow, i.posts); !waited || behind {
		t.Fatalf("shortNap waited %v, behind %v; want true, false", waited, behind)
	}
	if waits, wakes := w.counts(); waits != 1 || wakes != 1 {
		t.Errorf("%d waits, %d wakes; want 1, 1", waits, wakes)
	}
	if want := tickPeriod - tickMargin; w.timeouts[0] != want {
		t.Errorf("wait timeout %v, want %v", w.timeouts[0], want)
	}
}

// TestShortNapBehindWork: work posted after a short nap was queued (it
// runs after the nap, and its post found no nap to wake) keeps the nap
// from waiting at all, and run is told to queue the nap again behind it;
// a nap queued after the work waits.
func TestShortNapBehindWork(t *testing.T) {
	w := newFakeWaiter()
	i, c := newTestIdler(w)
	c.set(10 * tickPeriod)
	i.ticked()
	i.mu.Lock()
	queued := i.posts
	i.mu.Unlock()
	i.posted() // an agent's state, queued behind the nap
	if waited, behind := i.shortNap(allow, queued); waited || !behind {
		t.Fatalf("shortNap waited %v, behind %v; want false, true", waited, behind)
	}
	if waits, _ := w.counts(); waits != 0 {
		t.Fatalf("%d waits with work queued behind the nap, want 0", waits)
	}
	// The requeued nap's wait ends as its timeout would.
	w.advance = func() { c.add(tickPeriod) }
	w.end <- struct{}{}
	if waited, behind := i.shortNap(allow, i.posts); !waited || behind {
		t.Errorf("requeued shortNap waited %v, behind %v; want true, false", waited, behind)
	}
}
