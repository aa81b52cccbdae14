package conductor

import (
	"slices"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/bus"
)

// Paths of the launch shim and of a real agent, as /proc/<pid>/exe shows
// them on Linux (the tool entries are symlinks to paneflow-shim).
const (
	shimExe   = "/home/u/.cache/paneflow/bin/dev/paneflow-shim"
	claudeExe = "/home/u/.npm/@anthropic-ai/claude-code/bin/claude.exe"
)

// The launch shim's process as a pane shows it at each instant of a
// `claude -p hi` typed into the shell of pane 1 (pid 100).
var (
	// The shell's child, between fork and exec: still bash.
	forkedShell = fakeProc{pid: 110, ppid: 100, start: 1100, comm: "bash", argv: []string{"-bash"}, exe: "/usr/bin/bash"}
	// The shim, run as claude: named claude, runs paneflow-shim; it
	// injects the hooks and sends ai.session_start before it starts
	// the agent.
	shimProc = fakeProc{pid: 110, ppid: 100, start: 1100, comm: "claude", argv: []string{"claude", "-p", "hi"}, exe: shimExe}
	// Go's child of the shim between fork and exec: the shim's image.
	shimChild = fakeProc{pid: 111, ppid: 110, start: 1110, comm: "claude", argv: []string{"claude", "-p", "hi"}, exe: shimExe}
	// The real agent, once the child exec'd.
	agentProc = fakeProc{pid: 111, ppid: 110, start: 1110, comm: "claude", argv: []string{"claude", "-p", "hi", "--settings", "{}"}, exe: claudeExe}
)

// TestShimIsNotAnAgent is the race of issue 13 seen with the real Claude
// Code under load: a scan that ran after the launch shim started but
// before its ai.session_start arrived took the shim, named claude, for an
// agent without hooks, and the pane showed unknown_running ("no hooks")
// for a moment. Every instant of a shim launch is scanned here, and none
// of them may report an unhooked agent.
func TestShimIsNotAnAgent(t *testing.T) {
	h := newHarness(t, Options{})
	steps := []struct {
		name  string
		procs []fakeProc
		frame string // sent after the step's scan
	}{
		{"the shell forked", []fakeProc{forkedShell}, ""},
		// The exec happened between the reads of stat and cmdline.
		{"the shell's child exec'd the shim (old stat, new cmdline)", []fakeProc{{pid: 110, ppid: 100, start: 1100, comm: "bash", argv: shimProc.argv, exe: shimExe}}, ""},
		{"the shim injects its hooks", []fakeProc{shimProc}, ""},
		{"the shim starts the agent (fork, before exec)", []fakeProc{shimProc, shimChild}, ""},
	}
	for _, st := range steps {
		h.procs.set(st.procs...)
		h.activity(1)
		if got := h.states(); len(got) != 0 {
			t.Errorf("%s: agent_state %q, want none", st.name, got)
		}
		if s, ok := h.c.Status(1); ok {
			t.Errorf("%s: status %+v, want none (idle)", st.name, s)
		}
	}
	h.procs.kill(111)
	h.mustSend(MethodSessionStart, `{"surface_id":1,"pid":110,"tool":"claude"}`)
	h.procs.set(agentProc)
	h.activity(1)
	h.mustSend(MethodPromptSubmit, `{"surface_id":1,"pid":110,"tool":"claude"}`)
	if got, want := h.states(), []string{"1:claude:>idle", "1:claude:idle>thinking"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("agent_state of the hooked run = %q, want %q", got, want)
	}
	if s := h.status(1); s.State != Thinking || !s.Hooked || s.PID == nil || *s.PID != 110 {
		t.Errorf("status while thinking = %+v, want hooked, thinking, the shim's pid 110", s)
	}
	// The agent ends; until the shim's ai.exit arrives, a scan sees the
	// shim alone, which is no agent (on any system, ended or not).
	h.procs.kill(111)
	h.activity(1)
	h.mustSend(MethodExit, `{"surface_id":1,"pid":110,"tool":"claude","exit_code":0}`)
	h.mustSend(MethodSessionEnd, `{"surface_id":1,"pid":110,"tool":"claude"}`)
	h.activity(1)
	if got, want := h.states(), []string{"1:claude:thinking>finished", "1:claude:finished>idle"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("agent_state at the end = %q, want %q", got, want)
	}
	if s, ok := h.c.Status(1); ok {
		t.Errorf("status after the session ended = %+v, want none (idle)", s)
	}
}

