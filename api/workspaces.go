package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/workspace"
)

func (s *server) workspaceList(context.Context, json.RawMessage) (any, error) {
	infos := s.m.Workspaces()
	res := proto.WorkspaceListResult{Workspaces: make([]proto.WorkspaceInfo, len(infos))}
	for i, wi := range infos {
		res.Workspaces[i] = proto.WorkspaceInfo{Index: wi.Index, ID: wi.ID, Title: wi.Title, Cwd: wi.Cwd, Panes: wi.Panes, Active: wi.Active}
	}
	return res, nil
}

// currentScrollbackBudget bounds the scrollback text workspace.current
// inlines in all, as encoded in JSON, so the reply fits the clients' 256
// KiB frame cap.
const currentScrollbackBudget = 192 << 10

// workspaceCurrent returns the active workspace with its layout and each
// pane's recent text inline (as surface.read with 4000 lines: ≤4000
// rows, ≤400,000 characters), shortened from the oldest side when all of it would pass
// currentScrollbackBudget; "scrollback": false leaves the text out.
func (s *server) workspaceCurrent(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.WorkspaceCurrentParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	info, layout, ok := s.m.CurrentLayout()
	if !ok {
		return nil, nil
	}
	if layout != nil && (p.Scrollback == nil || *p.Scrollback) {
		var defs []*workspace.SurfaceDefinition
		layout.EachSurface(func(d *workspace.SurfaceDefinition) { defs = append(defs, d) })
		texts := make([]string, len(defs))
		total := 0
		for i, d := range defs {
			if sf, ok := s.m.Surface(d.SurfaceID); ok {
				pg, _ := readPage(sf.Terminal().Emulator(), readMaxRows, 0)
				texts[i] = pg.text
				total += encodedLen(texts[i])
			}
		}
		if total > currentScrollbackBudget {
			share := currentScrollbackBudget / len(defs)
			for i := range texts {
				texts[i] = keepTail(texts[i], share)
			}
		}
		for i, d := range defs {
			d.Scrollback = texts[i]
		}
	}
	return proto.WorkspaceCurrentResult{Index: info.Index, ID: info.ID, Title: info.Title, Cwd: info.Cwd, Panes: info.Panes, Layout: layout}, nil
}

// decodeLayout parses an optional layout; nil for absent or null.
func decodeLayout(raw json.RawMessage, prefix string) (*workspace.LayoutNode, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var l workspace.LayoutNode
	if err := json.Unmarshal(raw, &l); err != nil {
		return nil, ipc.InvalidParams("%s%s", prefix, proto.JSONDetail(err))
	}
	return &l, nil
}

// workspaceCreate appends a workspace: one shell without a layout (the
// active workspace does not change), the layout's panes with one (the new
// workspace becomes active).
func (s *server) workspaceCreate(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.WorkspaceCreateParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	title := "Terminal"
	if p.Name != nil {
		title = *p.Name
	}
	layout, err := decodeLayout(p.Layout, "invalid layout: ")
	if err != nil {
		return nil, err
	}
	var info workspace.WorkspaceInfo
	if p.Command != "" || len(p.Env) > 0 {
		if layout != nil {
			return nil, ipc.InvalidParams("'command' and 'env' cannot be combined with 'layout'")
		}
		spec, err := paneSpec(&proto.PaneParams{Cwd: p.Cwd, Command: p.Command, Env: p.Env}, "")
		if err != nil {
			return nil, err
		}
		info, err = s.m.CreateWorkspaceWith(title, spec, false)
		if err != nil {
			return nil, fail(err)
		}
	} else if info, err = s.m.CreateWorkspace(title, p.Cwd, layout, layout != nil); err != nil {
		return nil, fail(err)
	}
	return proto.WorkspaceCreateResult{Index: info.Index, Title: info.Title, Panes: info.Panes}, nil
}

func (s *server) workspaceSelect(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.WorkspaceIndexParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	i := 0
	if p.Index != nil {
		i = *p.Index
	}
	if err := s.m.SelectWorkspace(i); err != nil {
		return nil, fail(err)
	}
	return proto.WorkspaceSelectResult{Selected: i}, nil
}

// indexOrActive is index, or the active workspace's when nil.
func (s *server) indexOrActive(index *int) (int, error) {
	if index != nil {
		return *index, nil
	}
	ws, ok := s.m.ActiveWorkspace()
	if !ok {
		return 0, ipc.InvalidParams("No active workspace")
	}
	return ws.Index, nil
}

// workspaceMove is workspace.move: a workspace to another position.
func (s *server) workspaceMove(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.WorkspaceMoveParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := s.m.MoveWorkspace(p.Index, p.To); err != nil {
		return nil, fail(err)
	}
	return proto.WorkspaceMoveResult{Index: p.To}, nil
}

