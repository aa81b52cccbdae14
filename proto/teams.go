package proto

// TeamsTmuxParams are teams.tmux's params: one run of the tmux shim that
// Claude Code's agent teams call (package teams).
type TeamsTmuxParams struct {
	// Argv are the arguments after "tmux" (at most 1000).
	Argv []string `json:"argv"`
	// Pane is the caller's TMUX_PANE ("" when unset).
	Pane string `json:"pane,omitempty"`
	// SurfaceID is the caller's PANEFLOW_SURFACE_ID (0 when unknown); it
	// stands for the caller's pane when Pane is not a registered id.
	SurfaceID uint64 `json:"surface_id,omitempty"`
	// Cwd is the caller's directory: where new panes start without -c.
	Cwd string `json:"cwd,omitempty"`
	// Env is the caller's environment ("K=V"): the lead's environment,
	// which panes it spawns inherit (spec agent-teams.md, #30754). Only
	// split-window and respawn-pane need it.
	Env []string `json:"env,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p TeamsTmuxParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.strs("argv", p.Argv)
	o.strOmit("pane", p.Pane)
	o.uintOmit("surface_id", p.SurfaceID)
	o.strOmit("cwd", p.Cwd)
	o.strsOmit("env", p.Env)
	return o.close()
}

// TeamsTmuxResult is teams.tmux's result: what the shim prints and exits
// with (a command that fails is a result with exit_code 1, not an error).
type TeamsTmuxResult struct {
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr,omitempty"`
	Code   int    `json:"exit_code"`
}

// TeamsAttachParams are teams.attach's params: the launch shim registers a
// Claude Code lead's pane before starting it.
type TeamsAttachParams struct {
	// SurfaceID is the lead's pane (required).
	SurfaceID uint64 `json:"surface_id"`
	// Env is the lead's environment ("K=V").
	Env []string `json:"env"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p TeamsAttachParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.uint("surface_id", p.SurfaceID)
	o.strs("env", p.Env)
	return o.close()
}

// TeamsAttachResult is teams.attach's result: the pane's tmux identity.
type TeamsAttachResult struct {
	Pane          string `json:"pane"`   // %N, for TMUX_PANE
	Window        string `json:"window"` // @N
	Session       string `json:"session"`
	TMUX          string `json:"tmux"`       // the value for TMUX
	ContextID     string `json:"context_id"` // the backend's ctx_N for this pane
	BackendSocket string `json:"backend_socket,omitempty"`
}

// TeamMember is one registered pane as teams.list lists it.
type TeamMember struct {
	Pane      string `json:"pane"` // %N
	SurfaceID uint64 `json:"surface_id"`
	Window    string `json:"window"` // @N
	// LeadSurfaceID is the surface of the lead that started it (0 for a
	// lead or a pane no team started).
	LeadSurfaceID uint64 `json:"lead_surface_id,omitempty"`
	Name          string `json:"name,omitempty"`
	Team          string `json:"team,omitempty"`
	// TeamName is the team's name as Claude Code's
	// <config dir>/teams/<Team>/config.json says; Team when that file is
	// missing or unreadable.
	TeamName string `json:"team_name,omitempty"`
	Agent    string `json:"agent,omitempty"`
	Color    string `json:"color,omitempty"`
	Role     string `json:"role,omitempty"`
	Teammate bool   `json:"teammate"`
}

// TeamsListResult is teams.list's result: the registered panes that are
// open, in %N order.
type TeamsListResult struct {
	Members []TeamMember `json:"members"`
}
