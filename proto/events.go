package proto

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/paneflow-go/paneflow/internal/jsonscan"
)

// The events of the server's event bus (package bus publishes these
// types) are the frames of events.subscribe: each frame is an event's
// members plus "type" (its EventType) and "ts" (epoch milliseconds). Each
// type says who publishes it and who listens; every type has EventType,
// and those about one pane Surface (the pane and whether there is one).

// Wire type names of the events, as their EventType methods return them:
// the "type" of the frames events.subscribe writes.
const (
	TypeSurfaceChanged    = "surface_changed"
	TypeSurfaceCreated    = "surface_created"
	TypeSurfaceExited     = "surface_exited"
	TypeSurfaceClosed     = "surface_closed"
	TypeSurfaceRenamed    = "surface_renamed"
	TypeTitleChanged      = "title_changed"
	TypeFocusChanged      = "focus_changed"
	TypeWorkspaceCreated  = "workspace_created"
	TypeWorkspaceClosed   = "workspace_closed"
	TypeWorkspaceSelected = "workspace_selected"
	TypeWorkspaceChanged  = "workspace_changed"
	TypeLayoutChanged     = "layout_changed"

	// The ai.* events are named after the methods whose frames they
	// mirror.
	TypeAISessionStart = MethodAISessionStart
	TypeAIPromptSubmit = MethodAIPromptSubmit
	TypeAIToolUse      = MethodAIToolUse
	TypeAINotification = MethodAINotification
	TypeAIStop         = MethodAIStop
	TypeAIExit         = MethodAIExit
	TypeAISessionEnd   = MethodAISessionEnd
	TypeAgentState     = "agent_state"
	TypeUsageChanged   = "usage_changed"
	TypeBudgetAlert    = "budget_alert"
	TypeChecksChanged  = "checks_changed"
)

// eventTypes is every wire type name defined here, sorted (a test checks
// both).
var eventTypes = [...]string{
	TypeAgentState, TypeAIExit, TypeAINotification, TypeAIPromptSubmit, TypeAISessionEnd,
	TypeAISessionStart, TypeAIStop, TypeAIToolUse, TypeBudgetAlert, TypeChecksChanged, TypeFocusChanged, TypeLayoutChanged,
	TypeSurfaceChanged, TypeSurfaceClosed, TypeSurfaceCreated, TypeSurfaceExited,
	TypeSurfaceRenamed, TypeTitleChanged, TypeUsageChanged, TypeWorkspaceChanged, TypeWorkspaceClosed, TypeWorkspaceCreated,
	TypeWorkspaceSelected,
}

// EventTypes returns the wire type names of every event type, sorted.
// events.subscribe uses it to reject unknown names in its "types"
// parameter. The caller owns the returned slice.
func EventTypes() []string { return slices.Clone(eventTypes[:]) }

// SurfaceChanged says that a surface's terminal has new output: its output
// generation (terminal.Emulator.Generation) reached Generation.
//
// Its publisher is the workspace model: one goroutine per pane waits on the
// emulator's Watch channel and publishes one SurfaceChanged per wake-up. Its
// subscribers are the socket API (surface_changed frames, which drive the
// CLI's wait and watch), the GUI (repaint) and the conductor (a debounced
// scan of the pane's processes for agents). Queues coalesce it: see the
// package documentation.
type SurfaceChanged struct {
	SurfaceID  uint64 `json:"surface_id"`
	Generation uint64 `json:"output_generation"`
}

// EventType returns "surface_changed".
func (SurfaceChanged) EventType() string { return TypeSurfaceChanged }

// Surface returns e.SurfaceID, true.
func (e SurfaceChanged) Surface() (uint64, bool) { return e.SurfaceID, true }

// SurfaceCreated says that a surface was added to workspace WorkspaceID,
// with its process started. Name is the pane's own name (its custom name,
// else the one derived from its command); the unique display name, which
// depends on the other panes, comes from surface.list.
//
// Its publisher is the workspace model (workspace creation, split, layout
// restore, presets that add panes). Its subscribers are the socket API
// (events.subscribe), the GUI and the conductor (which tracks panes).
type SurfaceCreated struct {
	SurfaceID   uint64 `json:"surface_id"`
	WorkspaceID uint64 `json:"workspace_id"`
	Name        string `json:"name"`
}

