package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paneflow-go/paneflow/app/termview"
	"github.com/paneflow-go/paneflow/attach"
	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/core"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/terminal"
	"github.com/paneflow-go/paneflow/workspace"
)

// AttachOptions configures [Attach].
type AttachOptions struct {
	// Path is the server's socket (ipc.ClientSocketPath). Required.
	Path string
	// FPS is the most screen frames per second per pane the server sends
	// (0: proto.DefaultAttachFPS).
	FPS int
	// Dial, if set, makes every connection instead of dialing Path, which
	// then only names the server (ssh://host): a window attached to
	// another host's server over ssh (package remote). The launch pad
	// still plans specs on this machine.
	Dial func(ctx context.Context) (net.Conn, error)
}

// attached is the [Backend] of a window attached to a running server over
// its socket: operations are proto.Client calls, the model's changes come
// from events.subscribe (republished on a bus of the window's own) and the
// terminals are the screen stream's mirrors (attach.Pane). It holds no
// model: every read is a call (workspace.view, workspace.list,
// surface.list). The server owns the session: RestoreSession and
// SaveSession do nothing. Shutdown detaches: every pane and program keeps
// running in the server.
type attached struct {
	o  AttachOptions
	cl *ipc.Client
	pc proto.Client
	// screen is the screen stream's client; Reattach replaces it (the
	// socket client cl dials per call and needs no replacing).
	screen atomic.Pointer[attach.Client]
	// smu serialises Reattach and Shutdown.
	smu    sync.Mutex
	closed bool // Shutdown ran; guarded by smu
	events *bus.Bus
	ctx    context.Context
	cancel context.CancelFunc
	once   sync.Once

	// The read pass (beginReadPass): while open, view answers with the
	// pass's one workspace.view.
	passMu   sync.Mutex
	passOpen bool                       // guarded by passMu
	passView *proto.WorkspaceViewResult // the pass's view once read; guarded by passMu
	mutation uint64                     // operations of this window so far; guarded by passMu
	// keepView lets reads between two events reuse the last
	// workspace.view (set before use: a remote host's, where each read is
	// a round trip over ssh and an idle window's tick read every host);
	// an event, an operation of this window or a new events subscription
	// drops it. kept is that view and seen counts the events so far;
	// guarded by passMu.
	keepView bool
	kept     *proto.WorkspaceViewResult
	seen     uint64

	// The panes the window shows (setShown): want is the latest set,
	// sent the set last sent and sentTo the screen stream it was sent
	// on; guarded by shownMu. shownKick (1-buffered) wakes sendShown.
	shownMu   sync.Mutex
	shownWant []uint64
	shownSent []uint64
	shownTo   *attach.Client
	shownKick chan struct{}
	shownOnce sync.Once

	// The last refusal published (inputRefused) and when; guarded by
	// refusedMu.
	refusedMu     sync.Mutex
	lastRefused   inputRefused
	lastRefusedAt time.Time
}

// Attach connects to the server at o.Path (a ping, then the screen
// stream) and returns the backend of a window attached to it.
func Attach(ctx context.Context, o AttachOptions) (Backend, error) {
	if o.Path == "" {
		return nil, errors.New("app: AttachOptions.Path is empty")
	}
	cl := &ipc.Client{Path: o.Path, Dial: o.Dial}
	pc := proto.Client{Caller: cl}
	if _, err := pc.Ping(ctx); err != nil {
		return nil, err
	}
	actx, cancel := context.WithCancel(context.Background())
	a := &attached{o: o, cl: cl, pc: pc, events: bus.New(), ctx: actx, cancel: cancel}
	screen, err := attach.Dial(ctx, o.Path, a.screenOptions())
	if err != nil {
		cancel()
		return nil, err
	}
	a.screen.Store(screen)
	return a, nil
}

// Reattach attaches the screen stream again (after the server was
// restarted on the same socket): panes asked for from then on are the new
// stream's mirrors; the old ones stop changing, so the window replaces
// its views. Serve must be called again for the events.
func (a *attached) Reattach(ctx context.Context) error {
	screen, err := attach.Dial(ctx, a.o.Path, a.screenOptions())
	if err != nil {
		return err
	}
	a.smu.Lock()
	defer a.smu.Unlock()
	if a.closed {
		screen.Close()
		return errors.New("app: reattach after detaching")
	}
	a.screen.Swap(screen).Close()
	a.kickShown() // the new stream shows every pane until told
	return nil
}

