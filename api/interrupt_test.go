//go:build !windows

package api

import (
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/workspace"
)

// toolAgents is an AgentReporter that knows the tool of some panes, as
// the conductor answers (a proto.AgentStatus).
type toolAgents map[uint64]string

func (a toolAgents) SurfaceStatus(id, gen uint64) (any, bool) {
	tool, ok := a[id]
	if !ok {
		return nil, false
	}
	return proto.AgentStatus{SurfaceID: id, State: proto.StateThinking, Hooked: true, Tool: tool, OutputGeneration: gen}, true
}

func (toolAgents) Fleet() any { return proto.FleetListResult{} }

// TestSurfaceInterrupt: surface.interrupt presses what the pane's agent
// takes to stop a turn: two Escapes in opencode's TUI (a program that
// turned bracketed paste on), Ctrl+C in a program that did not (a print
// mode), and nothing at all while the scripting gate is closed.
func TestSurfaceInterrupt(t *testing.T) {
	agents := toolAgents{}
	e := newEnv(t, workspace.Options{}, Options{Agents: agents}).withWorkspace(t.TempDir())
	tui := e.split(`printf '\033[?2004h'; echo READY; exec cat`)
	plain := e.split(`echo READY; exec cat`)
	waitText(t, tui, "READY")
	waitText(t, plain, "READY")
	agents[tui.ID()], agents[plain.ID()] = "opencode", "claude"

	_, err := e.call("surface.interrupt", `{"surface_id":`+itoa(tui.ID())+`}`)
	if ie := rpcErr(t, err); ie.Code != ipc.CodeMethodNotFound || ie.Message != proto.MsgInterruptGate {
		t.Errorf("gate closed: %d %q, want -32601 %q", ie.Code, ie.Message, proto.MsgInterruptGate)
	}
	e.scripting.Store(true)

	var r proto.SurfaceInterruptResult
	e.ok("surface.interrupt", `{"surface_id":`+itoa(tui.ID())+`}`, &r)
	if !r.Sent || r.Tool != "opencode" || len(r.Keys) != 2 || r.Keys[0] != "escape" || r.Keys[1] != "escape" {
		t.Errorf("opencode's TUI: %+v, want two escapes", r)
	}
	waitText(t, tui, "^[^[") // the tty echoes each ESC as ^[; the gate's refusal typed nothing

	e.ok("surface.interrupt", `{"surface_id":`+itoa(plain.ID())+`}`, &r)
	if r.Tool != "claude" || len(r.Keys) != 1 || r.Keys[0] != "ctrl-c" {
		t.Errorf("claude in a print mode: %+v, want ctrl-c", r)
	}
	select {
	case <-plain.Terminal().Done():
	case <-time.After(testDeadline):
		t.Fatal("cat did not exit on the interrupt's ctrl-c")
	}
}

func TestInterruptKeys(t *testing.T) {
	for _, c := range []struct {
		tool        string
		interactive bool
		want        string
	}{
		{"claude", true, "escape"}, {"codex", true, "escape"}, {"gemini", true, "escape"},
		{"opencode", true, "escape escape"}, {"claude", false, "ctrl-c"}, {"", true, "ctrl-c"}, {"aider", true, "ctrl-c"},
	} {
		got := ""
		for i, k := range proto.InterruptKeys(c.tool, c.interactive) {
			if i > 0 {
				got += " "
			}
			got += k
		}
		if got != c.want {
			t.Errorf("InterruptKeys(%q, %v) = %q, want %q", c.tool, c.interactive, got, c.want)
		}
	}
}
