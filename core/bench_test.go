//go:build !windows

package core

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/ipc/ipctest"
	"github.com/paneflow-go/paneflow/workspace"
)

// BenchmarkHookToStatus measures a hook frame's way to surface.status
// through the real server: an ai.* notification on its own connection (as
// the hook binary sends it), then surface.status calls (a connection each,
// as the CLI makes them) until the new state shows. Target: a median of
// 5 ms or less.
func BenchmarkHookToStatus(b *testing.B) {
	c, cl := startCore(b, true)
	pane := c.Workspaces.Surfaces()[0]
	base := fmt.Sprintf(`"workspace_id":%d,"surface_id":%d,"tool":"claude","pid":4242`, pane.WorkspaceID, pane.ID)
	frames := []struct {
		method string
		params json.RawMessage
		want   string
	}{
		{"ai.prompt_submit", json.RawMessage(`{` + base + `}`), "thinking"},
		{"ai.notification", json.RawMessage(`{` + base + `,"message":"Allow Bash?"}`), "waiting_for_input"},
		{"ai.stop", json.RawMessage(`{` + base + `,"last_result":"done"}`), "finished"},
	}
	var lat []time.Duration
	i, lost, busy := 0, 0, 0
	for b.Loop() {
		f := frames[i%len(frames)]
		i++
		start := time.Now()
		n := ipctest.NotifyUntilState(b, cl, f.method, f.params, pane.ID, string(f.want), testDeadline)
		lost, busy = lost+n.Lost, busy+n.Busy
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(lost), "lost-frames")
	b.ReportMetric(float64(busy), "busy-replies")
}

// BenchmarkFleetList100 calls fleet.list on a server with 100 shell panes
// in 5 workspaces, each with a hooked agent session: the model resolves
// every pane's name (reading its foreground process) on each call.
func BenchmarkFleetList100(b *testing.B) {
	c, cl := startCore(b, false)
	ctx := context.Background()
	for w := range 5 {
		if _, err := c.Workspaces.CreateWorkspace(fmt.Sprintf("w%d", w), "", nil, true); err != nil {
			b.Fatal(err)
		}
		for range 19 {
			if _, _, err := c.Workspaces.Split(0, workspace.Vertical, workspace.PaneSpec{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	panes := c.Workspaces.Surfaces()
	if len(panes) != 100 {
		b.Fatalf("panes = %d, want 100", len(panes))
	}
	tools := []string{"claude", "codex", "gemini", "opencode"}
	for i, p := range panes {
		// The session's pid must be alive, or the next scan of the pane
		// ends the session: the pane's shell stands in for a shim.
		sf, _ := c.Workspaces.Surface(p.ID)
		params := fmt.Sprintf(`{"workspace_id":%d,"surface_id":%d,"pid":%d,"tool":%q,"message":"Allow Bash: go test ./...?"}`,
			p.WorkspaceID, p.ID, sf.Terminal().Pid(), tools[i%len(tools)])
		var ack map[string]any
		if err := cl.Call(ctx, "ai.notification", json.RawMessage(params), &ack); err != nil {
			b.Fatal(err)
		}
	}
	var raw json.RawMessage
	for b.Loop() {
		if err := cl.Call(ctx, "fleet.list", nil, &raw); err != nil {
			b.Fatal(err)
		}
	}
	var l struct {
		Agents []json.RawMessage `json:"agents"`
	}
	if err := json.Unmarshal(raw, &l); err != nil || len(l.Agents) != 100 {
		b.Fatalf("fleet.list = %d rows (%v), want 100", len(l.Agents), err)
	}
	b.ReportMetric(float64(len(raw)), "reply-bytes")
}