// EventType returns "surface_created".
func (SurfaceCreated) EventType() string { return TypeSurfaceCreated }

// Surface returns e.SurfaceID, true.
func (e SurfaceCreated) Surface() (uint64, bool) { return e.SurfaceID, true }

// SurfaceExited says that a surface's process ended. The pane stays open
// (as "exited") until it is closed, which publishes [SurfaceClosed].
// ExitCode and Signal follow terminal.ExitStatus: a process killed by a
// signal has code 128+signal and Signal names it ("killed", "hangup"…);
// Signal is "" when the process exited by itself.
//
// Its publisher is the workspace model, once per surface. Its subscribers
// are the socket API (events.subscribe; waits on the surface end early),
// the GUI (exited marker) and the conductor (ends the pane's agents).
type SurfaceExited struct {
	SurfaceID uint64 `json:"surface_id"`
	ExitCode  int    `json:"exit_code"`
	Signal    string `json:"signal"`
}

// EventType returns "surface_exited".
func (SurfaceExited) EventType() string { return TypeSurfaceExited }

// Surface returns e.SurfaceID, true.
func (e SurfaceExited) Surface() (uint64, bool) { return e.SurfaceID, true }

// SurfaceClosed says that a surface was removed from workspace WorkspaceID
// (closed on its own, with its workspace, or at shutdown); its ID is never
// used again.
//
// Its publisher is the workspace model. Its subscribers are the socket API
// (events.subscribe; waits on the surface end), the GUI and the conductor
// (which forgets the pane's agents).
type SurfaceClosed struct {
	SurfaceID   uint64 `json:"surface_id"`
	WorkspaceID uint64 `json:"workspace_id"`
}

// EventType returns "surface_closed".
func (SurfaceClosed) EventType() string { return TypeSurfaceClosed }

// Surface returns e.SurfaceID, true.
func (e SurfaceClosed) Surface() (uint64, bool) { return e.SurfaceID, true }

// SurfaceRenamed says that a surface's name changed to Name (sanitized; ""
// would mean the name was cleared and the display name falls back to the
// default).
//
// Its publisher is the workspace model (surface.rename). Its subscribers
// are the socket API (events.subscribe) and the GUI (tab labels).
type SurfaceRenamed struct {
	SurfaceID uint64 `json:"surface_id"`
	Name      string `json:"name"`
}

// EventType returns "surface_renamed".
func (SurfaceRenamed) EventType() string { return TypeSurfaceRenamed }

// Surface returns e.SurfaceID, true.
func (e SurfaceRenamed) Surface() (uint64, bool) { return e.SurfaceID, true }

// TitleChanged says that the program in a surface set its window title
// (OSC 0 or 2) to Title.
//
// Its publisher is the workspace model, from the terminal's title callback.
// Its subscribers are the socket API (events.subscribe) and the GUI (tab
// and window titles).
type TitleChanged struct {
	SurfaceID uint64 `json:"surface_id"`
	Title     string `json:"title"`
}

// EventType returns "title_changed".
func (TitleChanged) EventType() string { return TypeTitleChanged }

// Surface returns e.SurfaceID, true.
func (e TitleChanged) Surface() (uint64, bool) { return e.SurfaceID, true }

// FocusChanged says that surface SurfaceID of workspace WorkspaceID became
// the focused pane.
//
// Its publisher is the workspace model (surface.focus, and focus moving
// when the focused pane closes). Its subscribers are the socket API
// (events.subscribe) and the GUI (keyboard focus).
type FocusChanged struct {
	SurfaceID   uint64 `json:"surface_id"`
	WorkspaceID uint64 `json:"workspace_id"`
}

// EventType returns "focus_changed".
func (FocusChanged) EventType() string { return TypeFocusChanged }

// Surface returns e.SurfaceID, true.
func (e FocusChanged) Surface() (uint64, bool) { return e.SurfaceID, true }

