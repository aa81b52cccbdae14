package api

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// The window's methods (issue 26): what a window attached to the server
// reads and changes beyond the CLI's methods.

// workspaceView returns every workspace, every open pane with what the
// window shows about it (focus, custom name, pid, output generation,
// whether it is busy, its team, its agent's usage), what each
// workspace's agents used, and the active workspace's layout. It
// reads each pane's foreground process group (busy), not their names.
func (s *server) workspaceView(context.Context, json.RawMessage) (any, error) {
	infos := s.m.Workspaces()
	res := proto.WorkspaceViewResult{Workspaces: make([]proto.WorkspaceInfo, len(infos)), Panes: []proto.ViewPane{}}
	for i, wi := range infos {
		res.Workspaces[i] = proto.WorkspaceInfo{Index: wi.Index, ID: wi.ID, Title: wi.Title, Cwd: wi.Cwd, Panes: wi.Panes, Active: wi.Active}
		if s.o.Usage != nil {
			if u, ok := s.o.Usage.WorkspaceUsage(wi.ID); ok {
				if res.WorkspaceUsage == nil {
					res.WorkspaceUsage = map[uint64]proto.Usage{}
				}
				res.WorkspaceUsage[wi.ID] = u
			}
		}
	}
	var teams map[uint64]TeamMember
	if s.o.Teams != nil {
		teams = s.o.Teams.Teams()
	}
	for _, p := range s.m.Panes() {
		sf, ok := s.m.Surface(p.ID)
		if !ok {
			continue // closed since
		}
		t := sf.Terminal()
		tm := teams[p.ID]
		vp := proto.ViewPane{
			ID: p.ID, WorkspaceID: p.WorkspaceID, Workspace: p.Workspace, Focused: p.Focused,
			CustomName: sf.CustomName(), Pid: max(t.Pid(), 0), Generation: t.Emulator().Generation(), Busy: sf.Busy(),
			Team: tm.Team, TeamName: tm.TeamName, Teammate: tm.Teammate, TeamColor: tm.Color,
		}
		if s.o.Usage != nil {
			if u, ok := s.o.Usage.SurfaceUsage(p.ID); ok {
				vp.Usage = &u
			}
		}
		res.Panes = append(res.Panes, vp)
	}
	if _, layout, ok := s.m.ActiveTree(); ok {
		res.Layout = layout
	}
	return res, nil
}

// surfacePorts lists the TCP ports each pane's process tree listens on
// (only surface_id's when given), read from this machine's kernel tables
// through one cache (the /proc walk is redone only when the listening
// sockets or the panes changed).
func (s *server) surfacePorts(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.SurfaceIDParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	byPid := map[int]uint64{}
	var roots []int
	add := func(id uint64) bool {
		sf, ok := s.m.Surface(id)
		if !ok {
			return false
		}
		if pid := sf.Terminal().Pid(); pid > 0 {
			byPid[pid] = id
			roots = append(roots, pid)
		}
		return true
	}
	if p.SurfaceID != nil {
		if !add(*p.SurfaceID) {
			return nil, ipc.InvalidParams("surface_id %d not found", *p.SurfaceID)
		}
	} else {
		for _, pl := range s.m.Panes() {
			add(pl.ID)
		}
	}
	slices.Sort(roots)
	s.portsMu.Lock()
	found := s.ports.Listening(roots)
	s.portsMu.Unlock()
	res := proto.SurfacePortsResult{Panes: []proto.PanePorts{}}
	for pid, ports := range found {
		res.Panes = append(res.Panes, proto.PanePorts{SurfaceID: byPid[pid], Ports: ports})
	}
	slices.SortFunc(res.Panes, func(a, b proto.PanePorts) int { return cmp.Compare(a.SurfaceID, b.SurfaceID) })
	return res, nil
}

// workspacePreset lays a workspace out by a preset.
func (s *server) workspacePreset(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.WorkspacePresetParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	i, id, err := s.workspaceIndex(p.Index)
	if err != nil {
		return nil, err
	}
	if err := s.m.ApplyPreset(i, p.Preset); err != nil {
		return nil, fail(err)
	}
	return proto.WorkspaceLayoutResult{WorkspaceID: id}, nil
}

// workspaceEqualize gives every split of a workspace equal shares.
func (s *server) workspaceEqualize(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.WorkspaceIndexParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	i, id, err := s.workspaceIndex(p.Index)
	if err != nil {
		return nil, err
	}
	if err := s.m.Equalize(i); err != nil {
		return nil, fail(err)
	}
	return proto.WorkspaceLayoutResult{WorkspaceID: id}, nil
}

// workspaceSetRatios sets the shares of one split (a divider dragged).
func (s *server) workspaceSetRatios(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.WorkspaceSetRatiosParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := s.m.SetRatios(p.WorkspaceID, p.Path, p.Ratios); err != nil {
		return nil, fail(err)
	}
	return proto.WorkspaceLayoutResult{WorkspaceID: p.WorkspaceID}, nil
}

// workspaceIndex resolves an optional workspace index (nil: the active
// workspace) to the index and the workspace's id.
func (s *server) workspaceIndex(index *int) (int, uint64, error) {
	for _, w := range s.m.Workspaces() {
		if index == nil && w.Active || index != nil && w.Index == *index {
			return w.Index, w.ID, nil
		}
	}
	if index == nil {
		return 0, 0, ipc.InvalidParams("No active workspace")
	}
	return 0, 0, ipc.InvalidParams("No workspace at index %d", *index)
}
