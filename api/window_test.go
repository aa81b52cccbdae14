//go:build !windows

package api

import (
	"testing"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/workspace"
)

// TestWorkspaceView: every workspace, every pane with its focus, custom
// name and busy state, and the active layout, in one read.
func TestWorkspaceView(t *testing.T) {
	e := newEnv(t, workspace.Options{}, Options{}).withWorkspace("")
	busy := e.split("sleep 60")
	if _, err := e.m.Rename(busy.ID(), "sleeper"); err != nil {
		t.Fatal(err)
	}
	var v proto.WorkspaceViewResult
	e.ok(proto.MethodWorkspaceView, `{}`, &v)
	if len(v.Workspaces) != 1 || !v.Workspaces[0].Active || v.Workspaces[0].Panes != 2 {
		t.Fatalf("workspaces %+v", v.Workspaces)
	}
	if len(v.Panes) != 2 || v.Layout == nil || v.Layout.Type != workspace.NodeSplit {
		t.Fatalf("panes %+v layout %+v", v.Panes, v.Layout)
	}
	for _, p := range v.Panes {
		if p.WorkspaceID != v.Workspaces[0].ID {
			t.Errorf("pane %+v", p)
		}
		if p.ID == busy.ID() && (p.CustomName != "sleeper" || !p.Busy) {
			t.Errorf("the sleeping pane: %+v", p)
		}
		if p.ID != busy.ID() && (p.CustomName != "" || p.Busy) {
			t.Errorf("the idle shell: %+v", p)
		}
	}
	focused := 0
	for _, p := range v.Panes {
		if p.Focused {
			focused++
		}
	}
	if focused != 1 {
		t.Errorf("%d focused panes, want 1: %+v", focused, v.Panes)
	}
}

// TestWorkspaceViewUsage: a pane whose agent's usage the server knows
// carries it, the others none; the workspace's total is there by its id.
func TestWorkspaceViewUsage(t *testing.T) {
	e := newEnv(t, workspace.Options{}, Options{}).withWorkspace("")
	other := e.split("")
	ws := e.m.Workspaces()[0].ID
	e.s.o.Usage = fakeUsage{surface: other.ID(), workspace: ws}
	var v proto.WorkspaceViewResult
	e.ok(proto.MethodWorkspaceView, `{}`, &v)
	for _, p := range v.Panes {
		switch {
		case p.ID == other.ID() && (p.Usage == nil || p.Usage.Session.Total != 42):
			t.Errorf("the agent's pane: usage %+v, want its session's 42 tokens", p.Usage)
		case p.ID != other.ID() && p.Usage != nil:
			t.Errorf("pane %d: usage %+v, want none", p.ID, p.Usage)
		}
	}
	if u, ok := v.WorkspaceUsage[ws]; !ok || u.Total != 99 || len(v.WorkspaceUsage) != 1 {
		t.Errorf("workspace_usage = %+v, want workspace %d's 99 tokens", v.WorkspaceUsage, ws)
	}
}

// TestWorkspaceLayoutMethods: a preset, equalised shares and a divider's
// ratios set over the socket change the model's layout; bad input is
// -32602 and changes nothing.
func TestWorkspaceLayoutMethods(t *testing.T) {
	e := newEnv(t, workspace.Options{}, Options{}).withWorkspace("")
	e.split("")
	e.split("")
	ws := e.m.Workspaces()[0]
	var r proto.WorkspaceLayoutResult
	e.ok(proto.MethodWorkspacePreset, `{"preset":"even_h"}`, &r)
	if r.WorkspaceID != ws.ID {
		t.Fatalf("result %+v, want workspace %d", r, ws.ID)
	}
	_, l, _ := e.m.ActiveTree()
	if l.Type != workspace.NodeSplit || l.Direction != "vertical" || len(l.Children) != 3 {
		t.Fatalf("after even_h: %+v", l)
	}
	e.ok(proto.MethodWorkspaceSetRatios, `{"workspace_id":`+itoa(ws.ID)+`,"path":[],"ratios":[0.5,0.25,0.25]}`, nil)
	_, l, _ = e.m.ActiveTree()
	if l.Ratios[0] != 0.5 {
		t.Fatalf("ratios %v after set_ratios", l.Ratios)
	}
	e.ok(proto.MethodWorkspaceEqualize, `{"index":0}`, nil)
	_, l, _ = e.m.ActiveTree()
	if l.Ratios[0] == 0.5 {
		t.Fatalf("ratios %v after equalize", l.Ratios)
	}
	for _, bad := range []struct{ method, params string }{
		{proto.MethodWorkspacePreset, `{"preset":"spiral"}`},
		{proto.MethodWorkspacePreset, `{"index":5,"preset":"tiled"}`},
		{proto.MethodWorkspaceEqualize, `{"index":-1}`},
		{proto.MethodWorkspaceSetRatios, `{"workspace_id":` + itoa(ws.ID) + `,"path":[],"ratios":[1]}`},
		{proto.MethodWorkspaceSetRatios, `{"workspace_id":999,"path":[],"ratios":[0.5,0.5]}`},
	} {
		_, err := e.call(bad.method, bad.params)
		if ie := rpcErr(t, err); ie.Code != ipc.CodeInvalidParams {
			t.Errorf("%s %s: %v, want invalid params", bad.method, bad.params, err)
		}
	}
	_, after, _ := e.m.ActiveTree()
	if after.Ratios[0] != l.Ratios[0] || len(after.Children) != 3 {
		t.Errorf("a refused call changed the layout: %+v", after)
	}
}
