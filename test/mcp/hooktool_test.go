//go:build linux

package mcpe2e

import (
	"encoding/json"
	"os"
	"strconv"
	"testing"

	"github.com/paneflow-go/paneflow/mcp"
)

// agentStatus is the part of surface.status the hook tool's test reads.
type agentStatus struct {
	State      string  `json:"state"`
	Tool       string  `json:"tool"`
	Hooked     bool    `json:"hooked"`
	LastResult *string `json:"last_result"`
}

func (s *server) agentStatus(id uint64) agentStatus {
	s.t.Helper()
	var st agentStatus
	s.rpc("surface.status", map[string]any{"surface_id": id}, &st)
	return st
}

// TestHookTool: the unlisted hook tool (a Codex mcp_tool hook's target)
// reports the events of the agent in the bridge's own pane: a prompt makes
// it thinking, a Stop finished with its answer kept as the artifact. It
// cannot name another pane: a pane the caller names in the payload stays
// as it was. Without a pane of its own the bridge reports nothing, and the
// agent's hook never fails either way. (TestToolsListed checks that the
// tool is not listed.)
func TestHookTool(t *testing.T) {
	s := startServer(t)
	agent := s.split("agent", "exec cat")
	other := s.split("other", "exec cat")
	c := connect(t, append(s.env, "PANEFLOW_SURFACE_ID="+strconv.FormatUint(agent, 10)), s.sock, "")
	report := func(c *session, event string, payload map[string]any) {
		t.Helper()
		if text, isErr := c.call(t, mcp.HookTool, map[string]any{"event": event, "tool": "codex", "pid": "4242", "payload": payload}); isErr || text != "" {
			t.Fatalf("%s %s: %q, isError %v", mcp.HookTool, event, text, isErr)
		}
	}
	report(c, "UserPromptSubmit", map[string]any{"session_id": "s1", "prompt": "go", "surface_id": other})
	if st := s.agentStatus(agent); st.State != "thinking" || st.Tool != "codex" || !st.Hooked {
		t.Fatalf("agent after its prompt: %+v, want codex thinking, hooked", st)
	}
	report(c, "Stop", map[string]any{"session_id": "s1", "last_assistant_message": "hook tool answer"})
	if st := s.agentStatus(agent); st.State != "finished" || st.LastResult == nil || *st.LastResult != "hook tool answer" {
		t.Fatalf("agent after its Stop: %+v, want finished with the answer", st)
	}
	data, err := os.ReadFile(s.artifactPath(1, agent))
	var onDisk struct {
		Output string `json:"output"`
	}
	if err != nil || json.Unmarshal(data, &onDisk) != nil || onDisk.Output != "hook tool answer" {
		t.Errorf("artifact %s: %s (%v)", s.artifactPath(1, agent), data, err)
	}
	if st := s.agentStatus(other); st.Tool != "" {
		t.Errorf("the other pane was reported for: %+v", st)
	}
	// A bridge outside any pane answers, and reports nothing.
	lone := connect(t, s.env, s.sock, "")
	report(lone, "UserPromptSubmit", map[string]any{"session_id": "s2", "prompt": "go"})
	if st := s.agentStatus(other); st.Tool != "" {
		t.Errorf("a bridge outside any pane reported: %+v", st)
	}
}