// setShown tells the server which of its panes the window shows (ids
// sorted or not; empty: none), so that its stream paces the others'
// frames (attach.Client.SetShown). It returns at once: a goroutine of
// the backend sends the latest set, once per set and stream.
func (a *attached) setShown(ids []uint64) {
	ids = slices.Sorted(slices.Values(ids))
	if ids == nil {
		ids = []uint64{}
	}
	a.shownMu.Lock()
	same := slices.Equal(ids, a.shownWant) && a.shownWant != nil
	a.shownWant = ids
	a.shownMu.Unlock()
	if same {
		return
	}
	a.shownOnce.Do(func() {
		kick := make(chan struct{}, 1)
		a.shownMu.Lock()
		a.shownKick = kick
		a.shownMu.Unlock()
		go a.sendShown(kick)
	})
	a.kickShown()
}

// kickShown wakes sendShown, if setShown ever started it.
func (a *attached) kickShown() {
	a.shownMu.Lock()
	kick := a.shownKick
	a.shownMu.Unlock()
	if kick != nil {
		select {
		case kick <- struct{}{}:
		default:
		}
	}
}

// sendShown sends the latest set of setShown to the current screen
// stream whenever it differs from the last sent there, until Shutdown. A
// failed call (a server without screen.shown, a stream gone) leaves that
// stream pacing every pane alike; the next set or stream tries again.
func (a *attached) sendShown(kick <-chan struct{}) {
	for {
		select {
		case <-kick:
		case <-a.ctx.Done():
			return
		}
		screen := a.screen.Load()
		a.shownMu.Lock()
		want := a.shownWant
		same := screen == a.shownTo && slices.Equal(want, a.shownSent)
		a.shownMu.Unlock()
		if same {
			continue
		}
		if err := screen.SetShown(want); err != nil {
			continue
		}
		a.shownMu.Lock()
		a.shownSent, a.shownTo = want, screen
		a.shownMu.Unlock()
	}
}

var _ Backend = (*attached)(nil)

// screenOptions are the options of the screen stream's client.
func (a *attached) screenOptions() attach.Options {
	return attach.Options{FPS: a.o.FPS, Dial: a.o.Dial, InputRefused: a.inputRefused}
}

// refusedEvery is how often the same refusal of a pane's input is
// published again: a user typing into a pane whose input is refused
// sees it said once, not once per key, and again if they keep typing
// after dismissing it.
const refusedEvery = 2 * time.Second

// inputRefused publishes an [inputRefused] event for input the server
// refused (attach.Options.InputRefused): the window shows it, as input is
// otherwise dropped without a word.
func (a *attached) inputRefused(id uint64, err error) {
	msg := err.Error()
	now := time.Now()
	a.refusedMu.Lock()
	if id == a.lastRefused.SurfaceID && msg == a.lastRefused.Reason && now.Sub(a.lastRefusedAt) < refusedEvery {
		a.refusedMu.Unlock()
		return
	}
	a.lastRefused, a.lastRefusedAt = inputRefused{SurfaceID: id, Reason: msg}, now
	a.refusedMu.Unlock()
	a.events.Publish(inputRefused{SurfaceID: id, Reason: msg})
}

// inputRefused is published on the window's bus when a pane's input was
// dropped (the server refused it, or too much was still waiting): the
// window says so in its banner.
type inputRefused struct {
	SurfaceID uint64
	Reason    string
}

// EventType is part of bus.Event: a type no server publishes.
func (inputRefused) EventType() string { return "paneflow_input_refused" }

// guiEventTypes are the event types the window subscribes to (guiEvents).
func guiEventTypes() []string {
	var out []string
	for _, t := range proto.EventTypes() {
		if guiEventType(t) {
			out = append(out, t)
		}
	}
	return out
}

// Serve reads the server's events and republishes them until Shutdown
// (then it returns nil) or the server goes away (an error).
func (a *attached) Serve(context.Context) error {
	st, err := a.subscribe()
	if err != nil {
		if a.ctx.Err() != nil {
			return nil
		}
		return err
	}
	return a.pump(st)
}

