//go:build !windows

package api

import (
	"encoding/json"
	"strconv"
	"sync"
	"testing"

	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/workspace"
)

// fakeAgents is an AgentReporter that knows an agent in one pane.
type fakeAgents struct {
	mu      sync.Mutex
	surface uint64
	gotGen  uint64
}

func (f *fakeAgents) SurfaceStatus(id, gen uint64) (any, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id != f.surface {
		return nil, false
	}
	f.gotGen = gen
	return map[string]any{"surface_id": id, "state": "thinking", "hooked": true, "tool": "claude", "output_generation": gen}, true
}

func (f *fakeAgents) Fleet() any {
	return map[string]any{"agents": []map[string]any{{"tool": "claude", "state": "thinking"}}, "detection": "process_tree"}
}

// TestAgentReporter checks that surface.status and fleet.list answer from
// Options.Agents when it is set, and keep their idle answers otherwise.
func TestAgentReporter(t *testing.T) {
	agents := &fakeAgents{}
	e := newEnv(t, workspace.Options{}, Options{Agents: agents}).withWorkspace(t.TempDir())
	first := e.m.Surfaces()[0].ID
	second := e.split("exec cat").ID()
	agents.mu.Lock()
	agents.surface = second
	agents.mu.Unlock()

	type statusReply struct {
		SurfaceID  uint64 `json:"surface_id"`
		State      string `json:"state"`
		Hooked     bool   `json:"hooked"`
		Tool       string `json:"tool"`
		Generation uint64 `json:"output_generation"`
	}
	var st statusReply
	e.ok("surface.status", `{"surface_id":`+strconv.FormatUint(second, 10)+`}`, &st)
	sf, _ := e.m.Surface(second)
	if st.State != "thinking" || !st.Hooked || st.Tool != "claude" || st.SurfaceID != second {
		t.Errorf("status of the agent pane = %+v, want the reporter's thinking claude", st)
	}
	if gen := sf.Terminal().Emulator().Generation(); agents.gotGen > gen {
		t.Errorf("reporter got output generation %d, ahead of the pane's %d", agents.gotGen, gen)
	}
	st = statusReply{}
	e.ok("surface.status", `{"surface_id":`+strconv.FormatUint(first, 10)+`}`, &st)
	if st.State != "idle" || st.Hooked || st.Tool != "" {
		t.Errorf("status of a plain pane = %+v, want idle, not hooked", st)
	}

	var fleet struct {
		Agents    []json.RawMessage `json:"agents"`
		Detection string            `json:"detection"`
	}
	e.ok("fleet.list", `{}`, &fleet)
	if len(fleet.Agents) != 1 || fleet.Detection != "process_tree" {
		t.Errorf("fleet.list = %+v, want the reporter's fleet", fleet)
	}
}

// TestStatusEnterMarks: surface.status reports the pane's last Enter
// (enter_count, enter_generation), from the agent reporter's answer too,
// so a client that submitted a text can tell output after its Enter from
// the echo of the text.
func TestStatusEnterMarks(t *testing.T) {
	agents := &fakeAgents{}
	e := newEnv(t, workspace.Options{}, Options{Agents: agents}).withWorkspace(t.TempDir())
	e.scripting.Store(true)
	plain := e.m.Surfaces()[0].ID
	agent := e.split("exec cat").ID()
	agents.mu.Lock()
	agents.surface = agent
	agents.mu.Unlock()
	type reply struct {
		State           string  `json:"state"`
		Tool            string  `json:"tool"`
		Generation      uint64  `json:"output_generation"`
		EnterCount      *uint64 `json:"enter_count"`
		EnterGeneration *uint64 `json:"enter_generation"`
	}
	for _, id := range []uint64{plain, agent} {
		sid := strconv.FormatUint(id, 10)
		var st reply
		e.ok("surface.status", `{"surface_id":`+sid+`}`, &st)
		if st.EnterCount == nil || *st.EnterCount != 0 || st.EnterGeneration == nil || *st.EnterGeneration != 0 {
			t.Errorf("pane %d before any Enter: %+v, want enter_count 0, enter_generation 0", id, st)
		}
		sf, _ := e.m.Surface(id)
		typed := sf.Terminal().Emulator().Generation()
		e.ok("surface.send_text", `{"surface_id":`+sid+`,"text":"x","submit":true}`, nil)
		st = reply{}
		e.ok("surface.status", `{"surface_id":`+sid+`}`, &st)
		if st.EnterCount == nil || *st.EnterCount != 1 || st.EnterGeneration == nil || *st.EnterGeneration < typed || *st.EnterGeneration > st.Generation {
			t.Errorf("pane %d after a submit: %+v, want enter_count 1 at a generation from %d to output_generation", id, st, typed)
		}
		if id == agent && (st.State != "thinking" || st.Tool != "claude") {
			t.Errorf("pane %d: %+v, want the reporter's fields kept", id, st)
		}
	}
}

