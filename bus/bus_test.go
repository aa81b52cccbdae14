package bus_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/bus/bustest"
	"github.com/paneflow-go/paneflow/proto"
)

// seq is a test event numbered by publisher P and sequence I.
type seq struct{ P, I int }

func (seq) EventType() string { return "test.seq" }

// seqs returns seq{0, i} for i in [from, to).
func seqs(from, to int) []bus.Event {
	var evs []bus.Event
	for i := from; i < to; i++ {
		evs = append(evs, seq{0, i})
	}
	return evs
}

// agentTypes are the event types whose surface is optional.
var agentTypes = map[string]bool{
	"ai.session_start": true, "ai.prompt_submit": true, "ai.tool_use": true, "ai.notification": true,
	"ai.stop": true, "ai.exit": true, "ai.session_end": true, "agent_state": true,
}

func TestEventWire(t *testing.T) {
	tests := []struct {
		ev          bus.Event
		wantType    string
		wantJSON    string
		wantSurface uint64
		wantHasSurf bool
	}{
		{bus.SurfaceChanged{SurfaceID: 3, Generation: 9}, "surface_changed",
			`{"surface_id":3,"output_generation":9}`, 3, true},
		{bus.SurfaceCreated{SurfaceID: 4, WorkspaceID: 2, Name: "build"}, "surface_created",
			`{"surface_id":4,"workspace_id":2,"name":"build"}`, 4, true},
		{bus.SurfaceExited{SurfaceID: 5, ExitCode: 137, Signal: "killed"}, "surface_exited",
			`{"surface_id":5,"exit_code":137,"signal":"killed"}`, 5, true},
		{bus.SurfaceClosed{SurfaceID: 6, WorkspaceID: 1}, "surface_closed",
			`{"surface_id":6,"workspace_id":1}`, 6, true},
		{bus.SurfaceRenamed{SurfaceID: 7, Name: "api"}, "surface_renamed",
			`{"surface_id":7,"name":"api"}`, 7, true},
		{bus.TitleChanged{SurfaceID: 8, Title: "vim"}, "title_changed",
			`{"surface_id":8,"title":"vim"}`, 8, true},
		{bus.FocusChanged{SurfaceID: 9, WorkspaceID: 3}, "focus_changed",
			`{"surface_id":9,"workspace_id":3}`, 9, true},
		{bus.WorkspaceCreated{WorkspaceID: 10, Index: 1, Title: "w"}, "workspace_created",
			`{"workspace_id":10,"index":1,"title":"w"}`, 0, false},
		{bus.WorkspaceClosed{WorkspaceID: 11, Index: 2, Title: "x"}, "workspace_closed",
			`{"workspace_id":11,"index":2,"title":"x"}`, 0, false},
		{bus.WorkspaceSelected{WorkspaceID: 12, Index: 0, Title: "y"}, "workspace_selected",
			`{"workspace_id":12,"index":0,"title":"y"}`, 0, false},
		{bus.WorkspaceChanged{WorkspaceID: 14, Index: 2, Title: "z"}, "workspace_changed",
			`{"workspace_id":14,"index":2,"title":"z"}`, 0, false},
		{bus.LayoutChanged{WorkspaceID: 13}, "layout_changed",
			`{"workspace_id":13}`, 0, false},
		{bus.AISessionStart{AgentFrame: bus.AgentFrame{WorkspaceID: 2, PID: 4242, Tool: "claude"}}, "ai.session_start",
			`{"workspace_id":2,"pid":4242,"tool":"claude","state":null,"surface_id":null,"message":null,"active_tool_name":null,"last_result":null,"exit_code":null}`, 0, false},
		{bus.AIPromptSubmit{AgentFrame: bus.AgentFrame{WorkspaceID: 2, SurfaceID: 7, Tool: "codex", State: "thinking"}}, "ai.prompt_submit",
			`{"workspace_id":2,"pid":null,"tool":"codex","state":"thinking","surface_id":7,"message":null,"active_tool_name":null,"last_result":null,"exit_code":null}`, 7, true},
		{bus.AIToolUse{AgentFrame: bus.AgentFrame{SurfaceID: 7, Tool: "claude", State: "thinking", ActiveToolName: "Bash"}}, "ai.tool_use",
			`{"workspace_id":null,"pid":null,"tool":"claude","state":"thinking","surface_id":7,"message":null,"active_tool_name":"Bash","last_result":null,"exit_code":null}`, 7, true},
		{bus.AINotification{AgentFrame: bus.AgentFrame{SurfaceID: 7, Tool: "claude", State: "waiting_for_input", Message: "Allow?"}}, "ai.notification",
			`{"workspace_id":null,"pid":null,"tool":"claude","state":"waiting_for_input","surface_id":7,"message":"Allow?","active_tool_name":null,"last_result":null,"exit_code":null}`, 7, true},
		{bus.AIStop{AgentFrame: bus.AgentFrame{SurfaceID: 8, Tool: "gemini", State: "finished", LastResult: "done",
			SessionID: "s1", TranscriptPath: "/t.jsonl"}}, "ai.stop", // the in-process fields stay off the wire
			`{"workspace_id":null,"pid":null,"tool":"gemini","state":"finished","surface_id":8,"message":null,"active_tool_name":null,"last_result":"done","exit_code":null}`, 8, true},
		{bus.AIExit{AgentFrame: bus.AgentFrame{SurfaceID: 8, PID: 9, Tool: "codex", State: "finished", HasExitCode: true}}, "ai.exit",
			`{"workspace_id":null,"pid":9,"tool":"codex","state":"finished","surface_id":8,"message":null,"active_tool_name":null,"last_result":null,"exit_code":0}`, 8, true},
		{bus.AISessionEnd{AgentFrame: bus.AgentFrame{PID: 9, Tool: "codex"}}, "ai.session_end",
			`{"workspace_id":null,"pid":9,"tool":"codex","state":null,"surface_id":null,"message":null,"active_tool_name":null,"last_result":null,"exit_code":null}`, 0, false},
		{bus.AgentState{SurfaceID: 3, WorkspaceID: 1, PID: 50, Tool: "claude", State: "errored", Previous: "thinking",
			Hooked: true, ExitCode: 2, HasExitCode: true}, "agent_state",
			`{"surface_id":3,"workspace_id":1,"pid":50,"tool":"claude","state":"errored","previous_state":"thinking","hooked":true,"reason":null,"message":null,"active_tool_name":null,"last_result":null,"exit_code":2}`, 3, true},
		{bus.UsageChanged{SurfaceID: 4, WorkspaceID: 1, Tool: "codex", Model: "gpt-6-sol",
			Session: bus.Usage{Input: 10, Output: 2, Total: 12, Calls: 1}}, "usage_changed",
			`{"surface_id":4,"workspace_id":1,"tool":"codex","model":"gpt-6-sol","session":{"input":10,"cache_read":0,"cache_write":0,"cache_write_1h":0,"output":2,"reasoning":0,"total":12,"cost_usd":null,"unpriced_tokens":0,"calls":1},` +
				`"last_turn":{"input":0,"cache_read":0,"cache_write":0,"cache_write_1h":0,"output":0,"reasoning":0,"total":0,"cost_usd":null,"unpriced_tokens":0,"calls":0},` +
				`"workspace":{"input":0,"cache_read":0,"cache_write":0,"cache_write_1h":0,"output":0,"reasoning":0,"total":0,"cost_usd":null,"unpriced_tokens":0,"calls":0}}`, 4, true},
		{bus.BudgetAlert{Level: bus.BudgetWarning, Scope: "day", Used: bus.Usage{Total: 8}, LimitTokens: 10, Message: "80 %"}, "budget_alert",
			`{"level":"warning","scope":"day","used":{"input":0,"cache_read":0,"cache_write":0,"cache_write_1h":0,"output":0,"reasoning":0,"total":8,"cost_usd":null,"unpriced_tokens":0,"calls":0},"limit_tokens":10,"message":"80 %"}`, 0, false},
		{bus.ChecksChanged{Worktree: "/r", Status: proto.CheckRunning, DurationMS: 5, Checks: []proto.CheckResult{{Name: "test", Command: "go test", Status: proto.CheckRunning, Trigger: "run"}}}, "checks_changed",
			`{"worktree":"/r","status":"running","duration_ms":5,"checks":[{"name":"test","command":"go test","status":"running","started_at":"","duration_ms":0,"trigger":"run"}]}`, 0, false},
	}
	var seen []string
	for _, tt := range tests {
		t.Run(tt.wantType, func(t *testing.T) {
			if got := tt.ev.EventType(); got != tt.wantType {
				t.Errorf("EventType() = %q, want %q", got, tt.wantType)
			}
			b, err := json.Marshal(tt.ev)
			if err != nil {
				t.Fatalf("json.Marshal: %v", err)
			}
			if got := string(b); got != tt.wantJSON {
				t.Errorf("JSON = %s, want %s", got, tt.wantJSON)
			}
			id, ok := bus.SurfaceOf(tt.ev)
			if id != tt.wantSurface || ok != tt.wantHasSurf {
				t.Errorf("SurfaceOf() = %d, %v, want %d, %v", id, ok, tt.wantSurface, tt.wantHasSurf)
			}
			// Agent events always implement SurfaceEvent: whether they
			// carry a surface depends on the session being bound to a pane.
			wantSE := tt.wantHasSurf || agentTypes[tt.wantType]
			if _, isSE := tt.ev.(bus.SurfaceEvent); isSE != wantSE {
				t.Errorf("implements SurfaceEvent = %v, want %v", isSE, wantSE)
			}
		})
		seen = append(seen, tt.wantType)
	}
	slices.Sort(seen)
	if got := bus.EventTypes(); !slices.Equal(got, seen) {
		t.Errorf("EventTypes() = %q, want %q (every event type, sorted)", got, seen)
	}
	// The caller owns the result.
	bus.EventTypes()[0] = "mutated"
	if got := bus.EventTypes()[0]; got == "mutated" {
		t.Errorf("EventTypes()[0] = %q after mutating a previous result, want it unchanged", got)
	}
	if id, ok := bus.SurfaceOf(seq{}); id != 0 || ok {
		t.Errorf("SurfaceOf(non-surface event) = %d, %v, want 0, false", id, ok)
	}
}

