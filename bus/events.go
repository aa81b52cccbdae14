package bus

import "github.com/paneflow-go/paneflow/proto"

// Event is a value published on a [Bus]. EventType returns its wire type
// name, the "type" of the frame events.subscribe writes for it (for
// example "surface_changed"); it must be a constant of the concrete type.
//
// Events are published as values (not pointers) so that every subscriber
// can share one copy safely.
type Event interface {
	EventType() string
}

// SurfaceEvent is an [Event] about one surface (pane). Surface returns the
// surface's ID and whether the event carries one; filters use it to scope a
// subscription to some surfaces without knowing every event type (see
// [MatchSurfaces] and [SurfaceOf]). Events that concern a whole workspace do
// not implement it.
type SurfaceEvent interface {
	Event
	Surface() (id uint64, ok bool)
}

// SurfaceOf returns the surface an event is about, and false for events
// that are not about one surface (those that do not implement
// [SurfaceEvent], or that report no surface).
func SurfaceOf(e Event) (id uint64, ok bool) {
	if se, isSE := e.(SurfaceEvent); isSE {
		return se.Surface()
	}
	return 0, false
}

// The event types are the frames of events.subscribe, so they are
// declared in package proto with their wire names; these names are the
// bus's own for the same types.
const (
	TypeSurfaceChanged    = proto.TypeSurfaceChanged
	TypeSurfaceCreated    = proto.TypeSurfaceCreated
	TypeSurfaceExited     = proto.TypeSurfaceExited
	TypeSurfaceClosed     = proto.TypeSurfaceClosed
	TypeSurfaceRenamed    = proto.TypeSurfaceRenamed
	TypeTitleChanged      = proto.TypeTitleChanged
	TypeFocusChanged      = proto.TypeFocusChanged
	TypeWorkspaceCreated  = proto.TypeWorkspaceCreated
	TypeWorkspaceClosed   = proto.TypeWorkspaceClosed
	TypeWorkspaceSelected = proto.TypeWorkspaceSelected
	TypeWorkspaceChanged  = proto.TypeWorkspaceChanged
	TypeLayoutChanged     = proto.TypeLayoutChanged

	TypeAISessionStart = proto.TypeAISessionStart
	TypeAIPromptSubmit = proto.TypeAIPromptSubmit
	TypeAIToolUse      = proto.TypeAIToolUse
	TypeAINotification = proto.TypeAINotification
	TypeAIStop         = proto.TypeAIStop
	TypeAIExit         = proto.TypeAIExit
	TypeAISessionEnd   = proto.TypeAISessionEnd
	TypeAgentState     = proto.TypeAgentState
	TypeUsageChanged   = proto.TypeUsageChanged
	TypeBudgetAlert    = proto.TypeBudgetAlert
	TypeChecksChanged  = proto.TypeChecksChanged
)

// Budget alert levels and scopes.
const (
	BudgetWarning  = proto.BudgetWarning
	BudgetExceeded = proto.BudgetExceeded

	BudgetScopeDay  = proto.BudgetScopeDay
	BudgetScopeRun  = proto.BudgetScopeRun
	BudgetScopeStep = proto.BudgetScopeStep
)

// EventTypes returns the wire type names of every event type, sorted
// ([proto.EventTypes]). The caller owns the returned slice.
func EventTypes() []string { return proto.EventTypes() }

// The events (see package proto for each one's members, publisher and
// subscribers).
type (
	SurfaceChanged    = proto.SurfaceChanged
	SurfaceCreated    = proto.SurfaceCreated
	SurfaceExited     = proto.SurfaceExited
	SurfaceClosed     = proto.SurfaceClosed
	SurfaceRenamed    = proto.SurfaceRenamed
	TitleChanged      = proto.TitleChanged
	FocusChanged      = proto.FocusChanged
	WorkspaceCreated  = proto.WorkspaceCreated
	WorkspaceClosed   = proto.WorkspaceClosed
	WorkspaceSelected = proto.WorkspaceSelected
	WorkspaceChanged  = proto.WorkspaceChanged
	LayoutChanged     = proto.LayoutChanged
	AgentFrame        = proto.AgentFrame
	AISessionStart    = proto.AISessionStart
	AIPromptSubmit    = proto.AIPromptSubmit
	AIToolUse         = proto.AIToolUse
	AINotification    = proto.AINotification
	AIStop            = proto.AIStop
	AIExit            = proto.AIExit
	AISessionEnd      = proto.AISessionEnd
	AgentState        = proto.AgentState
	Usage             = proto.Usage
	UsageChanged      = proto.UsageChanged
	BudgetAlert       = proto.BudgetAlert
	ChecksChanged     = proto.ChecksChanged
)

// Interface guards.
var (
	_ SurfaceEvent = SurfaceChanged{}
	_ SurfaceEvent = SurfaceCreated{}
	_ SurfaceEvent = SurfaceExited{}
	_ SurfaceEvent = SurfaceClosed{}
	_ SurfaceEvent = SurfaceRenamed{}
	_ SurfaceEvent = TitleChanged{}
	_ SurfaceEvent = FocusChanged{}
	_ Event        = WorkspaceCreated{}
	_ Event        = WorkspaceClosed{}
	_ Event        = WorkspaceSelected{}
	_ Event        = LayoutChanged{}
	_ SurfaceEvent = AISessionStart{}
	_ SurfaceEvent = AIPromptSubmit{}
	_ SurfaceEvent = AIToolUse{}
	_ SurfaceEvent = AINotification{}
	_ SurfaceEvent = AIStop{}
	_ SurfaceEvent = AIExit{}
	_ SurfaceEvent = AISessionEnd{}
	_ SurfaceEvent = AgentState{}
	_ SurfaceEvent = UsageChanged{}
	_ Event        = BudgetAlert{}
	_ Event        = ChecksChanged{}
)
