//go:build linux

package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAgentHistory: a fake Claude Code runs two turns in a pane through
// the real paneflow-ai-hook (prompt, a tool, the turn's end); `paneflow
// history` lists both, with the tool and the result, in JSON and as text.
func TestAgentHistory(t *testing.T) {
	s := startServer(t, "PANEFLOW_IPC_SCRIPTING=1")
	args, _ := agentDir(t,
		"banner", "hook:SessionStart",
		"read", // the test's go-ahead, once it watches the pane
		"hook:UserPromptSubmit", "hook:PreToolUse", "hook:Stop",
		"hook:UserPromptSubmit", "hook:PreToolUse", "hook:Stop",
		"read")
	pane := s.split(args...)
	s.waitOutput(id(pane), `fake claude 1\.0`)
	w := s.startWatch("--surface", id(pane), "--type", "ai.stop")
	if ack := w.next(); ack["type"] != "subscribed" {
		t.Fatalf("watch: first frame %v, want subscribed", ack)
	}
	goAhead(s, pane, "go")
	// The conductor logs a turn before it publishes the frame's event.
	for range 2 {
		if f := w.nextAI(); f["type"] != "ai.stop" {
			t.Fatalf("watch: got %v, want ai.stop", f)
		}
	}

	var res struct {
		SurfaceID uint64 `json:"surface_id"`
		Turns     []struct {
			Turn       uint64   `json:"turn"`
			Tool       string   `json:"tool"`
			StartedAt  string   `json:"started_at"`
			EndedAt    *string  `json:"ended_at"`
			DurationMS *int64   `json:"duration_ms"`
			Tools      []string `json:"tools_used"`
			Result     string   `json:"result"`
			End        string   `json:"end"`
		} `json:"turns"`
	}
	out := s.cli("history", id(pane), "--json")
	if out.code != 0 {
		t.Fatalf("paneflow history --json: exit %d\n%s%s", out.code, out.stdout, out.stderr)
	}
	if err := json.Unmarshal([]byte(out.stdout), &res); err != nil {
		t.Fatalf("paneflow history --json printed %q: %v", out.stdout, err)
	}
	if res.SurfaceID != pane || len(res.Turns) != 2 {
		t.Fatalf("history %+v; want 2 turns of pane %d", res, pane)
	}
	for i, turn := range res.Turns {
		if turn.Tool != "claude" || len(turn.Tools) != 1 || turn.Tools[0] != "Bash" || turn.Result != fakeResult ||
			turn.End != "stop" || turn.EndedAt == nil || turn.DurationMS == nil || *turn.DurationMS < 0 {
			t.Fatalf("turn %d: %+v; want claude, [Bash], the fake result, ended by stop", i, turn)
		}
	}
	if res.Turns[1].Turn <= res.Turns[0].Turn {
		t.Fatalf("turn numbers %d, %d: want increasing", res.Turns[0].Turn, res.Turns[1].Turn)
	}
	text := s.cli("history", id(pane))
	if text.code != 0 || strings.Count(text.stdout, "tools: Bash") != 2 || strings.Count(text.stdout, fakeResult) != 2 {
		t.Fatalf("paneflow history: exit %d\n%s", text.code, text.stdout)
	}
}
