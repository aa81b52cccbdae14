//go:build !windows

package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/config"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
	"github.com/paneflow-go/paneflow/workspace"
)

// testDeadline bounds waits; nothing asserts on how long things take.
const testDeadline = 15 * time.Second

// startCore serves a core with /bin/sh panes on a fresh socket.
func startCore(t testing.TB, initial bool) (*Core, *ipc.Client) {
	t.Helper()
	return startCoreWith(t, func(o *Options) { o.NoInitialWorkspace = !initial })
}

// startCoreWith starts a core like startCore, with /bin/sh panes of 80x24
// on a fresh socket and an empty environment, after configure changed its
// options; it is shut down when the test ends.
func startCoreWith(t testing.TB, configure func(*Options)) (*Core, *ipc.Client) {
	t.Helper()
	c, cl, _ := startCoreStop(t, configure)
	return c, cl
}

// startCoreStop is startCoreWith that also returns stop, which shuts the
// core down at once and checks that Serve ended as it should, for a test
// that looks at what the shutdown left; the test's end calls it
// otherwise. It runs once.
func startCoreStop(t testing.TB, configure func(*Options)) (*Core, *ipc.Client, func()) {
	t.Helper()
	cfg := config.Default()
	cfg.DefaultShell = "/bin/sh"
	o := Options{
		SocketPath: ipctest.NewPath(t), Cols: 80, Rows: 24, Config: &cfg,
		Getenv: func(string) string { return "" }, Logf: t.Logf,
	}
	configure(&o)
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- c.Serve(context.Background()) }()
	stop := sync.OnceFunc(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
		defer cancel()
		if err := c.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-served; !errors.Is(err, ipc.ErrServerClosed) {
			t.Errorf("Serve = %v, want ErrServerClosed", err)
		}
	})
	t.Cleanup(stop)
	return c, &ipc.Client{Path: c.SocketPath}, stop
}

// agentStatus is surface.status as a client reads it.
type agentStatus struct {
	SurfaceID  uint64  `json:"surface_id"`
	State      string  `json:"state"`
	Hooked     bool    `json:"hooked"`
	Reason     *string `json:"reason"`
	Tool       *string `json:"tool"`
	Message    *string `json:"message"`
	LastResult *string `json:"last_result"`
	Generation *uint64 `json:"output_generation"`
}

