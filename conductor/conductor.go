package conductor

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/internal/clock"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// Defaults of [Options].
const (
	// DefaultStallThreshold is how long a thinking agent may send no hook
	// frame before it counts as stalled (agent_stall_threshold_secs).
	DefaultStallThreshold = 60 * time.Second
	// DefaultScanDelay is how long after a pane's activity its process
	// tree is scanned; activity during the delay is covered by the same
	// scan.
	DefaultScanDelay = 500 * time.Millisecond
)

// Pane is what the conductor needs to know about one pane.
type Pane struct {
	SurfaceID   uint64 // the pane (surface_id)
	WorkspaceID uint64 // its workspace's id (PANEFLOW_WORKSPACE_ID)
	Workspace   int    // its workspace's position in the list, 0-based
	Name        string // its resolved display name
	// PID is the process the pane runs (its PTY child); 0 when it runs
	// none: its program exited, or is Starting.
	PID int
	// Starting is true while the pane still starts its program in the
	// background (see [PaneStarting]).
	Starting bool
}

// PaneState is where a pane's program is, as [PaneSource.Process]
// reports it. The zero value is PaneClosed.
type PaneState uint8

// The states of a pane's program.
const (
	// PaneClosed: the pane is not open (closed, or never was).
	PaneClosed PaneState = iota
	// PaneStarting: the pane is open and its program is still being
	// started in the background (panes start their programs off the
	// caller's goroutine): no process yet, and not exited either. The
	// conductor looks at such a pane again after its scan delay until the
	// program runs, so an agent that starts silently is still found.
	PaneStarting
	// PaneRunning: the pane's program runs, as the pid reported with it.
	PaneRunning
	// PaneExited: the pane is open and its program ended (or could not be
	// started).
	PaneExited
)

// PaneSource tells the conductor about panes. The composition root
// implements it over the workspace model; the conductor does not import
// the model. Its methods are called from the conductor's goroutines and
// request handlers, concurrently, never with the conductor's lock held.
type PaneSource interface {
	// Panes lists every open pane, in workspace order then layout order.
	// It may be slow (it resolves display names); the conductor calls it
	// for fleet.list and when a frame names a pane it has not heard of.
	Panes() []Pane
	// Process reports the state of a pane's program and, when it is
	// PaneRunning, the pid of its process (0 otherwise). It must be cheap.
	Process(surfaceID uint64) (pid int, state PaneState)
}

// paneState is the state of a listed pane's program.
func (p Pane) paneState() PaneState {
	switch {
	case p.Starting:
		return PaneStarting
	case p.PID > 0:
		return PaneRunning
	}
	return PaneExited
}

// Options configures [New].
type Options struct {
	// Bus is where the conductor learns of panes (surface_created,
	// surface_changed, surface_exited, surface_closed) and publishes the
	// ai.* and agent_state events. nil means no events either way: frames
	// still work, panes are looked up through Panes, and nothing is
	// scanned.
	Bus *bus.Bus
	// Panes tells the conductor about panes; it is required.
	Panes PaneSource
	// StallThreshold is how long a thinking agent may stay silent before
	// it is stalled. 0 means DefaultStallThreshold; a negative value turns
	// stall detection off.
	StallThreshold time.Duration
	// ScanDelay is the debounce of process scans after pane activity. 0
	// means DefaultScanDelay; a negative value turns process scans off
	// (agents are then known only from their hooks).
	ScanDelay time.Duration
	// Clock drives timers and the waiting_ms and idle_ms durations; nil
	// means the system clock. Tests share one clock.Fake with the other
	// timed parts of the core.
	Clock clock.Clock

	// Processes lists the system's processes, for agent detection where
	// there is no /proc to read (macOS, Windows; Linux ignores it). nil,
	// or a first call that fails, means hooks-only detection there.
	Processes func() ([]ProcessInfo, error)
	// ProcessArgs reads one process's command line for Processes' rows
	// (agents run by an interpreter are found from their argv); nil
	// leaves command lines unknown.
	ProcessArgs func(pid int) []string
	// ProcessExe reads one process's executable path for Processes' rows
	// (the launch shim is told from the agent it runs by its file); nil
	// leaves it unknown, and a scan may then take a shim that has not
	// reported yet for an agent without hooks.
	ProcessExe func(pid int) string
	// ShimDir is the launch shim directory (the front of every pane's
	// PATH): a process running a file from it is the shim, not an agent;
	// "" means the shim is known only by its file name, paneflow-shim.
	ShimDir string
	// Screen returns the visible rows of a pane as text (nil for a pane
	// it does not know). [Conductor.Input] reads it to tell which choice
	// of an agent's permission dialog a key picks; nil means input never
	// answers a question (see answer.go). Called without the conductor's
	// lock, from the goroutine that wrote the input.
	Screen func(surfaceID uint64) []string

	// procs replaces the system's process table (tests); noProcs forces
	// hooks-only operation.
	procs   procTable
	noProcs bool
}

