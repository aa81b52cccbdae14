package app

import (
	"fmt"
	"io"
	"sync"
	"time"

	"fyne.io/fyne/v2"

	"github.com/paneflow-go/paneflow/app/termview"
)

// EventWaiter blocks the UI thread in the window system's event wait. It
// lets the app sleep while nothing happens: Fyne's desktop loop otherwise
// wakes 60 times a second to poll for events, which costs about 1.5 % of
// a core with no frame drawn (see [Options.Events]).
type EventWaiter interface {
	// WaitEvents blocks until the window system has an event, Wake is
	// called, or timeout passes, and handles the events that arrived
	// (Fyne's callbacks run inside). It is called on the UI thread only,
	// from work posted to Fyne's running loop.
	WaitEvents(timeout time.Duration)
	// Wake makes a WaitEvents in progress return. It may be called from
	// any goroutine, but only while a WaitEvents is in progress: the
	// shell makes sure of that.
	Wake()
}

// Idle timing. The UI loop sleeps once nothing was posted to it for
// quietAfterPost and no window-system event ended a sleep for
// quietAfterInput; each sleep lasts at most napMax.
const (
	// quietAfterPost leaves time for the frame a post asked for to be
	// painted (a tick is 16.7 ms), for Fyne's 300 ms animations that
	// follow a change (a button's tap) to finish, and for posts that come
	// in bursts, such as a program printing a line every 100 ms, not to
	// sleep between each.
	quietAfterPost = 350 * time.Millisecond
	// quietAfterInput covers what Fyne does after input without posting
	// through the shell: button tap animations and the 300 ms wait that
	// tells a tap from a double tap.
	quietAfterInput = time.Second
	// napMax bounds how late work that reaches Fyne's queue without the
	// shell (Fyne's own: the system settings watcher, a notification's
	// reply) runs while the loop sleeps. Each sleep and the ticks the
	// loop runs after it (awakeBetweenNaps) cost about 5 ms of CPU on a
	// loaded machine, much of it the Go runtime's sysmon thread
	// spinning until it retakes the P of the cgo wait: with 1 s naps that
	// was 20 of an idle window's 50 ms per 5 s (BenchmarkIdleHosts, 49-50
	// against 28 ms with 5 s naps at load 35-47, issue 30). The desktop
	// app's wait on Linux has since moved into Go's network poller, which
	// frees the P (cmd/paneflow/gui_events_linux.go); the bound stays for
	// other EventWaiters and for the ticks after each sleep.
	napMax = 5 * time.Second
	// awakeBetweenNaps lets the loop run at least a tick between two
	// sleeps, so what Fyne queued during one is painted before the next.
	awakeBetweenNaps = 40 * time.Millisecond
	// tickPeriod is the period of Fyne's desktop loop: it polls the window
	// system's events and paints once per tick (60 a second).
	tickPeriod = time.Second / 60
	// tickMargin: a short nap ends this long before the loop's next tick
	// is due, so that the tick's poll and paint run on time; no short nap
	// starts closer to the tick than twice this.
	tickMargin = time.Millisecond
)

// idler puts the UI loop to sleep in an [EventWaiter] while the app is
// idle, and wakes it when work is posted.
//
// While the app is not idle (input or posts in the last moments) Fyne's
// loop runs its ticks, and between two ticks the idler has it wait in the
// event wait too ("short naps"): Fyne polls for events only at its ticks,
// so a key pressed just after one would wait up to 16.7 ms to be seen; in
// the wait it is handled at once (issue 28: this was a fifth of the key
// echo). A short nap ends a millisecond before the next tick is due, so
// the ticks (paints, animations, Fyne's own queued work) keep their pace.
// The ticks are observed through a Fyne animation that calls [idler.ticked]
// on each; until one was seen, or when the last due tick has not run yet,
// no short nap starts.
//
// The zero value is not usable; make one with newIdler. Its methods are
// safe for concurrent use; nap must run on the UI thread.
type idler struct {
	w     EventWaiter
	clock func() time.Duration // monotonic time since some origin
	// probe, when not nil, gets a line per nap (PANEFLOW_RENDER_PROBE=1).
	probe io.Writer

	mu        sync.Mutex
	napping   bool // a WaitEvents is in progress
	woken     bool // Wake was called during this nap
	sawInput  bool // input was noted during this nap
	lastPost  time.Duration
	lastInput time.Duration // the last input: a pane's key or button press, or a nap an event cut short
	lastNap   time.Duration // the end of the last nap
	// posts counts posted: a short nap compares it with its value when
	// the nap was queued (see shortNap).
	posts uint64
	// Fyne's ticks, for the short naps: phase is their offset modulo
	// tickPeriod on the idler's clock (the earliest seen, since a busy
	// loop only runs them late), -1 before the first; lastTick is when the
	// last one ran.
	phase    time.Duration
	lastTick time.Duration
	// ticks (buffered, 1) is signalled by each tick.
	ticks chan struct{}
}

