package bus

import "slices"

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

// Wire type names of the events in this package, as [Event.EventType]
// returns them.
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
	TypeLayoutChanged     = "layout_changed"
)

// eventTypes is every wire type name defined here, sorted.
var eventTypes = func() []string {
	t := []string{
		TypeSurfaceChanged, TypeSurfaceCreated, TypeSurfaceExited, TypeSurfaceClosed,
		TypeSurfaceRenamed, TypeTitleChanged, TypeFocusChanged, TypeWorkspaceCreated,
		TypeWorkspaceClosed, TypeWorkspaceSelected, TypeLayoutChanged,
	}
	slices.Sort(t)
	return t
}()

// EventTypes returns the wire type names of every event type this package
// defines, sorted. events.subscribe uses it to reject unknown names in its
// "types" parameter. The caller owns the returned slice.
func EventTypes() []string { return slices.Clone(eventTypes) }

// SurfaceChanged says that a surface's terminal has new output: its output
// generation (terminal.Emulator.Generation) reached Generation.
//
// Its publisher is the workspace model: one goroutine per pane waits on the
// emulator's Watch channel and publishes one SurfaceChanged per wake-up. Its
// subscribers are the socket API (surface_changed frames, which drive the
// CLI's wait and watch) and the GUI (repaint). Queues coalesce it: see the
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
// named Name (its resolved display name), with its process started.
//
// Its publisher is the workspace model (workspace creation, split, layout
// restore, presets that add panes). Its subscribers are the socket API
// (events.subscribe) and the GUI.
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
// are the socket API (events.subscribe; waits on the surface end early) and
// the GUI (exited marker); later the conductor.
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
// (events.subscribe; waits on the surface end) and the GUI.
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
)