func TestDropOldest(t *testing.T) {
	tests := []struct {
		name        string
		queue       int
		publish     int
		wantEvents  []bus.Event
		wantDropped int
	}{
		{"empty", 4, 0, nil, 0},
		{"below capacity", 4, 3, seqs(0, 3), 0},
		{"exactly full", 4, 4, seqs(0, 4), 0},
		{"one over", 4, 5, seqs(1, 5), 1},
		{"many over", 4, 100, seqs(96, 100), 96},
		{"capacity one", 1, 7, seqs(6, 7), 6},
		{"growing ring", 100, 150, seqs(50, 150), 50},
		{"default capacity", 0, bus.DefaultQueue + 10, seqs(10, bus.DefaultQueue+10), 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := bustest.NewBus(t)
			sub := b.Subscribe(tt.name, nil, tt.queue)
			for i := range tt.publish {
				b.Publish(seq{0, i})
			}
			got, dropped := sub.Drain(nil)
			if !slices.Equal(got, tt.wantEvents) {
				t.Errorf("Drain events = %v, want %v", got, tt.wantEvents)
			}
			if dropped != tt.wantDropped {
				t.Errorf("Drain dropped = %d, want %d", dropped, tt.wantDropped)
			}
			// The count is reported once.
			if got, dropped := sub.Drain(nil); len(got) != 0 || dropped != 0 {
				t.Errorf("second Drain = %v, %d, want nothing, 0", got, dropped)
			}
			st := sub.Stats()
			if st.Dropped != uint64(tt.wantDropped) || st.Received != uint64(tt.publish) ||
				st.Drained != uint64(len(tt.wantEvents)) || st.Queued != 0 {
				t.Errorf("Stats() = %+v, want Received %d, Drained %d, Dropped %d, Queued 0",
					st, tt.publish, len(tt.wantEvents), tt.wantDropped)
			}
		})
	}
}