// WorkspaceCreated says that a workspace was added at position Index of the
// workspace list (0-based), titled Title.
//
// Its publisher is the workspace model (workspace.create, workspace.up).
// Its subscribers are the socket API (events.subscribe) and the GUI
// (sidebar).
type WorkspaceCreated struct {
	WorkspaceID uint64 `json:"workspace_id"`
	Index       int    `json:"index"`
	Title       string `json:"title"`
}

// EventType returns "workspace_created".
func (WorkspaceCreated) EventType() string { return TypeWorkspaceCreated }

// WorkspaceClosed says that a workspace was removed; Index is the position
// it had, so the workspaces after it moved up by one. Each of its surfaces
// gets a [SurfaceClosed] too.
//
// Its publisher is the workspace model (workspace.close, shutdown). Its
// subscribers are the socket API (events.subscribe) and the GUI (sidebar).
type WorkspaceClosed struct {
	WorkspaceID uint64 `json:"workspace_id"`
	Index       int    `json:"index"`
	Title       string `json:"title"`
}

// EventType returns "workspace_closed".
func (WorkspaceClosed) EventType() string { return TypeWorkspaceClosed }

// WorkspaceSelected says that the workspace at position Index became the
// active one.
//
// Its publisher is the workspace model (workspace.select, and creation or
// closing that changes the active workspace). Its subscribers are the
// socket API (events.subscribe) and the GUI (which workspace is shown).
type WorkspaceSelected struct {
	WorkspaceID uint64 `json:"workspace_id"`
	Index       int    `json:"index"`
	Title       string `json:"title"`
}

// EventType returns "workspace_selected".
func (WorkspaceSelected) EventType() string { return TypeWorkspaceSelected }

// WorkspaceChanged says that a workspace was renamed or moved: it is now
// at position Index (the ones between its old and new place shifted by
// one), titled Title.
//
// Its publisher is the workspace model (workspace.move,
// workspace.rename). Its subscribers are the socket API
// (events.subscribe) and the GUI (tabs, sidebar).
type WorkspaceChanged struct {
	WorkspaceID uint64 `json:"workspace_id"`
	Index       int    `json:"index"`
	Title       string `json:"title"`
}

// EventType returns "workspace_changed".
func (WorkspaceChanged) EventType() string { return TypeWorkspaceChanged }

// LayoutChanged says that the layout tree of a workspace changed shape or
// ratios (a split, a closed pane, a preset, a restored layout).
//
// Its publisher is the workspace model. Its subscribers are the socket API
// (events.subscribe) and the GUI (relayout).
type LayoutChanged struct {
	WorkspaceID uint64 `json:"workspace_id"`
}

// EventType returns "layout_changed".
func (LayoutChanged) EventType() string { return TypeLayoutChanged }

// AgentFrame is the content of the ai.* events: one agent hook frame the
// conductor accepted, with the agent session as it stands after the frame
// (spec ipc.md §7). Zero values are absent and encode as JSON null:
// WorkspaceID 0 (unknown), SurfaceID 0 (the session is not bound to a
// pane), PID 0 (the frame named no process), empty strings, and ExitCode
// unless HasExitCode.
//
// It is embedded by the seven ai.* event types, which differ only in their
// wire type; its methods (JSON encoding, Surface) are theirs.
type AgentFrame struct {
	WorkspaceID    uint64 // the pane's workspace (PANEFLOW_WORKSPACE_ID)
	SurfaceID      uint64 // the pane the session is bound to
	PID            int    // the session's process (normally the launch shim's pid)
	Tool           string // the agent's binary name, e.g. "claude"
	State          string // the session's wire state after the frame; "" when no session remains
	Message        string // the waiting question (ai.notification)
	ActiveToolName string // the tool the agent runs (ai.tool_use)
	LastResult     string // the turn's summary (ai.stop)
	ExitCode       int    // the agent's exit code (ai.exit), when HasExitCode
	HasExitCode    bool

	// What follows is for subscribers in the server's process (package
	// usage) and is not in the frame's JSON.

	// SessionID is the agent's own session id from its hook payload
	// ("" when it sent none).
	SessionID string
	// TranscriptPath is the agent's record of the session (its
	// transcript, rollout or chat file), absolute and cleaned, when the
	// frame named one.
	TranscriptPath string
	// At is when the conductor accepted the frame, on its clock. The
	// launch shim waits for the answer to its ai.session_start before it
	// starts the agent, so nothing the agent records is older.
	At time.Time
}