// TestShimUnreported: the shim's ai.session_start never arrived (the
// server was busy past the shim's budget, or the shim has no hook binary
// and sends no frame). The shim itself still counts for nothing, and the
// agent it started is reported as what it is: running without hooks,
// with its own pid; when it ends the pane is idle again even though the
// shim lives on.
func TestShimUnreported(t *testing.T) {
	h := newHarness(t, Options{})
	h.procs.set(shimProc)
	h.activity(1)
	if got := h.states(); len(got) != 0 {
		t.Errorf("agent_state before the agent starts = %q, want none", got)
	}
	h.procs.set(agentProc)
	h.activity(1)
	if got, want := h.states(), []string{"1:claude:>unknown_running"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("agent_state once the agent runs = %q, want %q", got, want)
	}
	if s := h.status(1); s.State != UnknownRunning || s.Hooked || deref(s.Reason) != reasonNoHook || s.PID == nil || *s.PID != 111 {
		t.Errorf("status = %+v, want unknown_running, not hooked, reason %s, the agent's pid 111", s, reasonNoHook)
	}
	h.procs.kill(111)
	h.activity(1)
	if got, want := h.states(), []string{"1:claude:unknown_running>idle"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("agent_state once the agent ended, the shim still running = %q, want %q", got, want)
	}
}

// TestShimUnhookedLaunch: the shim reports that the agent's hooks cannot
// run (hooked:false and why) before it starts the agent; the scan that
// then sees the agent adds no second, reasonless report.
func TestShimUnhookedLaunch(t *testing.T) {
	h := newHarness(t, Options{})
	h.procs.set(shimProc)
	h.activity(1)
	h.mustSend(MethodSessionStart, `{"surface_id":1,"pid":110,"tool":"claude","hooked":false,"reason":"no_settings: why"}`)
	h.procs.set(agentProc)
	h.activity(1)
	var got []bus.AgentState
	for _, e := range h.drain() {
		if s, ok := e.(bus.AgentState); ok {
			got = append(got, s)
		}
	}
	if len(got) != 1 || got[0].State != string(UnknownRunning) || got[0].Hooked || got[0].Reason != "no_settings: why" {
		t.Errorf("agent_state = %+v, want one unknown_running, not hooked, with the shim's reason", got)
	}
}

// TestIsShimExe checks how the launch shim is told by its executable on
// each system: Linux resolves the tool entry's symlink to paneflow-shim,
// macOS reports the path that was run (the entry in the shim directory),
// Windows the copy named after the agent in the shim directory.
func TestIsShimExe(t *testing.T) {
	const linuxDir = "/home/u/.cache/paneflow/bin/dev"
	const macDir = "/Users/u/Library/Caches/paneflow/bin/1.2.0"
	const winDir = `C:\Users\u\AppData\Local\paneflow\bin\1.2.0`
	for _, tt := range []struct {
		exe, dir string
		want     bool
	}{
		{shimExe, "", true},
		{shimExe, linuxDir, true},
		{"/opt/paneflow/lib/paneflow-shim", linuxDir, true},
		{claudeExe, linuxDir, false},
		{"/usr/bin/node", linuxDir, false},
		{"", linuxDir, false},
		{macDir + "/claude", macDir, true},
		{macDir + "/teams/tmux", macDir, true},
		{macDir + "/claude", "", false},
		{"/opt/homebrew/bin/claude", macDir, false},
		{macDir + "/sub/claude", macDir, false},
		{winDir + `\claude.exe`, winDir, true},
		{`c:\users\U\appdata\local\paneflow\bin\1.2.0\codex.exe`, winDir, true},
		{winDir + `\paneflow-shim.exe`, "", true},
		{`C:\Program Files\nodejs\node.exe`, winDir, false},
	} {
		if got := isShimExe(tt.exe, tt.dir); got != tt.want {
			t.Errorf("isShimExe(%q, %q) = %v, want %v", tt.exe, tt.dir, got, tt.want)
		}
	}
}

// TestListProcsShim: on macOS and Windows the executable comes from
// Options.ProcessExe, asked only for the processes that look like agents.
func TestListProcsShim(t *testing.T) {
	const dir = `C:\Users\u\AppData\Local\paneflow\bin\dev`
	var asked []int
	o := Options{
		Processes: func() ([]ProcessInfo, error) {
			return []ProcessInfo{
				{PID: 7, PPID: 1, Comm: "pwsh"},
				{PID: 8, PPID: 7, Comm: "claude"},
				{PID: 9, PPID: 8, Comm: "claude"},
			}, nil
		},
		ProcessExe: func(pid int) string {
			asked = append(asked, pid)
			if pid == 8 {
				return dir + `\claude.exe`
			}
			return `C:\npm\claude.exe`
		},
		ShimDir: dir,
	}
	l := listProcs{list: o.processes, exe: o.ProcessExe}
	tree, err := l.Descendants(7, 10)
	if err != nil {
		t.Fatal(err)
	}
	if d := detect(tree, dir); len(d) != 1 || d[0].PID != 9 {
		t.Errorf("detect = %+v, want only the real claude, pid 9", d)
	}
	if !slices.Equal(asked, []int{8, 9}) {
		t.Errorf("executables read for pids %v, want 8 and 9 (not the shell)", asked)
	}
}

