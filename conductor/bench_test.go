package conductor

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/ipc/ipctest"
)

// BenchmarkHookToStatus measures a hook frame's way to surface.status over
// the socket: the hook's connection writing an ai.* notification, then
// surface.status calls (a connection each, like the CLI) until the new
// state shows. It reports the median and 99th percentile.
func BenchmarkHookToStatus(b *testing.B) {
	e := newSocketEnv(b, []Pane{{SurfaceID: 1, WorkspaceID: 1, Name: "agent"}})
	cl := ipctest.Client(e.srv)
	frames := []struct {
		method string
		params json.RawMessage
		want   State
	}{
		{MethodPromptSubmit, json.RawMessage(`{"workspace_id":1,"surface_id":1,"tool":"claude"}`), Thinking},
		{MethodNotification, json.RawMessage(`{"workspace_id":1,"surface_id":1,"tool":"claude","message":"Allow Bash?"}`), WaitingForInput},
		{MethodStop, json.RawMessage(`{"workspace_id":1,"surface_id":1,"tool":"claude","last_result":"done"}`), Finished},
	}
	var lat []time.Duration
	i, lost, busy := 0, 0, 0
	for b.Loop() {
		f := frames[i%len(frames)]
		i++
		start := time.Now()
		n := ipctest.NotifyUntilState(b, cl, f.method, f.params, 1, string(f.want), testDeadline)
		lost, busy = lost+n.Lost, busy+n.Busy
		lat = append(lat, time.Since(start))
	}
	reportLatency(b, lat)
	b.ReportMetric(float64(lost), "lost-frames")
	b.ReportMetric(float64(busy), "busy-replies")
}

// reportLatency reports the median and 99th percentile of lat in ms.
func reportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkFleetList100 calls fleet.list over the socket with 100 agent
// panes in 5 workspaces, each with a hooked session. The pane source here
// is a fake; the real one adds the model's name resolution (see the core
// package's benchmark).
func BenchmarkFleetList100(b *testing.B) {
	var panes []Pane
	for i := range 100 {
		panes = append(panes, Pane{SurfaceID: uint64(i + 1), WorkspaceID: uint64(i/20 + 1), Workspace: i / 20, Name: fmt.Sprintf("agent-%d", i)})
	}
	e := newSocketEnv(b, panes)
	tools := []string{"claude", "codex", "gemini", "opencode"}
	for i, p := range panes {
		params := fmt.Sprintf(`{"workspace_id":%d,"surface_id":%d,"pid":%d,"tool":%q,"message":"Allow Bash: go test ./...?"}`,
			p.WorkspaceID, p.SurfaceID, 10000+i, tools[i%len(tools)])
		f, err := decodeFrame(MethodNotification, json.RawMessage(params))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := e.c.apply(f); err != nil {
			b.Fatal(err)
		}
	}
	cl := ipctest.Client(e.srv)
	ctx := context.Background()
	var raw json.RawMessage
	for b.Loop() {
		if err := cl.Call(ctx, "fleet.list", nil, &raw); err != nil {
			b.Fatal(err)
		}
	}
	var l FleetList
	if err := json.Unmarshal(raw, &l); err != nil || len(l.Agents) != 100 {
		b.Fatalf("fleet.list = %d rows (%v), want 100", len(l.Agents), err)
	}
	b.ReportMetric(float64(len(raw)), "reply-bytes")
}