// TestWithEnterMarks: the marks are appended to any JSON object,
// an empty one included, and anything else is refused.
func TestWithEnterMarks(t *testing.T) {
	m := proto.EnterMarks{EnterCount: 2, EnterGeneration: 7}
	for _, tc := range []struct {
		in   any
		want string
	}{
		{map[string]any{"a": 1}, `{"a":1,"enter_count":2,"enter_generation":7}`},
		{struct{}{}, `{"enter_count":2,"enter_generation":7}`},
	} {
		got, err := withEnterMarks(tc.in, m)
		if err != nil || string(got) != tc.want {
			t.Errorf("withEnterMarks(%v) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	if got, err := withEnterMarks([]int{1}, m); err == nil {
		t.Errorf("withEnterMarks(array) = %s, want an error", got)
	}
}

// fakeUsage is a UsageReporter that knows one pane's usage and, when
// workspace is not 0, one workspace's.
type fakeUsage struct{ surface, workspace uint64 }

func (f fakeUsage) SurfaceUsage(id uint64) (proto.UsageStatus, bool) {
	if id != f.surface {
		return proto.UsageStatus{}, false
	}
	return proto.UsageStatus{Tool: "claude", Session: proto.Usage{Total: 42}}, true
}

func (f fakeUsage) WorkspaceUsage(id uint64) (proto.Usage, bool) {
	if f.workspace == 0 || id != f.workspace {
		return proto.Usage{}, false
	}
	return proto.Usage{Total: 99, Calls: 3}, true
}

// TestStatusUsage: surface.status carries the pane's usage from
// Options.Usage, with an agent reporter's answer and with the idle one
// (an agent that exited leaves its session's figures), and none for a
// pane it does not know.
func TestStatusUsage(t *testing.T) {
	agents := &fakeAgents{}
	e := newEnv(t, workspace.Options{}, Options{Agents: agents}).withWorkspace(t.TempDir())
	first := e.m.Surfaces()[0].ID
	second := e.split("exec cat").ID()
	third := e.split("exec cat").ID()
	agents.mu.Lock()
	agents.surface = second
	agents.mu.Unlock()
	e.s.o.Usage = fakeUsage{surface: first}
	for _, tt := range []struct {
		id    uint64
		total int
	}{{first, 42}, {third, 0}} {
		var st struct {
			State string `json:"state"`
			Usage *struct {
				Session struct{ Total int } `json:"session"`
			} `json:"usage"`
		}
		e.ok("surface.status", `{"surface_id":`+strconv.FormatUint(tt.id, 10)+`}`, &st)
		if got := st.Usage != nil && st.Usage.Session.Total == tt.total; !got && tt.total != 0 || tt.total == 0 && st.Usage != nil {
			t.Errorf("pane %d: status %+v, want usage total %d", tt.id, st, tt.total)
		}
	}
	e.s.o.Usage = fakeUsage{surface: second}
	var st map[string]json.RawMessage
	e.ok("surface.status", `{"surface_id":`+strconv.FormatUint(second, 10)+`}`, &st)
	var u struct {
		Tool    string `json:"tool"`
		Session struct {
			Total int `json:"total"`
		} `json:"session"`
	}
	json.Unmarshal(st["usage"], &u)
	if string(st["state"]) != `"thinking"` || u.Tool != "claude" || u.Session.Total != 42 {
		t.Errorf("agent pane's status = %s %s, want the reporter's state with the usage", st["state"], st["usage"])
	}
}

// fleetOf is an AgentReporter whose fleet is rows (its panes' statuses
// are unknown).
type fleetOf []proto.FleetRow

func (fleetOf) SurfaceStatus(uint64, uint64) (any, bool) { return nil, false }
func (f fleetOf) Fleet() any                             { return proto.FleetListResult{Agents: f} }

// TestFleetUsage: fleet.list's row of an agent carries its pane's usage
// when the pane's usage is that agent's, and no other row does.
func TestFleetUsage(t *testing.T) {
	pane, other := uint64(7), uint64(8)
	rows := fleetOf{
		{Tool: "claude", State: "thinking", SurfaceID: &pane},
		{Tool: "codex", State: "idle", SurfaceID: &pane}, // the pane's usage is claude's
		{Tool: "claude", State: "idle", SurfaceID: &other},
		{Tool: "claude", State: "idle"}, // in no pane
	}
	e := newEnv(t, workspace.Options{}, Options{Agents: rows, Usage: fakeUsage{surface: pane}})
	var fleet struct {
		Agents []map[string]json.RawMessage `json:"agents"`
	}
	e.ok("fleet.list", `{}`, &fleet)
	if len(fleet.Agents) != len(rows) {
		t.Fatalf("fleet.list has %d rows, want %d", len(fleet.Agents), len(rows))
	}
	for i, r := range fleet.Agents {
		u, has := r["usage"]
		var got struct {
			Tool    string `json:"tool"`
			Session struct {
				Total int `json:"total"`
			} `json:"session"`
		}
		json.Unmarshal(u, &got)
		if want := i == 0; has != want || want && (got.Tool != "claude" || got.Session.Total != 42) {
			t.Errorf("fleet.list row %d (%s) usage %s, want it %v", i, r["tool"], u, want)
		}
	}
}