// TestDropWraparound interleaves publishing and draining so that the ring's
// head moves around it, and checks order and counts at every step.
func TestDropWraparound(t *testing.T) {
	b := bustest.NewBus(t)
	sub := b.Subscribe("wrap", nil, 5)
	next := 0
	for round, n := range []int{3, 4, 7, 1, 5, 12, 2, 5} {
		for range n {
			b.Publish(seq{0, next})
			next++
		}
		wantDropped := max(0, n-5)
		want := seqs(next-min(n, 5), next)
		got, dropped := sub.Drain(nil)
		if !slices.Equal(got, want) || dropped != wantDropped {
			t.Fatalf("round %d: Drain = %v, %d, want %v, %d", round, got, dropped, want, wantDropped)
		}
	}
}

func TestCoalesce(t *testing.T) {
	sc := func(id, gen uint64) bus.Event { return bus.SurfaceChanged{SurfaceID: id, Generation: gen} }
	title := func(id uint64, s string) bus.Event { return bus.TitleChanged{SurfaceID: id, Title: s} }
	tests := []struct {
		name          string
		queue         int
		publish       []bus.Event
		want          []bus.Event
		wantDropped   int
		wantCoalesced uint64
	}{
		{
			name:          "same surface merges, newest generation",
			queue:         8,
			publish:       []bus.Event{sc(1, 1), sc(1, 2), sc(1, 3)},
			want:          []bus.Event{sc(1, 3)},
			wantCoalesced: 2,
		},
		{
			name:    "different surfaces stay apart",
			queue:   8,
			publish: []bus.Event{sc(1, 1), sc(2, 1), sc(3, 1)},
			want:    []bus.Event{sc(1, 1), sc(2, 1), sc(3, 1)},
		},
		{
			name:          "older generation does not win",
			queue:         8,
			publish:       []bus.Event{sc(1, 5), sc(1, 4)},
			want:          []bus.Event{sc(1, 5)},
			wantCoalesced: 1,
		},
		{
			name:          "merged event keeps its place",
			queue:         8,
			publish:       []bus.Event{sc(1, 1), title(1, "a"), sc(2, 1), sc(1, 2), title(1, "b"), sc(2, 7)},
			want:          []bus.Event{sc(1, 2), title(1, "a"), sc(2, 7), title(1, "b")},
			wantCoalesced: 2,
		},
		{
			name:          "other types never merge",
			queue:         8,
			publish:       []bus.Event{title(1, "a"), title(1, "a"), bus.LayoutChanged{WorkspaceID: 1}, bus.LayoutChanged{WorkspaceID: 1}},
			want:          []bus.Event{title(1, "a"), title(1, "a"), bus.LayoutChanged{WorkspaceID: 1}, bus.LayoutChanged{WorkspaceID: 1}},
			wantCoalesced: 0,
		},
		{
			name:  "a flood takes one slot per surface",
			queue: 3,
			publish: func() []bus.Event {
				var evs []bus.Event
				for g := range uint64(1000) {
					evs = append(evs, sc(1+g%3, g))
				}
				return evs
			}(),
			want:          []bus.Event{sc(1, 999), sc(2, 997), sc(3, 998)},
			wantCoalesced: 997,
		},
		{
			name:  "dropped change is not a merge target",
			queue: 2,
			// sc(1,1) is dropped by title b; sc(1,5) is queued anew (dropping
			// a) and sc(1,6) merges into it.
			publish:       []bus.Event{sc(1, 1), title(1, "a"), title(1, "b"), sc(1, 5), sc(1, 6)},
			want:          []bus.Event{title(1, "b"), sc(1, 6)},
			wantDropped:   2,
			wantCoalesced: 1,
		},
		{
			name:  "merge target across the ring's wrap",
			queue: 3,
			// Two drops move the head to index 2; sc(2,1) lands at index 1
			// after wrapping, then sc(2,2) must find it there.
			publish:       []bus.Event{title(1, "a"), title(1, "b"), title(1, "c"), title(1, "d"), sc(2, 1), sc(2, 2)},
			want:          []bus.Event{title(1, "c"), title(1, "d"), sc(2, 2)},
			wantDropped:   2,
			wantCoalesced: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := bustest.NewBus(t)
			sub := b.Subscribe(tt.name, nil, tt.queue)
			for _, e := range tt.publish {
				b.Publish(e)
			}
			got, dropped := sub.Drain(nil)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Drain events = %v, want %v", got, tt.want)
			}
			if dropped != tt.wantDropped {
				t.Errorf("Drain dropped = %d, want %d", dropped, tt.wantDropped)
			}
			if st := sub.Stats(); st.Coalesced != tt.wantCoalesced {
				t.Errorf("Stats().Coalesced = %d, want %d", st.Coalesced, tt.wantCoalesced)
			}
		})
	}
}