// subscribe opens the server's events stream and publishes its agents'
// states: from its return on, every change of the server's model reaches
// the window's bus (once pump runs), so a workspace.view read after it
// is never left stale; one kept from before is dropped. Its error is the
// stream's or the agents' read (after Shutdown too: the caller checks).
func (a *attached) subscribe() (*ipc.Stream, error) {
	st, err := a.cl.Subscribe(a.ctx, proto.MethodEventsSubscribe, proto.SubscribeTo(nil, guiEventTypes()))
	if err != nil {
		return nil, fmt.Errorf("app: events of %s: %w", a.o.Path, err)
	}
	// A view kept from before (a previous connection's) may miss changes
	// no event of this stream will report.
	a.noteEvent()
	// The agents' states as they are now: a window that attaches after
	// a turn ended (the window that started it was closed) shows it, not
	// nothing until the agent's next change. Read once subscribed, so no
	// change falls between; the stream's events, all older or newer, then
	// apply in order on top.
	if err := a.publishAgents(); err != nil {
		st.Close()
		return nil, fmt.Errorf("app: agents of %s: %w", a.o.Path, err)
	}
	return st, nil
}

// pump republishes st's events (subscribe's) and closes it when it ends:
// nil after Shutdown, else the stream's error.
func (a *attached) pump(st *ipc.Stream) error {
	defer st.Close()
	for {
		frame, err := st.Next()
		if err != nil {
			if a.ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("app: events of %s: %w", a.o.Path, err)
		}
		e, err := proto.DecodeEvent(frame)
		if err == nil {
			a.noteEvent()
			a.events.Publish(e)
			continue
		}
		// A frame that is no event: a heartbeat changes nothing, but
		// events dropped for a slow reader (or of a type this window
		// does not know) may have changed the model, so the kept view
		// goes.
		if f, ferr := proto.DecodeEventFrame(frame); ferr != nil || f.Type != proto.FrameHeartbeat {
			a.noteEvent()
		}
	}
}

// publishAgents publishes the server's current agent states (fleet.list)
// on the window's bus as AgentState events whose Previous is their State:
// seen, not changed, so they send no desktop notification (notification
// skips a state equal to the previous one).
func (a *attached) publishAgents() error {
	fleet, err := a.pc.FleetList(a.ctx)
	if err != nil {
		return err
	}
	for _, e := range seededAgents(fleet) {
		a.events.Publish(e)
	}
	return nil
}

// seededAgents turns fleet.list's rows of agents in panes into the
// AgentState events that describe them (see publishAgents).
func seededAgents(fleet proto.FleetListResult) []bus.AgentState {
	var out []bus.AgentState
	for _, r := range fleet.Agents {
		if r.SurfaceID == nil || *r.SurfaceID == 0 {
			continue
		}
		ev := bus.AgentState{SurfaceID: *r.SurfaceID, Tool: r.Tool, State: string(r.State), Previous: string(r.State),
			Hooked: r.Hooked, Reason: deref(r.Reason), Message: deref(r.Message), ActiveToolName: deref(r.ActiveToolName),
			LastResult: deref(r.LastResult)}
		if r.PID != nil {
			ev.PID = *r.PID
		}
		if r.ExitCode != nil {
			ev.ExitCode, ev.HasExitCode = *r.ExitCode, true
		}
		out = append(out, ev)
	}
	return out
}

// deref is *p, "" for nil.
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// Shutdown detaches: the events and screen streams stop; the server and
// its panes go on.
func (a *attached) Shutdown(context.Context) error {
	var err error
	a.once.Do(func() {
		a.cancel()
		a.events.Close()
		a.smu.Lock()
		a.closed = true
		a.smu.Unlock()
		err = a.screen.Load().Close()
	})
	return err
}

func (a *attached) Endpoint() string { return a.o.Path }

// OutlivesWindow is true: closing the window detaches.
func (a *attached) OutlivesWindow() bool { return true }

func (a *attached) Subscribe(name string, f bus.Filter, queue int) *bus.Subscription {
	return a.events.Subscribe(name, f, queue)
}