func newIdler(w EventWaiter) *idler {
	origin := time.Now()
	i := &idler{w: w, clock: func() time.Duration { return time.Since(origin) }, phase: -1, ticks: make(chan struct{}, 1)}
	i.lastPost = i.clock()
	return i
}

// posted notes that work is being posted to the UI loop and wakes the loop
// if it sleeps. It must be called before the work is queued.
func (i *idler) posted() {
	i.mu.Lock()
	i.lastPost = i.clock()
	i.posts++
	if i.napping && !i.woken {
		i.woken = true
		i.w.Wake()
	}
	i.mu.Unlock()
}

// noteInput notes user input the app saw itself (a key or button press in a
// pane), which Fyne may follow with work it does not post (a tap after the
// double-tap delay).
func (i *idler) noteInput() {
	i.mu.Lock()
	i.lastInput = i.clock()
	if i.napping {
		i.sawInput = true
	}
	i.mu.Unlock()
}

// ticked notes that Fyne's loop ran a tick now. It runs on the UI thread,
// from the loop's animation step.
func (i *idler) ticked() {
	i.mu.Lock()
	now := i.clock()
	off := now % tickPeriod
	if i.phase < 0 || (off-i.phase+tickPeriod)%tickPeriod > tickPeriod/2 {
		i.phase = off // earlier than the estimate: the estimate was a late tick
	}
	i.lastTick = now
	i.mu.Unlock()
	select {
	case i.ticks <- struct{}{}:
	default:
	}
}

// tickAfterLocked returns when the first tick after now is due, and the
// last one due at or before now; ok is false before any tick was seen.
func (i *idler) tickAfterLocked(now time.Duration) (next, prev time.Duration, ok bool) {
	if i.phase < 0 {
		return 0, 0, false
	}
	prev = now - now%tickPeriod + i.phase
	if prev > now {
		prev -= tickPeriod
	}
	return prev + tickPeriod, prev, true
}

// shortNapUntilLocked returns when a short nap starting now must end, or
// ok false when none may start: no tick seen yet, the last due tick has
// not run (the loop is about to run it), or the next one is too close.
func (i *idler) shortNapUntilLocked(now time.Duration) (until time.Duration, ok bool) {
	next, prev, ok := i.tickAfterLocked(now)
	if !ok || i.lastTick < prev || next-now < 2*tickMargin {
		return 0, false
	}
	return next - tickMargin, true
}

// shortNap waits in the event wait until just before Fyne's next tick, or
// until work is posted; events (a key) are handled inside it as they come.
// It runs on the UI thread and returns at once when a short nap may not
// start (see shortNapUntilLocked) or allowed says the loop may not wait.
// It reports whether it waited.
//
// queued is i.posts when the nap was posted. Work posted since then is
// in Fyne's queue behind the nap, and its post found no nap to wake: the
// nap does not wait then (it would hold that work until the tick: an
// agent's state reached the sidebar up to a tick late, more on a loaded
// machine) and reports behind, so that run posts it again after the work.
func (i *idler) shortNap(allowed func() bool, queued uint64) (waited, behind bool) {
	if !allowed() {
		return false, false
	}
	i.mu.Lock()
	if i.posts != queued {
		i.mu.Unlock()
		return false, true
	}
	now := i.clock()
	until, ok := i.shortNapUntilLocked(now)
	if !ok {
		i.mu.Unlock()
		return false, false
	}
	i.napping, i.woken, i.sawInput = true, false, false
	for {
		i.mu.Unlock()
		i.w.WaitEvents(until - now)
		i.mu.Lock()
		end := i.clock()
		if !i.woken && end < until {
			i.lastInput = end // a window-system event ended the wait: stay awake
		}
		now = end
		if i.woken || now >= until-tickMargin/2 {
			break
		}
	}
	i.napping = false
	i.mu.Unlock()
	return true, false
}

// due returns how long until the loop may sleep; 0 or less means now.
func (i *idler) due() time.Duration {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.dueLocked(i.clock())
}

func (i *idler) dueLocked(now time.Duration) time.Duration {
	at := max(i.lastPost+quietAfterPost, i.lastInput+quietAfterInput, i.lastNap+awakeBetweenNaps)
	return at - now
}

// nap sleeps in the event wait for at most napMax, unless the loop is not
// idle after all (work was posted since due said it was). It returns at
// once when allowed, checked first, says the UI must stay awake (a text
// field's cursor blinks, a dialog is open).
func (i *idler) nap(allowed func() bool) {
	if !allowed() {
		i.mu.Lock()
		i.lastInput = i.clock() // look again later
		i.mu.Unlock()
		return
	}
	i.mu.Lock()
	start := i.clock()
	if i.dueLocked(start) > 0 {
		i.mu.Unlock()
		return
	}
	i.napping, i.woken, i.sawInput = true, false, false
	i.mu.Unlock()

	i.w.WaitEvents(napMax)

	i.mu.Lock()
	end := i.clock()
	i.napping = false
	i.lastNap = end
	why := "timeout"
	switch {
	case i.sawInput:
		// Input handled inside the wait; its handler may have posted too.
		why = "event"
	case i.woken:
		why = "post"
	case end-start < napMax-napMax/20:
		why = "event"
		i.lastInput = end // a window-system event ended it
	}
	i.mu.Unlock()
	if i.probe != nil {
		fmt.Fprintf(i.probe, "idle-probe slept_ms=%.1f end=%s\n", float64(end-start)/float64(time.Millisecond), why)
	}
}