// TestCoalesceNotAcrossDrain checks that a drained SurfaceChanged is never
// a merge target, so the consumer sees the newer change too.
func TestCoalesceNotAcrossDrain(t *testing.T) {
	b := bustest.NewBus(t)
	sub := b.Subscribe("drain", nil, 4)
	b.Publish(bus.SurfaceChanged{SurfaceID: 1, Generation: 1})
	if got, _ := sub.Drain(nil); !slices.Equal(got, []bus.Event{bus.SurfaceChanged{SurfaceID: 1, Generation: 1}}) {
		t.Fatalf("first Drain = %v, want the generation 1 change", got)
	}
	b.Publish(bus.SurfaceChanged{SurfaceID: 1, Generation: 2})
	b.Publish(bus.SurfaceChanged{SurfaceID: 1, Generation: 3})
	want := []bus.Event{bus.SurfaceChanged{SurfaceID: 1, Generation: 3}}
	if got, _ := sub.Drain(nil); !slices.Equal(got, want) {
		t.Errorf("second Drain = %v, want %v", got, want)
	}
}

func TestFilters(t *testing.T) {
	events := []bus.Event{
		bus.SurfaceChanged{SurfaceID: 1, Generation: 1},
		bus.SurfaceCreated{SurfaceID: 2, WorkspaceID: 1},
		bus.TitleChanged{SurfaceID: 1, Title: "t"},
		bus.WorkspaceCreated{WorkspaceID: 1},
		bus.LayoutChanged{WorkspaceID: 1},
		bus.SurfaceClosed{SurfaceID: 3, WorkspaceID: 1},
	}
	tests := []struct {
		name   string
		filter bus.Filter
		want   []int // indexes into events
	}{
		{"nil accepts all", nil, []int{0, 1, 2, 3, 4, 5}},
		{"types", bus.MatchTypes("surface_changed", "layout_changed"), []int{0, 4}},
		{"unknown type", bus.MatchTypes("nope"), nil},
		{"no types", bus.MatchTypes(), nil},
		{"surfaces", bus.MatchSurfaces(1, 3), []int{0, 2, 5}},
		{"no surfaces", bus.MatchSurfaces(), nil},
		{"workspace events never match surfaces", bus.MatchSurfaces(1, 2, 3), []int{0, 1, 2, 5}},
		{"all of types and surfaces", bus.All(bus.MatchTypes("surface_changed", "surface_closed"), bus.MatchSurfaces(3)), []int{5}},
		{"all skips nil", bus.All(nil, bus.MatchTypes("workspace_created"), nil), []int{3}},
		{"all of nothing", bus.All(), []int{0, 1, 2, 3, 4, 5}},
		{"custom", func(e bus.Event) bool { _, ok := e.(bus.WorkspaceCreated); return ok }, []int{3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := bustest.NewBus(t)
			sub := b.Subscribe(tt.name, tt.filter, 0)
			other := b.Subscribe("unfiltered", nil, 0)
			for _, e := range events {
				b.Publish(e)
			}
			var want []bus.Event
			for _, i := range tt.want {
				want = append(want, events[i])
			}
			if got, _ := sub.Drain(nil); !slices.Equal(got, want) {
				t.Errorf("filtered Drain = %v, want %v", got, want)
			}
			if got, _ := other.Drain(nil); !slices.Equal(got, events) {
				t.Errorf("unfiltered Drain = %v, want every event %v", got, events)
			}
		})
	}
}