// view reads workspace.view; a failed call reads as an empty model (the
// events stream reports a lost server).
func (a *attached) view() proto.WorkspaceViewResult {
	a.passMu.Lock()
	open, pv, mut, seen := a.passOpen, a.passView, a.mutation, a.seen
	if pv == nil && a.keepView && a.kept != nil {
		pv = a.kept
		if open {
			a.passView = pv
		}
	}
	a.passMu.Unlock()
	if pv != nil {
		return *pv
	}
	v, err := call[proto.WorkspaceViewResult](a, proto.MethodWorkspaceView, proto.NoParams{})
	a.passMu.Lock()
	// Not kept when an operation ran meanwhile: it may predate it.
	if open && a.passOpen && a.passView == nil && a.mutation == mut {
		a.passView = &v
	}
	if a.keepView && err == nil && a.mutation == mut && a.seen == seen {
		a.kept = &v
	}
	a.passMu.Unlock()
	return v
}

// noteEvent drops the kept view: an event came (see keepView).
func (a *attached) noteEvent() {
	a.passMu.Lock()
	a.kept = nil
	a.seen++
	a.passMu.Unlock()
}

// beginReadPass implements readPasser: until end, the reads that come
// from workspace.view (workspaces, the active layout, panes, teams,
// output generations, pids, busy panes, usage) share one call, read at the
// first of them. An idle window's reader made five such calls of 100
// panes each per tick.
func (a *attached) beginReadPass() (end func()) {
	a.passMu.Lock()
	a.passOpen, a.passView = true, nil
	a.passMu.Unlock()
	return func() {
		a.passMu.Lock()
		a.passOpen, a.passView = false, nil
		a.passMu.Unlock()
	}
}

// mutated drops the open pass's view after an operation of this window
// (a read after it must see it); the pass stays open.
func (a *attached) mutated() {
	a.passMu.Lock()
	a.passView, a.kept = nil, nil
	a.mutation++
	a.passMu.Unlock()
}

var _ readPasser = (*attached)(nil)

// call makes one call within the backend's life.
func call[R any](a *attached, method string, params any) (R, error) {
	var r R
	err := a.cl.Call(a.ctx, method, params, &r)
	return r, err
}

func workspaceInfo(w proto.WorkspaceInfo) workspace.WorkspaceInfo {
	return workspace.WorkspaceInfo{Index: w.Index, ID: w.ID, Title: w.Title, Cwd: w.Cwd, Panes: w.Panes, Active: w.Active}
}

func (a *attached) Workspaces() []workspace.WorkspaceInfo {
	v := a.view()
	out := make([]workspace.WorkspaceInfo, len(v.Workspaces))
	for i, w := range v.Workspaces {
		out[i] = workspaceInfo(w)
	}
	return out
}

func (a *attached) ActiveTree() (workspace.WorkspaceInfo, *workspace.LayoutNode, bool) {
	v := a.view()
	for _, w := range v.Workspaces {
		if w.Active && v.Layout != nil {
			return workspaceInfo(w), v.Layout, true
		}
	}
	return workspace.WorkspaceInfo{}, nil, false
}

func (a *attached) Panes() []workspace.PanePlace {
	v := a.view()
	out := make([]workspace.PanePlace, len(v.Panes))
	for i, p := range v.Panes {
		out[i] = workspace.PanePlace{ID: p.ID, WorkspaceID: p.WorkspaceID, Workspace: p.Workspace, Focused: p.Focused}
	}
	return out
}

func (a *attached) Surfaces() []workspace.SurfaceInfo {
	l, err := a.pc.SurfaceList(a.ctx)
	if err != nil {
		return nil
	}
	v := a.view()
	wsIDs := map[int]uint64{}
	for _, w := range v.Workspaces {
		wsIDs[w.Index] = w.ID
	}
	custom := map[uint64]string{}
	for _, p := range v.Panes {
		custom[p.ID] = p.CustomName
	}
	out := make([]workspace.SurfaceInfo, len(l.Surfaces))
	for i, s := range l.Surfaces {
		in := workspace.SurfaceInfo{
			ID: s.ID, Name: s.Name, Title: s.Title, Cwd: s.Cwd, Cmd: s.Cmd, Workspace: s.Workspace,
			WorkspaceID: wsIDs[s.Workspace], CustomName: custom[s.ID], Exited: s.Exited, ExitCode: s.ExitCode,
		}
		out[i] = in
	}
	return out
}

