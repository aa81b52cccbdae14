package proto

import "encoding/json"

// WorkspaceInfo is one workspace as workspace.list lists it.
type WorkspaceInfo struct {
	Index  int    `json:"index"`        // position in the list, 0-based
	ID     uint64 `json:"workspace_id"` // process-lifetime id (PANEFLOW_WORKSPACE_ID)
	Title  string `json:"title"`
	Cwd    string `json:"cwd"`
	Panes  int    `json:"panes"` // layout leaves
	Active bool   `json:"active"`
}

// WorkspaceListResult is workspace.list's result.
type WorkspaceListResult struct {
	Workspaces []WorkspaceInfo `json:"workspaces"`
}

// WorkspaceCurrentParams are workspace.current's params.
type WorkspaceCurrentParams struct {
	// Scrollback includes each pane's text (nil: true).
	Scrollback *bool `json:"scrollback,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p WorkspaceCurrentParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.boolPtr("scrollback", p.Scrollback)
	return o.close()
}

// WorkspaceCurrentResult is workspace.current's result (null when there is
// no workspace): the active workspace with its layout, each pane's
// recent text in its surface definition's Scrollback.
type WorkspaceCurrentResult struct {
	Index  int         `json:"index"`
	ID     uint64      `json:"workspace_id"`
	Title  string      `json:"title"`
	Cwd    string      `json:"cwd"`
	Panes  int         `json:"panes"`
	Layout *LayoutNode `json:"layout"`
}

// EnvMap is a pane's environment in params (workspace.create's "env", a
// pane's of workspace.up and surface.split). Decoding keeps only the
// string values (anything else is dropped, as the server always did);
// the error for a value that is not an object is the one a
// map[string]json.RawMessage gives.
type EnvMap map[string]string

// UnmarshalJSON decodes an object, keeping its string values.
func (e *EnvMap) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if raw == nil {
		*e = nil
		return nil
	}
	m := make(EnvMap, len(raw))
	for k, v := range raw {
		var s string
		if json.Unmarshal(v, &s) == nil {
			m[k] = s
		}
	}
	*e = m
	return nil
}

// WorkspaceCreateParams are workspace.create's params.
type WorkspaceCreateParams struct {
	// Name is the title (nil: "Terminal").
	Name *string `json:"name,omitempty"`
	Cwd  string  `json:"cwd,omitempty"`
	// Layout is a [LayoutNode] to build the workspace from (it then
	// becomes the active one); decoded by the method, so that its errors
	// say "invalid layout: …".
	Layout json.RawMessage `json:"layout,omitempty"`
	// Command and Env start the workspace's one pane (our extension, used
	// by `paneflow new --command/--env`); they cannot go with Layout.
	Command string `json:"command,omitempty"`
	Env     EnvMap `json:"env,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p WorkspaceCreateParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.strPtr("name", p.Name)
	o.strOmit("cwd", p.Cwd)
	o.rawOmit("layout", p.Layout)
	o.strOmit("command", p.Command)
	o.stringMapOmit("env", p.Env)
	return o.close()
}

// WorkspaceCreateResult is workspace.create's result.
type WorkspaceCreateResult struct {
	Index int    `json:"index"`
	Title string `json:"title"`
	Panes int    `json:"panes"`
}

// WorkspaceIndexParams are the params of workspace.select (nil Index: 0)
// and workspace.close (nil Index: the active workspace).
type WorkspaceIndexParams struct {
	Index *int `json:"index,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p WorkspaceIndexParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.intPtr("index", p.Index)
	return o.close()
}

// WorkspaceMoveParams are workspace.move's params: the workspace at
// Index moves to position To (0-based; the ones between shift by one).
type WorkspaceMoveParams struct {
	Index int `json:"index"`
	To    int `json:"to"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p WorkspaceMoveParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.int("index", int64(p.Index))
	o.int("to", int64(p.To))
	return o.close()
}

// WorkspaceMoveResult is workspace.move's result: the workspace's new
// position.
type WorkspaceMoveResult struct {
	Index int `json:"index"`
}

// WorkspaceRenameParams are workspace.rename's params: the workspace at
// Index (nil: the active one) is titled Title (control characters
// dropped, cut to 64 characters; it must not end up empty).
type WorkspaceRenameParams struct {
	Index *int   `json:"index,omitempty"`
	Title string `json:"title"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p WorkspaceRenameParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.intPtr("index", p.Index)
	o.str("title", p.Title)
	return o.close()
}

// WorkspaceRenameResult is workspace.rename's result: the title as kept.
type WorkspaceRenameResult struct {
	Index int    `json:"index"`
	Title string `json:"title"`
}

// WorkspaceSelectResult is workspace.select's result.
type WorkspaceSelectResult struct {
	Selected int `json:"selected"`
}

// WorkspaceCloseResult is workspace.close's result.
type WorkspaceCloseResult struct {
	Closed int `json:"closed"`
}

// WorkspaceReopenResult is workspace.reopen's result (it takes no
// params): what came back, where.
type WorkspaceReopenResult struct {
	// Workspace is true when a whole workspace came back, false for a
	// pane.
	Workspace bool `json:"workspace"`
	// WorkspaceID and Index are the workspace the panes are in now.
	WorkspaceID uint64 `json:"workspace_id"`
	Index       int    `json:"index"`
	// SurfaceIDs are the panes reopened, with the ids they had.
	SurfaceIDs []uint64 `json:"surface_ids"`
}

// WorkspaceRestoreLayoutParams are workspace.restore_layout's params.
type WorkspaceRestoreLayoutParams struct {
	// Layout is the [LayoutNode] to apply to the active workspace
	// (required); decoded by the method ("Invalid layout JSON: …").
	Layout json.RawMessage `json:"layout,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p WorkspaceRestoreLayoutParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.rawOmit("layout", p.Layout)
	return o.close()
}

