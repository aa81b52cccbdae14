package conductor

import (
	"slices"
	"time"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// Ack is the result of an ai.* request sent with an id (notifications get
// no reply): [proto.AIAck].
type Ack = proto.AIAck

// view is what subscribers see of a session; a change publishes
// agent_state.
type view struct {
	state                           State
	tool                            string
	pid                             int
	surface                         uint64
	message, activeTool, lastResult string
	exitCode                        int
	hasExit                         bool
	unhooked                        bool
	reason                          string
}

func (s *session) view() view {
	return view{
		state: s.state, tool: s.tool, pid: s.pid, surface: s.surface, message: s.message,
		activeTool: s.activeTool, lastResult: s.lastResult, exitCode: s.exitCode, hasExit: s.hasExit,
		unhooked: s.unhooked, reason: s.reason,
	}
}

// place finds the pane a frame is about: the pane its surface_id names,
// else the pane whose process is an ancestor of its pid. surface is 0 for
// a frame with a pid that no pane contains (the session stays unbound).
// start is the pid's current start time (0 unknown).
func (c *Conductor) place(f frame, start uint64) (surface uint64, err error) {
	if f.surfaceID != 0 {
		ws, ok := c.paneWorkspace(f.surfaceID)
		if ok {
			if f.workspaceID != 0 && ws != 0 && ws != f.workspaceID {
				return 0, ipc.InvalidParams("invalid params: surface_id %d is in workspace_id %d, not %d", f.surfaceID, ws, f.workspaceID)
			}
			return f.surfaceID, nil
		}
		if f.pid == 0 {
			return 0, ipc.InvalidParams("invalid params: surface_id %d is not an open pane", f.surfaceID)
		}
	}
	if f.pid == 0 {
		return 0, ipc.InvalidParams("invalid params: %s needs surface_id or pid to find the agent's pane", f.method)
	}
	c.mu.Lock()
	for _, s := range c.sessions {
		if s.pid == f.pid && s.surface != 0 && (s.start == 0 || start == 0 || s.start == start) {
			id := s.surface
			c.mu.Unlock()
			return id, nil // already placed; PID reuse is checked later
		}
	}
	roots := make(map[int]uint64, len(c.panes))
	for _, p := range c.panes {
		if p.pid > 0 {
			roots[p.pid] = p.id
		}
	}
	c.mu.Unlock()
	if c.procs == nil {
		return 0, nil
	}
	root, ok := ancestorIn(c.procs, f.pid, func(pid int) bool { _, ok := roots[pid]; return ok })
	if !ok {
		return 0, nil
	}
	return roots[root], nil
}

// paneWorkspace reports whether pane id is open, and its workspace id. A
// pane the conductor has not heard of is looked up in the model (it may
// have been created a moment ago).
func (c *Conductor) paneWorkspace(id uint64) (uint64, bool) {
	c.mu.Lock()
	p := c.panes[id]
	var ws uint64
	if p != nil {
		ws = p.workspaceID
	}
	c.mu.Unlock()
	if p != nil {
		return ws, true
	}
	for _, in := range c.o.Panes.Panes() {
		if in.SurfaceID == id {
			c.mu.Lock()
			if !c.closed {
				c.addPaneLocked(id, in.WorkspaceID, in.PID, in.paneState())
			}
			c.mu.Unlock()
			return in.WorkspaceID, true
		}
	}
	return 0, false
}

// apply runs one decoded frame through the state machine (spec
// conductor.md §3) and publishes its event.
func (c *Conductor) apply(f frame) (any, error) {
	var start uint64
	if f.pid != 0 && c.procs != nil {
		if p, err := c.procs.Process(f.pid); err == nil {
			start = p.Start
		}
	}
	surface, err := c.place(f, start)
	if err != nil {
		return nil, err
	}

	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ipc.Errorf(ipc.CodeBusy, "Paneflow is shutting down")
	}
	now := c.clock.Now()
	s, fresh := c.sessionForLocked(f, surface, start, now)
	ack := Ack{OK: true}
	ev := bus.AgentFrame{WorkspaceID: f.workspaceID, PID: f.pid, Tool: f.tool,
		SessionID: f.sessionID, TranscriptPath: f.transcriptPath, At: now}
	var transcript string
	if s == nil { // ai.session_end for no session
		cleared := false
		ack.Cleared = &cleared
		if surface != 0 {
			ack.SurfaceID = &surface
		}
		ev.SurfaceID = surface
		c.emitLocked(bus.AISessionEnd{AgentFrame: ev})
		c.mu.Unlock()
		c.flush()
		return ack, nil
	}
	before := s.view()
	if fresh {
		before = view{} // a new agent, unless the scan already saw it
		if g := c.goneStateLocked(s.surface, s.tool); g == UnknownRunning {
			before.state = g
		}
	}
	if f.tool != "" {
		s.tool = f.tool
	}
	s.seq++
	if f.method != MethodSessionStart && f.method != MethodExit && f.method != MethodSessionEnd {
		s.unhooked, s.reason = false, "" // a hook spoke after all
	}
	pending := s.pendingTool
	s.pendingTool = ""
	removed := false
	switch f.method {
	case MethodSessionStart:
		s.lastActivity = now
		if f.unhooked {
			// Running, but no hook will say what it does.
			s.unhooked, s.reason = true, f.reason
			c.setStateLocked(s, UnknownRunning, now)
		}
	case MethodPromptSubmit:
		c.setStateLocked(s, Thinking, now)
		s.message, s.activeTool, s.hasExit = "", "", false
	case MethodToolUse:
		c.setStateLocked(s, Thinking, now)
		// The question, if any, was answered: the agent went on.
		s.activeTool, s.message, s.hasExit = f.toolName, "", false
	case MethodNotification:
		// A question about the tool the agent is about to run (a
		// permission prompt after PreToolUse), or the same question again.
		if s.activeTool != "" {
			pending = s.activeTool
		} else if s.state != WaitingForInput {
			pending = ""
		}
		c.setStateLocked(s, WaitingForInput, now)
		s.message, s.activeTool, s.pendingTool = f.message, "", pending
	case MethodStop:
		c.setStateLocked(s, Finished, now)
		s.message, s.activeTool, s.lastResult = "", "", f.lastResult
		if f.lastResult == "" {
			transcript = f.transcriptPath
		}
	case MethodExit:
		c.setStateLocked(s, stateAfterExit(f.exitCode), now)
		s.message, s.activeTool = "", ""
		s.exitCode, s.hasExit = f.exitCode, true
		c.shimEndedLocked(s)
	case MethodSessionEnd:
		cleared := s.state != Errored
		ack.Cleared = &cleared
		if cleared {
			c.removeLocked(s)
			removed = true
		}
	}

	started := !removed && turnStarted(f.method, before.state, s.state)
	if started {
		c.turns++
		s.turn = c.turns
	}
	c.noteTurnLocked(s, f, started, now)
	if ev.PID == 0 {
		ev.PID = s.pid
	}
	if ev.WorkspaceID == 0 {
		ev.WorkspaceID = s.workspaceID
	}
	ev.Tool, ev.SurfaceID = s.tool, s.surface
	if s.surface != 0 {
		sid := s.surface
		ack.SurfaceID = &sid
	}
	if !removed {
		st := s.state
		ack.State = &st
		ev.State, ev.Message, ev.ActiveToolName, ev.LastResult = string(s.state), s.message, s.activeTool, s.lastResult
		ev.ExitCode, ev.HasExitCode = s.exitCode, s.hasExit
		if after := s.view(); after != before {
			c.emitStateLocked(s, before.state)
		}
	}
	c.emitLocked(frameEvent(f.method, ev))
	if s.pid == 0 && !s.seen && s.surface != 0 && !removed {
		// Confirm that the agent runs there (now, or with a scan), so
		// that its leaving is noticed even though no shim reports it.
		if p := c.panes[s.surface]; p != nil && hasTool(p.detected, s.tool) {
			s.seen = true
		} else if p != nil && !p.exited && (s.askedScan.IsZero() || now.Sub(s.askedScan) >= frameScanEvery) {
			s.askedScan = now
			c.scheduleScanLocked(p)
		}
	}
	if transcript != "" {
		c.readTranscriptLocked(s.id, s.seq, transcript)
	}
	c.mu.Unlock()
	c.flush()
	return ack, nil
}

