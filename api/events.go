package api

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// heartbeatInterval is how long a quiet stream waits before a heartbeat
// frame (spec limits.md).
const heartbeatInterval = 30 * time.Second

// subscribeFilter builds the bus filter of events.subscribe: "surfaces"
// (an array of ids; other entries are dropped, so an array without ids
// matches nothing; anything but an array means all surfaces) and "types"
// (an array of known type names; anything but an array means all).
func subscribeFilter(params json.RawMessage) (bus.Filter, error) {
	var p proto.EventsSubscribeParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	var filters []bus.Filter
	var rawIDs []json.RawMessage
	if json.Unmarshal(p.Surfaces, &rawIDs) == nil && rawIDs != nil {
		var ids []uint64
		for _, r := range rawIDs {
			var id uint64
			if json.Unmarshal(r, &id) == nil {
				ids = append(ids, id)
			}
		}
		filters = append(filters, bus.MatchSurfaces(ids...))
	}
	var rawTypes []json.RawMessage
	if json.Unmarshal(p.Types, &rawTypes) == nil && rawTypes != nil {
		known := bus.EventTypes()
		var types []string
		for _, r := range rawTypes {
			var t string
			if json.Unmarshal(r, &t) != nil {
				return nil, ipc.InvalidParams("unknown event type: %s", bytes.TrimSpace(r))
			}
			if !slices.Contains(known, t) {
				return nil, ipc.InvalidParams("unknown event type: %s", t)
			}
			types = append(types, t)
		}
		filters = append(filters, bus.MatchTypes(types...))
	}
	return bus.All(filters...), nil
}

// subscribe streams bus events (spec ipc.md §7): an ack, then one frame
// per event, a dropped frame before the next frame whenever the queue
// shed events, and a heartbeat after heartbeatInterval without frames.
func (s *server) subscribe(ctx context.Context, params json.RawMessage, w ipc.FrameWriter) error {
	filter, err := subscribeFilter(params)
	if err != nil {
		return err
	}
	id := s.subscribers.Add(1)
	sub := s.b.Subscribe("events.subscribe#"+strconv.FormatUint(id, 10), filter, 0)
	defer sub.Close()
	if err := w.WriteFrame(proto.SubscribedFrame{Type: proto.FrameSubscribed, ID: id}); err != nil {
		return err
	}
	hb := time.NewTimer(s.heartbeat)
	defer hb.Stop()
	var buf []bus.Event
	for {
		closed := false
		select {
		case <-ctx.Done():
			return nil
		case <-hb.C:
			if err := w.WriteFrame(proto.HeartbeatFrame{Type: proto.FrameHeartbeat}); err != nil {
				return err
			}
			hb.Reset(s.heartbeat)
			continue
		case <-sub.Ready():
		case <-sub.Done():
			closed = true // the bus closed: flush what is queued, then end
		}
		evs, dropped := sub.Drain(buf)
		if dropped > 0 {
			if err := w.WriteFrame(proto.DroppedFrame{Type: proto.FrameDropped, Count: dropped}); err != nil {
				return err
			}
		}
		now := time.Now()
		for _, e := range evs {
			f, err := proto.EventFrameJSON(e, now)
			if err != nil {
				continue // an event type that cannot be encoded: nothing to send
			}
			if err := w.WriteFrame(f); err != nil {
				return err
			}
		}
		if dropped > 0 || len(evs) > 0 {
			hb.Reset(s.heartbeat)
		}
		clear(evs)
		buf = evs
		if closed {
			return nil
		}
	}
}
