package api

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/internal/clock"
	"github.com/paneflow-go/paneflow/internal/ports"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/terminal"
	"github.com/paneflow-go/paneflow/workspace"
)

// Options configures [Register]. The zero value is usable: the scripting
// gate follows PANEFLOW_IPC_SCRIPTING, reads are fenced, pastes are
// submitted after 70 ms.
type Options struct {
	// Scripting reports whether the scripting gate is open (it opens
	// surface.send_text and surface.send_keystroke). It is called on every
	// gated request. nil means os.Getenv("PANEFLOW_IPC_SCRIPTING") == "1",
	// read at call time.
	Scripting func() bool
	// Unrestricted reports whether the config's ai_unrestricted is on,
	// which opens surface.send_text (not send_keystroke) even with the
	// gate closed. It is called on every send_text. nil means false.
	Unrestricted func() bool
	// Fenced reports the default of surface.read's "fenced" parameter (the
	// config's ai_injection_fence). nil means true.
	Fenced func() bool
	// PasteDelay is how long a submitted paste waits before its Enter
	// (submit_paste_delay_ms); 0 means 70 ms. It is clamped to 10 ms..5 s.
	PasteDelay time.Duration
	// Version is reported by system.identify.
	Version string
	// Logf receives audit lines (writes authorized by Unrestricted); nil
	// discards them.
	Logf func(format string, args ...any)
	// Agents answers surface.status and fleet.list (the conductor). nil
	// means no agent is ever known: surface.status reports every pane
	// "idle" and not hooked, fleet.list an empty fleet.
	Agents AgentReporter
	// Usage tells surface.status and fleet.list what the agent in a pane
	// used (package usage); nil means no "usage" member.
	Usage UsageReporter
	// Clock times surface.wait's timeout and idle windows; nil means the
	// system clock.
	Clock clock.Clock
	// Worktrees takes the managed worktrees of workspace.up and
	// surface.split; nil refuses a managed_worktree param as not
	// supported.
	Worktrees WorktreeOwner
	// Teams tells surface.list and fleet.list the agent team of each pane
	// (package teams); nil means no pane is ever in a team.
	Teams TeamReporter
	// Admission answers system.admission: the socket server's admission
	// counters ([ipc.Server.Admission]). nil leaves the method out.
	Admission func() ipc.AdmissionStats
	// Shutdown asks the process to end as SIGTERM would (system.shutdown):
	// it is called once the reply went out ([ipc.AfterReply]), must
	// return at once and must not wait for the socket server's Shutdown;
	// the host then shuts down (session saved, panes closed). nil leaves
	// the method out.
	Shutdown func()
	// Windows, when not nil, counts the windows attached now: the
	// screen.attach streams of every pane (a window's; a browser's relay
	// asks for one pane at a time) from outside the panes (not read-only).
	// The server's notifier notifies only while it is 0.
	Windows *WindowCount
	// EchoHold, when not nil, is the echo hold screen.input starts, shared
	// with the window that hosts the server (its keys start it too, so a
	// key in either ends a hold for another pane); nil: the server's own.
	EchoHold *EchoHold

	// heartbeat overrides heartbeatInterval (tests).
	heartbeat time.Duration
	// pid overrides the process id system.identify and system.shutdown
	// report (tests); 0 is os.Getpid().
	pid int
}

// WindowCount counts attached windows (see [Options.Windows]). The zero
// value is 0 and ready; it is safe for concurrent use.
type WindowCount struct{ n atomic.Int64 }

// Count returns how many windows are attached now.
func (w *WindowCount) Count() int { return int(w.n.Load()) }

// AgentReporter tells surface.status and fleet.list what the agents in the
// panes are doing (spec conductor.md §4). The conductor implements it; the
// api does not import the conductor. Its methods are called from request
// goroutines, concurrently, and must not block for long.
type AgentReporter interface {
	// SurfaceStatus returns the surface.status result for a pane that
	// runs a known agent (hooked, or found by the process scan), given the
	// pane's current output generation to include in it. ok is false when
	// no agent is known there; surface.status then answers "idle", not
	// hooked.
	SurfaceStatus(surfaceID, outputGeneration uint64) (status any, ok bool)
	// Fleet returns the fleet.list result: an object with an "agents"
	// array.
	Fleet() any
}

