package api

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/workspace"
)

// resolve finds the pane a target selects (spec ipc.md §5): surface_id,
// else name, else the active workspace's first pane.
func (s *server) resolve(t proto.Target) (*workspace.Surface, error) {
	if t.SurfaceID != nil {
		sf, ok := s.m.Surface(*t.SurfaceID)
		if !ok {
			return nil, ipc.InvalidParams("surface_id %d not found", *t.SurfaceID)
		}
		return sf, nil
	}
	sf, err := s.m.ResolveTarget(0, t.Name)
	return sf, fail(err)
}

// surfaceRow is surface.list's row of pane si.
func surfaceRow(si workspace.SurfaceInfo) proto.SurfaceInfo {
	return proto.SurfaceInfo{
		ID: si.ID, Name: si.Name, Title: si.Title, Cwd: si.Cwd, Cmd: si.Cmd,
		Workspace: si.Workspace, Exited: si.Exited, ExitCode: si.ExitCode,
	}
}

func (s *server) surfaceList(context.Context, json.RawMessage) (any, error) {
	infos := s.m.Surfaces()
	res := proto.SurfaceListResult{Surfaces: make([]proto.SurfaceInfo, len(infos))}
	for i, si := range infos {
		res.Surfaces[i] = surfaceRow(si)
	}
	if ws, ok := s.m.ActiveWorkspace(); ok {
		res.PaneCount = ws.Panes
		res.Workspace = &ws.Index
	}
	s.withTeams(&res)
	return res, nil
}

// surfaceRead pages through the read source from the newest end (spec
// ipc.md surface.read).
func (s *server) surfaceRead(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.SurfaceReadParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	lines := readDefaultLines
	if p.Lines != nil {
		lines = min(max(*p.Lines, 1), readMaxRows)
	}
	offset := 0
	if p.Offset != nil {
		offset = *p.Offset
	}
	sf, err := s.resolve(p.Target)
	if err != nil {
		return nil, err
	}
	pg, ok := readPage(sf.Terminal().Emulator(), lines, offset)
	if !ok {
		return nil, ipc.InvalidParams("offset %d out of range (total_lines=%d)", offset, pg.total)
	}
	res := proto.SurfaceReadResult{Text: pg.text, Lines: pg.lines, TotalLines: pg.total, EOF: pg.eof, Generation: pg.generation}
	fenced := s.o.Fenced()
	if p.Fenced != nil {
		fenced = *p.Fenced
	}
	if fenced {
		res.Text = fence(res.Text, sf.ID(), res.TotalLines, res.EOF, newFenceID())
	}
	return res, nil
}

// Search limits (spec limits.md).
const (
	searchDefaultMatches = 50
	searchMaxMatches     = 1000
	searchMaxPattern     = 512
)

// checkPattern refuses an empty search pattern or one past
// searchMaxPattern.
func checkPattern(pattern string) error {
	if pattern == "" {
		return ipc.InvalidParams("missing or empty 'pattern' parameter")
	}
	if len(pattern) > searchMaxPattern {
		return ipc.InvalidParams("pattern exceeds %d bytes", searchMaxPattern)
	}
	return nil
}

// surfaceSearch finds rows containing a plain, case-insensitive pattern
// over the whole scrollback and screen.
func (s *server) surfaceSearch(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.SurfaceSearchParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := checkPattern(p.Pattern); err != nil {
		return nil, err
	}
	limit := searchDefaultMatches
	if p.MaxMatches != nil {
		limit = min(max(*p.MaxMatches, 1), searchMaxMatches)
	}
	sf, err := s.resolve(p.Target)
	if err != nil {
		return nil, err
	}
	found, more := sf.Terminal().Emulator().Search(p.Pattern, limit)
	res := proto.SurfaceSearchResult{Matches: make([]proto.SearchMatch, len(found)), Truncated: more}
	for i, m := range found {
		res.Matches[i] = proto.SearchMatch{Line: m.Line, Text: m.Text}
	}
	return res, nil
}

// withEnterMarks appends m's members ([workspace.Enter]) to the JSON
// object v encodes to (an agent reporter's status, whose type the api
// does not know).
func withEnterMarks(v any, m proto.EnterMarks) (json.RawMessage, error) {
	obj, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	marks, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if len(obj) < 2 || obj[0] != '{' || obj[len(obj)-1] != '}' {
		return nil, fmt.Errorf("api: an agent status is not a JSON object: %.40s", obj)
	}
	out := append(obj[:len(obj)-1:len(obj)-1], ',')
	if len(obj) == 2 {
		out = out[:1] // {} + marks
	}
	return append(out, marks[1:]...), nil
}

