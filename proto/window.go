package proto

import (
	"encoding/json"
	"fmt"
)

// The methods a window attached to the server needs beyond the CLI's
// (issue 26): the whole view in one read, and the layout operations the
// window offers (presets, equalise, dragging a divider).

// ViewPane is one open pane in [WorkspaceViewResult]: where it is, and
// what the window shows about it without reading its processes' names.
type ViewPane struct {
	ID          uint64 `json:"surface_id"`
	WorkspaceID uint64 `json:"workspace_id"`
	Workspace   int    `json:"workspace"` // the workspace's index
	// Focused says the pane is its workspace's focused one.
	Focused bool `json:"focused"`
	// CustomName is the user-given name, "" for an automatic one.
	CustomName string `json:"custom_name,omitempty"`
	// Pid is the pane's program's process id, 0 when it has none.
	Pid int `json:"pid,omitempty"`
	// Generation is the pane's output generation (grows with each change
	// of its screen).
	Generation uint64 `json:"output_generation"`
	// Busy says the pane runs something other than an idle shell (a
	// command that still runs, or a shell's foreground job).
	Busy bool `json:"busy"`
	// Team, TeamName, Teammate and TeamColor: the agent team the pane is
	// in, as surface.list's rows, and its teammate's colour.
	Team      string `json:"team,omitempty"`
	TeamName  string `json:"team_name,omitempty"`
	Teammate  string `json:"teammate,omitempty"`
	TeamColor string `json:"team_color,omitempty"`
	// Usage is what the agent session in the pane used (surface.status's
	// "usage"), when the server counts usage and an agent's records were
	// read there.
	Usage *UsageStatus `json:"usage,omitempty"`
}

// WorkspaceViewResult is workspace.view's result: every workspace, every
// open pane (workspace then layout order) and the active workspace's
// layout (nil when there is no workspace). WorkspaceUsage is what the
// agents of each workspace used since the server started, by workspace
// id (the Workspace figure of [UsageChanged]); a workspace whose agents
// used nothing, or a server that counts no usage, has none.
type WorkspaceViewResult struct {
	Workspaces     []WorkspaceInfo  `json:"workspaces"`
	Panes          []ViewPane       `json:"panes"`
	Layout         *LayoutNode      `json:"layout"`
	WorkspaceUsage map[uint64]Usage `json:"workspace_usage,omitempty"`
}

// WorkspacePresetParams are workspace.preset's params: lay the workspace
// at Index (nil: the active one) out by Preset (one of [Presets]).
type WorkspacePresetParams struct {
	Index  *int   `json:"index,omitempty"`
	Preset string `json:"preset"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p WorkspacePresetParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.intPtr("index", p.Index)
	o.str("preset", p.Preset)
	return o.close()
}

// WorkspaceSetRatiosParams are workspace.set_ratios's params: the shares
// of the split at Path (child indices from the root) of workspace
// WorkspaceID, one per child, summing to 1.
type WorkspaceSetRatiosParams struct {
	WorkspaceID uint64    `json:"workspace_id"`
	Path        []int     `json:"path"`
	Ratios      []float64 `json:"ratios"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p WorkspaceSetRatiosParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.uint("workspace_id", p.WorkspaceID)
	o.ints("path", p.Path)
	o.floats("ratios", p.Ratios)
	return o.close()
}

// SurfacePortsResult is surface.ports's result (params:
// [SurfaceIDParams]; without a surface_id, every pane): the panes whose
// program, or a process it started, listens on a TCP port, with their
// ports, sorted; a pane that listens on none is absent. The server reads
// them from its own kernel tables (Linux; elsewhere the list is empty).
type SurfacePortsResult struct {
	Panes []PanePorts `json:"panes"`
}

// PanePorts is one pane's listening TCP ports in [SurfacePortsResult].
type PanePorts struct {
	SurfaceID uint64 `json:"surface_id"`
	Ports     []int  `json:"ports"`
}