// workspaceRename is workspace.rename: a workspace's title.
func (s *server) workspaceRename(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.WorkspaceRenameParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	i, err := s.indexOrActive(p.Index)
	if err != nil {
		return nil, err
	}
	t, err := s.m.RenameWorkspace(i, p.Title)
	if err != nil {
		return nil, fail(err)
	}
	return proto.WorkspaceRenameResult{Index: i, Title: t}, nil
}

// workspaceReopen is workspace.reopen: undo close.
func (s *server) workspaceReopen(context.Context, json.RawMessage) (any, error) {
	r, err := s.m.Reopen()
	if err != nil {
		return nil, fail(err)
	}
	return proto.WorkspaceReopenResult{Workspace: r.Workspace, WorkspaceID: r.WorkspaceID, Index: r.Index, SurfaceIDs: r.SurfaceIDs}, nil
}

func (s *server) workspaceClose(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.WorkspaceIndexParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	i, err := s.indexOrActive(p.Index)
	if err != nil {
		return nil, err
	}
	if err := s.m.CloseWorkspace(i); err != nil {
		return nil, fail(err)
	}
	return proto.WorkspaceCloseResult{Closed: i}, nil
}

func (s *server) workspaceRestoreLayout(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.WorkspaceRestoreLayoutParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	layout, err := decodeLayout(p.Layout, "Invalid layout JSON: ")
	if err != nil {
		return nil, err
	}
	if layout == nil {
		return nil, ipc.InvalidParams("Missing 'layout' parameter")
	}
	n, err := s.m.RestoreLayout(*layout)
	if err != nil {
		return nil, fail(err)
	}
	return proto.WorkspaceRestoreLayoutResult{Restored: true, Panes: n}, nil
}

// paneSpec validates a pane's unsupported members and converts it to a
// PaneSpec. A non-empty label wins over name.
func paneSpec(p *proto.PaneParams, prefix string) (workspace.PaneSpec, error) {
	if v := bytes.TrimSpace(p.Context); !proto.IsAbsent(v) && !bytes.Equal(v, []byte(`""`)) {
		return workspace.PaneSpec{}, ipc.InvalidParams("%scontext is not supported yet", prefix)
	}
	sp := workspace.PaneSpec{Cwd: p.Cwd, Command: p.Command, Prompt: p.Prompt}
	if p.Profile != nil {
		sp.ScrollbackCap = proto.ProfileScrollback(*p.Profile)
	}
	switch {
	case p.Label != nil && *p.Label != "":
		sp.Name = *p.Label
	case p.Name != nil:
		sp.Name = *p.Name
	}
	if len(p.Env) > 0 {
		sp.Env = make(map[string]string, len(p.Env))
		for k, v := range p.Env {
			sp.Env[k] = v
		}
	}
	return sp, nil
}

// workspaceUp creates and activates a workspace of panes arranged by a
// preset (spec ipc.md workspace.up).
func (s *server) workspaceUp(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.WorkspaceUpParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	if len(p.Panes) == 0 {
		return nil, ipc.InvalidParams("`panes` must be a non-empty array")
	}
	if len(p.Panes) > s.m.MaxPanes() {
		return nil, ipc.InvalidParams("layout exceeds maximum pane count (%d)", s.m.MaxPanes())
	}
	u := workspace.UpSpec{Title: "Workspace", Preset: p.Layout, Focus: -1}
	wts := make([]*proto.ManagedWorktree, len(p.Panes))
	if p.Name != nil {
		u.Title = *p.Name
	}
	for i := range p.Panes {
		sp, err := paneSpec(&p.Panes[i], fmt.Sprintf("pane %d: ", i))
		if err != nil {
			return nil, err
		}
		if wts[i], err = s.managedWorktree(p.Panes[i].ManagedWorktree, fmt.Sprintf("pane %d: ", i)); err != nil {
			return nil, err
		}
		u.Panes = append(u.Panes, sp)
		if p.Panes[i].Focus && u.Focus < 0 {
			u.Focus = i
		}
	}
	info, surfaces, err := s.m.Up(u)
	if err != nil {
		return nil, fail(err)
	}
	res := proto.WorkspaceUpResult{Index: info.Index, Title: info.Title, Panes: info.Panes, SurfaceIDs: []uint64{}, Labels: []*string{}}
	for i, sf := range surfaces {
		if wts[i] != nil {
			s.o.Worktrees.Adopt(sf.ID(), *wts[i])
		}
		res.SurfaceIDs = append(res.SurfaceIDs, sf.ID())
		if name := sf.CustomName(); name != "" {
			res.Labels = append(res.Labels, &name)
		} else {
			res.Labels = append(res.Labels, nil)
		}
	}
	return res, nil
}