// ready reports whether ch holds a signal, consuming it.
func ready(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestReady(t *testing.T) {
	b := bustest.NewBus(t)
	sub := b.Subscribe("ready", bus.MatchTypes("test.seq"), 4)
	if ready(sub.Ready()) {
		t.Fatalf("Ready signalled on a new subscription, want no signal")
	}
	b.Publish(bus.LayoutChanged{})
	if ready(sub.Ready()) {
		t.Fatalf("Ready signalled for a filtered-out event, want no signal")
	}
	b.Publish(seq{0, 0})
	b.Publish(seq{0, 1})
	if !ready(sub.Ready()) {
		t.Fatalf("Ready not signalled after Publish, want a signal")
	}
	if ready(sub.Ready()) {
		t.Fatalf("Ready signalled twice for one batch, want one signal")
	}
	// A signal pending at Drain is consumed by it.
	b.Publish(seq{0, 2})
	if got, _ := sub.Drain(nil); len(got) != 3 {
		t.Fatalf("Drain returned %d events, want 3", len(got))
	}
	if ready(sub.Ready()) {
		t.Errorf("Ready signalled after Drain emptied the queue, want no signal")
	}
	// Coalescing into a queued event leaves one pending signal.
	b2 := bustest.NewBus(t)
	sub2 := b2.Subscribe("coalesce", nil, 4)
	b2.Publish(bus.SurfaceChanged{SurfaceID: 1, Generation: 1})
	b2.Publish(bus.SurfaceChanged{SurfaceID: 1, Generation: 2})
	if !ready(sub2.Ready()) || ready(sub2.Ready()) {
		t.Errorf("Ready after two merged changes: want exactly one signal")
	}
}

// TestDrainReusesStorage checks that Drain writes into dst's array from
// index 0.
func TestDrainReusesStorage(t *testing.T) {
	b := bustest.NewBus(t)
	sub := b.Subscribe("reuse", nil, 0)
	buf := make([]bus.Event, 3, 8)
	b.Publish(seq{0, 1})
	b.Publish(seq{0, 2})
	got, _ := sub.Drain(buf)
	if want := seqs(1, 3); !slices.Equal(got, want) {
		t.Fatalf("Drain = %v, want %v", got, want)
	}
	if &got[0] != &buf[0] {
		t.Errorf("Drain did not reuse dst's backing array")
	}
	got, _ = sub.Drain(got)
	if len(got) != 0 || cap(got) != 8 {
		t.Errorf("empty Drain = len %d cap %d, want len 0 cap 8", len(got), cap(got))
	}
}

// closed reports whether ch is closed.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestClose(t *testing.T) {
	t.Run("bus close", func(t *testing.T) {
		b := bus.New()
		sub := b.Subscribe("s", nil, 0)
		b.Publish(seq{0, 0})
		if closed(sub.Done()) {
			t.Fatalf("Done closed before Close, want open")
		}
		b.Close()
		b.Close() // idempotent
		if !closed(sub.Done()) {
			t.Fatalf("Done open after Bus.Close, want closed")
		}
		b.Publish(seq{0, 1})
		if got, _ := sub.Drain(nil); !slices.Equal(got, seqs(0, 1)) {
			t.Errorf("Drain after Close = %v, want the event queued before Close", got)
		}
		if st := b.Stats(); st != nil {
			t.Errorf("Stats() after Close = %v, want nil", st)
		}
		late := b.Subscribe("late", nil, 0)
		if !closed(late.Done()) {
			t.Errorf("Subscribe after Close: Done open, want closed")
		}
		b.Publish(seq{0, 2})
		if got, _ := late.Drain(nil); len(got) != 0 {
			t.Errorf("late subscription got %v, want nothing", got)
		}
		sub.Close() // after the bus closed: harmless
		late.Close()
	})
	t.Run("subscription close", func(t *testing.T) {
		b := bustest.NewBus(t)
		a := b.Subscribe("a", nil, 0)
		c := b.Subscribe("c", nil, 0)
		b.Publish(seq{0, 0})
		a.Close()
		a.Close() // idempotent
		if !closed(a.Done()) {
			t.Fatalf("Done open after Close, want closed")
		}
		b.Publish(seq{0, 1})
		if got, _ := a.Drain(nil); !slices.Equal(got, seqs(0, 1)) {
			t.Errorf("closed subscription Drain = %v, want only the event before Close", got)
		}
		if got, _ := c.Drain(nil); !slices.Equal(got, seqs(0, 2)) {
			t.Errorf("other subscription Drain = %v, want both events", got)
		}
		var names []string
		for _, st := range b.Stats() {
			names = append(names, st.Name)
		}
		if want := []string{"c"}; !slices.Equal(names, want) {
			t.Errorf("Stats names = %q, want %q", names, want)
		}
	})
	t.Run("nil bus", func(t *testing.T) {
		var b *bus.Bus
		b.Publish(seq{}) // no-op
		b.Close()
		if st := b.Stats(); st != nil {
			t.Errorf("nil Stats() = %v, want nil", st)
		}
		defer func() {
			if recover() == nil {
				t.Errorf("Subscribe on a nil *Bus did not panic")
			}
		}()
		b.Subscribe("x", nil, 0)
	})
	t.Run("zero bus and nil event", func(t *testing.T) {
		var b bus.Bus
		sub := b.Subscribe("z", nil, 0)
		b.Publish(nil)
		b.Publish(seq{0, 0})
		if got, _ := sub.Drain(nil); !slices.Equal(got, seqs(0, 1)) {
			t.Errorf("Drain = %v, want only the non-nil event", got)
		}
		b.Close()
	})
}

