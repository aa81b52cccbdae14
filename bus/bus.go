package bus

import (
	"slices"
	"sync"
	"sync/atomic"
)

// DefaultQueue is the queue capacity of a subscription made with a queue
// size of zero or less: 1024 events, like the original's per-subscriber
// queue.
const DefaultQueue = 1024

// Bus delivers published events to its subscriptions. Create one with
// [New]; the zero value is also ready to use. A nil *Bus discards
// everything published on it, so a component can be built without a bus.
// A Bus must not be copied after first use.
//
// All methods are safe for concurrent use; see the package documentation
// for ordering and blocking guarantees.
type Bus struct {
	// subs is the current set of open subscriptions, in subscription order.
	// It is replaced, never modified, so Publish reads it without a lock;
	// nil after Close.
	subs atomic.Pointer[[]*Subscription]

	mu     sync.Mutex // serializes changes to subs and closed
	closed bool       // guarded by mu
}

// New returns an open, empty bus.
func New() *Bus { return new(Bus) }

// Publish delivers e to every open subscription whose filter accepts it.
// It never blocks: a full queue drops its oldest event instead. Publishing
// a nil event, on a nil Bus, or after [Bus.Close] does nothing.
func (b *Bus) Publish(e Event) {
	if b == nil || e == nil {
		return
	}
	p := b.subs.Load()
	if p == nil {
		return
	}
	for _, s := range *p {
		if s.filter == nil || s.filter(e) {
			s.push(e)
		}
	}
}

// Filter reports whether a subscription wants an event. It runs on the
// publisher's goroutine, possibly concurrently with itself, so it must be
// fast, must not block and must be safe for concurrent use. A nil Filter
// accepts every event.
type Filter func(Event) bool

// Subscribe returns a new subscription to events published from now on.
// The name identifies it in [Bus.Stats] and need not be unique. The
// subscription keeps up to queue events between drains; a queue of zero or
// less means [DefaultQueue]. f chooses the events it receives; nil means
// all.
//
// The caller must call [Subscription.Close] when done with it, or close the
// bus. Subscribing to a closed bus returns a subscription that is already
// closed: its Done channel is closed and it never receives anything.
// Subscribe panics on a nil Bus.
func (b *Bus) Subscribe(name string, f Filter, queue int) *Subscription {
	if b == nil {
		panic("bus: Subscribe on a nil *Bus")
	}
	if queue <= 0 {
		queue = DefaultQueue
	}
	s := &Subscription{
		bus:    b,
		name:   name,
		filter: f,
		ready:  make(chan struct{}, 1),
		done:   make(chan struct{}),
		limit:  queue,
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		s.closed = true
		close(s.done)
		return s
	}
	var subs []*Subscription
	if p := b.subs.Load(); p != nil {
		subs = slices.Clone(*p)
	}
	subs = append(subs, s)
	b.subs.Store(&subs)
	return s
}

// remove takes s out of the set Publish delivers to.
func (b *Bus) remove(s *Subscription) {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.subs.Load()
	if p == nil {
		return
	}
	i := slices.Index(*p, s)
	if i < 0 {
		return
	}
	subs := slices.Delete(slices.Clone(*p), i, i+1)
	b.subs.Store(&subs)
}