// Conductor knows what the agents in the panes are doing. It serves the
// ai.* methods (see [Conductor.Register]), answers surface.status and
// fleet.list (it implements the socket API's agent reporter), and
// publishes what changes on the bus.
//
// Create one with [New] (the zero value is not usable), register its
// methods, then [Conductor.Start] it; [Conductor.Close] stops it. The core
// does all three through the subsystem contract ([Conductor.Init],
// [Conductor.Shutdown]). All methods are safe for concurrent use.
type Conductor struct {
	o         Options
	clock     clock.Clock
	procs     procTable // nil: hooks only
	stall     time.Duration
	scanDelay time.Duration

	mu          sync.Mutex
	sessions    map[uint64]*session // by session.id
	nextSession uint64
	panes       map[uint64]*pane    // by surface id
	outbox      []bus.Event         // events to publish, in order
	turns       uint64              // turn starts seen, of all sessions (session.turn)
	history     map[uint64]*turnLog // by surface id: the turns ai.history lists
	started     bool
	closed      bool

	pubMu sync.Mutex // serializes flushes so events keep their order
	stop  chan struct{}
	wg    sync.WaitGroup // the event loop and transcript readers
}

// pane is the conductor's view of one pane; guarded by Conductor.mu.
type pane struct {
	id          uint64
	workspaceID uint64
	pid         int         // the pane's process; 0 while it has none
	starting    bool        // its program is still being started (PaneStarting)
	exited      bool        // its process ended
	detected    []detected  // agents the last scan found, nearest first
	rootTool    string      // the agent that is the pane's own process, if any
	scanTimer   clock.Timer // pending scan
	scanning    bool        // a scan is reading /proc
	rescan      bool        // activity arrived during the scan
	// startScans is how many more scans a new pane gets after its
	// program runs, output or not: a shell's `-c` may still be about to
	// exec the agent when the first scan looks, and an agent waiting
	// silently prints nothing that would trigger another.
	startScans int
	// ended holds the launch shims that reported their agent's exit
	// (ai.exit), by pid, with their start times: a shim lives on for a
	// moment after that (its last frames, its config cleanup), and a scan
	// in that moment must not take it for an agent without hooks. An entry
	// goes when a scan no longer finds its process.
	ended map[int]uint64
}

// session is one hooked agent; guarded by Conductor.mu.
type session struct {
	id          uint64 // conductor-internal, never on the wire
	pid         int    // the frames' pid (the launch shim's); 0 when they carry none
	start       uint64 // pid's start time when the session began; 0 unknown
	tool        string
	state       State
	activeTool  string
	message     string
	lastResult  string
	exitCode    int
	hasExit     bool
	surface     uint64 // bound pane, 0 while unresolved
	workspaceID uint64 // the frame's or the pane's workspace

	waitingSince time.Time
	lastActivity time.Time
	stallTimer   clock.Timer
	stallGen     uint64 // invalidates callbacks of replaced stall timers

	// unhooked marks an agent its launch shim reported running without
	// hooks (reason says why); its first hook frame clears it.
	unhooked bool
	reason   string

	// pendingTool is the tool a permission prompt asks about (the
	// active tool when the question came), while the session waits;
	// the user's approval in the pane makes it the active tool again.
	pendingTool string

	seen bool // a process scan saw the agent in its pane (pid-less sessions)
	// askedScan is when a frame of this pid-less, not yet seen session
	// last asked for a scan of its pane (see frameScanEvery).
	askedScan time.Time
	seq       uint64 // frames applied; a late transcript read checks it
	// turn is Conductor.turns when the session last started a turn by its
	// own hook (see turnStarted); 0 if it never did.
	turn uint64
}

