package conductor

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/paneflow-go/paneflow/bus"
)

// countingProcs counts process tree scans.
type countingProcs struct {
	procTable
	scans atomic.Int32
}

func (c *countingProcs) Descendants(root, limit int) ([]process, error) {
	c.scans.Add(1)
	return c.procTable.Descendants(root, limit)
}

// TestScanDebounce checks that a burst of output in a pane costs one scan,
// and that a quiet pane costs none.
func TestScanDebounce(t *testing.T) {
	h := newHarness(t, Options{})
	cp := &countingProcs{procTable: h.procs}
	h.c.procs = cp
	for range 50 {
		h.event(bus.SurfaceChanged{SurfaceID: 1, Generation: 1})
	}
	if n := cp.scans.Load(); n != 0 {
		t.Errorf("scans before the delay = %d, want 0", n)
	}
	h.clock.Advance(h.c.scanDelay)
	if n := cp.scans.Load(); n != 1 {
		t.Errorf("scans after a burst = %d, want 1", n)
	}
	h.clock.Advance(h.c.scanDelay * 100)
	if n := cp.scans.Load(); n != 1 {
		t.Errorf("scans while quiet = %d, want still 1 (no sweeps)", n)
	}
	h.event(bus.SurfaceChanged{SurfaceID: 1, Generation: 2})
	h.event(bus.SurfaceChanged{SurfaceID: 2, Generation: 2})
	h.clock.Advance(h.c.scanDelay)
	if n := cp.scans.Load(); n != 3 {
		t.Errorf("scans after activity in two panes = %d, want 3", n)
	}
}

// TestFrameScansBounded checks that the frames of a pid-less session whose
// agent no scan finds ask for a scan of its pane at most once every
// frameScanEvery, while the pane's activity still schedules its own scans,
// which see the agent once it is there.
func TestFrameScansBounded(t *testing.T) {
	h := newHarness(t, Options{})
	cp := &countingProcs{procTable: h.procs}
	h.c.procs = cp
	h.mustSend(MethodPromptSubmit, `{"surface_id":1,"tool":"claude"}`)
	h.clock.Advance(h.c.scanDelay)
	if n := cp.scans.Load(); n != 1 {
		t.Fatalf("scans after the first frame = %d, want 1 (the confirming scan)", n)
	}
	for range 5 {
		h.mustSend(MethodToolUse, `{"surface_id":1,"tool":"claude","tool_name":"Bash"}`)
		h.clock.Advance(h.c.scanDelay)
	}
	if n := cp.scans.Load(); n != 1 {
		t.Errorf("scans after 5 more frames, the agent not found = %d, want still 1", n)
	}
	h.clock.Advance(frameScanEvery)
	h.mustSend(MethodToolUse, `{"surface_id":1,"tool":"claude","tool_name":"Bash"}`)
	h.clock.Advance(h.c.scanDelay)
	if n := cp.scans.Load(); n != 2 {
		t.Errorf("scans after a frame %v later = %d, want 2", frameScanEvery, n)
	}
	// The agent starts and draws: the pane's activity scans and sees it.
	h.procs.set(fakeProc{pid: 140, ppid: 100, start: 1400, comm: "claude", argv: []string{"claude"}})
	h.activity(1)
	if n := cp.scans.Load(); n != 3 {
		t.Errorf("scans after the pane's activity = %d, want 3", n)
	}
	h.mustSend(MethodStop, `{"surface_id":1,"tool":"claude"}`)
	h.clock.Advance(h.c.scanDelay)
	if n := cp.scans.Load(); n != 3 {
		t.Errorf("scans after a frame of a seen agent = %d, want still 3", n)
	}
	// Seen, its leaving without a word is noticed by the next scan.
	h.procs.kill(140)
	h.activity(1)
	if st, ok := h.c.Status(1); ok {
		t.Errorf("status after claude left = %+v, want none", st)
	}
}

