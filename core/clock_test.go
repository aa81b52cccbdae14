//go:build !windows

package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/config"
	"github.com/paneflow-go/paneflow/internal/clock"
	"github.com/paneflow-go/paneflow/ipc"
)

// TestSharedClock checks that core.Options.Clock reaches every subsystem
// through its host: the conductor's stall timer and surface.wait's
// timeout both run on the one fake clock, so neither happens until the
// test moves it.
func TestSharedClock(t *testing.T) {
	fc := clock.NewFake(time.Time{})
	c, _ := startCoreWith(t, func(o *Options) { o.Clock = fc })
	cl := &ipc.Client{Path: c.SocketPath, Timeout: testDeadline}
	ctx := context.Background()
	pane := c.Workspaces.Surfaces()[0]

	// The conductor: a thinking agent stalls only when fake time passes.
	base := fmt.Sprintf(`"workspace_id":%d,"surface_id":%d,"tool":"claude","pid":%d`, pane.WorkspaceID, pane.ID, os.Getpid())
	var ack map[string]any
	for _, m := range []string{"ai.session_start", "ai.prompt_submit"} {
		if err := cl.Call(ctx, m, json.RawMessage(`{`+base+`}`), &ack); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
	}
	if ack["state"] != "thinking" {
		t.Fatalf("ai.prompt_submit ack = %v, want thinking", ack)
	}
	fc.Advance(config.Default().AgentStallThreshold)
	waitStatus(t, cl, pane.ID, "stalled")

	// surface.wait: its timeout passes on the same clock. The wait's
	// start and the conductor's timers race with each Advance, so the
	// clock is moved by the whole timeout whenever a timer was armed,
	// until the wait answers; each move takes it past the wait's deadline
	// as soon as the wait has armed its timer.
	reply := make(chan error, 1)
	go func() {
		reply <- cl.Call(ctx, "surface.wait", map[string]any{"surface_ids": []uint64{pane.ID}, "pattern": "NEVER-PRINTED", "timeout_ms": 3600000}, nil)
	}()
	for k := 1; ; k++ {
		actx, cancel := context.WithCancel(ctx)
		armed := make(chan error, 1)
		go func() { armed <- fc.BlockUntilArmed(actx, k) }()
		select {
		case err := <-reply:
			cancel()
			var ie *ipc.Error
			if !errors.As(err, &ie) || ie.Code != ipc.CodeTimeout || ie.Message != "wait timed out after 3600s" {
				t.Fatalf("surface.wait = %v, want its one-hour timeout, on the fake clock", err)
			}
			return
		case err := <-armed:
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			fc.Advance(time.Hour)
		}
	}
}
