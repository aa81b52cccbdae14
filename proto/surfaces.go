package proto

// Target selects a surface (spec ipc.md §5): SurfaceID, else Name (a
// pane's display name), else the active workspace's first pane. It is
// the params of surface.status, and the target part of surface.read,
// surface.search and surface.rename.
type Target struct {
	SurfaceID *uint64 `json:"surface_id,omitempty"`
	Name      string  `json:"name,omitempty"`
}

// SurfaceTarget returns the Target of pane id.
func SurfaceTarget(id uint64) Target { return Target{SurfaceID: &id} }

func (t *Target) appendTarget(o *object) {
	o.uintPtr("surface_id", t.SurfaceID)
	o.strOmit("name", t.Name)
}

// AppendJSON appends t's JSON encoding (see the package's params types).
func (t Target) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	t.appendTarget(&o)
	return o.close()
}

// SurfaceInfo is one pane as surface.list lists it. The team members are
// there only for a pane in a Claude Code agent team.
type SurfaceInfo struct {
	ID    uint64 `json:"surface_id"`
	Name  string `json:"name"`  // resolved display name (spec ipc.md §13)
	Title string `json:"title"` // last OSC 0/2 title, "" if none
	// Cwd is the OSC 7 directory, else the foreground process's; nil if
	// unknown.
	Cwd *string `json:"cwd"`
	// Cmd is the foreground command line; nil when unknown or exited.
	Cmd       *string `json:"cmd"`
	Workspace int     `json:"workspace"` // the workspace's index
	Exited    bool    `json:"exited"`
	ExitCode  *int    `json:"exit_code,omitempty"`
	// Team and Teammate name the agent team the pane is in and its
	// teammate ("" for the lead).
	Team string `json:"team,omitempty"`
	// TeamName is the team's name from Claude Code's config.json of the
	// team, when it differs from Team.
	TeamName string `json:"team_name,omitempty"`
	Teammate string `json:"teammate,omitempty"`
}

// SurfaceListResult is surface.list's result: the active workspace's pane
// count and index (nil without one), and every pane of every workspace.
type SurfaceListResult struct {
	PaneCount int           `json:"pane_count"`
	Workspace *int          `json:"workspace"`
	Surfaces  []SurfaceInfo `json:"surfaces"`
}

// SurfaceReadParams are surface.read's params.
type SurfaceReadParams struct {
	Target
	// Lines is how many rows, counted from the newest (nil: 200; 1..4000).
	Lines *int `json:"lines,omitempty"`
	// Offset skips that many of the newest rows first (paging back).
	Offset *int `json:"offset,omitempty"`
	// Fenced wraps the text in the untrusted-output envelope (nil: the
	// server's ai_injection_fence, true by default).
	Fenced *bool `json:"fenced,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p SurfaceReadParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	p.appendTarget(&o)
	o.intPtr("lines", p.Lines)
	o.intPtr("offset", p.Offset)
	o.boolPtr("fenced", p.Fenced)
	return o.close()
}

// SurfaceReadResult is surface.read's result.
type SurfaceReadResult struct {
	Text       string `json:"text"`
	Lines      int    `json:"lines"`
	TotalLines int    `json:"total_lines"`
	EOF        bool   `json:"eof"`
	Generation uint64 `json:"output_generation"`
}

// SurfaceSearchParams are surface.search's params.
type SurfaceSearchParams struct {
	Target
	// Pattern is a plain, case-insensitive substring (required, ≤512 bytes).
	Pattern string `json:"pattern"`
	// MaxMatches caps the matches (nil: 50; 1..1000).
	MaxMatches *int `json:"max_matches,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p SurfaceSearchParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	p.appendTarget(&o)
	o.str("pattern", p.Pattern)
	o.intPtr("max_matches", p.MaxMatches)
	return o.close()
}

// SearchMatch is one row surface.search found: Line is negative in the
// scrollback, 0.. on the screen.
type SearchMatch struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// SurfaceSearchResult is surface.search's result.
type SurfaceSearchResult struct {
	Matches   []SearchMatch `json:"matches"`
	Truncated bool          `json:"truncated"`
}

// EnterMarks are the surface.status members of a pane's last lone Enter,
// in every answer: EnterCount counts the Enters the pane was sent,
// EnterGeneration is output_generation just before the last one. A
// client that submitted a text tells output that came after its Enter
// (output_generation > enter_generation once enter_count moved) from the
// echo of the text. Usage, added after them, is what the pane's agent
// used (its last session, even once it exited), when the usage subsystem
// read its records; absent otherwise.
type EnterMarks struct {
	EnterCount      uint64       `json:"enter_count"`
	EnterGeneration uint64       `json:"enter_generation"`
	Usage           *UsageStatus `json:"usage,omitempty"`
	// CPUDemandMS, only when the params asked for it (cpu) and the server's
	// system reports it (Linux), is how long the pane's foreground
	// processes have run on a CPU or waited runnable for one, in
	// milliseconds summed over their threads: its growth between two
	// reads tells an agent at work (or starved of a CPU) from one waiting
	// for input when neither prints. It can go down (a thread ended).
	CPUDemandMS *uint64 `json:"cpu_demand_ms,omitempty"`
}