// UsageReporter tells surface.status, fleet.list and workspace.view what the agent in a
// pane used. The usage subsystem implements it; the api does not import
// it. It is called from request goroutines, concurrently, and must not
// block for long.
type UsageReporter interface {
	// SurfaceUsage returns the "usage" member of pane surfaceID's
	// surface.status; ok is false when there is none.
	SurfaceUsage(surfaceID uint64) (usage proto.UsageStatus, ok bool)
	// WorkspaceUsage returns what the agents of workspace workspaceID
	// used since the server started (workspace.view's "workspace_usage");
	// ok is false when none used any.
	WorkspaceUsage(workspaceID uint64) (usage proto.Usage, ok bool)
}

// Wire limits (spec limits.md).
const (
	defaultPasteDelay = 70 * time.Millisecond
	minPasteDelay     = 10 * time.Millisecond
	maxPasteDelay     = 5 * time.Second
	// pasteEchoGrace is how long past the paste delay the deferred Enter
	// waits for the program to echo the paste and rest before sending
	// anyway.
	pasteEchoGrace = 500 * time.Millisecond
	// pasteSettle is how long the program's output must rest after the
	// echo of a paste before the deferred Enter (longer than Gemini CLI's
	// 40 ms paste guard).
	pasteSettle = 60 * time.Millisecond
)

// server holds what the handlers share.
type server struct {
	o   Options
	reg ipc.Registrar
	m   *workspace.Manager
	b   *bus.Bus
	// heartbeat is the quiet time before a stream's heartbeat frame.
	heartbeat time.Duration
	// subscribers numbers events.subscribe streams from 1.
	subscribers atomic.Uint64
	// attached are the live screen.attach streams.
	attached attachments
	// hold is the echo hold of screen.input (Options.EchoHold, else
	// the server's own).
	hold *EchoHold
	// ports remembers surface.ports's last walk; guarded by portsMu.
	portsMu sync.Mutex
	ports   ports.Cache
}

// Register adds Paneflow's socket methods (spec ipc.md §6 plus
// surface.resize, surface.close and surface.wait) to r, serving the
// workspaces of m and the events of b. Methods that change state are
// registered with [ipc.Mutating], surface.wait with [ipc.Long],
// events.subscribe as a stream.
//
// Errors are always JSON-RPC errors: invalid params -32602 with the
// spec's messages, a closed scripting gate -32601, a timed-out wait
// -32002, anything unexpected -32603.
func Register(r ipc.Registrar, m *workspace.Manager, b *bus.Bus, o Options) {
	newServer(r, m, b, o).register()
}

// newServer applies the defaults of o.
func newServer(r ipc.Registrar, m *workspace.Manager, b *bus.Bus, o Options) *server {
	if o.Scripting == nil {
		o.Scripting = func() bool { return os.Getenv("PANEFLOW_IPC_SCRIPTING") == "1" }
	}
	if o.Unrestricted == nil {
		o.Unrestricted = func() bool { return false }
	}
	if o.Fenced == nil {
		o.Fenced = func() bool { return true }
	}
	if o.PasteDelay <= 0 {
		o.PasteDelay = defaultPasteDelay
	}
	o.PasteDelay = min(max(o.PasteDelay, minPasteDelay), maxPasteDelay)
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	o.Clock = clock.Or(o.Clock)
	if o.pid == 0 {
		o.pid = os.Getpid()
	}
	s := &server{o: o, reg: r, m: m, b: b, heartbeat: heartbeatInterval}
	// The real clock, also in tests on a fake one (a new hold's): the
	// hold is about processor time, and its own test sets its clock.
	s.hold = o.EchoHold
	if s.hold == nil {
		s.hold = &EchoHold{}
	}
	if o.heartbeat > 0 {
		s.heartbeat = o.heartbeat
	}
	return s
}

// register adds the methods to s.reg.
func (s *server) register() {
	befores := s.befores()
	for _, md := range s.methods() {
		opts := md.opts
		if before := befores[md.name]; before != nil {
			opts = append(slices.Clip(opts), ipc.Before(before))
		}
		s.reg.Register(md.name, md.h, opts...)
	}
	if s.o.Admission != nil {
		s.reg.Register(proto.MethodSystemAdmission, s.admission, ipc.Inline())
	}
	if s.o.Shutdown != nil {
		s.reg.Register(proto.MethodSystemShutdown, s.shutdown)
	}
	s.reg.RegisterStream(proto.MethodEventsSubscribe, s.subscribe)
	s.reg.RegisterStream(proto.MethodScreenAttach, s.screenAttach)
}

// methodDef is one request/response method.
type methodDef struct {
	name string
	h    ipc.Handler
	opts []ipc.Option
}

// befores lists the methods' [ipc.Before] hooks: the waiting they do
// before the executor runs them.
func (s *server) befores() map[string]func(ctx context.Context, params json.RawMessage) error {
	return map[string]func(context.Context, json.RawMessage) error{
		proto.MethodSurfaceSendText: s.sendTextReady,
	}
}