func (a *attached) SurfaceInfo(id uint64) (workspace.SurfaceInfo, bool) {
	for _, in := range a.Surfaces() {
		if in.ID == id {
			return in, true
		}
	}
	return workspace.SurfaceInfo{}, false
}

func (a *attached) FocusedSurface(wsID uint64) (uint64, bool) {
	for _, p := range a.view().Panes {
		if p.WorkspaceID == wsID && p.Focused {
			return p.ID, true
		}
	}
	return 0, false
}

// ResolveTarget finds pane id, or the one pane named name.
func (a *attached) ResolveTarget(id uint64, name string) (uint64, error) {
	l, err := a.pc.SurfaceList(a.ctx)
	if err != nil {
		return 0, err
	}
	found := uint64(0)
	for _, s := range l.Surfaces {
		switch {
		case id != 0 && s.ID == id:
			return id, nil
		case id == 0 && s.Name == name:
			if found != 0 {
				return 0, fmt.Errorf("%w: more than one pane is named %q", workspace.ErrNotFound, name)
			}
			found = s.ID
		}
	}
	if found == 0 {
		if id != 0 {
			return 0, fmt.Errorf("%w: no pane %d", workspace.ErrNotFound, id)
		}
		return 0, fmt.Errorf("%w: no pane named %q", workspace.ErrNotFound, name)
	}
	return found, nil
}

func (a *attached) Teams() map[uint64]core.TeamMember {
	var out map[uint64]core.TeamMember
	for _, p := range a.view().Panes {
		if p.Team == "" && p.Teammate == "" {
			continue
		}
		if out == nil {
			out = map[uint64]core.TeamMember{}
		}
		out[p.ID] = core.TeamMember{Team: p.Team, TeamName: p.TeamName, Teammate: p.Teammate, Color: p.TeamColor}
	}
	return out
}

func (a *attached) CreateWorkspace(title, cwd string, activate bool) error {
	defer a.mutated()
	r, err := a.pc.WorkspaceCreate(a.ctx, proto.WorkspaceCreateParams{Name: &title, Cwd: cwd})
	if err != nil || !activate {
		return err
	}
	return a.SelectWorkspace(r.Index)
}

func (a *attached) CloseWorkspace(index int) error {
	defer a.mutated()
	_, err := a.pc.WorkspaceClose(a.ctx, proto.WorkspaceIndexParams{Index: &index})
	return err
}

func (a *attached) SelectWorkspace(index int) error {
	defer a.mutated()
	_, err := a.pc.WorkspaceSelect(a.ctx, proto.WorkspaceIndexParams{Index: &index})
	return err
}

func (a *attached) MoveWorkspace(index, to int) error {
	defer a.mutated()
	_, err := a.pc.WorkspaceMove(a.ctx, proto.WorkspaceMoveParams{Index: index, To: to})
	return err
}

func (a *attached) RenameWorkspace(index int, title string) error {
	defer a.mutated()
	_, err := a.pc.WorkspaceRename(a.ctx, proto.WorkspaceRenameParams{Index: &index, Title: title})
	return err
}

func (a *attached) ApplyPreset(index int, preset string) error {
	defer a.mutated()
	_, err := call[proto.WorkspaceLayoutResult](a, proto.MethodWorkspacePreset, proto.WorkspacePresetParams{Index: &index, Preset: preset})
	return err
}

func (a *attached) Equalize(index int) error {
	defer a.mutated()
	_, err := call[proto.WorkspaceLayoutResult](a, proto.MethodWorkspaceEqualize, proto.WorkspaceIndexParams{Index: &index})
	return err
}

func (a *attached) SetRatios(wsID uint64, path []int, ratios []float64) error {
	defer a.mutated()
	_, err := call[proto.WorkspaceLayoutResult](a, proto.MethodWorkspaceSetRatios, proto.WorkspaceSetRatiosParams{WorkspaceID: wsID, Path: path, Ratios: ratios})
	return err
}