// Close closes every subscription and makes later Publish calls no-ops and
// later Subscribe calls return closed subscriptions. Events queued before
// Close stay available to [Subscription.Drain]. Close is idempotent and a
// no-op on a nil Bus.
func (b *Bus) Close() {
	if b == nil {
		return
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	p := b.subs.Swap(nil)
	b.mu.Unlock()
	if p != nil {
		for _, s := range *p {
			s.markClosed()
		}
	}
}

// SubscriberStats describes one subscription, for debugging. For a
// subscription at rest, Received = Drained + Queued + Dropped + Coalesced.
type SubscriberStats struct {
	Name      string // as given to Subscribe
	Queued    int    // events waiting to be drained
	Capacity  int    // the queue limit
	Received  uint64 // events the filter accepted since Subscribe
	Drained   uint64 // events handed out by Drain
	Dropped   uint64 // oldest events discarded because the queue was full
	Coalesced uint64 // SurfaceChanged events merged into a queued one
}

// Stats returns the statistics of every open subscription, in the order
// they subscribed. It returns nil on a nil or closed Bus.
func (b *Bus) Stats() []SubscriberStats {
	if b == nil {
		return nil
	}
	p := b.subs.Load()
	if p == nil {
		return nil
	}
	st := make([]SubscriberStats, 0, len(*p))
	for _, s := range *p {
		st = append(st, s.Stats())
	}
	return st
}

// Subscription is one subscriber's queue of events, made by
// [Bus.Subscribe]; its zero value is not usable. All methods are safe for
// concurrent use, though a subscription normally has one consumer.
//
// The consumer waits on [Subscription.Ready] and calls
// [Subscription.Drain], which takes every queued event at once, along with
// how many older events were dropped since the previous Drain.
type Subscription struct {
	bus    *Bus
	name   string
	filter Filter
	limit  int           // queue capacity
	ready  chan struct{} // 1-buffered; holds a token while events may be pending
	done   chan struct{} // closed by markClosed

	mu sync.Mutex // guards everything below
	// buf is a ring holding n events starting at head. It grows by
	// doubling up to limit, so an idle subscription stays small.
	buf  []Event
	head int
	n    int
	// seq is the sequence number of buf[head]: the count of events that
	// left the queue (drained or dropped) since Subscribe. The event at
	// ring offset i has sequence number seq+i.
	seq uint64
	// changed maps a surface ID to the sequence number of the
	// SurfaceChanged queued for it, if any, for coalescing.
	changed map[uint64]uint64
	dropped int // since the last Drain
	closed  bool
	stats   SubscriberStats // counters only; Name, Queued, Capacity are filled by Stats
}

// Name returns the name given to [Bus.Subscribe].
func (s *Subscription) Name() string { return s.name }

// Ready returns a channel with a buffer of one that receives a value when
// events are queued. It is signalled on every delivery when empty, and
// [Subscription.Drain] consumes a pending signal, so a wake-up after a
// Drain means new events (a receive may still find Drain returning nothing
// if another goroutine drained first). The channel is never closed; select
// on [Subscription.Done] as well to notice closing.
func (s *Subscription) Ready() <-chan struct{} { return s.ready }

// Done returns a channel that is closed when the subscription is closed,
// by [Subscription.Close] or [Bus.Close]. Events queued before that remain
// available to one more Drain.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Drain takes every queued event, oldest first, and reports how many events
// were dropped from the front of the queue since the previous Drain; those
// were older than every event returned. It stores the events in dst's
// backing array, from index 0, growing it if needed, and returns the
// resulting slice: pass the previous result back in to reuse its storage.
// With nothing queued it returns dst[:0] and the count. Drain never waits
// for publishers beyond the queue's short lock.
func (s *Subscription) Drain(dst []Event) (events []Event, dropped int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Consume a pending Ready signal: the queue is about to be empty, and
	// pushes signal again under this lock.
	select {
	case <-s.ready:
	default:
	}
	dropped = s.dropped
	s.dropped = 0
	if s.n == 0 {
		return dst[:0], dropped
	}
	events = dst[:0]
	for i := range s.n {
		j := (s.head + i) % len(s.buf)
		events = append(events, s.buf[j])
		s.buf[j] = nil
	}
	s.seq += uint64(s.n)
	s.stats.Drained += uint64(s.n)
	s.head, s.n = 0, 0
	clear(s.changed)
	return events, dropped
}

// Close stops delivery to s and removes it from its bus. Events already
// queued stay available to Drain. Close is idempotent.
func (s *Subscription) Close() {
	s.bus.remove(s)
	s.markClosed()
}

// Stats returns s's statistics.
func (s *Subscription) Stats() SubscriberStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Name = s.name
	st.Queued = s.n
	st.Capacity = s.limit
	return st
}

