package app

import (
	"context"
	"time"

	"github.com/paneflow-go/paneflow/app/termview"
	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/core"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/workspace"
)

// Backend is everything the window needs of whoever owns the panes: the
// one route from the window to workspaces, panes, their terminals and the
// server's events (WezTerm's Domain: the window is a client of it). The
// shell holds no *workspace.Manager and dials no socket itself.
//
// [NewLocal] is the in-process implementation over a *core.Core (the
// window hosts the core, as before issue 26). An attached implementation
// reaches a running `paneflow serve` over its socket.
//
// The window owns presentation (which workspace and pane it shows, zoom,
// views, overlays); the backend owns the model (workspaces, layouts,
// focus, names, panes and their programs) and its events. Values are
// workspace's plain types, copies the caller may keep.
//
// # Concurrency
//
// Every method is safe for concurrent use. Mutations and reads of pane
// descriptions may block on the model or read the process table: the
// shell calls them from its worker and reader goroutines, never its UI
// goroutine, except the cheap in-memory ones (Workspaces, Panes,
// ActiveTree, FocusedSurface, Pane, Teams) at start-up.
type Backend interface {
	// Serve runs the backend's connection to the world (the local
	// backend serves the core's socket) until Shutdown; it returns nil
	// after a Shutdown.
	Serve(ctx context.Context) error
	// Shutdown ends the backend within ctx: the local backend closes
	// every pane and the socket.
	Shutdown(ctx context.Context) error
	// Endpoint names where the backend lives (a socket path), for logs.
	Endpoint() string
	// OutlivesWindow reports whether the panes outlive the window (an
	// attached backend): closing the window then ends no program and
	// asks nothing.
	OutlivesWindow() bool
	// Subscribe subscribes to the model's events (see bus.Bus.Subscribe).
	Subscribe(name string, f bus.Filter, queue int) *bus.Subscription

	// Workspaces lists the workspaces in order.
	Workspaces() []workspace.WorkspaceInfo
	// ActiveTree returns the active workspace and a copy of its layout;
	// ok is false when there is no workspace.
	ActiveTree() (info workspace.WorkspaceInfo, layout *workspace.LayoutNode, ok bool)
	// Panes lists every open pane in workspace then layout order, without
	// reading their processes.
	Panes() []workspace.PanePlace
	// Surfaces describes every open pane (names, titles, directories,
	// commands: reads the process table).
	Surfaces() []workspace.SurfaceInfo
	// SurfaceInfo describes one pane; ok is false when it is gone.
	SurfaceInfo(id uint64) (workspace.SurfaceInfo, bool)
	// FocusedSurface is the focused pane of workspace wsID.
	FocusedSurface(wsID uint64) (id uint64, ok bool)
	// ResolveTarget finds a pane by id (when not 0) or by name.
	ResolveTarget(id uint64, name string) (uint64, error)
	// Teams lists the panes in Claude Code agent teams; nil when none.
	Teams() map[uint64]core.TeamMember

	// CreateWorkspace adds a workspace with one pane in cwd ("" the
	// default) and selects it when activate.
	CreateWorkspace(title, cwd string, activate bool) error
	// CloseWorkspace closes the workspace at index and its panes.
	CloseWorkspace(index int) error
	// SelectWorkspace makes the workspace at index the active one.
	SelectWorkspace(index int) error
	// MoveWorkspace moves the workspace at index to position to.
	MoveWorkspace(index, to int) error
	// RenameWorkspace titles the workspace at index.
	RenameWorkspace(index int, title string) error
	// ApplyPreset lays out the workspace at index by a preset.
	ApplyPreset(index int, preset string) error
	// Equalize gives every split of the workspace at index equal shares.
	Equalize(index int) error
	// SetRatios sets the shares of the split at path in workspace wsID.
	SetRatios(wsID uint64, path []int, ratios []float64) error
	// Split splits pane target (0: the active workspace's first) and
	// returns the new pane's id.
	Split(target uint64, dir workspace.Direction, spec workspace.PaneSpec) (uint64, error)
	// Focus focuses pane id and selects its workspace.
	Focus(id uint64) error
	// Rename sets pane id's name ("" returns to the automatic name).
	Rename(id uint64, name string) error
	// CloseSurface closes pane id, ending its program once the server's
	// undo window passed.
	CloseSurface(id uint64) error
	// Reopen brings back the pane or workspace closed last within the
	// undo window (workspace.reopen), on the active workspace's host.
	Reopen() error

	// Pane is pane id's terminal as a view shows it; ok is false when
	// the pane is gone.
	Pane(id uint64) (termview.Pane, bool)
	// Paste types text into pane id as one paste (bracketed when its
	// program asked for it), then Enter when submit; an error says so
	// when the pane is closed.
	Paste(id uint64, text string, submit bool) error
	// OutputGens returns every pane's output generation (it grows with
	// each change of the pane's screen).
	OutputGens() map[uint64]uint64
	// PanePIDs returns the process id of each pane's program (for the
	// ports its process tree listens on); panes without one are absent.
	PanePIDs() map[uint64]int
	// Usage returns what each pane's agent session used (by pane id;
	// panes whose agent's records were never read are absent) and what
	// the agents of each workspace used since the server started (by
	// workspace id); both empty when the server counts no usage.
	Usage() (panes map[uint64]proto.UsageStatus, workspaces map[uint64]proto.Usage)
	// BusyPanes counts the panes running something other than an idle
	// shell (what closing the window would end).
	BusyPanes() int

	// RestoreSession restores the session file at path into the model
	// and returns what went wrong with parts of it; a missing file is not
	// an error.
	RestoreSession(path string) (warnings []string, err error)
	// SaveSession writes the model's session to path.
	SaveSession(path string) error

	// Caller reaches the server's socket methods (what `paneflow up`,
	// `flow run` and quick launch call), JSON-RPC errors as *ipc.Error;
	// timeout 0 is the default per call.
	Caller(timeout time.Duration) proto.Caller
}