// TestUnhookedAgents checks agents found only by the scan: reported as
// unknown_running with reason no_hook, replaced by a hooked session when
// the hooks speak, and back to idle when they leave.
func TestUnhookedAgents(t *testing.T) {
	h := newHarness(t, Options{})
	h.procs.set(fakeProc{pid: 110, ppid: 100, start: 1100, comm: "codex", argv: []string{"codex"}})
	h.activity(1)
	if got, want := h.states(), []string{"1:codex:>unknown_running"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("agent_state after codex started = %q, want %q", got, want)
	}
	st, ok := h.c.Status(1)
	if !ok || st.State != UnknownRunning || st.Hooked || deref(st.Reason) != "no_hook" || st.Tool != "codex" || st.PID == nil || *st.PID != 110 {
		t.Errorf("status = %+v, want unknown_running codex pid 110, not hooked, reason no_hook", st)
	}

	// Its hooks speak (no pid: a user-installed hook): now it is hooked.
	h.mustSend(MethodPromptSubmit, `{"surface_id":1,"tool":"codex"}`)
	if got, want := h.states(), []string{"1:codex:unknown_running>thinking"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("agent_state after its first frame = %q, want %q", got, want)
	}
	rows := h.c.List().Agents
	if len(rows) != 1 || !rows[0].Hooked || rows[0].PID == nil || *rows[0].PID != 110 {
		t.Errorf("fleet = %+v, want one hooked codex row with the scanned pid 110", rows)
	}

	// The agent exits without a word (no shim): the next scan ends it.
	h.procs.kill(110)
	h.activity(1)
	if got, want := h.states(), []string{"1:codex:thinking>idle"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("agent_state after codex left = %q, want %q", got, want)
	}
	if st, ok := h.c.Status(1); ok {
		t.Errorf("status after codex left = %+v, want none", st)
	}

	// An unhooked agent that leaves goes back to idle.
	h.procs.set(fakeProc{pid: 120, ppid: 100, start: 1200, comm: "amp", argv: []string{"amp"}})
	h.activity(1)
	h.procs.kill(120)
	h.activity(1)
	if got, want := h.states(), []string{"1:amp:>unknown_running", "1:amp:unknown_running>idle"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("agent_state for amp = %q, want %q", got, want)
	}
}

// TestSessionEndShowsScannedAgent checks that a session ending while its
// agent still runs leaves the pane unknown_running, not idle.
func TestSessionEndShowsScannedAgent(t *testing.T) {
	h := newHarness(t, Options{})
	h.procs.set(fakeProc{pid: 130, ppid: 100, start: 1300, comm: "claude", argv: []string{"claude"}})
	h.activity(1)
	h.mustSend(MethodPromptSubmit, `{"surface_id":1,"pid":130,"tool":"claude"}`)
	h.mustSend(MethodSessionEnd, `{"surface_id":1,"pid":130,"tool":"claude"}`)
	if st := h.status(1); st.State != UnknownRunning || st.Hooked {
		t.Errorf("status = %s hooked %v, want unknown_running, not hooked", st.State, st.Hooked)
	}
}

// TestPaneExitAndClose checks sessions when a pane's process ends and when
// the pane closes.
func TestPaneExitAndClose(t *testing.T) {
	tests := []struct {
		name       string
		setup      func(h *harness)
		code       int
		wantState  State // after the exit; "" = no agent
		wantEvents []string
	}{
		{
			name: "shell exits under a hooked session",
			setup: func(h *harness) {
				h.mustSend(MethodPromptSubmit, `{"surface_id":1,"pid":140,"tool":"claude"}`)
			},
			code: 0, wantEvents: []string{"1:claude:thinking>idle"},
		},
		{
			name: "the pane's own agent crashes",
			setup: func(h *harness) {
				h.procs.set(fakeProc{pid: 100, ppid: 10, start: 1000, comm: "gemini", argv: []string{"gemini"}})
				h.activity(1)
				h.mustSend(MethodPromptSubmit, `{"surface_id":1,"tool":"gemini"}`)
				h.drain()
			},
			code: 1, wantState: Errored, wantEvents: []string{"1:gemini:thinking>errored"},
		},
		{
			name: "the pane's own agent is interrupted",
			setup: func(h *harness) {
				h.procs.set(fakeProc{pid: 100, ppid: 10, start: 1000, comm: "gemini", argv: []string{"gemini"}})
				h.activity(1)
				h.mustSend(MethodPromptSubmit, `{"surface_id":1,"tool":"gemini"}`)
				h.drain()
			},
			code: 130, wantEvents: []string{"1:gemini:thinking>idle"},
		},
		{
			name: "an errored session stays after the exit",
			setup: func(h *harness) {
				h.mustSend(MethodExit, `{"surface_id":1,"pid":150,"tool":"codex","exit_code":3}`)
			},
			code: 0, wantState: Errored, wantEvents: nil,
		},
		{
			name: "an unhooked agent goes with its pane's process",
			setup: func(h *harness) {
				h.procs.set(fakeProc{pid: 160, ppid: 100, start: 1600, comm: "opencode", argv: []string{"opencode"}})
				h.activity(1)
			},
			code: 0, wantEvents: []string{"1:opencode:unknown_running>idle"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Options{})
			tt.setup(h)
			h.drain()
			h.panes.setPID(1, 0)
			h.event(bus.SurfaceExited{SurfaceID: 1, ExitCode: tt.code})
			if got := h.states(); strings.Join(got, ",") != strings.Join(tt.wantEvents, ",") {
				t.Errorf("agent_state after exit %d = %q, want %q", tt.code, got, tt.wantEvents)
			}
			st, ok := h.c.Status(1)
			if tt.wantState == "" && ok || tt.wantState != "" && st.State != tt.wantState {
				t.Errorf("status after exit = %+v (known %v), want %q", st, ok, tt.wantState)
			}
			// Output after the exit scans nothing, and closing the pane
			// forgets everything.
			h.activity(1)
			h.panes.remove(1)
			h.event(bus.SurfaceClosed{SurfaceID: 1, WorkspaceID: 1})
			if st, ok := h.c.Status(1); ok {
				t.Errorf("status after close = %+v, want none", st)
			}
			for _, r := range h.c.List().Agents {
				if r.SurfaceID != nil && *r.SurfaceID == 1 {
					t.Errorf("fleet row %+v for a closed pane", r)
				}
			}
		})
	}
}

