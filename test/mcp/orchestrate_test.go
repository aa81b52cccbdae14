//go:build linux

package mcpe2e

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolNames lists the session's tools, sorted.
func toolNames(t *testing.T, c *session) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := c.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

func TestOrchestrationGate(t *testing.T) {
	orch := []string{"get_artifact", "kill_agent", "read_from_agent", "send_to_agent", "spawn_agent", "wait_for_idle"}
	// The flag without Paneflow's scripting gate: not even listed.
	closed := startServerGate(t, false)
	c := connectArgs(t, closed.env, closed.sock, legacy, "--orchestrate")
	for _, n := range toolNames(t, c) {
		if slices.Contains(orch, n) {
			t.Errorf("%s listed while Paneflow's scripting gate is closed", n)
		}
	}
	if _, err := c.CallTool(context.Background(), mustParams("spawn_agent", map[string]any{"command": "true"})); err == nil {
		t.Error("spawn_agent callable behind a closed gate")
	}
	// The gate without the flag: TestToolsListed (its server has the gate
	// open). Both: listed.
	s := startServer(t)
	c = connectArgs(t, append(s.env, "PANEFLOW_SURFACE_ID=1"), s.sock, legacy, "--orchestrate")
	names := toolNames(t, c)
	for _, n := range orch {
		if !slices.Contains(names, n) {
			t.Errorf("%s not listed with --orchestrate and the gate open: %v", n, names)
		}
	}
}

func mustParams(name string, args map[string]any) *sdk.CallToolParams {
	return &sdk.CallToolParams{Name: name, Arguments: args}
}

func TestOrchestrationTools(t *testing.T) {
	s := startServer(t)
	// The bridge's agent runs in pane 1 (the server's first pane).
	c := connectArgs(t, append(s.env, "PANEFLOW_SURFACE_ID=1"), s.sock, legacy, "--orchestrate")

	var spawned struct {
		SurfaceID uint64 `json:"surface_id"`
		Name      string `json:"name"`
	}
	// No tty echo: each message shows once, when cat prints it.
	out := c.mustCall(t, "spawn_agent", map[string]any{"command": "stty -echo; echo worker-ready; exec cat", "name": "worker", "cwd": s.dir})
	if err := json.Unmarshal([]byte(out), &spawned); err != nil || spawned.SurfaceID == 0 || spawned.Name != "worker" {
		t.Fatalf("spawn_agent: %v %s", err, out)
	}
	s.waitText(spawned.SurfaceID, "worker-ready")
	for args, want := range map[string]string{
		`{}`:                               "pass 'agent'",
		`{"agent":"vim"}`:                  `unknown agent "vim"`,
		`{"agent":"claude","command":"x"}`: "not both",
		`{"command":"true","cwd":"/nonexistent-dir"}`: "paneflow error",
	} {
		var a map[string]any
		json.Unmarshal([]byte(args), &a)
		if text, isErr := c.call(t, "spawn_agent", a); !isErr || !strings.Contains(text, want) {
			t.Errorf("spawn_agent %s: %v %q, want %q", args, isErr, text, want)
		}
	}

	c.mustCall(t, "send_to_agent", map[string]any{"target": "worker", "text": "first-message"})
	s.waitText(spawned.SurfaceID, "first-message")
	text := c.mustCall(t, "read_from_agent", map[string]any{"target": "worker", "pattern": "first-message", "timeout_seconds": 60})
	attrs, _, body := unfence(t, text)
	if !strings.Contains(attrs, `found="true"`) || !strings.Contains(body, "first-message") {
		t.Errorf("read_from_agent with pattern: %s", text)
	}
	// since_last: only what came after the previous read.
	c.mustCall(t, "send_to_agent", map[string]any{"target": "worker", "text": "second-message"})
	s.waitText(spawned.SurfaceID, "second-message")
	c.mustCall(t, "read_from_agent", map[string]any{"target": "worker", "pattern": "second-message", "timeout_seconds": 60, "lines": 1})
	c.mustCall(t, "send_to_agent", map[string]any{"target": "worker", "text": "third-message"})
	s.waitText(spawned.SurfaceID, "third-message")
	_, _, body = unfence(t, c.mustCall(t, "read_from_agent", map[string]any{"target": "worker", "since_last": true}))
	if !strings.Contains(body, "third-message") || strings.Contains(body, "first-message") {
		t.Errorf("since_last read:\n%s\nthe whole pane:\n%s", body, c.mustCall(t, "read_pane", map[string]any{"target": "worker"}))
	}
	text = c.mustCall(t, "read_from_agent", map[string]any{"target": "worker", "pattern": "never-printed", "timeout_seconds": 0.2})
	if attrs, _, _ := unfence(t, text); !strings.Contains(attrs, `found="false"`) {
		t.Errorf("pattern timeout: %s", text)
	}
	// A pattern found only in output older than the last read waits.
	text = c.mustCall(t, "read_from_agent", map[string]any{"target": "worker", "pattern": "first-message", "since_last": true, "timeout_seconds": 0.2})
	if attrs, _, _ := unfence(t, text); !strings.Contains(attrs, `found="false"`) {
		t.Errorf("since_last pattern in old output: %s", text)
	}

	// A pane with no hooked agent is idle once its output is quiet.
	text = c.mustCall(t, "wait_for_idle", map[string]any{"target": "worker", "idle_seconds": 0.2, "timeout_seconds": 60})
	if !strings.Contains(text, `"is_idle": true`) {
		t.Errorf("wait_for_idle: %s", text)
	}

	if text, isErr := c.call(t, "kill_agent", map[string]any{"target": 1}); !isErr || !strings.Contains(text, "refusing to kill surface 1: it is the pane you run in") {
		t.Errorf("kill_agent of its own pane: %v %q", isErr, text)
	}
	c.mustCall(t, "kill_agent", map[string]any{"target": "worker"})
	if text, isErr := c.call(t, "read_pane", map[string]any{"target": spawned.SurfaceID}); !isErr || !strings.Contains(text, "not found") {
		t.Errorf("the killed pane still answers: %q", text)
	}
}