// WorkspaceRestoreLayoutResult is workspace.restore_layout's result.
type WorkspaceRestoreLayoutResult struct {
	Restored bool `json:"restored"`
	Panes    int  `json:"panes"`
}

// PaneParams is one pane of workspace.up, and the pane part of
// surface.split.
type PaneParams struct {
	Cwd     string `json:"cwd,omitempty"`
	Command string `json:"command,omitempty"`
	// Prompt is typed into the pane's program once it reads input
	// (prefilled, never submitted).
	Prompt string `json:"prompt,omitempty"`
	Env    EnvMap `json:"env,omitempty"`
	// Focus makes the pane the focused one (the first pane that asks).
	Focus bool `json:"focus,omitempty"`
	// Label, when not empty, wins over Name as the pane's name.
	Label *string `json:"label,omitempty"`
	Name  *string `json:"name,omitempty"`
	// ManagedWorktree is a [ManagedWorktree] the server takes charge of
	// (see [RawJSON]); decoded by the method, so that its errors name the
	// pane.
	ManagedWorktree json.RawMessage `json:"managed_worktree,omitempty"`
	// Profile selects a scrollback cap: "agent", "review", "cached"
	// ([ProfileScrollback]); anything else is the normal profile.
	Profile *string `json:"profile,omitempty"`
	// Context is not supported yet (context files come with a later
	// issue): present and not null or "" is an error.
	Context json.RawMessage `json:"context,omitempty"`
}

// ProfileScrollback returns the scrollback cap in lines of a pane profile
// (spec limits.md: agent 10 000, review 2 000, cached 1 000), or 0 for the
// normal profile (any other name).
func ProfileScrollback(profile string) int {
	switch profile {
	case "agent":
		return 10000
	case "review":
		return 2000
	case "cached":
		return 1000
	}
	return 0
}

// appendPane writes p's members into o.
func (p *PaneParams) appendPane(o *object) {
	o.strOmit("cwd", p.Cwd)
	o.strOmit("command", p.Command)
	o.strOmit("prompt", p.Prompt)
	o.stringMapOmit("env", p.Env)
	o.boolOmit("focus", p.Focus)
	o.strPtr("label", p.Label)
	o.strPtr("name", p.Name)
	o.rawOmit("managed_worktree", p.ManagedWorktree)
	o.strPtr("profile", p.Profile)
	o.rawOmit("context", p.Context)
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p PaneParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	p.appendPane(&o)
	return o.close()
}

// WorkspaceUpParams are workspace.up's params: a new, active workspace of
// panes arranged by a preset.
type WorkspaceUpParams struct {
	// Name is the title (nil: "Workspace").
	Name *string `json:"name,omitempty"`
	// Layout is a preset ([Presets]); "" is even_h.
	Layout string       `json:"layout"`
	Panes  []PaneParams `json:"panes"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p WorkspaceUpParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.strPtr("name", p.Name)
	o.str("layout", p.Layout)
	o.key("panes")
	if p.Panes == nil {
		o.b = append(o.b, "null"...)
	} else {
		o.b = append(o.b, '[')
		for i := range p.Panes {
			if i > 0 {
				o.b = append(o.b, ',')
			}
			o.b = p.Panes[i].AppendJSON(o.b)
		}
		o.b = append(o.b, ']')
	}
	return o.close()
}

// WorkspaceUpResult is workspace.up's result: the panes' ids and labels
// in the order of the params' panes.
type WorkspaceUpResult struct {
	Index      int       `json:"index"`
	Title      string    `json:"title"`
	Panes      int       `json:"panes"`
	SurfaceIDs []uint64  `json:"surface_ids"`
	Labels     []*string `json:"labels"`
}

// ManagedWorktree is a pane's managed_worktree: a git worktree the client
// planned (and created, when Action is "create") for the pane, which the
// server tears down per Teardown once the worktree's last pane closes.
type ManagedWorktree struct {
	Path     string `json:"path"`
	RepoRoot string `json:"repo_root"`
	Branch   string `json:"branch"`
	// Teardown is "auto" (remove it when clean once its panes are gone)
	// or "keep"; "" means auto.
	Teardown string `json:"teardown"`
	// Action is "create" when the client created it for this pane, so
	// the server may remove it; "reuse" (or "") when it existed already,
	// so only a worktree the server already owns is ever removed.
	Action string `json:"action"`
}

// The values of [ManagedWorktree]'s Teardown and Action.
const (
	TeardownAuto = "auto"
	TeardownKeep = "keep"
	ActionCreate = "create"
	ActionReuse  = "reuse"
)

// RawJSON encodes v for a raw member of params (a [ManagedWorktree], a
// [LayoutNode]); nil for a nil v. A value encoding/json cannot encode is
// a programming error and panics.
func RawJSON(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic("proto: RawJSON: " + err.Error())
	}
	return b
}