// markClosed stops delivery and closes done, once.
func (s *Subscription) markClosed() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	close(s.done)
}

// push queues e, merging a SurfaceChanged into one already queued for the
// same surface, and dropping the oldest event when the queue is full.
func (s *Subscription) push(e Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.stats.Received++
	sc, isChange := e.(SurfaceChanged)
	if isChange && s.coalesceLocked(sc) {
		return
	}
	switch {
	case s.n == s.limit:
		s.dropOldestLocked()
	case s.n == len(s.buf):
		s.growLocked()
	}
	s.buf[(s.head+s.n)%len(s.buf)] = e
	if isChange {
		if s.changed == nil {
			s.changed = make(map[uint64]uint64)
		}
		s.changed[sc.SurfaceID] = s.seq + uint64(s.n)
	}
	s.n++
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

// coalesceLocked merges sc into the SurfaceChanged queued for the same
// surface, keeping the higher generation, and reports whether there was
// one. s.mu must be held.
func (s *Subscription) coalesceLocked(sc SurfaceChanged) bool {
	seq, ok := s.changed[sc.SurfaceID]
	if !ok {
		return false
	}
	j := (s.head + int(seq-s.seq)) % len(s.buf)
	if old := s.buf[j].(SurfaceChanged); sc.Generation > old.Generation {
		s.buf[j] = sc
	}
	s.stats.Coalesced++
	return true
}

// dropOldestLocked discards the event at the head of the full queue. s.mu
// must be held.
func (s *Subscription) dropOldestLocked() {
	if sc, ok := s.buf[s.head].(SurfaceChanged); ok && s.changed[sc.SurfaceID] == s.seq {
		delete(s.changed, sc.SurfaceID)
	}
	s.buf[s.head] = nil
	s.head = (s.head + 1) % len(s.buf)
	s.n--
	s.seq++
	s.dropped++
	s.stats.Dropped++
}

// growLocked enlarges the ring, which is full but below its limit, and
// lays its events out from index 0. s.mu must be held.
func (s *Subscription) growLocked() {
	size := min(max(2*len(s.buf), 16), s.limit)
	buf := make([]Event, size)
	for i := range s.n {
		buf[i] = s.buf[(s.head+i)%len(s.buf)]
	}
	s.buf, s.head = buf, 0
}

// MatchTypes returns a filter accepting the events whose
// [Event.EventType] is one of types. With no types it accepts nothing (an
// events.subscribe "types" array that names none).
func MatchTypes(types ...string) Filter {
	set := make(map[string]struct{}, len(types))
	for _, t := range types {
		set[t] = struct{}{}
	}
	return func(e Event) bool {
		_, ok := set[e.EventType()]
		return ok
	}
}

// MatchSurfaces returns a filter accepting the events about one of the
// surfaces ids (see [SurfaceOf]). Events about no surface never match. With
// no ids it accepts nothing.
func MatchSurfaces(ids ...uint64) Filter {
	set := make(map[uint64]struct{}, len(ids))
	for _, id := range ids {
		set[id] = struct{}{}
	}
	return func(e Event) bool {
		id, ok := SurfaceOf(e)
		if !ok {
			return false
		}
		_, ok = set[id]
		return ok
	}
}

// All returns a filter accepting the events every non-nil filter in fs
// accepts. Nil entries are skipped; with none left the result is nil, which
// accepts everything.
func All(fs ...Filter) Filter {
	fs = slices.DeleteFunc(slices.Clone(fs), func(f Filter) bool { return f == nil })
	switch len(fs) {
	case 0:
		return nil
	case 1:
		return fs[0]
	}
	return func(e Event) bool {
		for _, f := range fs {
			if !f(e) {
				return false
			}
		}
		return true
	}
}