// run naps whenever the loop is idle until done is closed, and takes
// short naps between Fyne's ticks while it is not (see [idler]). post runs
// a function on the UI thread (or drops it once the loop has ended).
func (i *idler) run(done <-chan struct{}, post func(func()), allowed func() bool) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	// again: the last short nap was cut short by posted work, or did not
	// start since work was queued behind it; the next may follow at once
	// (it checks the tick itself) without waiting for a tick.
	again := false
	for {
		if d := i.due(); d > 0 {
			if !again {
				timer.Reset(d)
				select {
				case <-i.ticks:
					timer.Stop()
				case <-timer.C:
					continue
				case <-done:
					return
				}
			}
			i.mu.Lock()
			queued := i.posts
			i.mu.Unlock()
			ran := make(chan [2]bool, 1)
			post(func() {
				waited, behind := i.shortNap(allowed, queued)
				ran <- [2]bool{waited, behind}
			})
			select {
			case r := <-ran:
				i.mu.Lock()
				again = r[0] && i.woken || r[1]
				i.mu.Unlock()
			case <-done:
				return
			}
			continue
		}
		again = false
		ran := make(chan struct{})
		post(func() {
			defer close(ran)
			i.nap(allowed)
		})
		select {
		case <-ran:
		case <-done:
			return
		}
	}
}

// runIdle lets the UI loop sleep whenever it is idle, from the loop's start
// until the shell stops.
func (s *shell) runIdle() {
	defer s.life.wg.Done()
	select {
	case <-s.life.started:
	case <-s.life.done:
		return
	}
	s.loop.idle.posted() // the first frames are painted before any sleep
	// An animation that never ends is called at every tick of Fyne's
	// loop: the short naps follow the ticks through it.
	ticks := &fyne.Animation{Duration: time.Second, RepeatCount: fyne.AnimationRepeatForever,
		Tick: func(float32) { s.loop.idle.ticked(); s.applyAtTick() }}
	s.loop.postQuiet(ticks.Start)
	s.loop.idle.run(s.life.done, s.loop.postQuiet, s.napAllowed)
}

// applyAtTick applies, at a tick of Fyne's loop (its animations run just
// before it paints), what the model reader handed over and posted but
// what has not run yet (flushLocked): a loaded machine's loop otherwise
// often ran one or two paints of the whole window first (Fyne's loop
// picks at random between its tick and the queued work, and a paint with
// a software renderer took 20-200 ms there), so an agent's state reached
// the sidebar that much later, and was painted a frame after that. The
// posted flush then finds nothing left to apply. UI thread only, without
// mu.
func (s *shell) applyAtTick() {
	if s.handed.due() {
		s.guard(s.flushLocked)
	}
}

// noteInput keeps the UI loop awake after input a pane received.
func (s *shell) noteInput() {
	if s.loop.idle != nil {
		s.loop.idle.noteInput()
	}
}

// napAllowed reports, on the UI thread, whether the loop may sleep: not
// while the app quits, a dialog or menu is open (Fyne fills them from its
// own goroutines) or a text field has the focus (its cursor blinks by
// animation, which only runs while the loop polls).
func (s *shell) napAllowed() bool {
	s.mu.Lock()
	quitting := s.life.quitting
	s.mu.Unlock()
	if quitting {
		return false
	}
	c := s.w.Canvas()
	if c.Overlays().Top() != nil {
		return false
	}
	switch c.Focused().(type) {
	case nil, *termview.View:
		return true
	}
	return false
}

// uiLoop is how the shell reaches Fyne's UI goroutine. Both fields are
// set before the shell's goroutines start and not changed after; its
// methods are safe for concurrent use.
type uiLoop struct {
	// thread is the OS thread Fyne's loop runs on (the main thread, to
	// which the desktop driver locks the main goroutine), or 0 when that
	// is not checked (Fyne's test driver runs posted work on the
	// caller's goroutine by design).
	thread int64
	// idle sleeps the UI loop while nothing happens; nil when it polls.
	idle *idler
}

// post runs f on the UI goroutine unless Fyne's loop has ended (see
// shell.do), waking the loop when it sleeps.
func (l *uiLoop) post(f func()) {
	if l.idle != nil {
		l.idle.posted()
	}
	l.postQuiet(f)
}

// postQuiet is post without noting activity, for the idler's own naps.
func (l *uiLoop) postQuiet(f func()) {
	fyne.Do(func() {
		if l.thread != 0 && threadID() != l.thread {
			return
		}
		f()
	})
}
