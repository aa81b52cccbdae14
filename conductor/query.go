package conductor

import (
	"cmp"
	"slices"
	"time"
)

// Status is the surface.status result for a pane with a known agent (spec
// conductor.md §4, with reason, pid and exit_code added). Absent values
// are nil and encode as null.
type Status struct {
	SurfaceID uint64 `json:"surface_id"`
	State     State  `json:"state"`
	// Hooked is true when the state comes from the agent's hook frames,
	// false for an agent only the process scan found (state
	// unknown_running, reason "no_hook") and for one whose launch shim
	// reported that its hooks cannot run (reason: why, and what to do,
	// e.g. "untrusted_folder: …"; the state is unknown_running while it
	// runs, then finished or errored by its exit code).
	Hooked         bool    `json:"hooked"`
	Reason         *string `json:"reason"`
	Tool           string  `json:"tool"`
	PID            *int    `json:"pid"`
	ActiveToolName *string `json:"active_tool_name"`
	Message        *string `json:"message"`
	LastResult     *string `json:"last_result"`
	ExitCode       *int    `json:"exit_code"`
	WaitingMS      *int64  `json:"waiting_ms"` // while waiting_for_input
	IdleMS         *int64  `json:"idle_ms"`    // since the session's last frame
	// OutputGeneration is the pane's terminal output counter.
	OutputGeneration uint64 `json:"output_generation"`
	// TurnSeq grows each time a hooked agent of the pane starts a turn by
	// its own hook (ai.prompt_submit, or a tool call waking an agent that
	// was not working); 0 if none did. It means something only compared
	// with an earlier value for the same pane: `paneflow send --submit`
	// confirms a turn start by it, not by output.
	TurnSeq uint64 `json:"turn_seq"`
}

// FleetList is the fleet.list result.
type FleetList struct {
	// Agents are the hooked sessions and the agents found only by the
	// process scan, sorted by workspace, agent display order, then pid.
	Agents []FleetRow `json:"agents"`
	// Detection says how agents without hooks are found: DetectProcessTree,
	// or DetectHooksOnly where the process table is not read (then such
	// agents are not listed at all).
	Detection string `json:"detection"`
}

// Detection modes of [FleetList].
const (
	DetectProcessTree = "process_tree"
	DetectHooksOnly   = "hooks_only"
)

// FleetRow is one agent in fleet.list (spec conductor.md §4). Unlike the
// original, rows of agents without hooks carry their pane and pid, and
// exit_code is reported. Absent values are nil and encode as null.
type FleetRow struct {
	PID            *int    `json:"pid"`
	Tool           string  `json:"tool"`
	State          State   `json:"state"`
	Hooked         bool    `json:"hooked"`
	Reason         *string `json:"reason"`
	SurfaceID      *uint64 `json:"surface_id"`
	SurfaceName    *string `json:"surface_name"`
	Workspace      *int    `json:"workspace"`
	ActiveToolName *string `json:"active_tool_name"`
	Message        *string `json:"message"`
	LastResult     *string `json:"last_result"`
	ExitCode       *int    `json:"exit_code"`
	WaitingMS      *int64  `json:"waiting_ms"`
	IdleMS         *int64  `json:"idle_ms"`
}

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
	if d := a.state.salience() - b.state.salience(); d != 0 {
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
		cmp.Compare(rank(a.Tool), rank(b.Tool)),
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