// turnStarted reports whether a frame of method that moved a session
// from state was to state is, by the agent's own hook, the start of a
// turn: a submitted prompt (ai.prompt_submit), or a tool call that woke
// an agent that was not working (idle, finished, waiting for its user,
// errored, or new). Our own reading of the user's keys (answer.go) is
// not: it is no signal from the agent.
func turnStarted(method string, was, is State) bool {
	switch {
	case method == MethodPromptSubmit:
		return true
	case method == MethodToolUse:
		return is == Thinking && was != Thinking && was != Stalled
	}
	return false
}

// frameEvent wraps ev in the event type of method.
func frameEvent(method string, ev bus.AgentFrame) bus.Event {
	switch method {
	case MethodSessionStart:
		return bus.AISessionStart{AgentFrame: ev}
	case MethodPromptSubmit:
		return bus.AIPromptSubmit{AgentFrame: ev}
	case MethodToolUse:
		return bus.AIToolUse{AgentFrame: ev}
	case MethodNotification:
		return bus.AINotification{AgentFrame: ev}
	case MethodStop:
		return bus.AIStop{AgentFrame: ev}
	case MethodExit:
		return bus.AIExit{AgentFrame: ev}
	}
	return bus.AISessionEnd{AgentFrame: ev}
}

// sessionForLocked finds the session a frame is about, creating it unless
// the frame is ai.session_end (which then returns nil). A frame with a pid
// belongs to the session of that pid, unless the pid now names another
// process (its start time changed: PID reuse), whose stale session is
// dropped. A frame without a pid belongs to the session of its tool in its
// pane — never to a session in another pane. fresh reports a new session.
func (c *Conductor) sessionForLocked(f frame, surface, start uint64, now time.Time) (s *session, fresh bool) {
	tool := f.tool
	if tool == "" {
		tool = defaultTool
	}
	if f.pid != 0 {
		for _, old := range c.sessionsLocked(func(s *session) bool { return s.pid == f.pid }) {
			if old.start != 0 && start != 0 && old.start != start {
				c.removeLocked(old) // a dead agent's pid, now someone else's
				continue
			}
			s = old
			break
		}
	} else {
		for _, old := range c.sessionsLocked(func(s *session) bool { return s.surface == surface && s.tool == tool }) {
			if s == nil || old.pid == 0 && s.pid != 0 {
				s = old // prefer a pid-less session: that is what sent pid-less frames
			}
		}
	}
	if s == nil {
		if f.method == MethodSessionEnd {
			return nil, false
		}
		c.nextSession++
		s = &session{id: c.nextSession, pid: f.pid, start: start, tool: tool, state: Idle, lastActivity: now}
		c.sessions[s.id] = s
		fresh = true
	}
	if s.start == 0 {
		s.start = start
	}
	if surface != 0 && s.surface != surface {
		c.bindLocked(s, surface)
	}
	if s.workspaceID == 0 {
		s.workspaceID = f.workspaceID
	}
	return s, fresh
}

