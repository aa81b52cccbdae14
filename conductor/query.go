package conductor

import (
	"cmp"
	"slices"
	"time"

	"github.com/paneflow-go/paneflow/proto"
)

// The conductor's answers are the wire's types (package proto): Status
// is surface.status's result for a pane with a known agent (before the
// api adds the pane's Enter marks), FleetList fleet.list's, FleetRow one
// of its agents. Absent values are nil and encode as null.
type (
	Status    = proto.AgentStatus
	FleetList = proto.FleetListResult
	FleetRow  = proto.FleetRow
)

// Detection modes of [FleetList].
const (
	DetectProcessTree = proto.DetectProcessTree
	DetectHooksOnly   = proto.DetectHooksOnly
)

// SurfaceStatus returns the surface.status result of pane surfaceID,
// given its output generation, if an agent is known there; it is how the
// socket API asks.
func (c *Conductor) SurfaceStatus(surfaceID, outputGeneration uint64) (any, bool) {
	st, ok := c.Status(surfaceID)
	if !ok {
		return nil, false
	}
	st.OutputGeneration = outputGeneration
	return st, true
}

// Status reports the agent in pane surfaceID: the most pressing of the
// sessions bound to it (errored, waiting, stalled, thinking, finished,
// idle; then the most recently active), else the nearest agent the
// process scan found there and that still runs. ok is false for a pane
// with neither.
// OutputGeneration is left 0.
func (c *Conductor) Status(surfaceID uint64) (Status, bool) {
	c.pruneDetected(surfaceID)
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock.Now()
	var best *session
	var turn uint64
	for _, s := range c.sessions {
		if s.surface != surfaceID {
			continue
		}
		turn = max(turn, s.turn)
		if best == nil || moreUrgent(s, best) {
			best = s
		}
	}
	if best != nil {
		r := c.rowLocked(best, now)
		return Status{
			SurfaceID: surfaceID, State: r.State, Hooked: r.Hooked, Reason: r.Reason, Tool: r.Tool, PID: r.PID,
			ActiveToolName: r.ActiveToolName, Message: r.Message, LastResult: r.LastResult,
			ExitCode: r.ExitCode, WaitingMS: r.WaitingMS, IdleMS: r.IdleMS, TurnSeq: turn,
		}, true
	}
	if p := c.panes[surfaceID]; p != nil && len(p.detected) > 0 {
		d := p.detected[0]
		return Status{SurfaceID: surfaceID, State: UnknownRunning, Reason: ptr(reasonNoHook), Tool: d.Tool, PID: ptr(d.PID)}, true
	}
	return Status{}, false
}

// moreUrgent reports whether a should be reported before b.
func moreUrgent(a, b *session) bool {
	if d := salience(a.state) - salience(b.state); d != 0 {
		return d > 0
	}
	if !a.lastActivity.Equal(b.lastActivity) {
		return a.lastActivity.After(b.lastActivity)
	}
	return a.id > b.id
}

// Fleet returns the fleet.list result; it is how the socket API asks.
func (c *Conductor) Fleet() any { return c.List() }

// List reports every agent: one row per hooked session (bound to a pane
// or not) and one per agent the process scan found in a pane where no
// session of that tool is bound. Sessions of processes that died without
// telling are dropped first.
func (c *Conductor) List() FleetList {
	c.pruneUnbound()
	c.pruneDetected(0)
	panes := c.o.Panes.Panes()
	byID := make(map[uint64]Pane, len(panes))
	wsIndex := make(map[uint64]int, len(panes))
	for _, p := range panes {
		byID[p.SurfaceID] = p
		wsIndex[p.WorkspaceID] = p.Workspace
	}
	res := FleetList{Agents: []FleetRow{}, Detection: DetectProcessTree}
	if c.procs == nil || c.scanDelay < 0 {
		res.Detection = DetectHooksOnly
	}

	c.mu.Lock()
	now := c.clock.Now()
	for _, s := range c.sessions {
		r := c.rowLocked(s, now)
		if p, ok := byID[s.surface]; ok {
			r.SurfaceName, r.Workspace = ptr(p.Name), ptr(p.Workspace)
		} else if i, ok := wsIndex[s.workspaceID]; ok {
			r.Workspace = ptr(i)
		}
		res.Agents = append(res.Agents, r)
	}
	for _, p := range c.panes {
		for _, d := range p.detected {
			if c.hasSessionLocked(p.id, d.Tool) {
				continue
			}
			r := FleetRow{
				PID: ptr(d.PID), Tool: d.Tool, State: UnknownRunning, Reason: ptr(reasonNoHook),
				SurfaceID: ptr(p.id),
			}
			if in, ok := byID[p.id]; ok {
				r.SurfaceName, r.Workspace = ptr(in.Name), ptr(in.Workspace)
			}
			res.Agents = append(res.Agents, r)
		}
	}
	c.mu.Unlock()
	slices.SortFunc(res.Agents, compareRows)
	return res
}