func (a *attached) Split(target uint64, dir workspace.Direction, spec workspace.PaneSpec) (uint64, error) {
	defer a.mutated()
	p := proto.SurfaceSplitParams{Direction: dir.String()}
	if target != 0 {
		p.SurfaceID = &target
	}
	p.Cwd, p.Command = spec.Cwd, spec.Command
	if spec.Name != "" {
		p.Name = &spec.Name
	}
	r, err := a.pc.SurfaceSplit(a.ctx, p)
	return r.SurfaceID, err
}

func (a *attached) Focus(id uint64) error {
	defer a.mutated()
	_, err := a.pc.SurfaceFocus(a.ctx, id)
	return err
}

func (a *attached) Rename(id uint64, name string) error {
	defer a.mutated()
	_, err := a.pc.SurfaceRename(a.ctx, proto.SurfaceRenameParams{Target: proto.SurfaceTarget(id), NewName: &name})
	return err
}

func (a *attached) CloseSurface(id uint64) error {
	defer a.mutated()
	_, err := a.pc.SurfaceClose(a.ctx, id)
	return err
}

func (a *attached) Reopen() error {
	defer a.mutated()
	_, err := a.pc.WorkspaceReopen(a.ctx)
	return err
}

// Pane is the screen stream's mirror of pane id.
func (a *attached) Pane(id uint64) (termview.Pane, bool) { return a.screen.Load().Pane(id), true }

// Paste types through the pane's terminal, as a view does: bracketed when
// the program's modes (from its screen) ask for it.
func (a *attached) Paste(id uint64, text string, submit bool) error {
	p, ok := a.Pane(id)
	if !ok {
		return fmt.Errorf("pane %d is closed", id)
	}
	var snap terminal.Snapshot
	p.Snapshot(&snap, 0)
	if err := p.SendInput(terminal.EncodePaste(text, snap.Modes)); err != nil {
		return err
	}
	if submit {
		return p.SendInput([]byte{'\r'})
	}
	return nil
}

func (a *attached) OutputGens() map[uint64]uint64 {
	v := a.view()
	out := make(map[uint64]uint64, len(v.Panes))
	for _, p := range v.Panes {
		out[p.ID] = p.Generation
	}
	return out
}

// PanePIDs are the panes' process ids, for a server of this machine; a
// window attached over Dial (another host's server) gets none: those ids
// mean nothing in this machine's process tables (its ports would be
// another process's).
func (a *attached) PanePIDs() map[uint64]int {
	if a.o.Dial != nil {
		return nil
	}
	out := map[uint64]int{}
	for _, p := range a.view().Panes {
		if p.Pid > 0 {
			out[p.ID] = p.Pid
		}
	}
	return out
}

func (a *attached) Usage() (map[uint64]proto.UsageStatus, map[uint64]proto.Usage) {
	v := a.view()
	panes := map[uint64]proto.UsageStatus{}
	for _, p := range v.Panes {
		if p.Usage != nil {
			panes[p.ID] = *p.Usage
		}
	}
	spaces := map[uint64]proto.Usage{}
	for id, u := range v.WorkspaceUsage {
		spaces[id] = u
	}
	return panes, spaces
}

func (a *attached) BusyPanes() int {
	n := 0
	for _, p := range a.view().Panes {
		if p.Busy {
			n++
		}
	}
	return n
}

// RestoreSession does nothing: the server restores its own session.
func (a *attached) RestoreSession(string) ([]string, error) { return nil, nil }

// SaveSession does nothing: the server saves its own session.
func (a *attached) SaveSession(string) error { return nil }

func (a *attached) Caller(timeout time.Duration) proto.Caller {
	return &ipc.Client{Path: a.o.Path, Dial: a.o.Dial, Timeout: timeout}
}

// inputRefusedTextLocked is the banner's line for ev: "input refused"
// with the pane's name when snap still lists it, and the reason.
func (s *shell) inputRefusedTextLocked(ev inputRefused, snap *snapshot) string {
	for _, si := range snap.Surfaces {
		if si.ID == ev.SurfaceID && si.Name != "" {
			return fmt.Sprintf("input to %s refused: %s", si.Name, ev.Reason)
		}
	}
	return "input refused: " + ev.Reason
}
