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
)

// heartbeatInterval is how long a quiet stream waits before a heartbeat
// frame (spec limits.md).
const heartbeatInterval = 30 * time.Second

type subscribeParams struct {
	Surfaces json.RawMessage `json:"surfaces"`
	Types    json.RawMessage `json:"types"`
}

// subscribeFilter builds the bus filter of events.subscribe: "surfaces"
// (an array of ids; other entries are dropped, so an array without ids
// matches nothing; anything but an array means all surfaces) and "types"
// (an array of known type names; anything but an array means all).
func subscribeFilter(params json.RawMessage) (bus.Filter, error) {
	var p subscribeParams
	if err := decode(params, &p); err != nil {
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

type ackFrame struct {
	Type string `json:"type"`
	ID   uint64 `json:"id"`
}

type droppedFrame struct {
	Type  string `json:"type"`
	Count int    `json:"count"`
}

type heartbeatFrame struct {
	Type string `json:"type"`
}

// eventFrame encodes a bus event as a stream frame: {"type":…, the
// event's fields…, "ts":<epoch ms>}.
func eventFrame(e bus.Event, now time.Time) (json.RawMessage, error) {
	fields, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	typ, _ := json.Marshal(e.EventType())
	b := make([]byte, 0, len(fields)+48)
	b = append(b, `{"type":`...)
	b = append(b, typ...)
	if len(fields) < 2 || fields[0] != '{' {
		fields = []byte("{}") // not an object: no fields to add
	}
	if inner := bytes.TrimSpace(fields[1 : len(fields)-1]); len(inner) > 0 {
		b = append(b, ',')
		b = append(b, inner...)
	}
	b = append(b, `,"ts":`...)
	b = strconv.AppendInt(b, now.UnixMilli(), 10)
	return append(b, '}'), nil
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
	if err := w.WriteFrame(ackFrame{Type: "subscribed", ID: id}); err != nil {
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
			if err := w.WriteFrame(heartbeatFrame{Type: "heartbeat"}); err != nil {
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
			if err := w.WriteFrame(droppedFrame{Type: "dropped", Count: dropped}); err != nil {
				return err
			}
		}
		now := time.Now()
		for _, e := range evs {
			f, err := eventFrame(e, now)
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