// methods lists the request/response methods Register adds.
func (s *server) methods() []methodDef {
	mut := []ipc.Option{ipc.Mutating()}
	// inline: handlers that only read memory under short locks and never
	// wait; they answer on the connection's goroutine (ipc.Inline).
	inline := []ipc.Option{ipc.Inline()}
	return []methodDef{
		{proto.MethodSystemPing, s.ping, inline},
		{proto.MethodSystemCapabilities, s.capabilities, inline},
		{proto.MethodSystemIdentify, s.identify, inline},

		{proto.MethodWorkspaceList, s.workspaceList, nil},
		{proto.MethodWorkspaceCurrent, s.workspaceCurrent, nil},
		{proto.MethodWorkspaceCreate, s.workspaceCreate, mut},
		{proto.MethodWorkspaceSelect, s.workspaceSelect, mut},
		{proto.MethodWorkspaceClose, s.workspaceClose, mut},
		{proto.MethodWorkspaceRestoreLayout, s.workspaceRestoreLayout, mut},
		{proto.MethodWorkspaceUp, s.workspaceUp, mut},
		{proto.MethodWorkspaceReopen, s.workspaceReopen, mut},
		{proto.MethodWorkspaceMove, s.workspaceMove, mut},
		{proto.MethodWorkspaceRename, s.workspaceRename, mut},
		{proto.MethodWorkspaceView, s.workspaceView, nil},
		{proto.MethodWorkspacePreset, s.workspacePreset, mut},
		{proto.MethodWorkspaceEqualize, s.workspaceEqualize, mut},
		{proto.MethodWorkspaceSetRatios, s.workspaceSetRatios, mut},
		{proto.MethodSurfacePorts, s.surfacePorts, nil},

		{proto.MethodSurfaceList, s.surfaceList, nil},
		{proto.MethodSurfaceRead, s.surfaceRead, inline},
		{proto.MethodSurfaceSearch, s.surfaceSearch, nil},
		{proto.MethodSurfaceSearchAll, s.surfaceSearchAll, nil},
		{proto.MethodSurfaceScreens, s.surfaceScreens, nil},
		{proto.MethodSurfaceStatus, s.surfaceStatus, nil},
		{proto.MethodSurfaceRename, s.surfaceRename, mut},
		{proto.MethodSurfaceFocus, s.surfaceFocus, mut},
		{proto.MethodSurfaceSplit, s.surfaceSplit, mut},
		{proto.MethodSurfaceResize, s.surfaceResize, mut},
		{proto.MethodSurfaceClose, s.surfaceClose, mut},
		{proto.MethodSurfaceSendText, s.sendText, mut},
		{proto.MethodSurfaceSendKeystroke, s.sendKeystroke, mut},
		{proto.MethodSurfaceInterrupt, s.surfaceInterrupt, mut},
		{proto.MethodSurfaceWait, s.surfaceWait, []ipc.Option{ipc.Long()}},

		{proto.MethodFleetList, s.fleetList, nil},

		{proto.MethodScreenRows, s.screenRows, inline},
		{proto.MethodScreenLines, s.screenLines, inline},
		{proto.MethodScreenInput, s.screenInput, inline},
		{proto.MethodScreenResize, s.screenResize, mut},
		{proto.MethodScreenClearScrollback, s.screenPaneOp((*terminal.Emulator).ClearScrollback), inline},
		{proto.MethodScreenReset, s.screenPaneOp((*terminal.Emulator).Reset), inline},
		{proto.MethodScreenShown, s.screenShown, inline},
	}
}

// fail maps a model error to a JSON-RPC error: request errors (not found,
// limits, bad values) are -32602 with the model's message; a closed
// manager is -32000; anything else is -32603.
func fail(err error) error {
	var ie *ipc.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ie):
		return ie
	case errors.Is(err, workspace.ErrClosed):
		return ipc.Errorf(ipc.CodeBusy, "Paneflow is shutting down")
	case errors.Is(err, workspace.ErrNotFound), errors.Is(err, workspace.ErrLimit),
		errors.Is(err, workspace.ErrLastWorkspace), errors.Is(err, workspace.ErrInvalid):
		return ipc.InvalidParams("%s", err.Error())
	case errors.Is(err, terminal.ErrInputQueueFull):
		return ipc.Errorf(ipc.CodeBusy, "%s", err.Error())
	}
	return ipc.Errorf(ipc.CodeInternal, "%s", err.Error())
}