// agentFrameJSON is the wire form of [AgentFrame].
type agentFrameJSON struct {
	WorkspaceID    *uint64 `json:"workspace_id"`
	PID            *int    `json:"pid"`
	Tool           *string `json:"tool"`
	State          *string `json:"state"`
	SurfaceID      *uint64 `json:"surface_id"`
	Message        *string `json:"message"`
	ActiveToolName *string `json:"active_tool_name"`
	LastResult     *string `json:"last_result"`
	ExitCode       *int    `json:"exit_code"`
}

// MarshalJSON encodes f with the wire names of spec ipc.md §7
// (workspace_id, pid, tool, state, surface_id, message, active_tool_name)
// plus last_result and exit_code, absent values as null.
func (f AgentFrame) MarshalJSON() ([]byte, error) {
	w := agentFrameJSON{
		WorkspaceID: nonZero(f.WorkspaceID), PID: nonZero(f.PID), Tool: nonZero(f.Tool),
		State: nonZero(f.State), SurfaceID: nonZero(f.SurfaceID), Message: nonZero(f.Message),
		ActiveToolName: nonZero(f.ActiveToolName), LastResult: nonZero(f.LastResult),
	}
	if f.HasExitCode {
		w.ExitCode = &f.ExitCode
	}
	return json.Marshal(w)
}

// Surface returns f.SurfaceID and whether the session is bound to a pane:
// frames of unbound sessions reach no surface-scoped subscriber.
func (f AgentFrame) Surface() (uint64, bool) { return f.SurfaceID, f.SurfaceID != 0 }

// nonZero returns a pointer to v, or nil when v is its type's zero value.
func nonZero[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}

// The ai.* events mirror the agent hook frames the conductor accepted, one
// type per method (spec conductor.md §3): an agent session registered
// (AISessionStart), a prompt was submitted (AIPromptSubmit), a tool runs
// (AIToolUse), the agent asks the user something (AINotification), its turn
// ended (AIStop), it exited (AIExit), its session ended (AISessionEnd).
// Each is published once per accepted frame, after the frame changed the
// session, and never for a refused frame.
//
// Their publisher is the conductor. Their subscribers are the socket API
// (events.subscribe frames, which `paneflow watch --type ai.stop` reads)
// and the GUI.
type (
	// AISessionStart is the "ai.session_start" event.
	AISessionStart struct{ AgentFrame }
	// AIPromptSubmit is the "ai.prompt_submit" event.
	AIPromptSubmit struct{ AgentFrame }
	// AIToolUse is the "ai.tool_use" event.
	AIToolUse struct{ AgentFrame }
	// AINotification is the "ai.notification" event.
	AINotification struct{ AgentFrame }
	// AIStop is the "ai.stop" event.
	AIStop struct{ AgentFrame }
	// AIExit is the "ai.exit" event.
	AIExit struct{ AgentFrame }
	// AISessionEnd is the "ai.session_end" event.
	AISessionEnd struct{ AgentFrame }
)

// EventType returns "ai.session_start".
func (AISessionStart) EventType() string { return TypeAISessionStart }

// EventType returns "ai.prompt_submit".
func (AIPromptSubmit) EventType() string { return TypeAIPromptSubmit }

// EventType returns "ai.tool_use".
func (AIToolUse) EventType() string { return TypeAIToolUse }

// EventType returns "ai.notification".
func (AINotification) EventType() string { return TypeAINotification }

// EventType returns "ai.stop".
func (AIStop) EventType() string { return TypeAIStop }

// EventType returns "ai.exit".
func (AIExit) EventType() string { return TypeAIExit }

// EventType returns "ai.session_end".
func (AISessionEnd) EventType() string { return TypeAISessionEnd }