// TestNewPanes checks that panes created later are tracked, and that a
// frame naming a pane the conductor has not heard of yet is accepted
// after asking the model.
func TestNewPanes(t *testing.T) {
	h := newHarness(t, Options{})
	h.procs.set(
		fakeProc{pid: 400, ppid: 10, start: 4000, comm: "bash", argv: []string{"bash"}},
		fakeProc{pid: 410, ppid: 400, start: 4100, comm: "claude", argv: []string{"claude"}},
	)
	h.panes.add(Pane{SurfaceID: 4, WorkspaceID: 2, Workspace: 1, Name: "new", PID: 400})
	h.event(bus.SurfaceCreated{SurfaceID: 4, WorkspaceID: 2, Name: "new"})
	h.clock.Advance(h.c.scanDelay)
	if st := h.status(4); st.State != UnknownRunning {
		t.Errorf("new pane 4 = %s, want unknown_running", st.State)
	}

	h.panes.add(Pane{SurfaceID: 5, WorkspaceID: 2, Workspace: 1, Name: "newer", PID: 0})
	if _, err := h.send(MethodPromptSubmit, `{"surface_id":5,"workspace_id":2}`); err != nil {
		t.Errorf("frame for a pane created before its event arrived: %v", err)
	}
	if st := h.status(5); st.State != Thinking {
		t.Errorf("pane 5 = %s, want thinking", st.State)
	}
}

// TestHooksOnly checks the mode without a process table: frames work,
// nothing is scanned, fleet.list says so.
func TestHooksOnly(t *testing.T) {
	h := newHarness(t, Options{noProcs: true})
	h.activity(1)
	if n := h.clock.Pending(); n != 0 {
		t.Errorf("pending timers = %d, want 0 (no scans)", n)
	}
	h.mustSend(MethodPromptSubmit, `{"surface_id":1}`)
	if _, err := h.send(MethodPromptSubmit, `{"pid":4000}`); err != nil {
		t.Errorf("pid-only frame: %v", err)
	}
	l := h.c.List()
	if l.Detection != DetectHooksOnly || len(l.Agents) != 2 {
		t.Errorf("fleet = %+v, want 2 rows and detection hooks_only", l)
	}
}

// TestZombieAgent checks that an agent that ended but was not reaped yet
// counts as gone.
func TestZombieAgent(t *testing.T) {
	h := newHarness(t, Options{})
	h.procs.set(fakeProc{pid: 170, ppid: 100, start: 1700, comm: "claude", argv: []string{"claude"}})
	h.activity(1)
	h.mustSend(MethodPromptSubmit, `{"surface_id":1,"pid":170,"tool":"claude"}`)
	h.procs.set(fakeProc{pid: 170, ppid: 100, start: 1700, comm: "claude", zombie: true})
	h.activity(1)
	if st, ok := h.c.Status(1); ok {
		t.Errorf("status with a zombie agent = %+v, want none", st)
	}
}