// WorkspaceLayoutResult is the result of workspace.preset,
// workspace.equalize and workspace.set_ratios: the workspace changed.
type WorkspaceLayoutResult struct {
	WorkspaceID uint64 `json:"workspace_id"`
}

// DecodeEvent reads an events.subscribe frame back into the event it was
// made from (the inverse of [EventFrameJSON], "ts" dropped): a window
// attached over the socket republishes the server's events as its own. A
// frame that is no event (a heartbeat, an unknown type) is an error.
func DecodeEvent(frame []byte) (Event, error) {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(frame, &head); err != nil {
		return nil, err
	}
	decode, ok := eventDecoders[head.Type]
	if !ok {
		return nil, fmt.Errorf("proto: not an event frame: type %q", head.Type)
	}
	return decode(frame)
}

// eventDecoders decode each event type's frame.
var eventDecoders = map[string]func([]byte) (Event, error){
	TypeSurfaceChanged:    decodeAs[SurfaceChanged],
	TypeSurfaceCreated:    decodeAs[SurfaceCreated],
	TypeSurfaceExited:     decodeAs[SurfaceExited],
	TypeSurfaceClosed:     decodeAs[SurfaceClosed],
	TypeSurfaceRenamed:    decodeAs[SurfaceRenamed],
	TypeTitleChanged:      decodeAs[TitleChanged],
	TypeFocusChanged:      decodeAs[FocusChanged],
	TypeWorkspaceCreated:  decodeAs[WorkspaceCreated],
	TypeWorkspaceClosed:   decodeAs[WorkspaceClosed],
	TypeWorkspaceSelected: decodeAs[WorkspaceSelected],
	TypeWorkspaceChanged:  decodeAs[WorkspaceChanged],
	TypeLayoutChanged:     decodeAs[LayoutChanged],
	TypeAISessionStart:    decodeAs[AISessionStart],
	TypeAIPromptSubmit:    decodeAs[AIPromptSubmit],
	TypeAIToolUse:         decodeAs[AIToolUse],
	TypeAINotification:    decodeAs[AINotification],
	TypeAIStop:            decodeAs[AIStop],
	TypeAIExit:            decodeAs[AIExit],
	TypeAISessionEnd:      decodeAs[AISessionEnd],
	TypeAgentState:        decodeAs[AgentState],
	TypeUsageChanged:      decodeAs[UsageChanged],
	TypeBudgetAlert:       decodeAs[BudgetAlert],
	TypeChecksChanged:     decodeAs[ChecksChanged],
}

func decodeAs[E Event](frame []byte) (Event, error) {
	var e E
	if err := json.Unmarshal(frame, &e); err != nil {
		return nil, err
	}
	return e, nil
}

// UnmarshalJSON decodes f's wire form (see MarshalJSON; null is zero).
func (f *AgentFrame) UnmarshalJSON(b []byte) error {
	var w agentFrameJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*f = AgentFrame{
		WorkspaceID: deref(w.WorkspaceID), PID: deref(w.PID), Tool: deref(w.Tool), State: deref(w.State),
		SurfaceID: deref(w.SurfaceID), Message: deref(w.Message), ActiveToolName: deref(w.ActiveToolName),
		LastResult: deref(w.LastResult), ExitCode: deref(w.ExitCode), HasExitCode: w.ExitCode != nil,
	}
	return nil
}

// UnmarshalJSON decodes e's wire form (see MarshalJSON; null is zero).
func (e *AgentState) UnmarshalJSON(b []byte) error {
	var w agentStateJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = AgentState{
		SurfaceID: deref(w.SurfaceID), WorkspaceID: deref(w.WorkspaceID), PID: deref(w.PID), Tool: deref(w.Tool),
		State: deref(w.State), Previous: deref(w.Previous), Hooked: w.Hooked, Reason: deref(w.Reason),
		Message: deref(w.Message), ActiveToolName: deref(w.ActiveToolName), LastResult: deref(w.LastResult),
		ExitCode: deref(w.ExitCode), HasExitCode: w.ExitCode != nil,
	}
	return nil
}

// deref returns *p, or the zero value for nil (nonZero's inverse).
func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}