// AgentState says that what Paneflow knows about one agent changed: a
// hooked session changed state (or its message, active tool or result),
// a session ended, or the process scan found or lost an agent that sends
// no hooks. State is the new wire state (thinking, waiting_for_input,
// finished, errored, stalled, unknown_running, or idle when the agent is
// gone) and Previous the one before ("" for an agent seen for the first
// time). Unlike the ai.* events it is also published for changes no frame
// caused: a stalled agent, a crashed one, one found by the process scan.
// Zero values encode as null, like [AgentFrame].
//
// Its publisher is the conductor. Its subscribers are the GUI (the
// sidebar's agent dots and questions, attention counts, desktop
// notifications) and the socket API (events.subscribe).
type AgentState struct {
	SurfaceID      uint64 // the pane; 0 when the session is not bound to one
	WorkspaceID    uint64 // the pane's workspace, 0 when unknown
	PID            int    // the session's or detected agent's process, 0 when unknown
	Tool           string // the agent's binary name
	State          string // the new wire state
	Previous       string // the previous wire state, "" for a new agent
	Hooked         bool   // the state comes from the agent's hooks, not only the process scan
	Reason         string // why the state is not hooked: "no_hook"; "" when hooked
	Message        string
	ActiveToolName string
	LastResult     string
	ExitCode       int // when HasExitCode
	HasExitCode    bool
}

// EventType returns "agent_state".
func (AgentState) EventType() string { return TypeAgentState }

// Surface returns e.SurfaceID and whether the agent is in a known pane.
func (e AgentState) Surface() (uint64, bool) { return e.SurfaceID, e.SurfaceID != 0 }

// MarshalJSON encodes e with snake_case wire names (surface_id,
// workspace_id, pid, tool, state, previous_state, hooked, reason, message,
// active_tool_name, last_result, exit_code), absent values as null.
func (e AgentState) MarshalJSON() ([]byte, error) {
	w := agentStateJSON{
		SurfaceID: nonZero(e.SurfaceID), WorkspaceID: nonZero(e.WorkspaceID), PID: nonZero(e.PID),
		Tool: nonZero(e.Tool), State: nonZero(e.State), Previous: nonZero(e.Previous), Hooked: e.Hooked,
		Reason: nonZero(e.Reason), Message: nonZero(e.Message), ActiveToolName: nonZero(e.ActiveToolName),
		LastResult: nonZero(e.LastResult),
	}
	if e.HasExitCode {
		w.ExitCode = &e.ExitCode
	}
	return json.Marshal(w)
}

// agentStateJSON is the wire form of [AgentState].
type agentStateJSON struct {
	SurfaceID      *uint64 `json:"surface_id"`
	WorkspaceID    *uint64 `json:"workspace_id"`
	PID            *int    `json:"pid"`
	Tool           *string `json:"tool"`
	State          *string `json:"state"`
	Previous       *string `json:"previous_state"`
	Hooked         bool    `json:"hooked"`
	Reason         *string `json:"reason"`
	Message        *string `json:"message"`
	ActiveToolName *string `json:"active_tool_name"`
	LastResult     *string `json:"last_result"`
	ExitCode       *int    `json:"exit_code"`
}

// EventsSubscribeParams are events.subscribe's params. The server reads
// them leniently: Surfaces, when an array, keeps the pane ids in it (other
// entries are dropped, so an array without ids matches nothing); anything
// else means every pane. Types, when an array, must hold known type names
// ([EventTypes]); anything else means every type. Build them with
// [SubscribeTo].
type EventsSubscribeParams struct {
	Surfaces json.RawMessage `json:"surfaces,omitempty"`
	Types    json.RawMessage `json:"types,omitempty"`
}

// SubscribeTo returns the params of a subscription to the events of
// surfaces (nil: every pane) of types (nil: every type).
func SubscribeTo(surfaces []uint64, types []string) EventsSubscribeParams {
	var p EventsSubscribeParams
	if surfaces != nil {
		p.Surfaces = appendUints(nil, surfaces)
	}
	if types != nil {
		p.Types = appendStrings(nil, types)
	}
	return p
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p EventsSubscribeParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.rawOmit("surfaces", p.Surfaces)
	o.rawOmit("types", p.Types)
	return o.close()
}