// TestShimExitNotStale checks the end of an agent run through the launch
// shim (issue 13, seen with the real Claude Code, Gemini CLI and opencode):
// the shim reports the exit and the session's end and then lives on for a
// moment (its config cleanup), and a scan in that moment used to take the
// shim, named after the agent, for an agent without hooks: the pane stayed
// unknown_running with the dead shim's pid, as nothing printed afterwards
// scanned it again.
func TestShimExitNotStale(t *testing.T) {
	h := newHarness(t, Options{})
	h.procs.set(
		fakeProc{pid: 140, ppid: 100, start: 1400, comm: "claude", argv: []string{"claude", "-p", "hi"}},
		fakeProc{pid: 141, ppid: 140, start: 1401, comm: "claude.exe", argv: []string{"claude", "-p", "hi"}},
	)
	h.mustSend(MethodSessionStart, `{"surface_id":1,"pid":140,"tool":"claude"}`)
	h.activity(1)
	h.mustSend(MethodPromptSubmit, `{"surface_id":1,"pid":140,"tool":"claude"}`)
	h.mustSend(MethodStop, `{"surface_id":1,"pid":140,"tool":"claude","last_result":"done"}`)
	h.activity(1)
	h.states()

	// The agent exits; the shim says so, then ends the session.
	h.procs.kill(141)
	h.mustSend(MethodExit, `{"surface_id":1,"pid":140,"tool":"claude","exit_code":0}`)
	h.mustSend(MethodSessionEnd, `{"surface_id":1,"pid":140,"tool":"claude"}`)
	if got, want := h.states(), []string{"1:claude:finished>finished", "1:claude:finished>idle"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("agent_state at the exit = %q, want %q", got, want)
	}
	// A scan while the shim still runs does not count it.
	h.clock.Advance(h.c.scanDelay)
	h.activity(1)
	if got := h.states(); len(got) != 0 {
		t.Errorf("agent_state while the shim cleans up = %q, want none", got)
	}
	if st, ok := h.c.Status(1); ok {
		t.Errorf("status while the shim cleans up = %+v, want none (idle)", st)
	}
	// The shim ends; the pane prints nothing more.
	h.procs.kill(140)
	if st, ok := h.c.Status(1); ok {
		t.Errorf("status after the shim ended = %+v, want none (idle)", st)
	}
	if rows := h.c.List().Agents; len(rows) != 0 {
		t.Errorf("fleet after the shim ended = %+v, want none", rows)
	}
	// The shim's pid, once reused by another claude, is an agent again.
	h.procs.set(fakeProc{pid: 140, ppid: 100, start: 1500, comm: "claude", argv: []string{"claude"}})
	h.activity(1)
	if st := h.status(1); st.State != UnknownRunning || st.PID == nil || *st.PID != 140 {
		t.Errorf("status of a new claude with the old pid = %+v, want unknown_running pid 140", st)
	}
}

// TestSilentExitNotStale checks that an agent without hooks that ends while
// its pane prints nothing is not reported as running: surface.status and
// fleet.list check the process first.
func TestSilentExitNotStale(t *testing.T) {
	h := newHarness(t, Options{})
	h.procs.set(fakeProc{pid: 150, ppid: 100, start: 1500, comm: "codex", argv: []string{"codex"}})
	h.activity(1)
	if st := h.status(1); st.State != UnknownRunning {
		t.Fatalf("status = %+v, want unknown_running", st)
	}
	h.states()
	h.procs.kill(150)
	if st, ok := h.c.Status(1); ok {
		t.Errorf("status after codex ended = %+v, want none (idle)", st)
	}
	if got, want := h.states(), []string{"1:codex:unknown_running>idle"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("agent_state after codex ended = %q, want %q", got, want)
	}
	h.procs.set(fakeProc{pid: 151, ppid: 100, start: 1510, comm: "gemini", argv: []string{"gemini"}})
	h.activity(1)
	h.procs.kill(151)
	if rows := h.c.List().Agents; len(rows) != 0 {
		t.Errorf("fleet after gemini ended = %+v, want none", rows)
	}
}

