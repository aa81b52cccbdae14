// Package bus is Paneflow's typed in-process event bus and the home of the
// event types that subsystems share.
//
// Subsystems never import each other: the workspace model publishes what
// happened (a pane produced output, a workspace was created, focus moved),
// and the socket API's events.subscribe streams, the GUI and the conductor
// subscribe to it; the conductor publishes what agents do (the ai.* events
// and [AgentState]). The events are plain structs in this package
// ([SurfaceChanged], [SurfaceCreated], [WorkspaceSelected], …), each naming its
// publisher and its subscribers, with JSON tags that give the wire names
// used in event frames and an [Event.EventType] method that gives the frame's
// "type".
//
// The package does not cross process boundaries, does not persist events,
// starts no goroutines, and never blocks a publisher: a subscriber that falls
// behind loses its oldest events instead, and learns how many it lost.
//
// # Usage
//
// A publisher needs only the [*Bus]:
//
//	b.Publish(bus.SurfaceChanged{SurfaceID: id, Generation: gen})
//
// A subscriber takes a named [Subscription] with an optional [Filter] and a
// queue size (0 means [DefaultQueue]), waits on [Subscription.Ready] and takes
// everything queued with [Subscription.Drain]:
//
//	sub := b.Subscribe("events.subscribe#1", bus.MatchTypes("surface_changed"), 0)
//	defer sub.Close()
//	var buf []bus.Event
//	for {
//		closed := false
//		select {
//		case <-ctx.Done():
//			return
//		case <-sub.Ready():
//		case <-sub.Done():
//			closed = true // the bus was closed: drain what was queued, then stop
//		}
//		evs, dropped := sub.Drain(buf)
//		if dropped > 0 {
//			// emit one {"type":"dropped","count":dropped} frame first
//		}
//		for _, e := range evs {
//			// handle e
//		}
//		buf = evs // reuse the storage next time
//		if closed {
//			return
//		}
//	}
//
// [MatchTypes], [MatchSurfaces] and [All] build the filters events.subscribe
// needs; [SurfaceOf] reads the surface of any event that has one.
// [EventTypes] lists every wire type name this package defines.
//
// # Queues, dropping and coalescing
//
// Each subscription has its own bounded queue. When an event arrives at a
// full queue, the oldest queued event is discarded and counted; the next
// [Subscription.Drain] returns that count so the consumer can tell its
// client how many events it missed (one "dropped" frame). A slow subscriber
// therefore never holds up the publisher or any other subscriber.
//
// Queues coalesce [SurfaceChanged]: when one arrives for a surface that
// already has a SurfaceChanged waiting in the queue, the two are merged into
// the queued one, which keeps its position and takes the higher
// [SurfaceChanged.Generation]. A pane flooding output thus occupies at most
// one slot per subscriber between drains, and merging is not counted as
// dropping: the merged event still says "this surface changed, up to this
// generation". No other event type is merged.
//
// # Concurrency
//
// All methods of [Bus] and [Subscription] are safe for concurrent use.
// [Bus.Publish] never blocks: it runs each subscription's filter on the
// caller's goroutine, outside every lock of the bus, then appends to each
// matching queue under that queue's own short lock, so it may be called from
// any goroutine, including with other locks held. Filters therefore run
// concurrently with each other and must be cheap, non-blocking and safe for
// concurrent use.
//
// Events published by one goroutine, or otherwise ordered by happens-before
// (one Publish returned before the other began), reach every subscriber in
// that order, dropping and coalescing aside. Concurrent Publish calls have no
// order: two subscribers may see them in different orders. A subscription
// receives the events whose Publish began after [Bus.Subscribe] returned; an
// event published concurrently with Subscribe or Close may or may not be
// delivered.
//
// Events are shared between subscribers by value inside an interface; they
// must not contain anything a subscriber could mutate (the types here hold
// only numbers, booleans and strings).
package bus