// The frames of events.subscribe that are not events.
const (
	// FrameSubscribed is the first frame, the acknowledgement.
	FrameSubscribed = "subscribed"
	// FrameDropped comes before the next frame when the subscriber's queue
	// shed events.
	FrameDropped = "dropped"
	// FrameHeartbeat is written after 30 s without frames.
	FrameHeartbeat = "heartbeat"
)

// SubscribedFrame is events.subscribe's first frame: ID numbers the
// subscription.
type SubscribedFrame struct {
	Type string `json:"type"`
	ID   uint64 `json:"id"`
}

// DroppedFrame says that Count events were shed since the last frame.
type DroppedFrame struct {
	Type  string `json:"type"`
	Count int    `json:"count"`
}

// HeartbeatFrame keeps a quiet stream alive.
type HeartbeatFrame struct {
	Type string `json:"type"`
}

// Usage is an amount of model usage: tokens by kind and what they cost.
// Input counts the prompt tokens neither read from nor written to a prompt
// cache; CacheRead and CacheWrite the cached ones (CacheWrite1h is the
// part of CacheWrite written for an hour, which Anthropic prices apart);
// Output includes Reasoning. Total is Input+CacheRead+CacheWrite+Output.
// CostUSD is the cost of the tokens whose model has a price (nil when none
// has); UnpricedTokens counts the others. Calls is how many model
// responses the tokens came from.
type Usage struct {
	Input          int64    `json:"input"`
	CacheRead      int64    `json:"cache_read"`
	CacheWrite     int64    `json:"cache_write"`
	CacheWrite1h   int64    `json:"cache_write_1h"`
	Output         int64    `json:"output"`
	Reasoning      int64    `json:"reasoning"`
	Total          int64    `json:"total"`
	CostUSD        *float64 `json:"cost_usd"`
	UnpricedTokens int64    `json:"unpriced_tokens"`
	Calls          int64    `json:"calls"`
}

// UsageChanged says that the agent in a pane used more tokens: Session is
// what its current session (the agent process running there) used so far,
// LastTurn what its current or last turn used (since its last prompt),
// Workspace what every agent of the pane's workspace used since the server
// started, and Model the model of its last response ("" unknown).
// Publications are coalesced: a pane gets at most one per poll of its
// agent's records.
//
// Its publisher is package usage. Its subscribers are the socket API
// (events.subscribe) and the GUI, which then reads the figures again with
// its next model snapshot (an attached window through workspace.view's
// usage), without describing the panes again.
type UsageChanged struct {
	SurfaceID   uint64 `json:"surface_id"`
	WorkspaceID uint64 `json:"workspace_id"`
	Tool        string `json:"tool"`
	Model       string `json:"model"`
	Session     Usage  `json:"session"`
	LastTurn    Usage  `json:"last_turn"`
	Workspace   Usage  `json:"workspace"`
}

// EventType returns "usage_changed".
func (UsageChanged) EventType() string { return TypeUsageChanged }

// Surface returns e.SurfaceID, true.
func (e UsageChanged) Surface() (uint64, bool) { return e.SurfaceID, true }

// BudgetAlert says that spending reached a budget: Level "warning" (the
// day's budget at 80 %) or "exceeded" (a budget crossed; Paused lists the
// panes whose agents were interrupted for it). Scope is "day" (the
// configuration's daily budget), "run" (a flow run's or workspace spec's
// whole budget) or "step" (one flow step's or spec pane's); Run and Step
// name them, Label is the flow's or spec's name (the date for the day).
// Used is what the scope spent; LimitTokens and LimitCostUSD are its
// limits (0: none).
//
// Its publisher is package usage. Its subscribers are the GUI (a desktop
// notification) and the socket API (events.subscribe; `paneflow flow run`
// learns of its steps' budgets through usage.budget_wait, which answers
// with these).
type BudgetAlert struct {
	Level        string   `json:"level"`
	Scope        string   `json:"scope"`
	Run          string   `json:"run,omitempty"`
	Step         string   `json:"step,omitempty"`
	Label        string   `json:"label,omitempty"`
	SurfaceIDs   []uint64 `json:"surface_ids,omitempty"`
	Paused       []uint64 `json:"paused,omitempty"`
	Used         Usage    `json:"used"`
	LimitTokens  int64    `json:"limit_tokens,omitempty"`
	LimitCostUSD float64  `json:"limit_cost_usd,omitempty"`
	Message      string   `json:"message"`
}