// bindLocked binds s to pane surface. Errored sessions left in that pane
// are removed: a new agent there clears the old crash.
func (c *Conductor) bindLocked(s *session, surface uint64) {
	s.surface = surface
	if p := c.panes[surface]; p != nil && p.workspaceID != 0 {
		s.workspaceID = p.workspaceID
	}
	for _, old := range c.sessionsLocked(func(o *session) bool { return o != s && o.surface == surface && o.state == Errored }) {
		c.removeLocked(old)
	}
}

// setStateLocked moves s to st at now: the activity clock restarts, the
// waiting clock starts when s starts waiting and stops when it stops, and
// the stall timer runs only while s is thinking.
func (c *Conductor) setStateLocked(s *session, st State, now time.Time) {
	if st == WaitingForInput {
		if s.state != WaitingForInput {
			s.waitingSince = now
		}
	} else {
		s.waitingSince = time.Time{}
	}
	s.state = st
	s.lastActivity = now
	stopTimer(&s.stallTimer)
	s.stallGen++
	if st == Thinking && c.stall > 0 {
		c.armStallLocked(s, c.stall)
	}
}

// armStallLocked checks s for a stall after d.
func (c *Conductor) armStallLocked(s *session, d time.Duration) {
	id, gen := s.id, s.stallGen
	s.stallTimer = c.clock.AfterFunc(d, func() { c.stallCheck(id, gen) })
}

