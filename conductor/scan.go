package conductor

import (
	"maps"
	"slices"
	"time"

	"github.com/paneflow-go/paneflow/bus"
)

// scheduleScanLocked arranges a scan of p's process tree after the scan
// delay, unless one is pending; activity during a running scan schedules
// another when it ends. Process scans replace the original's periodic
// sweeps: a pane's agents change only when something happens in it.
func (c *Conductor) scheduleScanLocked(p *pane) {
	if c.procs == nil || c.scanDelay < 0 || c.closed {
		return
	}
	if p.scanning {
		p.rescan = true
		return
	}
	if p.scanTimer != nil {
		return
	}
	id := p.id
	p.scanTimer = c.clock.AfterFunc(c.scanDelay, func() { c.scan(id) })
}

// frameScanEvery is how often the frames of a pid-less session whose
// agent no scan has seen yet may ask for another scan of its pane. The
// pane's own activity schedules scans anyway (an agent that starts draws
// its screen); the frames' scans are for a tree that changed silently, and
// an agent the scan cannot see (run in a container, over ssh, under a name
// it does not know) would otherwise cost a scan per frame for its life:
// 12-14 % of the server's CPU in test/bench's paced fleets, whose panes run
// `sleep`.
const frameScanEvery = 10 * time.Second

// liveness is a session whose process a scan checks.
type liveness struct {
	id    uint64
	pid   int
	start uint64
	alive bool
}

// scan reads pane id's process tree, records the agents in it, ends the
// sessions whose agent is gone and publishes what changed.
func (c *Conductor) scan(id uint64) {
	c.mu.Lock()
	p := c.panes[id]
	if c.closed || p == nil {
		c.mu.Unlock()
		return
	}
	p.scanTimer = nil
	p.scanning = true
	var checks []liveness
	for _, s := range c.sessionsLocked(func(s *session) bool { return s.surface == id && s.pid != 0 && s.state != Errored }) {
		checks = append(checks, liveness{id: s.id, pid: s.pid, start: s.start})
	}
	ended := maps.Clone(p.ended)
	c.mu.Unlock()

	pid, state := c.o.Panes.Process(id)
	var procs []process
	if state == PaneRunning && pid > 0 {
		procs, _ = c.procs.Descendants(pid, maxScanPIDs)
	}
	for i := range checks {
		checks[i].alive = c.alive(procs, checks[i].pid, checks[i].start)
	}
	// Shims that reported their agent's exit are no agents, and an entry
	// whose process is gone is forgotten.
	gone := map[int]uint64{}
	for pid, start := range ended {
		if !slices.ContainsFunc(procs, func(pr process) bool { return pr.PID == pid && sameStart(pr.Start, start) }) {
			gone[pid] = start
			delete(ended, pid)
		}
	}
	live := slices.DeleteFunc(slices.Clone(procs), func(pr process) bool {
		start, ok := ended[pr.PID]
		return ok && sameStart(pr.Start, start)
	})
	found := slices.DeleteFunc(detect(live, c.o.ShimDir), func(d detected) bool { return shimEndedIn(ended, d) })

	c.mu.Lock()
	if p = c.panes[id]; p != nil {
		p.scanning = false
		switch {
		case state == PaneClosed:
			c.forgetPaneLocked(id)
		case !c.closed:
			p.pid, p.starting = pid, state == PaneStarting
			for pid, start := range gone {
				if st, ok := p.ended[pid]; ok && st == start {
					delete(p.ended, pid)
				}
			}
			// A shim may have reported its agent's exit during the scan.
			found = slices.DeleteFunc(found, func(d detected) bool { return shimEndedIn(p.ended, d) })
			c.applyScanLocked(p, found, checks)
			// A program still being started has no tree to scan yet, and
			// it may never print (an agent waiting silently): look again;
			// so for the first scans of a new pane that found no agent.
			if pid > 0 && p.startScans > 0 && len(found) == 0 {
				p.startScans--
				p.rescan = true
			}
			if p.rescan || p.starting {
				p.rescan = false
				c.scheduleScanLocked(p)
			}
		}
	}
	c.mu.Unlock()
	c.flush()
}

// shimEndedIn reports whether d is one of the launch shims in ended (pid
// → start time; they reported their agent's exit), or the agent such a
// shim started, which has exited: the shim reports the exit once it
// reaped it.
func shimEndedIn(ended map[int]uint64, d detected) bool {
	if start, ok := ended[d.PID]; ok && sameStart(d.Start, start) {
		return true
	}
	start, ok := ended[d.Shim]
	return ok && d.Shim != 0 && sameStart(d.ShimStart, start)
}

// alive reports whether pid still runs the process that started at start:
// it is in the scanned tree with that start time, or, failing that (it
// may have been reparented), the process table says so.
func (c *Conductor) alive(tree []process, pid int, start uint64) bool {
	for _, p := range tree {
		if p.PID == pid {
			return !p.Dead && (start == 0 || p.Start == 0 || p.Start == start)
		}
	}
	p, err := c.procs.Process(pid)
	if err != nil {
		return false
	}
	return !p.Dead && (start == 0 || p.Start == 0 || p.Start == start)
}

