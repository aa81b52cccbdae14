//go:build !windows

package api

import (
	"fmt"
	"testing"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/workspace"
)

// TestWorkspaceCreateWithCommand covers our extension of workspace.create:
// a command and environment for the new workspace's one pane.
func TestWorkspaceCreateWithCommand(t *testing.T) {
	e := newEnv(t, workspace.Options{}, Options{}).withWorkspace(t.TempDir())
	var res proto.WorkspaceCreateResult
	e.ok("workspace.create", `{"name":"job","command":"echo value=$PF_TEST_VAR","env":{"PF_TEST_VAR":"forty-two"}}`, &res)
	if res.Index != 1 || res.Title != "job" || res.Panes != 1 {
		t.Fatalf("result = %+v, want index 1, title job, 1 pane", res)
	}
	var pane *workspace.Surface
	for _, info := range e.m.Surfaces() {
		if info.Workspace == 1 {
			pane, _ = e.m.Surface(info.ID)
		}
	}
	if pane == nil {
		t.Fatal("no pane in the new workspace")
	}
	waitText(t, pane, "value=forty-two")
	if ws := e.m.Workspaces(); ws[0].Active != true {
		t.Errorf("workspace.create without a layout changed the active workspace: %+v", ws)
	}

	_, err := e.call("workspace.create", `{"command":"true","layout":{"type":"pane","surfaces":[{}]}}`)
	if ie := rpcErr(t, err); ie.Message != "'command' and 'env' cannot be combined with 'layout'" {
		t.Errorf("command with layout: error %q", ie.Message)
	}
}

// TestWaitFromStart: text already in a pane only satisfies a wait that
// asks for it with from_start.
func TestWaitFromStart(t *testing.T) {
	e := newEnv(t, workspace.Options{}, Options{}).withWorkspace(t.TempDir())
	sf := e.split("echo first-output-7; exec sleep 100")
	waitText(t, sf, "first-output-7")
	params := func(from bool) string {
		return fmt.Sprintf(`{"surface_ids":[%d],"pattern":"^first-output-[0-9]$","timeout_ms":300,"from_start":%v}`, sf.ID(), from)
	}
	var res proto.SurfaceWaitResult
	e.ok("surface.wait", params(true), &res)
	if !res.Matched || len(res.Matches) != 1 || res.Matches[0].Lines[0] != "first-output-7" {
		t.Errorf("from_start wait = %+v, want a match on first-output-7", res)
	}
	_, err := e.call("surface.wait", params(false))
	if ie := rpcErr(t, err); ie.Code != ipc.CodeTimeout {
		t.Errorf("plain wait on old text: error %v, want a timeout", ie)
	}
}
