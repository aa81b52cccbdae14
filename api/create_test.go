//go:build !windows

package api

import (
	"testing"

	"github.com/paneflow-go/paneflow/workspace"
)

// TestWorkspaceCreateWithCommand covers our extension of workspace.create:
// a command and environment for the new workspace's one pane.
func TestWorkspaceCreateWithCommand(t *testing.T) {
	e := newEnv(t, workspace.Options{}, Options{}).withWorkspace(t.TempDir())
	var res createResult
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
