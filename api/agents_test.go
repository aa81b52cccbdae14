//go:build !windows

package api

import (
	"encoding/json"
	"strconv"
	"sync"
	"testing"

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
