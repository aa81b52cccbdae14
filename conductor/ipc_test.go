package conductor

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/bus/bustest"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
)

// testDeadline bounds waits in tests that use real time; nothing asserts
// on how long things take.
const testDeadline = 15 * time.Second

// socketEnv is a conductor served on a real socket, with surface.status
// and fleet.list answered as the socket API does.
type socketEnv struct {
	c     *Conductor
	srv   *ipc.Server
	bus   *bus.Bus
	panes *fakePanes
}

func newSocketEnv(t testing.TB, panes []Pane) *socketEnv {
	t.Helper()
	e := &socketEnv{bus: bustest.NewBus(t), panes: &fakePanes{panes: panes}}
	e.c = New(Options{Bus: e.bus, Panes: e.panes, noProcs: true})
	reg := ipc.NewRegistry()
	e.c.Register(reg)
	reg.Register("surface.status", func(_ context.Context, params json.RawMessage) (any, error) {
		var p struct {
			SurfaceID uint64 `json:"surface_id"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, ipc.InvalidParams("%v", err)
		}
		if st, ok := e.c.SurfaceStatus(p.SurfaceID, 0); ok {
			return st, nil
		}
		return map[string]any{"surface_id": p.SurfaceID, "state": "idle", "hooked": false, "output_generation": 0}, nil
	})
	reg.Register("fleet.list", func(context.Context, json.RawMessage) (any, error) { return e.c.Fleet(), nil })
	e.c.Start()
	t.Cleanup(e.c.Close)
	e.srv = ipctest.Start(t, reg)
	return e
}

// waitState polls surface.status until pane id reports want.
func waitState(t testing.TB, srv *ipc.Server, id uint64, want State) Status {
	t.Helper()
	deadline := time.Now().Add(testDeadline)
	for {
		var st Status
		if err := ipctest.Client(srv).Call(context.Background(), "surface.status", map[string]any{"surface_id": id}, &st); err != nil {
			t.Fatalf("surface.status: %v", err)
		}
		if st.State == want {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("pane %d state = %s, want %s", id, st.State, want)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestSocket drives the conductor through a real ipc server: hook frames
// as notifications (no reply), requests with an id (an ack or -32602),
// surface.status and fleet.list, and the bus events.
func TestSocket(t *testing.T) {
	e := newSocketEnv(t, []Pane{{SurfaceID: 7, WorkspaceID: 2, Workspace: 0, Name: "agent", PID: 0}})
	sub := e.bus.Subscribe("test", bus.MatchTypes(agentEventTypes...), 0)
	cl := ipctest.Client(e.srv)
	ctx := context.Background()

	notify := func(method, params string) {
		t.Helper()
		if err := cl.Notify(ctx, method, json.RawMessage(params)); err != nil {
			t.Fatalf("notify %s: %v", method, err)
		}
	}
	notify(MethodPromptSubmit, `{"workspace_id":2,"surface_id":7,"tool":"claude","session_id":"abc"}`)
	waitState(t, e.srv, 7, Thinking)
	notify(MethodNotification, `{"workspace_id":2,"surface_id":7,"tool":"claude","notification_type":"permission_prompt","message":"Claude needs your permission to use Bash"}`)
	st := waitState(t, e.srv, 7, WaitingForInput)
	if deref(st.Message) != "Claude needs your permission to use Bash" || !st.Hooked || st.Tool != "claude" {
		t.Errorf("status = %+v, want hooked claude asking for Bash", st)
	}
	// A notification that the conductor refuses gets no reply either.
	notify(MethodStop, `{"surface_id":99}`)

	var ack Ack
	if err := cl.Call(ctx, MethodStop, json.RawMessage(`{"workspace_id":2,"surface_id":7,"tool":"claude","last_result":"Done."}`), &ack); err != nil {
		t.Fatalf("ai.stop request: %v", err)
	}
	if !ack.OK || ack.State == nil || *ack.State != Finished || ack.SurfaceID == nil || *ack.SurfaceID != 7 {
		t.Errorf("ai.stop ack = %+v, want ok, finished, pane 7", ack)
	}
	err := cl.Call(ctx, MethodExit, json.RawMessage(`{"surface_id":7}`), &ack)
	var ie *ipc.Error
	if !errors.As(err, &ie) || ie.Code != ipc.CodeInvalidParams {
		t.Errorf("ai.exit without exit_code = %v, want -32602", err)
	}

	var fleet FleetList
	if err := cl.Call(ctx, "fleet.list", nil, &fleet); err != nil {
		t.Fatal(err)
	}
	if len(fleet.Agents) != 1 || fleet.Agents[0].State != Finished || deref(fleet.Agents[0].LastResult) != "Done." ||
		deref(fleet.Agents[0].SurfaceName) != "agent" {
		t.Errorf("fleet = %+v, want the finished claude in pane agent", fleet)
	}

	var types []string
	deadline := time.Now().Add(testDeadline)
	for len(types) < 3 && time.Now().Before(deadline) {
		select {
		case <-sub.Ready():
		case <-time.After(10 * time.Millisecond):
		}
		evs, _ := sub.Drain(nil)
		for _, ev := range evs {
			types = append(types, ev.EventType())
		}
	}
	if want := []string{"ai.prompt_submit", "ai.notification", "ai.stop"}; !slices.Equal(types, want) {
		t.Errorf("events = %q, want %q (refused frames publish nothing)", types, want)
	}
}