func TestStats(t *testing.T) {
	b := bustest.NewBus(t)
	a := b.Subscribe("alpha", nil, 2)
	b.Subscribe("beta", bus.MatchTypes("surface_changed"), 0)
	b.Publish(seq{0, 0})
	b.Publish(bus.SurfaceChanged{SurfaceID: 1, Generation: 1})
	b.Publish(bus.SurfaceChanged{SurfaceID: 1, Generation: 2})
	b.Publish(seq{0, 1})
	a.Drain(nil)
	b.Publish(seq{0, 2})
	got := b.Stats()
	want := []bus.SubscriberStats{
		// alpha: s0, c1 queued; c2 merged; s1 drops s0; drained 2; s2 queued.
		{Name: "alpha", Queued: 1, Capacity: 2, Received: 5, Drained: 2, Dropped: 1, Coalesced: 1},
		{Name: "beta", Queued: 1, Capacity: bus.DefaultQueue, Received: 2, Coalesced: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Stats() =\n%+v\nwant\n%+v", got, want)
	}
	if a.Name() != "alpha" {
		t.Errorf("Name() = %q, want %q", a.Name(), "alpha")
	}
}

// TestSlowSubscriberIsolated checks that a subscriber that never drains
// costs the others nothing.
func TestSlowSubscriberIsolated(t *testing.T) {
	b := bustest.NewBus(t)
	slow := b.Subscribe("slow", nil, 4)
	fast := b.Subscribe("fast", nil, 2000)
	for i := range 1000 {
		b.Publish(seq{0, i})
	}
	if got, dropped := fast.Drain(nil); !slices.Equal(got, seqs(0, 1000)) || dropped != 0 {
		t.Errorf("fast Drain = %d events, %d dropped, want 1000 in order, 0 dropped", len(got), dropped)
	}
	if got, dropped := slow.Drain(nil); !slices.Equal(got, seqs(996, 1000)) || dropped != 996 {
		t.Errorf("slow Drain = %v, %d dropped, want %v, 996", got, dropped, seqs(996, 1000))
	}
}

// TestConcurrent runs publishers, consumers, subscription churn and Stats
// readers at once (meant for -race) and checks delivery and ordering.
func TestConcurrent(t *testing.T) {
	const (
		publishers = 4
		perPub     = 2000
		surfaces   = 5
	)
	b := bus.New()

	type result struct {
		name    string
		events  []bus.Event
		dropped int
		stats   bus.SubscriberStats
	}
	var (
		consumers sync.WaitGroup
		mu        sync.Mutex
		results   []result
	)
	consume := func(name string, f bus.Filter, queue int) {
		sub := b.Subscribe(name, f, queue)
		consumers.Go(func() {
			r := result{name: name}
			var buf []bus.Event
			for {
				done := false
				select {
				case <-sub.Ready():
				case <-sub.Done():
					done = true
				}
				evs, dropped := sub.Drain(buf)
				r.events = append(r.events, evs...)
				r.dropped += dropped
				buf = evs
				if done {
					break
				}
			}
			r.stats = sub.Stats()
			mu.Lock()
			results = append(results, r)
			mu.Unlock()
		})
	}
	consume("all", nil, publishers*perPub*2)
	consume("seq only", bus.MatchTypes("test.seq"), publishers*perPub)
	consume("tiny", nil, 3)
	consume("surface 2", bus.MatchSurfaces(2), 8)

	var churn sync.WaitGroup
	stop := make(chan struct{})
	churn.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			s := b.Subscribe(fmt.Sprint("churn", i), nil, 2)
			b.Stats()
			s.Drain(nil)
			s.Close()
		}
	})

	var pubs sync.WaitGroup
	for p := range publishers {
		pubs.Go(func() {
			for i := range perPub {
				b.Publish(seq{p, i})
				if i%4 == 0 {
					b.Publish(bus.SurfaceChanged{SurfaceID: uint64(i % surfaces), Generation: uint64(i)})
				}
			}
		})
	}
	pubs.Wait()
	close(stop)
	churn.Wait()
	b.Close()
	consumers.Wait()

	for _, r := range results {
		t.Run(r.name, func(t *testing.T) {
			// Per publisher, sequence numbers only increase.
			last := make([]int, publishers)
			for i := range last {
				last[i] = -1
			}
			var nseq int
			for _, e := range r.events {
				switch e := e.(type) {
				case seq:
					nseq++
					if e.I <= last[e.P] {
						t.Fatalf("publisher %d: got %d after %d, want increasing", e.P, e.I, last[e.P])
					}
					last[e.P] = e.I
				}
			}
			st := r.stats
			if st.Received != st.Drained+st.Dropped+st.Coalesced+uint64(st.Queued) {
				t.Errorf("Stats %+v: Received != Drained+Dropped+Coalesced+Queued", st)
			}
			if st.Drained != uint64(len(r.events)) || st.Dropped != uint64(r.dropped) {
				t.Errorf("Stats %+v, want Drained %d, Dropped %d as the consumer saw", st, len(r.events), r.dropped)
			}
			switch r.name {
			case "all", "seq only":
				if nseq != publishers*perPub || r.dropped != 0 {
					t.Errorf("got %d seq events, %d dropped, want %d, 0", nseq, r.dropped, publishers*perPub)
				}
			case "surface 2":
				for _, e := range r.events {
					if id, ok := bus.SurfaceOf(e); !ok || id != 2 {
						t.Fatalf("got %v through a filter on surface 2, want only surface 2 events", e)
					}
				}
			}
		})
	}
	if len(results) != 4 {
		t.Errorf("got %d consumer results, want 4", len(results))
	}
}