// New returns a conductor for o. It panics if o.Panes is nil.
func New(o Options) *Conductor {
	if o.Panes == nil {
		panic("conductor: Options.Panes is nil")
	}
	c := &Conductor{
		o:         o,
		clock:     clock.Or(o.Clock),
		procs:     o.procs,
		stall:     o.StallThreshold,
		scanDelay: o.ScanDelay,
		sessions:  map[uint64]*session{},
		panes:     map[uint64]*pane{},
		stop:      make(chan struct{}),
	}
	if c.procs == nil && !o.noProcs {
		c.procs = systemProcs()
	}
	if c.procs == nil && !o.noProcs && o.Processes != nil {
		if _, err := o.Processes(); err == nil {
			c.procs = listProcs{list: o.processes, args: o.ProcessArgs, exe: o.ProcessExe}
		}
	}
	if o.noProcs {
		c.procs = nil
	}
	if c.stall == 0 {
		c.stall = DefaultStallThreshold
	}
	if c.scanDelay == 0 {
		c.scanDelay = DefaultScanDelay
	}
	return c
}

// Register adds the ai.* methods to r. Requests with an id get a small
// acknowledgement ({"ok":true,"state":…,"surface_id":…}) or a -32602
// error; notifications (no id, what the hook binary sends) get nothing, as
// JSON-RPC says. The methods are not [ipc.Mutating]: they change only the
// conductor's own state, under its own lock, so a hook frame never waits
// behind a slow workspace mutation.
func (c *Conductor) Register(r ipc.Registrar) {
	for _, m := range methods {
		r.Register(m, func(_ context.Context, params json.RawMessage) (any, error) {
			f, err := decodeFrame(m, params)
			if err != nil {
				return nil, err
			}
			return c.apply(f)
		})
	}
	r.Register(proto.MethodAIHistory, c.aiHistory)
}

// Frame runs one ai.* frame (method and its [proto.AIFrameParams]) as if
// it had arrived on the socket: the loopback endpoint of Claude Code's
// http hooks (package hookhttp) feeds the same state machine through it.
// It returns the [Ack] or the -32602 error the socket would. Safe for
// concurrent use.
func (c *Conductor) Frame(method string, params json.RawMessage) (any, error) {
	if !slices.Contains(methods, method) {
		return nil, ipc.Errorf(ipc.CodeInvalidParams, "%q is not an ai.* frame method", method)
	}
	f, err := decodeFrame(method, params)
	if err != nil {
		return nil, err
	}
	return c.apply(f)
}

// Start subscribes to pane events and scans the panes that already exist.
// It returns at once; calling it again does nothing.
func (c *Conductor) Start() {
	c.mu.Lock()
	if c.started || c.closed {
		c.mu.Unlock()
		return
	}
	c.started = true
	var sub *bus.Subscription
	if c.o.Bus != nil {
		// Subscribed before the panes are listed, so no pane is missed.
		sub = c.o.Bus.Subscribe("conductor", bus.MatchTypes(
			bus.TypeSurfaceCreated, bus.TypeSurfaceChanged, bus.TypeSurfaceExited, bus.TypeSurfaceClosed), 0)
		c.wg.Add(1)
	}
	c.mu.Unlock()
	if sub != nil {
		go c.loop(sub)
	}
	c.resync()
}

// Close stops the conductor: timers are stopped, the event loop and any
// transcript read end, and later frames are refused with -32000. It waits
// for its goroutines and is idempotent.
func (c *Conductor) Close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	for _, p := range c.panes {
		stopTimer(&p.scanTimer)
	}
	for _, s := range c.sessions {
		stopTimer(&s.stallTimer)
	}
	c.mu.Unlock()
	close(c.stop)
	c.wg.Wait()
}

// stopTimer stops *t, if any, and clears it.
func stopTimer(t *clock.Timer) {
	if *t != nil {
		(*t).Stop()
		*t = nil
	}
}