// TestShimExitEndsItsAgent is what the real Claude Code showed once the
// scan counted the agent under the shim instead of the shim: the shim
// sends ai.exit after it reaped the agent, and ai.session_end right after;
// the agent the last scan saw must not be shown as running without hooks
// in between (unknown_running with the dead agent's pid until the next
// scan), neither from the last scan's record nor from a scan that read
// the tree before the exit and finished after it.
func TestShimExitEndsItsAgent(t *testing.T) {
	h := newHarness(t, Options{})
	h.procs.set(shimProc, agentProc)
	h.mustSend(MethodSessionStart, `{"surface_id":1,"pid":110,"tool":"claude"}`)
	h.activity(1)
	h.mustSend(MethodStop, `{"surface_id":1,"pid":110,"tool":"claude","last_result":"done"}`)
	h.states()
	h.procs.kill(111)
	h.mustSend(MethodExit, `{"surface_id":1,"pid":110,"tool":"claude","exit_code":0}`)
	h.mustSend(MethodSessionEnd, `{"surface_id":1,"pid":110,"tool":"claude"}`)
	h.activity(1)
	if got, want := h.states(), []string{"1:claude:finished>finished", "1:claude:finished>idle"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("agent_state at the exit = %q, want %q", got, want)
	}

	// Again, with a new shim (pid 120) whose frames arrive while a scan
	// reads the tree that still holds its agent (pid 121).
	h.procs.kill(110)
	shim2, agent2 := shimProc, agentProc
	shim2.pid, shim2.start, agent2.pid, agent2.ppid, agent2.start = 120, 1200, 121, 120, 1210
	h.procs.set(shim2, agent2)
	h.mustSend(MethodSessionStart, `{"surface_id":1,"pid":120,"tool":"claude"}`)
	h.activity(1)
	h.states()
	h.c.procs = &duringScan{procTable: h.procs, then: func() {
		h.procs.kill(121)
		h.mustSend(MethodExit, `{"surface_id":1,"pid":120,"tool":"claude","exit_code":0}`)
		h.mustSend(MethodSessionEnd, `{"surface_id":1,"pid":120,"tool":"claude"}`)
	}}
	h.activity(1)
	h.c.procs = h.procs
	h.activity(1)
	if got, want := h.states(), []string{"1:claude:idle>finished", "1:claude:finished>idle"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("agent_state with the exit during a scan = %q, want %q", got, want)
	}
	if s, ok := h.c.Status(1); ok {
		t.Errorf("status after the exit = %+v, want none (idle)", s)
	}
}

// duringScan is a process table that runs then once, after the first
// tree it reads: what happens while a scan is under way.
type duringScan struct {
	procTable
	then func()
	done bool
}

func (d *duringScan) Descendants(root, limit int) ([]process, error) {
	tree, err := d.procTable.Descendants(root, limit)
	if !d.done {
		d.done = true
		d.then()
	}
	return tree, err
}

// TestProcFSExe checks what procFS reads of <pid>/exe: only for processes
// that look like agents (a scan reads no link per shell or compiler), and
// with the " (deleted)" the kernel appends once the file was replaced (a
// Paneflow upgrade while the shim runs): it is still the shim.
func TestProcFSExe(t *testing.T) {
	f := newFakeProcs(
		fakeProc{pid: 100, ppid: 1, start: 1, comm: "bash", argv: []string{"-bash"}, exe: "/usr/bin/bash"},
		fakeProc{pid: 110, ppid: 100, start: 2, comm: "claude", argv: []string{"claude"}, exe: shimExe + " (deleted)"},
		fakeProc{pid: 111, ppid: 110, start: 3, comm: "claude", argv: []string{"claude"}, exe: claudeExe},
	)
	tree, err := f.Descendants(100, maxScanPIDs)
	if err != nil {
		t.Fatal(err)
	}
	var exes []string
	for _, p := range tree {
		exes = append(exes, p.Exe)
	}
	if want := []string{"", shimExe, claudeExe}; !slices.Equal(exes, want) {
		t.Errorf("Exe of bash, the shim, the agent = %q, want %q", exes, want)
	}
	if d := detect(tree, ""); len(d) != 1 || d[0].PID != 111 || d[0].Shim != 110 || d[0].ShimStart != 2 {
		t.Errorf("detect = %+v, want the agent 111 started by the shim 110", d)
	}
}
