package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/workspace"
)

type workspaceListResult struct {
	Workspaces []workspace.WorkspaceInfo `json:"workspaces"`
}

func (s *server) workspaceList(context.Context, json.RawMessage) (any, error) {
	return workspaceListResult{Workspaces: s.m.Workspaces()}, nil
}

// currentScrollbackBudget bounds the scrollback text workspace.current
// inlines in all, as encoded in JSON, so the reply fits the clients' 256
// KiB frame cap.
const currentScrollbackBudget = 192 << 10

type currentParams struct {
	// Scrollback includes each pane's text (default true).
	Scrollback *bool `json:"scrollback"`
}

type currentResult struct {
	Index  int                   `json:"index"`
	ID     uint64                `json:"workspace_id"`
	Title  string                `json:"title"`
	Cwd    string                `json:"cwd"`
	Panes  int                   `json:"panes"`
	Layout *workspace.LayoutNode `json:"layout"`
}

// workspaceCurrent returns the active workspace with its layout and each
// pane's recent text inline (as surface.read with 4000 lines: ≤4000
// rows, ≤400,000 characters), shortened from the oldest side when all of it would pass
// currentScrollbackBudget; "scrollback": false leaves the text out.
func (s *server) workspaceCurrent(_ context.Context, params json.RawMessage) (any, error) {
	var p currentParams
	if err := decode(params, &p); err != nil {
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
	return currentResult{Index: info.Index, ID: info.ID, Title: info.Title, Cwd: info.Cwd, Panes: info.Panes, Layout: layout}, nil
}

type createParams struct {
	Name   *string         `json:"name"`
	Cwd    string          `json:"cwd"`
	Layout json.RawMessage `json:"layout"`
	// Command and Env start the workspace's one pane (our extension, used
	// by `paneflow new --command/--env`); they cannot go with Layout.
	Command string                     `json:"command"`
	Env     map[string]json.RawMessage `json:"env"`
}

type createResult struct {
	Index int    `json:"index"`
	Title string `json:"title"`
	Panes int    `json:"panes"`
}

// decodeLayout parses an optional layout; nil for absent or null.
func decodeLayout(raw json.RawMessage, prefix string) (*workspace.LayoutNode, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var l workspace.LayoutNode
	if err := json.Unmarshal(raw, &l); err != nil {
		return nil, ipc.InvalidParams("%s%s", prefix, jsonDetail(err))
	}
	return &l, nil
}

// workspaceCreate appends a workspace: one shell without a layout (the
// active workspace does not change), the layout's panes with one (the new
// workspace becomes active).
func (s *server) workspaceCreate(_ context.Context, params json.RawMessage) (any, error) {
	var p createParams
	if err := decode(params, &p); err != nil {
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
		pp := paneParams{Cwd: p.Cwd, Command: p.Command, Env: p.Env}
		spec, err := pp.spec("")
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
	return createResult{Index: info.Index, Title: info.Title, Panes: info.Panes}, nil
}

type indexParams struct {
	Index *int `json:"index"`
}

func (s *server) workspaceSelect(_ context.Context, params json.RawMessage) (any, error) {
	var p indexParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	i := 0
	if p.Index != nil {
		i = *p.Index
	}
	if err := s.m.SelectWorkspace(i); err != nil {
		return nil, fail(err)
	}
	return map[string]int{"selected": i}, nil
}

func (s *server) workspaceClose(_ context.Context, params json.RawMessage) (any, error) {
	var p indexParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	var i int
	if p.Index != nil {
		i = *p.Index
	} else {
		ws, ok := s.m.ActiveWorkspace()
		if !ok {
			return nil, ipc.InvalidParams("No active workspace")
		}
		i = ws.Index
	}
	if err := s.m.CloseWorkspace(i); err != nil {
		return nil, fail(err)
	}
	return map[string]int{"closed": i}, nil
}

type restoreParams struct {
	Layout json.RawMessage `json:"layout"`
}

type restoreResult struct {
	Restored bool `json:"restored"`
	Panes    int  `json:"panes"`
}

func (s *server) workspaceRestoreLayout(_ context.Context, params json.RawMessage) (any, error) {
	var p restoreParams
	if err := decode(params, &p); err != nil {
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
	return restoreResult{Restored: true, Panes: n}, nil
}

// paneParams is one pane of workspace.up, and the pane part of
// surface.split.
type paneParams struct {
	Cwd     string                     `json:"cwd"`
	Command string                     `json:"command"`
	Prompt  string                     `json:"prompt"`
	Env     map[string]json.RawMessage `json:"env"`
	Focus   bool                       `json:"focus"`
	Label   *string                    `json:"label"`
	Name    *string                    `json:"name"`
	// ManagedWorktree is handed to Options.Worktrees (see
	// server.managedWorktree).
	ManagedWorktree json.RawMessage `json:"managed_worktree"`
	// Profile selects a scrollback cap: "agent", "review", "cached"
	// (profileScrollback); anything else is the normal profile.
	Profile *string `json:"profile"`
	// Not supported yet (context files come with a later issue): present
	// and not null/empty means an error.
	Context json.RawMessage `json:"context"`
}

// profileScrollback is each pane profile's scrollback cap in lines (spec
// limits.md: agent 10 000, review 2 000, cached 1 000).
var profileScrollback = map[string]int{"agent": 10000, "review": 2000, "cached": 1000}

// spec validates the unsupported fields and converts to a PaneSpec.
// A non-empty label wins over name; env keeps only string values.
func (p *paneParams) spec(prefix string) (workspace.PaneSpec, error) {
	for _, f := range []struct {
		name string
		raw  json.RawMessage
	}{{"context", p.Context}} {
		v := bytes.TrimSpace(f.raw)
		if len(v) == 0 || bytes.Equal(v, []byte("null")) || bytes.Equal(v, []byte(`""`)) {
			continue
		}
		return workspace.PaneSpec{}, ipc.InvalidParams("%s%s is not supported yet", prefix, f.name)
	}
	sp := workspace.PaneSpec{Cwd: p.Cwd, Command: p.Command, Prompt: p.Prompt}
	if p.Profile != nil {
		sp.ScrollbackCap = profileScrollback[*p.Profile]
	}
	switch {
	case p.Label != nil && *p.Label != "":
		sp.Name = *p.Label
	case p.Name != nil:
		sp.Name = *p.Name
	}
	for k, raw := range p.Env {
		var v string
		if json.Unmarshal(raw, &v) == nil {
			if sp.Env == nil {
				sp.Env = map[string]string{}
			}
			sp.Env[k] = v
		}
	}
	return sp, nil
}

type upParams struct {
	Name   *string      `json:"name"`
	Layout string       `json:"layout"`
	Panes  []paneParams `json:"panes"`
}

type upResult struct {
	Index      int       `json:"index"`
	Title      string    `json:"title"`
	Panes      int       `json:"panes"`
	SurfaceIDs []uint64  `json:"surface_ids"`
	Labels     []*string `json:"labels"`
}

// workspaceUp creates and activates a workspace of panes arranged by a
// preset (spec ipc.md workspace.up).
func (s *server) workspaceUp(_ context.Context, params json.RawMessage) (any, error) {
	var p upParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if len(p.Panes) == 0 {
		return nil, ipc.InvalidParams("`panes` must be a non-empty array")
	}
	if len(p.Panes) > s.m.MaxPanes() {
		return nil, ipc.InvalidParams("layout exceeds maximum pane count (%d)", s.m.MaxPanes())
	}
	u := workspace.UpSpec{Title: "Workspace", Preset: p.Layout, Focus: -1}
	wts := make([]*ManagedWorktree, len(p.Panes))
	if p.Name != nil {
		u.Title = *p.Name
	}
	for i := range p.Panes {
		sp, err := p.Panes[i].spec(fmt.Sprintf("pane %d: ", i))
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
	res := upResult{Index: info.Index, Title: info.Title, Panes: info.Panes, SurfaceIDs: []uint64{}, Labels: []*string{}}
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