// surfaceStatus reports the agent in the pane (Options.Agents), else
// "idle" and not hooked; with cpu, its processes' CPU demand too.
func (s *server) surfaceStatus(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.SurfaceStatusParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	sf, err := s.resolve(p.Target)
	if err != nil {
		return nil, err
	}
	// The Enter first: output counted after it then came after the Enter.
	e := sf.LastEnter()
	marks := proto.EnterMarks{EnterCount: e.Count, EnterGeneration: e.Generation}
	if s.o.Usage != nil {
		if u, ok := s.o.Usage.SurfaceUsage(sf.ID()); ok {
			marks.Usage = &u
		}
	}
	if p.CPU {
		if d, ok := sf.Terminal().ForegroundCPUDemand(); ok {
			ms := uint64(d.Milliseconds())
			marks.CPUDemandMS = &ms
		}
	}
	gen := sf.Terminal().Emulator().Generation()
	if s.o.Agents != nil {
		if st, ok := s.o.Agents.SurfaceStatus(sf.ID(), gen); ok {
			return withEnterMarks(st, marks)
		}
	}
	return proto.IdleStatusResult{SurfaceID: sf.ID(), State: proto.StateIdle, Generation: gen, EnterMarks: marks}, nil
}

// surfaceRename sets a custom name; an empty (after sanitizing) new_name
// clears it, a missing one is an error.
func (s *server) surfaceRename(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.SurfaceRenameParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.NewName == nil {
		return nil, ipc.InvalidParams("missing 'new_name' parameter")
	}
	sf, err := s.resolve(p.Target)
	if err != nil {
		return nil, err
	}
	name, err := s.m.Rename(sf.ID(), *p.NewName)
	if err != nil {
		return nil, fail(err)
	}
	res := proto.SurfaceRenameResult{Renamed: true}
	if name != "" {
		res.Name = &name
	}
	return res, nil
}

func (s *server) surfaceFocus(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.SurfaceIDParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.SurfaceID == nil {
		return nil, ipc.InvalidParams("Missing 'surface_id' parameter")
	}
	ws, err := s.m.Focus(*p.SurfaceID)
	if err != nil {
		return nil, fail(err)
	}
	return proto.SurfaceFocusResult{Focused: true, SurfaceID: *p.SurfaceID, Workspace: ws}, nil
}

// surfaceSplit starts a pane next to surface_id (default: the active
// workspace's first pane).
func (s *server) surfaceSplit(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.SurfaceSplitParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	dir, ok := workspace.ParseDirection(p.Direction)
	if !ok {
		return nil, ipc.InvalidParams(`Missing or invalid 'direction' parameter (use "horizontal" or "vertical")`)
	}
	spec, err := paneSpec(&p.PaneParams, "")
	if err != nil {
		return nil, err
	}
	wt, err := s.managedWorktree(p.ManagedWorktree, "")
	if err != nil {
		return nil, err
	}
	var target uint64
	if p.SurfaceID != nil {
		if *p.SurfaceID == 0 {
			return nil, ipc.InvalidParams("Surface not found")
		}
		target = *p.SurfaceID
	}
	info, panes, err := s.m.Split(target, dir, spec)
	if err != nil {
		return nil, fail(err)
	}
	if wt != nil {
		s.o.Worktrees.Adopt(info.ID, *wt)
	}
	return proto.SurfaceSplitResult{Split: true, Direction: p.Direction, Panes: panes, SurfaceID: info.ID}, nil
}

func (s *server) surfaceResize(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.SurfaceResizeParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	switch {
	case p.SurfaceID == nil:
		return nil, ipc.InvalidParams("Missing 'surface_id' parameter")
	case p.Cols == nil || p.Rows == nil:
		return nil, ipc.InvalidParams("Missing 'cols' or 'rows' parameter")
	}
	if err := s.m.Resize(*p.SurfaceID, *p.Cols, *p.Rows); err != nil {
		return nil, fail(err)
	}
	return proto.SurfaceResizeResult{Resized: true, SurfaceID: *p.SurfaceID, Cols: *p.Cols, Rows: *p.Rows}, nil
}

func (s *server) surfaceClose(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.SurfaceIDParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.SurfaceID == nil {
		return nil, ipc.InvalidParams("Missing 'surface_id' parameter")
	}
	if err := s.m.CloseSurface(*p.SurfaceID); err != nil {
		return nil, fail(err)
	}
	return proto.SurfaceCloseResult{Closed: true, SurfaceID: *p.SurfaceID}, nil
}