// pruneDetected checks that the agents the last scans found without hooks
// still run, in pane only (every pane when only is 0), and forgets those
// that do not: their pane shows idle again (an agent_state event says so)
// and is scanned anew. Scans follow a pane's output, so an agent that ends
// while its pane prints nothing more (a script's trailing sleep, a shell
// that redraws nothing) would otherwise be reported forever; answers
// about agents (surface.status, fleet.list) call this first. It reads one
// /proc entry per such agent, never under c.mu.
func (c *Conductor) pruneDetected(only uint64) {
	if c.procs == nil {
		return
	}
	type entry struct {
		pane uint64
		d    detected
	}
	var all []entry
	c.mu.Lock()
	for id, p := range c.panes {
		if only == 0 || id == only {
			for _, d := range p.detected {
				all = append(all, entry{id, d})
			}
		}
	}
	c.mu.Unlock()
	var dead []entry
	for _, e := range all {
		if pr, err := c.procs.Process(e.d.PID); err != nil || pr.Dead || !sameStart(pr.Start, e.d.Start) {
			dead = append(dead, e)
		}
	}
	if len(dead) == 0 {
		return
	}
	c.mu.Lock()
	for _, e := range dead {
		p := c.panes[e.pane]
		if p == nil || c.closed {
			continue
		}
		i := slices.Index(p.detected, e.d)
		if i < 0 {
			continue // a scan replaced it meanwhile
		}
		p.detected = slices.Delete(p.detected, i, i+1)
		if !c.hasSessionLocked(p.id, e.d.Tool) {
			c.emitLocked(c.unhookedEventLocked(p, e.d, Idle, UnknownRunning))
		}
		if !p.exited {
			c.scheduleScanLocked(p)
		}
	}
	c.mu.Unlock()
	c.flush()
}

// sameStart reports whether two start times may be the same process's (0
// is unknown and matches anything).
func sameStart(a, b uint64) bool { return a == 0 || b == 0 || a == b }

// applyScanLocked records a scan of p: agents that appeared or left
// without a session publish agent_state (unknown_running, then idle);
// sessions whose process is gone, and pid-less sessions whose agent the
// scan saw before and no longer sees, end. Errored sessions stay.
func (c *Conductor) applyScanLocked(p *pane, found []detected, checks []liveness) {
	old := p.detected
	p.detected = found
	p.rootTool = ""
	for _, d := range found {
		if d.PID == p.pid {
			p.rootTool = d.Tool
		}
	}
	for _, d := range found {
		if !hasTool(old, d.Tool) && !c.hasSessionLocked(p.id, d.Tool) {
			c.emitLocked(c.unhookedEventLocked(p, d, UnknownRunning, ""))
		}
	}
	for _, d := range old {
		if !hasTool(found, d.Tool) && !c.hasSessionLocked(p.id, d.Tool) {
			c.emitLocked(c.unhookedEventLocked(p, d, Idle, UnknownRunning))
		}
	}
	for _, ch := range checks {
		if s := c.sessions[ch.id]; s != nil && !ch.alive && s.pid == ch.pid && s.state != Errored {
			c.removeLocked(s)
		}
	}
	for _, s := range c.sessionsLocked(func(s *session) bool { return s.surface == p.id && s.pid == 0 && s.state != Errored }) {
		switch {
		case hasTool(found, s.tool):
			s.seen = true
		case s.seen:
			c.removeLocked(s) // the agent left without telling
		}
	}
}

// unhookedEventLocked describes an agent without hooks in pane p.
func (c *Conductor) unhookedEventLocked(p *pane, d detected, st, previous State) bus.AgentState {
	e := bus.AgentState{
		SurfaceID: p.id, WorkspaceID: p.workspaceID, PID: d.PID, Tool: d.Tool,
		State: string(st), Previous: string(previous),
	}
	if st == UnknownRunning {
		e.Reason = reasonNoHook
	}
	return e
}

// paneExited handles the end of pane id's process: its sessions end
// (errored ones stay until the pane closes or another agent starts there),
// and an agent that was the pane's process itself and had no shim to
// report its exit is finished or errored by the pane's exit code.
func (c *Conductor) paneExited(id uint64, code int) {
	c.mu.Lock()
	p := c.panes[id]
	if p == nil {
		c.mu.Unlock()
		return
	}
	stopTimer(&p.scanTimer)
	p.exited, p.pid, p.starting = true, 0, false
	unhooked := slices.DeleteFunc(slices.Clone(p.detected), func(d detected) bool { return c.hasSessionLocked(id, d.Tool) })
	root := p.rootTool
	p.detected, p.rootTool = nil, ""
	now := c.clock.Now()
	for _, s := range c.sessionsLocked(func(s *session) bool { return s.surface == id && s.state != Errored }) {
		if s.pid == 0 && s.tool == root && s.state != Finished && stateAfterExit(code) == Errored {
			prev := s.state
			c.setStateLocked(s, Errored, now)
			s.message, s.activeTool = "", ""
			s.exitCode, s.hasExit = code, true
			c.emitStateLocked(s, prev)
			continue
		}
		c.removeLocked(s)
	}
	for _, d := range unhooked {
		c.emitLocked(c.unhookedEventLocked(p, d, Idle, UnknownRunning))
	}
	c.mu.Unlock()
	c.flush()
}

// forgetPaneLocked drops pane id (closed) with every session bound to it.
func (c *Conductor) forgetPaneLocked(id uint64) {
	p := c.panes[id]
	if p == nil {
		return
	}
	stopTimer(&p.scanTimer)
	unhooked := slices.DeleteFunc(slices.Clone(p.detected), func(d detected) bool { return c.hasSessionLocked(id, d.Tool) })
	delete(c.panes, id)
	delete(c.history, id)
	for _, s := range c.sessionsLocked(func(s *session) bool { return s.surface == id }) {
		c.removeLocked(s)
	}
	for _, d := range unhooked {
		c.emitLocked(c.unhookedEventLocked(p, d, Idle, UnknownRunning))
	}
}