// waitStatus polls surface.status until pane id is in state want.
func waitStatus(t testing.TB, cl *ipc.Client, id uint64, want string) agentStatus {
	t.Helper()
	deadline := time.Now().Add(testDeadline)
	for {
		var st agentStatus
		if err := cl.Call(context.Background(), "surface.status", map[string]any{"surface_id": id}, &st); err != nil {
			t.Fatalf("surface.status: %v", err)
		}
		if st.State == want {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("pane %d is %s, want %s", id, st.State, want)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestAgentsOverSocket sends hook frames to a real server and reads
// them back through surface.status, fleet.list and events.subscribe.
func TestAgentsOverSocket(t *testing.T) {
	c, cl := startCore(t, true)
	ctx := context.Background()
	panes := c.Workspaces.Surfaces()
	if len(panes) != 1 {
		t.Fatalf("panes = %d, want 1", len(panes))
	}
	pane := panes[0]
	var st agentStatus
	if err := cl.Call(ctx, "surface.status", map[string]any{"surface_id": pane.ID}, &st); err != nil {
		t.Fatal(err)
	}
	if st.State != "idle" || st.Hooked || st.Generation == nil {
		t.Errorf("plain shell status = %+v, want idle, not hooked, with output_generation", st)
	}

	stream, err := cl.Subscribe(ctx, "events.subscribe", map[string]any{"types": []string{"ai.stop", "agent_state"}, "surfaces": []uint64{pane.ID}})
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	if _, err := stream.Next(); err != nil { // {"type":"subscribed"}
		t.Fatal(err)
	}

	// Frames as the hook binary sends them: notifications, one connection
	// each. Two connections are not ordered, so each state is awaited.
	base := fmt.Sprintf(`"workspace_id":%d,"surface_id":%d,"tool":"claude","pid":%d`, pane.WorkspaceID, pane.ID, os.Getpid())
	var ack map[string]any
	if err := cl.Call(ctx, "ai.session_start", json.RawMessage(`{`+base+`}`), &ack); err != nil {
		t.Fatal(err)
	}
	if ack["state"] != "idle" || ack["ok"] != true {
		t.Errorf("ai.session_start ack = %v, want ok, idle", ack)
	}
	for _, f := range []struct{ method, extra, state string }{
		{"ai.prompt_submit", "", "thinking"},
		{"ai.notification", `,"message":"Claude needs your permission to use Bash"`, "waiting_for_input"},
	} {
		if err := cl.Notify(ctx, f.method, json.RawMessage(`{`+base+f.extra+`}`)); err != nil {
			t.Fatal(err)
		}
		st = waitStatus(t, cl, pane.ID, f.state)
	}
	if !st.Hooked || st.Tool == nil || *st.Tool != "claude" || st.Message == nil || *st.Message != "Claude needs your permission to use Bash" {
		t.Errorf("status = %+v, want hooked claude with its question", st)
	}

	var fleet struct {
		Agents []struct {
			Tool        string  `json:"tool"`
			State       string  `json:"state"`
			SurfaceName *string `json:"surface_name"`
			Workspace   *int    `json:"workspace"`
		} `json:"agents"`
	}
	if err := cl.Call(ctx, "fleet.list", nil, &fleet); err != nil {
		t.Fatal(err)
	}
	if len(fleet.Agents) != 1 || fleet.Agents[0].State != "waiting_for_input" || fleet.Agents[0].SurfaceName == nil ||
		*fleet.Agents[0].SurfaceName != pane.Name || fleet.Agents[0].Workspace == nil || *fleet.Agents[0].Workspace != 0 {
		t.Errorf("fleet.list = %+v, want the waiting claude in pane %q of workspace 0", fleet, pane.Name)
	}

	if err := cl.Call(ctx, "ai.stop", json.RawMessage(`{`+base+`,"last_result":"Added the flag."}`), &ack); err != nil {
		t.Fatal(err)
	}
	if ack["state"] != "finished" {
		t.Errorf("ai.stop ack = %v, want state finished", ack)
	}
	var types []string
	for !slices.Contains(types, "ai.stop") {
		raw, err := stream.Next()
		if err != nil {
			t.Fatal(err)
		}
		var ev struct {
			Type       string  `json:"type"`
			LastResult *string `json:"last_result"`
			State      *string `json:"state"`
		}
		json.Unmarshal(raw, &ev)
		types = append(types, ev.Type+":"+deref(ev.State))
		if ev.Type == "ai.stop" && (ev.LastResult == nil || *ev.LastResult != "Added the flag.") {
			t.Errorf("ai.stop event = %s, want last_result", raw)
		}
		if ev.Type == "ai.stop" {
			types[len(types)-1] = "ai.stop"
		}
	}
	want := []string{"agent_state:idle", "agent_state:thinking", "agent_state:waiting_for_input", "agent_state:finished", "ai.stop"}
	if !slices.Equal(types, want) {
		t.Errorf("events = %q, want %q", types, want)
	}

}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// TestDetectAgentInPane runs a fake agent (sleep under the name claude)
// as a pane's command and expects the conductor to find it without hooks.
func TestDetectAgentInPane(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process scans read /proc")
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	dir := t.TempDir()
	if err := os.Symlink(sleep, filepath.Join(dir, "claude")); err != nil {
		t.Fatal(err)
	}
	c, cl := startCore(t, false)
	ws, err := c.Workspaces.CreateWorkspaceWith("agents", workspace.PaneSpec{Command: filepath.Join(dir, "claude") + " 300"}, true)
	if err != nil {
		t.Fatal(err)
	}
	var id uint64
	for _, s := range c.Workspaces.Surfaces() {
		if s.WorkspaceID == ws.ID {
			id = s.ID
		}
	}
	st := waitStatus(t, cl, id, "unknown_running")
	if st.Hooked || st.Tool == nil || *st.Tool != "claude" || st.Reason == nil || *st.Reason != "no_hook" {
		t.Errorf("status = %+v, want claude found by the scan, not hooked, reason no_hook", st)
	}
	// Its pane closes: the fleet is empty again.
	if err := c.Workspaces.CloseSurface(id); err != nil {
		t.Fatal(err)
	}
	var fleet struct {
		Agents []json.RawMessage `json:"agents"`
	}
	if err := cl.Call(context.Background(), "fleet.list", nil, &fleet); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(testDeadline)
	for len(fleet.Agents) != 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
		cl.Call(context.Background(), "fleet.list", nil, &fleet)
	}
	if len(fleet.Agents) != 0 {
		t.Errorf("fleet after the pane closed = %s, want empty", fleet.Agents)
	}
}