// TestUnhookedLaunch checks an agent whose launch shim reports that its
// hooks cannot run (Gemini CLI in an untrusted folder): hooked false with
// the shim's reason while it runs and after its exit, and hooked again
// once a hook frame arrives after all.
func TestUnhookedLaunch(t *testing.T) {
	h := newHarness(t, Options{})
	reason := "untrusted_folder: trust the folder"
	h.mustSend(MethodSessionStart, `{"surface_id":1,"pid":160,"tool":"gemini","hooked":false,"reason":"`+reason+`"}`)
	st := h.status(1)
	if st.State != UnknownRunning || st.Hooked || deref(st.Reason) != reason || st.Tool != "gemini" {
		t.Errorf("status = %+v, want unknown_running gemini, not hooked, reason %q", st, reason)
	}
	if rows := h.c.List().Agents; len(rows) != 1 || rows[0].Hooked || deref(rows[0].Reason) != reason {
		t.Errorf("fleet = %+v, want one unhooked gemini row with the reason", rows)
	}
	var sawEvent bool
	for _, e := range h.drain() {
		if s, ok := e.(bus.AgentState); ok && s.State == string(UnknownRunning) && !s.Hooked && s.Reason == reason {
			sawEvent = true
		}
	}
	if !sawEvent {
		t.Error("no agent_state unknown_running event with the reason")
	}
	h.mustSend(MethodExit, `{"surface_id":1,"pid":160,"tool":"gemini","exit_code":55}`)
	if st := h.status(1); st.State != Errored || st.Hooked || deref(st.Reason) != reason {
		t.Errorf("status after exit 55 = %+v, want errored, not hooked, the reason", st)
	}
	// A hook that speaks after all makes it hooked.
	h.mustSend(MethodSessionStart, `{"surface_id":2,"pid":170,"tool":"gemini","hooked":false,"reason":"x"}`)
	h.mustSend(MethodPromptSubmit, `{"surface_id":2,"pid":170,"tool":"gemini"}`)
	if st := h.status(2); st.State != Thinking || !st.Hooked || st.Reason != nil {
		t.Errorf("status after a hook frame = %+v, want thinking, hooked, no reason", st)
	}
}

// TestScanWhileStarting checks a pane whose program was still being
// started when the conductor first looked: it is not taken for an exited
// pane, and an agent that then starts in it without printing anything is
// found by the scans that follow, with no output to trigger them.
func TestScanWhileStarting(t *testing.T) {
	h := newHarness(t, Options{})
	h.panes.add(Pane{SurfaceID: 4, WorkspaceID: 1, Name: "new", Starting: true})
	h.event(bus.SurfaceCreated{SurfaceID: 4, WorkspaceID: 1})
	h.clock.Advance(h.c.scanDelay)
	h.clock.Advance(h.c.scanDelay)
	if got := h.states(); len(got) != 0 {
		t.Errorf("agent_state while the program starts = %q, want none", got)
	}
	// The program runs now, a silent agent (no SurfaceChanged follows).
	h.procs.set(fakeProc{pid: 400, ppid: 1, start: 4000, comm: "claude", argv: []string{"claude"}})
	h.panes.setPID(4, 400)
	h.clock.Advance(h.c.scanDelay)
	if got, want := h.states(), []string{"4:claude:>unknown_running"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("agent_state once the silent agent runs = %q, want %q", got, want)
	}
	// Found, it is no longer polled: quiet panes cost no scans.
	cp := &countingProcs{procTable: h.procs}
	h.c.procs = cp
	h.clock.Advance(h.c.scanDelay * 10)
	if n := cp.scans.Load(); n != 0 {
		t.Errorf("scans of a quiet pane with its agent found = %d, want 0", n)
	}
}

// TestScanNewPaneShellExec checks the first scans of a new pane: its
// shell's `-c` had not yet exec'd the agent when the first scan looked,
// and the agent prints nothing; a few more scans, bounded, find it.
func TestScanNewPaneShellExec(t *testing.T) {
	h := newHarness(t, Options{})
	h.procs.set(fakeProc{pid: 400, ppid: 1, start: 4000, comm: "sh", argv: []string{"/bin/sh", "-c", "claude"}})
	h.panes.add(Pane{SurfaceID: 4, WorkspaceID: 1, Name: "new", PID: 400})
	h.event(bus.SurfaceCreated{SurfaceID: 4, WorkspaceID: 1})
	h.clock.Advance(h.c.scanDelay)
	if got := h.states(); len(got) != 0 {
		t.Errorf("agent_state before the exec = %q, want none", got)
	}
	h.procs.set(fakeProc{pid: 400, ppid: 1, start: 4000, comm: "claude", argv: []string{"claude"}})
	h.clock.Advance(h.c.scanDelay)
	if got, want := h.states(), []string{"4:claude:>unknown_running"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("agent_state after the exec = %q, want %q", got, want)
	}

	// A new pane that stays a quiet shell is scanned newPaneScans more
	// times, then no more.
	cp := &countingProcs{procTable: h.procs}
	h.c.procs = cp
	h.procs.set(fakeProc{pid: 500, ppid: 1, start: 5000, comm: "sh", argv: []string{"/bin/sh"}})
	h.panes.add(Pane{SurfaceID: 5, WorkspaceID: 1, Name: "quiet", PID: 500})
	h.event(bus.SurfaceCreated{SurfaceID: 5, WorkspaceID: 1})
	h.clock.Advance(h.c.scanDelay * 20)
	if n := cp.scans.Load(); n != 1+newPaneScans {
		t.Errorf("scans of a quiet new shell = %d, want %d", n, 1+newPaneScans)
	}
}