// stallCheck marks session id stalled if it is still thinking and has
// been silent for the threshold.
func (c *Conductor) stallCheck(id, gen uint64) {
	c.mu.Lock()
	s := c.sessions[id]
	if c.closed || s == nil || s.stallGen != gen || s.state != Thinking {
		c.mu.Unlock()
		return
	}
	s.stallTimer = nil
	if silent := c.clock.Now().Sub(s.lastActivity); silent < c.stall {
		c.armStallLocked(s, c.stall-silent)
		c.mu.Unlock()
		return
	}
	s.state = Stalled
	s.stallGen++
	c.emitStateLocked(s, Thinking)
	c.mu.Unlock()
	c.flush()
}

// removeLocked ends session s and publishes what its pane shows now: the
// agent found by the process scan, or idle.
func (c *Conductor) removeLocked(s *session) {
	stopTimer(&s.stallTimer)
	s.stallGen++
	delete(c.sessions, s.id)
	e := bus.AgentState{
		SurfaceID: s.surface, WorkspaceID: s.workspaceID, PID: s.pid, Tool: s.tool,
		State: string(c.goneStateLocked(s.surface, s.tool)), Previous: string(s.state),
	}
	if p := c.panes[s.surface]; p != nil && s.surface != 0 {
		if d, ok := findTool(p.detected, s.tool); ok {
			e.PID, e.Reason = d.PID, reasonNoHook
		}
	}
	c.emitLocked(e)
}

// shimEndedLocked records that the process of session s (the launch
// shim, which sends ai.exit once the agent it ran has exited) is ending:
// its pane's scans stop counting it or the agent it started, the entries
// the last scan made for them go, and the pane is scanned again, so no
// stale unknown_running outlives them even when the pane prints nothing
// more.
func (c *Conductor) shimEndedLocked(s *session) {
	p := c.panes[s.surface]
	if s.pid == 0 || s.surface == 0 || p == nil {
		return
	}
	if p.ended == nil {
		p.ended = map[int]uint64{}
	}
	p.ended[s.pid] = s.start
	p.detected = slices.DeleteFunc(p.detected, func(d detected) bool { return shimEndedIn(p.ended, d) })
	if !p.exited {
		c.scheduleScanLocked(p)
	}
}

// reasonNoHook is the reason of an agent the process scan found but that
// sends no hook frames.
const reasonNoHook = "no_hook"

// goneStateLocked is what pane surface shows for tool without a session:
// unknown_running if the process scan sees it there, else idle.
func (c *Conductor) goneStateLocked(surface uint64, tool string) State {
	if p := c.panes[surface]; p != nil && surface != 0 && hasTool(p.detected, tool) {
		return UnknownRunning
	}
	return Idle
}

// emitStateLocked publishes s as an agent_state event.
func (c *Conductor) emitStateLocked(s *session, previous State) {
	c.emitLocked(bus.AgentState{
		SurfaceID: s.surface, WorkspaceID: s.workspaceID, PID: s.pid, Tool: s.tool,
		State: string(s.state), Previous: string(previous), Hooked: !s.unhooked, Reason: s.reason,
		Message: s.message, ActiveToolName: s.activeTool, LastResult: s.lastResult,
		ExitCode: s.exitCode, HasExitCode: s.hasExit,
	})
}