// compareRows orders fleet rows: workspace (unknown last), agent display
// order, hooked before unhooked, pid (none last), pane.
func compareRows(a, b FleetRow) int {
	return cmp.Or(
		cmpNilLast(a.Workspace, b.Workspace),
		cmp.Compare(proto.AgentRank(a.Tool), proto.AgentRank(b.Tool)),
		cmp.Compare(a.Tool, b.Tool),
		-cmpBool(a.Hooked, b.Hooked),
		cmpNilLast(a.PID, b.PID),
		cmpNilLast(a.SurfaceID, b.SurfaceID),
	)
}

// cmpNilLast compares two optional values, nil after any value.
func cmpNilLast[T cmp.Ordered](a, b *T) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return cmp.Compare(*a, *b)
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// rowLocked describes session s at now (without pane name and workspace).
func (c *Conductor) rowLocked(s *session, now time.Time) FleetRow {
	r := FleetRow{
		Tool: s.tool, State: s.state, Hooked: !s.unhooked, Reason: nonEmpty(s.reason),
		ActiveToolName: nonEmpty(s.activeTool), Message: nonEmpty(s.message), LastResult: nonEmpty(s.lastResult),
		IdleMS: ptr(max(now.Sub(s.lastActivity), 0).Milliseconds()),
	}
	if s.pid != 0 {
		r.PID = ptr(s.pid)
	} else if p := c.panes[s.surface]; p != nil && s.surface != 0 {
		if d, ok := findTool(p.detected, s.tool); ok {
			r.PID = ptr(d.PID) // the agent's own process, as the scan found it
		}
	}
	if s.surface != 0 {
		r.SurfaceID = ptr(s.surface)
	}
	if s.hasExit {
		r.ExitCode = ptr(s.exitCode)
	}
	if s.state == WaitingForInput && !s.waitingSince.IsZero() {
		r.WaitingMS = ptr(max(now.Sub(s.waitingSince), 0).Milliseconds())
	}
	return r
}

// pruneUnbound ends the sessions not bound to a pane whose process is
// gone or was replaced (their pane's scans cannot notice). Errored ones
// go too: without a pane, nothing shows their crash.
func (c *Conductor) pruneUnbound() {
	if c.procs == nil {
		return
	}
	c.mu.Lock()
	var checks []liveness
	for _, s := range c.sessionsLocked(func(s *session) bool { return s.surface == 0 && s.pid != 0 }) {
		checks = append(checks, liveness{id: s.id, pid: s.pid, start: s.start})
	}
	c.mu.Unlock()
	if len(checks) == 0 {
		return
	}
	for i := range checks {
		checks[i].alive = c.alive(nil, checks[i].pid, checks[i].start)
	}
	c.mu.Lock()
	for _, ch := range checks {
		if s := c.sessions[ch.id]; s != nil && !ch.alive && s.surface == 0 && s.pid == ch.pid {
			c.removeLocked(s)
		}
	}
	c.mu.Unlock()
	c.flush()
}

func ptr[T any](v T) *T { return &v }

// nonEmpty returns &s, or nil for "".
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
