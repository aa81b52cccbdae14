package api

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/workspace"
)

// targetParams selects a surface (spec ipc.md §5): surface_id, else name,
// else the active workspace's first pane.
type targetParams struct {
	SurfaceID *uint64 `json:"surface_id"`
	Name      string  `json:"name"`
}

func (s *server) resolve(t targetParams) (*workspace.Surface, error) {
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

type surfaceListResult struct {
	PaneCount int                     `json:"pane_count"`
	Workspace *int                    `json:"workspace"`
	Surfaces  []workspace.SurfaceInfo `json:"surfaces"`
}

func (s *server) surfaceList(context.Context, json.RawMessage) (any, error) {
	res := surfaceListResult{Surfaces: s.m.Surfaces()}
	if res.Surfaces == nil {
		res.Surfaces = []workspace.SurfaceInfo{}
	}
	if ws, ok := s.m.ActiveWorkspace(); ok {
		res.PaneCount = ws.Panes
		res.Workspace = &ws.Index
	}
	return s.withTeams(res), nil
}

type readParams struct {
	targetParams
	Lines  *int  `json:"lines"`
	Offset *int  `json:"offset"`
	Fenced *bool `json:"fenced"`
}

type readResult struct {
	Text       string `json:"text"`
	Lines      int    `json:"lines"`
	TotalLines int    `json:"total_lines"`
	EOF        bool   `json:"eof"`
	Generation uint64 `json:"output_generation"`
}

// surfaceRead pages through the read source from the newest end (spec
// ipc.md surface.read).
func (s *server) surfaceRead(_ context.Context, params json.RawMessage) (any, error) {
	var p readParams
	if err := decode(params, &p); err != nil {
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
	sf, err := s.resolve(p.targetParams)
	if err != nil {
		return nil, err
	}
	pg, ok := readPage(sf.Terminal().Emulator(), lines, offset)
	if !ok {
		return nil, ipc.InvalidParams("offset %d out of range (total_lines=%d)", offset, pg.total)
	}
	res := readResult{Text: pg.text, Lines: pg.lines, TotalLines: pg.total, EOF: pg.eof, Generation: pg.generation}
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

type searchParams struct {
	targetParams
	Pattern    string `json:"pattern"`
	MaxMatches *int   `json:"max_matches"`
}

type searchMatch struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

type searchResult struct {
	Matches   []searchMatch `json:"matches"`
	Truncated bool          `json:"truncated"`
}

// surfaceSearch finds rows containing a plain, case-insensitive pattern
// over the whole scrollback and screen.
func (s *server) surfaceSearch(_ context.Context, params json.RawMessage) (any, error) {
	var p searchParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if p.Pattern == "" {
		return nil, ipc.InvalidParams("missing or empty 'pattern' parameter")
	}
	if len(p.Pattern) > searchMaxPattern {
		return nil, ipc.InvalidParams("pattern exceeds %d bytes", searchMaxPattern)
	}
	limit := searchDefaultMatches
	if p.MaxMatches != nil {
		limit = min(max(*p.MaxMatches, 1), searchMaxMatches)
	}
	sf, err := s.resolve(p.targetParams)
	if err != nil {
		return nil, err
	}
	found, more := sf.Terminal().Emulator().Search(p.Pattern, limit)
	res := searchResult{Matches: make([]searchMatch, len(found)), Truncated: more}
	for i, m := range found {
		res.Matches[i] = searchMatch{Line: m.Line, Text: m.Text}
	}
	return res, nil
}

type statusResult struct {
	SurfaceID  uint64 `json:"surface_id"`
	State      string `json:"state"`
	Hooked     bool   `json:"hooked"`
	Generation uint64 `json:"output_generation"`
	enterMarks
}

// enterMarks are the surface.status fields of a pane's last Enter
// ([workspace.Enter]), in every answer: enter_count counts the lone Enters
// the pane was sent, enter_generation is output_generation just before the
// last one. A client that submitted a text tells output that came after
// its Enter (output_generation > enter_generation once enter_count moved)
// from the echo of the text. Usage, when the usage subsystem knows the
// pane's agent, is what it used (Options.Usage); absent otherwise.
type enterMarks struct {
	EnterCount      uint64 `json:"enter_count"`
	EnterGeneration uint64 `json:"enter_generation"`
	Usage           any    `json:"usage,omitempty"`
}

// withEnterMarks appends m's fields to the JSON object v encodes to (an
// agent reporter's status, whose type the api does not know).
func withEnterMarks(v any, m enterMarks) (json.RawMessage, error) {
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
// "idle" and not hooked.
func (s *server) surfaceStatus(_ context.Context, params json.RawMessage) (any, error) {
	var p targetParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	sf, err := s.resolve(p)
	if err != nil {
		return nil, err
	}
	// The Enter first: output counted after it then came after the Enter.
	e := sf.LastEnter()
	marks := enterMarks{EnterCount: e.Count, EnterGeneration: e.Generation}
	if s.o.Usage != nil {
		if u, ok := s.o.Usage.SurfaceUsage(sf.ID()); ok {
			marks.Usage = u
		}
	}
	gen := sf.Terminal().Emulator().Generation()
	if s.o.Agents != nil {
		if st, ok := s.o.Agents.SurfaceStatus(sf.ID(), gen); ok {
			return withEnterMarks(st, marks)
		}
	}
	return statusResult{SurfaceID: sf.ID(), State: "idle", Generation: gen, enterMarks: marks}, nil
}

type renameParams struct {
	targetParams
	NewName *string `json:"new_name"`
}

type renameResult struct {
	Renamed bool    `json:"renamed"`
	Name    *string `json:"name"`
}

// surfaceRename sets a custom name; an empty (after sanitizing) new_name
// clears it, a missing one is an error.
func (s *server) surfaceRename(_ context.Context, params json.RawMessage) (any, error) {
	var p renameParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if p.NewName == nil {
		return nil, ipc.InvalidParams("missing 'new_name' parameter")
	}
	sf, err := s.resolve(p.targetParams)
	if err != nil {
		return nil, err
	}
	name, err := s.m.Rename(sf.ID(), *p.NewName)
	if err != nil {
		return nil, fail(err)
	}
	res := renameResult{Renamed: true}
	if name != "" {
		res.Name = &name
	}
	return res, nil
}

type idParams struct {
	SurfaceID *uint64 `json:"surface_id"`
}

type focusResult struct {
	Focused   bool   `json:"focused"`
	SurfaceID uint64 `json:"surface_id"`
	Workspace int    `json:"workspace"`
}

func (s *server) surfaceFocus(_ context.Context, params json.RawMessage) (any, error) {
	var p idParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if p.SurfaceID == nil {
		return nil, ipc.InvalidParams("Missing 'surface_id' parameter")
	}
	ws, err := s.m.Focus(*p.SurfaceID)
	if err != nil {
		return nil, fail(err)
	}
	return focusResult{Focused: true, SurfaceID: *p.SurfaceID, Workspace: ws}, nil
}

type splitParams struct {
	paneParams
	SurfaceID *uint64 `json:"surface_id"`
	Direction string  `json:"direction"`
}

type splitResult struct {
	Split     bool   `json:"split"`
	Direction string `json:"direction"`
	Panes     int    `json:"panes"`
	SurfaceID uint64 `json:"surface_id"`
}

// surfaceSplit starts a pane next to surface_id (default: the active
// workspace's first pane).
func (s *server) surfaceSplit(_ context.Context, params json.RawMessage) (any, error) {
	var p splitParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	dir, ok := workspace.ParseDirection(p.Direction)
	if !ok {
		return nil, ipc.InvalidParams(`Missing or invalid 'direction' parameter (use "horizontal" or "vertical")`)
	}
	spec, err := p.spec("")
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
	return splitResult{Split: true, Direction: p.Direction, Panes: panes, SurfaceID: info.ID}, nil
}

type resizeParams struct {
	SurfaceID *uint64 `json:"surface_id"`
	Cols      *int    `json:"cols"`
	Rows      *int    `json:"rows"`
}

type resizeResult struct {
	Resized   bool   `json:"resized"`
	SurfaceID uint64 `json:"surface_id"`
	Cols      int    `json:"cols"`
	Rows      int    `json:"rows"`
}

func (s *server) surfaceResize(_ context.Context, params json.RawMessage) (any, error) {
	var p resizeParams
	if err := decode(params, &p); err != nil {
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
	return resizeResult{Resized: true, SurfaceID: *p.SurfaceID, Cols: *p.Cols, Rows: *p.Rows}, nil
}

type closeResult struct {
	Closed    bool   `json:"closed"`
	SurfaceID uint64 `json:"surface_id"`
}

func (s *server) surfaceClose(_ context.Context, params json.RawMessage) (any, error) {
	var p idParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if p.SurfaceID == nil {
		return nil, ipc.InvalidParams("Missing 'surface_id' parameter")
	}
	if err := s.m.CloseSurface(*p.SurfaceID); err != nil {
		return nil, fail(err)
	}
	return closeResult{Closed: true, SurfaceID: *p.SurfaceID}, nil
}