// EventType returns "budget_alert".
func (BudgetAlert) EventType() string { return TypeBudgetAlert }

// Budget alert levels and scopes.
const (
	BudgetWarning  = "warning"
	BudgetExceeded = "exceeded"

	BudgetScopeDay  = "day"
	BudgetScopeRun  = "run"
	BudgetScopeStep = "step"
)

// ChecksChanged says that the checks of a worktree changed: a run of them
// started, one of them started or ended, or the run ended. Worktree is the
// work tree's root (as `git rev-parse --show-toplevel` says); Checks is
// this server's last result of each check run there, by name, with
// Output left out (checks.status has it); Status sums them up:
// CheckRunning while a run goes on, else CheckFail when one of Checks
// failed, else CheckPass. DurationMS is the finished checks' durations
// added up. Results kept on disk by an earlier server are not in it.
//
// Its publisher is package review. Its subscribers are the GUI (the
// checks badge of the sidebar's pane rows and of the agents overview, for
// the panes whose directory is in Worktree) and the socket API
// (events.subscribe).
type ChecksChanged struct {
	Worktree   string        `json:"worktree"`
	Status     string        `json:"status"`
	DurationMS int64         `json:"duration_ms"`
	Checks     []CheckResult `json:"checks"`
}

// EventType returns "checks_changed".
func (ChecksChanged) EventType() string { return TypeChecksChanged }

// EventFrame is a frame of events.subscribe as a client reads it: its
// type, the members most clients use (zero when absent or null), and the
// whole frame in Raw for the rest.
type EventFrame struct {
	// Type is an event's type (TypeSurfaceChanged, …) or a Frame*.
	Type string
	// SurfaceID is the pane the event is about, 0 for none.
	SurfaceID uint64
	// WorkspaceID is the workspace, 0 for none or unknown.
	WorkspaceID uint64
	// State is an agent_state's or ai.* event's wire state.
	State State
	// Raw is the frame as it came.
	Raw json.RawMessage
}

// DecodeEventFrame reads one frame of events.subscribe.
func DecodeEventFrame(frame json.RawMessage) (EventFrame, error) {
	var w struct {
		Type        string  `json:"type"`
		SurfaceID   *uint64 `json:"surface_id"`
		WorkspaceID *uint64 `json:"workspace_id"`
		State       *State  `json:"state"`
	}
	if err := json.Unmarshal(frame, &w); err != nil {
		return EventFrame{}, err
	}
	f := EventFrame{Type: w.Type, Raw: frame}
	if w.SurfaceID != nil {
		f.SurfaceID = *w.SurfaceID
	}
	if w.WorkspaceID != nil {
		f.WorkspaceID = *w.WorkspaceID
	}
	if w.State != nil {
		f.State = *w.State
	}
	return f, nil
}

// Event is what the event frames are made of: one of this package's
// event types (package bus's Event has the same method).
type Event interface {
	EventType() string
}

// EventFrameJSON encodes e as an events.subscribe frame written at now:
// {"type":…, the event's members…, "ts":<epoch ms>}.
func EventFrameJSON(e Event, now time.Time) (json.RawMessage, error) {
	fields, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(fields)+48)
	b = append(b, `{"type":`...)
	b = jsonscan.AppendQuoted(b, e.EventType())
	if len(fields) < 2 || fields[0] != '{' {
		fields = []byte("{}") // not an object: no fields to add
	}
	if inner := bytes.TrimSpace(fields[1 : len(fields)-1]); len(inner) > 0 {
		b = append(b, ',')
		b = append(b, inner...)
	}
	b = append(b, `,"ts":`...)
	b = strconv.AppendInt(b, now.UnixMilli(), 10)
	return append(b, '}'), nil
}