// IdleStatusResult is surface.status's result for a pane where no agent
// is known: state "idle", not hooked.
type IdleStatusResult struct {
	SurfaceID  uint64 `json:"surface_id"`
	State      State  `json:"state"`
	Hooked     bool   `json:"hooked"`
	Generation uint64 `json:"output_generation"`
	EnterMarks
}

// SurfaceStatusParams are surface.status's params: the pane, and whether
// to read its processes' CPU demand ([EnterMarks.CPUDemandMS]), which
// costs a scan of the process table: a caller waiting on the pane asks,
// a listing does not. A server that predates CPU ignores it.
type SurfaceStatusParams struct {
	Target
	CPU bool `json:"cpu,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p SurfaceStatusParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	p.appendTarget(&o)
	o.boolOmit("cpu", p.CPU)
	return o.close()
}

// SurfaceStatusResult is surface.status's result: the agent the pane runs
// ([AgentStatus], the members of an [IdleStatusResult] when none is
// known) and its last Enter. Clients decode either answer into it.
type SurfaceStatusResult struct {
	AgentStatus
	EnterMarks
}

// SurfaceRenameParams are surface.rename's params.
type SurfaceRenameParams struct {
	Target
	// NewName is required; an empty name (after the server trims it and
	// removes control characters) clears it.
	NewName *string `json:"new_name,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p SurfaceRenameParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	p.appendTarget(&o)
	o.strPtr("new_name", p.NewName)
	return o.close()
}

// SurfaceRenameResult is surface.rename's result: the name now set, nil
// when it was cleared.
type SurfaceRenameResult struct {
	Renamed bool    `json:"renamed"`
	Name    *string `json:"name"`
}

// SurfaceIDParams are the params of the methods that need a pane's id
// (surface.focus, surface.close; required there).
type SurfaceIDParams struct {
	SurfaceID *uint64 `json:"surface_id,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p SurfaceIDParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.uintPtr("surface_id", p.SurfaceID)
	return o.close()
}

// SurfaceFocusResult is surface.focus's result.
type SurfaceFocusResult struct {
	Focused   bool   `json:"focused"`
	SurfaceID uint64 `json:"surface_id"`
	Workspace int    `json:"workspace"`
}

// Split directions: surface.split's "direction", a layout split's.
const (
	// DirectionHorizontal stacks panes (the new one below).
	DirectionHorizontal = "horizontal"
	// DirectionVertical puts them side by side (the new one right).
	DirectionVertical = "vertical"
)

// SurfaceSplitParams are surface.split's params: the new pane, and where.
type SurfaceSplitParams struct {
	PaneParams
	// SurfaceID is the pane to split (nil: the active workspace's first).
	SurfaceID *uint64 `json:"surface_id,omitempty"`
	// Direction is DirectionHorizontal or DirectionVertical (required).
	Direction string `json:"direction"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p SurfaceSplitParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	p.appendPane(&o)
	o.uintPtr("surface_id", p.SurfaceID)
	o.str("direction", p.Direction)
	return o.close()
}

// SurfaceSplitResult is surface.split's result: SurfaceID is the new
// pane's, Panes the workspace's pane count.
type SurfaceSplitResult struct {
	Split     bool   `json:"split"`
	Direction string `json:"direction"`
	Panes     int    `json:"panes"`
	SurfaceID uint64 `json:"surface_id"`
}

// SurfaceResizeParams are surface.resize's params (all required).
type SurfaceResizeParams struct {
	SurfaceID *uint64 `json:"surface_id,omitempty"`
	Cols      *int    `json:"cols,omitempty"`
	Rows      *int    `json:"rows,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p SurfaceResizeParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.uintPtr("surface_id", p.SurfaceID)
	o.intPtr("cols", p.Cols)
	o.intPtr("rows", p.Rows)
	return o.close()
}

// SurfaceResizeResult is surface.resize's result.
type SurfaceResizeResult struct {
	Resized   bool   `json:"resized"`
	SurfaceID uint64 `json:"surface_id"`
	Cols      int    `json:"cols"`
	Rows      int    `json:"rows"`
}

// SurfaceCloseResult is surface.close's result.
type SurfaceCloseResult struct {
	Closed    bool   `json:"closed"`
	SurfaceID uint64 `json:"surface_id"`
}