// TestNoGoroutines runs the bus inside a synctest bubble: if it started a
// goroutine that outlived Close, the bubble would report it blocked.
func TestNoGoroutines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.New()
		w := bustest.NewWatcher(t, b, nil)
		sub := b.Subscribe("extra", nil, 1)
		b.Publish(bus.LayoutChanged{WorkspaceID: 1})
		b.Publish(bus.LayoutChanged{WorkspaceID: 2})
		w.ExpectEvents(bus.LayoutChanged{WorkspaceID: 1}, bus.LayoutChanged{WorkspaceID: 2})
		// An event published from another goroutine wakes the watcher.
		go b.Publish(bus.SurfaceClosed{SurfaceID: 7, WorkspaceID: 1})
		w.Expect("surface_closed")
		synctest.Wait()
		w.ExpectNone()
		sub.Close()
		b.Close()
	})
}

func BenchmarkPublish(b *testing.B) {
	const subscribers = 10
	setup := func(b *testing.B, queue int) (*bus.Bus, []*bus.Subscription) {
		bb := bus.New()
		b.Cleanup(bb.Close)
		subs := make([]*bus.Subscription, subscribers)
		for i := range subs {
			subs[i] = bb.Subscribe(fmt.Sprint("sub", i), nil, queue)
		}
		return bb, subs
	}
	// drained: consumers keep up, draining every 64 events.
	b.Run("drained", func(b *testing.B) {
		bb, subs := setup(b, 0)
		var ev bus.Event = seq{}
		buf := make([]bus.Event, 0, 64)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			bb.Publish(ev)
			if i++; i%64 == 0 {
				for _, s := range subs {
					buf, _ = s.Drain(buf)
				}
			}
		}
	})
	// lagging: nobody drains, so every Publish drops an event per queue.
	b.Run("lagging", func(b *testing.B) {
		bb, _ := setup(b, 256)
		var ev bus.Event = seq{}
		for range 256 {
			bb.Publish(ev)
		}
		b.ReportAllocs()
		for b.Loop() {
			bb.Publish(ev)
		}
	})
	// coalescing: an output flood from 8 surfaces merges into queued events.
	b.Run("coalescing", func(b *testing.B) {
		bb, _ := setup(b, 0)
		evs := make([]bus.Event, 8)
		for i := range evs {
			evs[i] = bus.SurfaceChanged{SurfaceID: uint64(i + 1), Generation: uint64(i)}
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			bb.Publish(evs[i%len(evs)])
			i++
		}
	})
	// parallel: publishers on every P against lagging queues.
	b.Run("parallel", func(b *testing.B) {
		bb, _ := setup(b, 256)
		var ev bus.Event = seq{}
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				bb.Publish(ev)
			}
		})
	})
}