// loop handles pane events until Close or the bus closes.
func (c *Conductor) loop(sub *bus.Subscription) {
	defer c.wg.Done()
	defer sub.Close()
	var buf []bus.Event
	for {
		select {
		case <-c.stop:
			return
		case <-sub.Done():
			return
		case <-sub.Ready():
		}
		evs, dropped := sub.Drain(buf)
		for _, e := range evs {
			c.handleEvent(e)
		}
		if dropped > 0 {
			c.resync() // a surface_closed may be among the lost events
		}
		clear(evs)
		buf = evs[:0]
	}
}

// handleEvent applies one pane event.
func (c *Conductor) handleEvent(e bus.Event) {
	switch e := e.(type) {
	case bus.SurfaceCreated:
		c.paneCreated(e.SurfaceID, e.WorkspaceID)
	case bus.SurfaceChanged:
		c.mu.Lock()
		if p := c.panes[e.SurfaceID]; p != nil && !p.exited {
			c.scheduleScanLocked(p)
		}
		c.mu.Unlock()
	case bus.SurfaceExited:
		c.paneExited(e.SurfaceID, e.ExitCode)
	case bus.SurfaceClosed:
		c.mu.Lock()
		c.forgetPaneLocked(e.SurfaceID)
		c.mu.Unlock()
		c.flush()
	}
}

// paneCreated starts tracking a new pane and schedules its first scan.
func (c *Conductor) paneCreated(id, workspaceID uint64) {
	pid, state := c.o.Panes.Process(id)
	if state == PaneClosed {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.addPaneLocked(id, workspaceID, pid, state)
	p.startScans = newPaneScans
	c.scheduleScanLocked(p)
}

// newPaneScans is how many scans, one scan delay apart, a new pane gets
// once its program runs, besides those its output triggers.
const newPaneScans = 3

// addPaneLocked returns the pane id, adding it if it is new, with its
// program's pid and state.
func (c *Conductor) addPaneLocked(id, workspaceID uint64, pid int, state PaneState) *pane {
	p := c.panes[id]
	if p == nil {
		p = &pane{id: id, workspaceID: workspaceID, pid: pid, starting: state == PaneStarting, exited: state == PaneExited}
		c.panes[id] = p
	}
	if p.workspaceID == 0 {
		p.workspaceID = workspaceID
	}
	return p
}

// resync reconciles the pane table with the model: panes it lacks are
// added (and scanned), panes the model no longer has are forgotten.
func (c *Conductor) resync() {
	listed := c.o.Panes.Panes()
	c.mu.Lock()
	var gone []uint64
	inList := make(map[uint64]bool, len(listed))
	for _, in := range listed {
		inList[in.SurfaceID] = true
		if c.closed {
			break
		}
		if _, known := c.panes[in.SurfaceID]; !known {
			c.scheduleScanLocked(c.addPaneLocked(in.SurfaceID, in.WorkspaceID, in.PID, in.paneState()))
		}
	}
	for id := range c.panes {
		if !inList[id] {
			gone = append(gone, id)
		}
	}
	c.mu.Unlock()
	// A pane missing from the list may have been created since; only the
	// model's own answer closes it.
	for _, id := range gone {
		if _, state := c.o.Panes.Process(id); state == PaneClosed {
			c.mu.Lock()
			c.forgetPaneLocked(id)
			c.mu.Unlock()
		}
	}
	c.flush()
}

// emitLocked queues e for publication by the next flush.
func (c *Conductor) emitLocked(e bus.Event) { c.outbox = append(c.outbox, e) }

// flush publishes the queued events, in the order they were queued. Every
// path that may have queued events calls it after unlocking c.mu.
func (c *Conductor) flush() {
	c.pubMu.Lock()
	defer c.pubMu.Unlock()
	c.mu.Lock()
	evs := c.outbox
	c.outbox = nil
	c.mu.Unlock()
	for _, e := range evs {
		c.o.Bus.Publish(e)
	}
}

// sessionsLocked returns the sessions keep accepts, oldest first, so that
// everything derived from them is deterministic.
func (c *Conductor) sessionsLocked(keep func(*session) bool) []*session {
	var out []*session
	for _, s := range c.sessions {
		if keep(s) {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b *session) int { return cmp.Compare(a.id, b.id) })
	return out
}

// hasSessionLocked reports whether a session of tool is bound to pane id.
func (c *Conductor) hasSessionLocked(id uint64, tool string) bool {
	for _, s := range c.sessions {
		if s.surface == id && s.tool == tool {
			return true
		}
	}
	return false
}
