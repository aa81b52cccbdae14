package conductor

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/ipc"
)

// runSteps runs a little script against pane 1 (workspace 1) as Claude
// Code's persistent hooks would (no pid): "start", "prompt", "tool NAME",
// "notify TEXT", "stop [RESULT]", "exit CODE", "end", or "+DURATION" to
// let time pass.
func runSteps(t *testing.T, h *harness, steps []string) {
	t.Helper()
	for _, step := range steps {
		verb, arg, _ := strings.Cut(step, " ")
		if strings.HasPrefix(verb, "+") {
			d, err := time.ParseDuration(verb[1:])
			if err != nil {
				t.Fatalf("step %q: %v", step, err)
			}
			h.clock.Advance(d)
			continue
		}
		p := map[string]any{"surface_id": 1, "workspace_id": 1, "tool": "claude"}
		method := map[string]string{
			"start": MethodSessionStart, "prompt": MethodPromptSubmit, "tool": MethodToolUse,
			"notify": MethodNotification, "stop": MethodStop, "exit": MethodExit, "end": MethodSessionEnd,
		}[verb]
		switch verb {
		case "tool":
			p["tool_name"] = arg
		case "notify":
			p["message"] = arg
		case "stop":
			p["last_result"] = arg
		case "exit":
			code, err := strconv.Atoi(arg)
			if err != nil {
				t.Fatalf("step %q: %v", step, err)
			}
			p["exit_code"] = code
		case "":
			t.Fatalf("empty step")
		}
		if method == "" {
			t.Fatalf("unknown step %q", step)
		}
		b, _ := json.Marshal(p)
		h.mustSend(method, string(b))
	}
}

func TestStateMachine(t *testing.T) {
	type want struct {
		state      State // "" when the pane reports no agent
		message    string
		activeTool string
		lastResult string
		exitCode   *int
		waitingMS  *int64
		idleMS     int64
	}
	tests := []struct {
		name  string
		steps []string
		want  want
	}{
		{"nothing known", nil, want{}},
		{"session start registers an idle hooked session", []string{"start"}, want{state: Idle}},
		{"prompt: thinking", []string{"start", "prompt"}, want{state: Thinking}},
		{"prompt without session start", []string{"prompt"}, want{state: Thinking}},
		{"tool use: thinking with the tool", []string{"prompt", "tool Bash"}, want{state: Thinking, activeTool: "Bash"}},
		{"later tool replaces the tool", []string{"prompt", "tool Bash", "tool Edit"}, want{state: Thinking, activeTool: "Edit"}},
		{"notification: waiting with the question", []string{"prompt", "tool Bash", "notify Allow Bash: rm -rf build?"},
			want{state: WaitingForInput, message: "Allow Bash: rm -rf build?", waitingMS: ptr[int64](0)}},
		{"waiting time counts", []string{"prompt", "notify Proceed?", "+1500ms"},
			want{state: WaitingForInput, message: "Proceed?", waitingMS: ptr[int64](1500), idleMS: 1500}},
		{"a second question keeps the waiting clock", []string{"prompt", "notify One?", "+2s", "notify Two?", "+1s"},
			want{state: WaitingForInput, message: "Two?", waitingMS: ptr[int64](3000), idleMS: 1000}},
		{"tool use after a question: answered", []string{"prompt", "notify Allow?", "+1s", "tool Bash"},
			want{state: Thinking, activeTool: "Bash"}},
		{"prompt after a question", []string{"prompt", "notify Allow?", "prompt"}, want{state: Thinking}},
		{"stop: finished with the result", []string{"prompt", "tool Bash", "stop All 12 tests pass."},
			want{state: Finished, lastResult: "All 12 tests pass."}},
		{"stop without a result", []string{"prompt", "stop"}, want{state: Finished}},
		{"finished stays finished", []string{"prompt", "stop done", "+10m"},
			want{state: Finished, lastResult: "done", idleMS: 600000}},
		{"tool use revives a finished session", []string{"prompt", "stop done", "tool Read"},
			want{state: Thinking, activeTool: "Read", lastResult: "done"}},
		{"new prompt after finishing", []string{"prompt", "stop done", "prompt"}, want{state: Thinking, lastResult: "done"}},
		{"exit 0: finished", []string{"prompt", "exit 0"}, want{state: Finished, exitCode: ptr(0)}},
		{"exit 130 (Ctrl-C): finished", []string{"prompt", "exit 130"}, want{state: Finished, exitCode: ptr(130)}},
		{"exit 129 (hangup): finished", []string{"prompt", "exit 129"}, want{state: Finished, exitCode: ptr(129)}},
		{"exit 137 (killed): finished", []string{"prompt", "exit 137"}, want{state: Finished, exitCode: ptr(137)}},
		{"exit 143 (terminated): finished", []string{"prompt", "exit 143"}, want{state: Finished, exitCode: ptr(143)}},
		{"exit STATUS_CONTROL_C_EXIT: finished", []string{"prompt", "exit -1073741510"}, want{state: Finished, exitCode: ptr(-1073741510)}},
		{"exit 1: errored", []string{"prompt", "exit 1"}, want{state: Errored, exitCode: ptr(1)}},
		{"exit 2: errored", []string{"prompt", "tool Bash", "exit 2"}, want{state: Errored, exitCode: ptr(2)}},
		{"exit -1: errored", []string{"prompt", "exit -1"}, want{state: Errored, exitCode: ptr(-1)}},
		{"session end clears a finished session", []string{"prompt", "stop ok", "exit 0", "end"}, want{}},
		{"session end clears a thinking session", []string{"prompt", "end"}, want{}},
		{"session end keeps an errored session", []string{"prompt", "exit 3", "end"}, want{state: Errored, exitCode: ptr(3)}},
		{"session end without a session", []string{"end"}, want{}},
		{"prompt after an exit clears the exit code", []string{"prompt", "exit 0", "prompt"}, want{state: Thinking}},

		{"silent thinking stalls at the threshold", []string{"prompt", "+60s"}, want{state: Stalled, idleMS: 60000}},
		{"not before the threshold", []string{"prompt", "+59999ms"}, want{state: Thinking, idleMS: 59999}},
		{"a tool use restarts the stall clock", []string{"prompt", "+50s", "tool Bash", "+50s"},
			want{state: Thinking, activeTool: "Bash", idleMS: 50000}},
		{"stall after the last tool use", []string{"prompt", "+50s", "tool Bash", "+60s"},
			want{state: Stalled, activeTool: "Bash", idleMS: 60000}},
		{"a frame ends the stall", []string{"prompt", "+2m", "tool Grep"}, want{state: Thinking, activeTool: "Grep"}},
		{"a stop ends the stall", []string{"prompt", "+2m", "stop late"}, want{state: Finished, lastResult: "late"}},
		{"a stalled agent can still error", []string{"prompt", "+2m", "exit 1"}, want{state: Errored, exitCode: ptr(1)}},
		{"waiting never stalls", []string{"prompt", "notify Allow?", "+10m"},
			want{state: WaitingForInput, message: "Allow?", waitingMS: ptr[int64](600000), idleMS: 600000}},
		{"finished never stalls", []string{"prompt", "stop ok", "+10m"}, want{state: Finished, lastResult: "ok", idleMS: 600000}},
		{"idle never stalls", []string{"start", "+10m"}, want{state: Idle, idleMS: 600000}},
		{"thinking again stalls again", []string{"prompt", "+60s", "prompt", "+60s"}, want{state: Stalled, idleMS: 60000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Options{})
			runSteps(t, h, tt.steps)
			st, ok := h.c.Status(1)
			if tt.want.state == "" {
				if ok {
					t.Fatalf("Status(1) = %+v, want no agent", st)
				}
				return
			}
			if !ok {
				t.Fatalf("Status(1): no agent, want state %s", tt.want.state)
			}
			got := want{
				state: st.State, message: deref(st.Message), activeTool: deref(st.ActiveToolName),
				lastResult: deref(st.LastResult), exitCode: st.ExitCode, waitingMS: st.WaitingMS,
			}
			if st.IdleMS != nil {
				got.idleMS = *st.IdleMS
			}
			if got.state != tt.want.state || got.message != tt.want.message || got.activeTool != tt.want.activeTool ||
				got.lastResult != tt.want.lastResult || !eqPtr(got.exitCode, tt.want.exitCode) ||
				!eqPtr(got.waitingMS, tt.want.waitingMS) || got.idleMS != tt.want.idleMS {
				t.Errorf("status = %s, want %s", fmtWant(got.state, got.message, got.activeTool, got.lastResult, got.exitCode, got.waitingMS, got.idleMS),
					fmtWant(tt.want.state, tt.want.message, tt.want.activeTool, tt.want.lastResult, tt.want.exitCode, tt.want.waitingMS, tt.want.idleMS))
			}
			if !st.Hooked || st.Tool != "claude" || st.SurfaceID != 1 || st.Reason != nil {
				t.Errorf("status hooked=%v tool=%q surface=%d reason=%v, want hooked claude in pane 1 with no reason",
					st.Hooked, st.Tool, st.SurfaceID, st.Reason)
			}
		})
	}
}

func fmtWant(state State, msg, tool, result string, code *int, waiting *int64, idle int64) string {
	return "{state:" + string(state) + " message:" + strconv.Quote(msg) + " active_tool:" + strconv.Quote(tool) +
		" last_result:" + strconv.Quote(result) + " exit_code:" + fmtPtr(code) + " waiting_ms:" + fmtPtr(waiting) +
		" idle_ms:" + strconv.FormatInt(idle, 10) + "}"
}

func fmtPtr[T int | int64](p *T) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatInt(int64(*p), 10)
}

func eqPtr[T comparable](a, b *T) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// TestStallThreshold checks that the threshold is configurable and that
// stall detection can be turned off.
func TestStallThreshold(t *testing.T) {
	tests := []struct {
		threshold time.Duration
		wait      time.Duration
		want      State
	}{
		{0, 59 * time.Second, Thinking},
		{0, 60 * time.Second, Stalled},
		{30 * time.Second, 30 * time.Second, Stalled},
		{5 * time.Minute, 4 * time.Minute, Thinking},
		{5 * time.Minute, 5 * time.Minute, Stalled},
		{-1, 24 * time.Hour, Thinking},
	}
	for _, tt := range tests {
		t.Run(tt.threshold.String()+"/"+tt.wait.String(), func(t *testing.T) {
			h := newHarness(t, Options{StallThreshold: tt.threshold})
			runSteps(t, h, []string{"prompt"})
			h.clock.Advance(tt.wait)
			if got := h.status(1).State; got != tt.want {
				t.Errorf("state after %v = %s, want %s", tt.wait, got, tt.want)
			}
		})
	}
}

// TestStallTimers checks that a session has at most one stall timer and
// that settled sessions have none: no sweeps, no leftover timers.
func TestStallTimers(t *testing.T) {
	h := newHarness(t, Options{})
	if n := h.clock.Pending(); n != 0 {
		t.Fatalf("pending timers at rest = %d, want 0", n)
	}
	runSteps(t, h, []string{"prompt", "tool A", "tool B", "tool C"})
	// One stall timer, plus the scan that confirms a pid-less session.
	if n := h.clock.Pending(); n != 2 {
		t.Errorf("pending timers while thinking = %d, want 2 (stall + confirming scan)", n)
	}
	runSteps(t, h, []string{"+1s", "stop ok", "+1s"})
	if n := h.clock.Pending(); n != 0 {
		t.Errorf("pending timers when finished = %d, want 0", n)
	}
}

// TestStateEvents checks the events each change publishes: the ai.* event
// of every accepted frame, agent_state only when something visible
// changed, and agent_state for changes no frame caused.
func TestStateEvents(t *testing.T) {
	h := newHarness(t, Options{})
	runSteps(t, h, []string{"start", "prompt", "tool Bash", "notify Allow?", "notify Allow?", "stop ok", "+2m"})
	var got []string
	for _, e := range h.drain() {
		switch e := e.(type) {
		case bus.AgentState:
			got = append(got, "state "+e.Previous+">"+e.State)
		default:
			got = append(got, e.EventType())
		}
	}
	want := []string{
		"state >idle", "ai.session_start",
		"state idle>thinking", "ai.prompt_submit",
		"state thinking>thinking", "ai.tool_use",
		"state thinking>waiting_for_input", "ai.notification",
		"ai.notification", // the same question again: nothing visible changed
		"state waiting_for_input>finished", "ai.stop",
	}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("events:\n got %q\nwant %q", got, want)
	}

	runSteps(t, h, []string{"prompt", "+60s"})
	if got, want := h.states(), []string{"1:claude:finished>thinking", "1:claude:thinking>stalled"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("agent_state after a silent minute = %q, want %q", got, want)
	}
}

// TestFrameEventFields checks an ai.* event's content.
func TestFrameEventFields(t *testing.T) {
	h := newHarness(t, Options{})
	h.mustSend(MethodNotification, `{"surface_id":2,"workspace_id":1,"tool":"codex","pid":777,"message":"Run make?"}`)
	var got []bus.Event
	for _, e := range h.drain() {
		if e.EventType() == bus.TypeAINotification {
			got = append(got, e)
		}
	}
	if len(got) != 1 {
		t.Fatalf("ai.notification events = %d, want 1", len(got))
	}
	b, _ := json.Marshal(got[0])
	want := `{"workspace_id":1,"pid":777,"tool":"codex","state":"waiting_for_input","surface_id":2,"message":"Run make?","active_tool_name":null,"last_result":null,"exit_code":null}`
	if string(b) != want {
		t.Errorf("event = %s, want %s", b, want)
	}
}

// TestAcks checks the replies to requests.
func TestAcks(t *testing.T) {
	h := newHarness(t, Options{})
	tests := []struct {
		method, params, want string
	}{
		{MethodSessionStart, `{"surface_id":1,"pid":4242}`, `{"ok":true,"state":"idle","surface_id":1}`},
		{MethodPromptSubmit, `{"surface_id":1,"pid":4242}`, `{"ok":true,"state":"thinking","surface_id":1}`},
		{MethodExit, `{"surface_id":1,"pid":4242,"exit_code":9}`, `{"ok":true,"state":"errored","surface_id":1}`},
		{MethodSessionEnd, `{"surface_id":1,"pid":4242}`, `{"ok":true,"state":"errored","surface_id":1,"cleared":false}`},
		{MethodSessionEnd, `{"surface_id":2,"pid":5151}`, `{"ok":true,"state":null,"surface_id":2,"cleared":false}`},
		{MethodStop, `{"surface_id":2,"pid":5151}`, `{"ok":true,"state":"finished","surface_id":2}`},
		{MethodSessionEnd, `{"surface_id":2,"pid":5151}`, `{"ok":true,"state":null,"surface_id":2,"cleared":true}`},
	}
	for _, tt := range tests {
		a := h.mustSend(tt.method, tt.params)
		b, _ := json.Marshal(a)
		if string(b) != tt.want {
			t.Errorf("%s %s = %s, want %s", tt.method, tt.params, b, tt.want)
		}
	}
}

// TestPIDReuse checks that a session is tied to its process, not just its
// pid: a frame from a new process with an old pid starts a new session,
// and a scan ends a session whose process was replaced.
func TestPIDReuse(t *testing.T) {
	h := newHarness(t, Options{})
	// The shim (pid 500, started at tick 5000) runs claude in pane 1.
	h.procs.set(
		fakeProc{pid: 500, ppid: 100, start: 5000, comm: "claude", argv: []string{"claude"}},
		fakeProc{pid: 501, ppid: 500, start: 5001, comm: "claude", argv: []string{"/usr/lib/claude/bin/claude"}},
	)
	h.mustSend(MethodPromptSubmit, `{"pid":500,"tool":"claude"}`)
	h.mustSend(MethodNotification, `{"pid":500,"tool":"claude","message":"Allow?"}`)
	if st := h.status(1); st.State != WaitingForInput || deref(st.Message) != "Allow?" || st.PID == nil || *st.PID != 500 {
		t.Fatalf("pane 1 = %+v, want waiting, pid 500", st)
	}
	h.drain()

	// The shim dies without a word; pid 500 is reused by another claude
	// shim in pane 2.
	h.procs.kill(500, 501)
	h.procs.set(fakeProc{pid: 500, ppid: 200, start: 9000, comm: "claude", argv: []string{"claude"}})
	h.mustSend(MethodPromptSubmit, `{"pid":500,"tool":"claude"}`)
	if st := h.status(2); st.State != Thinking || deref(st.Message) != "" {
		t.Errorf("pane 2 = %s %q, want a new thinking session with no question", st.State, deref(st.Message))
	}
	if st, ok := h.c.Status(1); ok {
		t.Errorf("pane 1 = %+v, want no agent (its session's process is gone)", st)
	}
	if got, want := h.states(), []string{"1:claude:waiting_for_input>idle", "2:claude:>thinking"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("agent_state = %q, want %q", got, want)
	}

	// The new shim exits; another process takes pid 500 in pane 2 again;
	// the next scan of pane 2 notices the session's process is gone.
	h.procs.kill(500)
	h.procs.set(fakeProc{pid: 500, ppid: 200, start: 9500, comm: "vim", argv: []string{"vim"}})
	h.activity(2)
	if st, ok := h.c.Status(2); ok {
		t.Errorf("pane 2 after its agent's pid was reused = %+v, want no agent", st)
	}
}

// TestWrongPaneFrames checks that frames only ever change the session of
// the pane they name.
func TestWrongPaneFrames(t *testing.T) {
	h := newHarness(t, Options{})
	h.mustSend(MethodNotification, `{"surface_id":1,"workspace_id":1,"tool":"claude","message":"Pane 1 asks"}`)
	h.mustSend(MethodPromptSubmit, `{"surface_id":2,"workspace_id":1,"tool":"claude"}`)

	refused := []struct {
		name, method, params, wantErr string
	}{
		{"unknown pane", MethodStop, `{"surface_id":99,"tool":"claude"}`, "invalid params: surface_id 99 is not an open pane"},
		{"no pane, no pid", MethodStop, `{"workspace_id":1,"tool":"claude"}`, "invalid params: ai.stop needs surface_id or pid to find the agent's pane"},
		{"pane of another workspace", MethodStop, `{"surface_id":1,"workspace_id":2,"tool":"claude"}`, "invalid params: surface_id 1 is in workspace_id 1, not 2"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			_, err := h.send(tt.method, tt.params)
			var ie *ipc.Error
			if !errors.As(err, &ie) || ie.Code != ipc.CodeInvalidParams || ie.Message != tt.wantErr {
				t.Errorf("error = %v, want -32602 %q", err, tt.wantErr)
			}
		})
	}

	// A stop for pane 2 leaves pane 1's question alone, although both run
	// Claude Code (the original picked "any session of the same tool").
	h.mustSend(MethodStop, `{"surface_id":2,"tool":"claude","last_result":"pane 2 done"}`)
	if st := h.status(1); st.State != WaitingForInput || deref(st.Message) != "Pane 1 asks" {
		t.Errorf("pane 1 = %s %q, want still waiting with its question", st.State, deref(st.Message))
	}
	if st := h.status(2); st.State != Finished || deref(st.LastResult) != "pane 2 done" {
		t.Errorf("pane 2 = %s %q, want finished", st.State, deref(st.LastResult))
	}
	// A frame for another tool in pane 1 is another session.
	h.mustSend(MethodPromptSubmit, `{"surface_id":1,"tool":"codex"}`)
	if rows := h.c.List().Agents; len(rows) != 3 {
		t.Errorf("fleet rows = %d, want 3 (claude and codex in pane 1, claude in pane 2)", len(rows))
	}
	if st := h.status(1); st.State != WaitingForInput {
		t.Errorf("pane 1 reports %s, want the waiting session (most urgent)", st.State)
	}
}

// TestPlacementByPID checks that a frame with only a pid is placed in the
// pane whose process is its ancestor, and stays unbound otherwise.
func TestPlacementByPID(t *testing.T) {
	h := newHarness(t, Options{})
	h.procs.set(
		fakeProc{pid: 310, ppid: 300, start: 2000, comm: "tmux: client", argv: []string{"tmux"}},
		fakeProc{pid: 320, ppid: 310, start: 2001, comm: "node", argv: []string{"node", "/opt/gemini/bundle/gemini.js"}},
		fakeProc{pid: 900, ppid: 1, start: 2002, comm: "codex", argv: []string{"codex"}},
	)
	a := h.mustSend(MethodPromptSubmit, `{"pid":320,"tool":"gemini"}`)
	if a.SurfaceID == nil || *a.SurfaceID != 3 {
		t.Errorf("gemini (pid 320 under pane 3's shell) placed in %v, want pane 3", a.SurfaceID)
	}
	a = h.mustSend(MethodPromptSubmit, `{"pid":900,"tool":"codex"}`)
	if a.SurfaceID != nil {
		t.Errorf("codex outside every pane placed in %d, want unbound", *a.SurfaceID)
	}
	rows := h.c.List().Agents
	if len(rows) != 2 || rows[1].Tool != "codex" || rows[1].SurfaceID != nil {
		t.Fatalf("fleet = %+v, want gemini in pane 3 and an unbound codex", rows)
	}
	// The unbound session's process dies: fleet.list drops it.
	h.procs.kill(900)
	if rows := h.c.List().Agents; len(rows) != 1 || rows[0].Tool != "gemini" {
		t.Errorf("fleet after codex died = %+v, want only gemini", rows)
	}
}

// TestRelaunchClearsCrash checks that a new agent in a pane removes the
// errored session left there.
func TestRelaunchClearsCrash(t *testing.T) {
	h := newHarness(t, Options{})
	h.mustSend(MethodPromptSubmit, `{"surface_id":1,"pid":600,"tool":"codex"}`)
	h.mustSend(MethodExit, `{"surface_id":1,"pid":600,"tool":"codex","exit_code":1}`)
	h.mustSend(MethodSessionEnd, `{"surface_id":1,"pid":600,"tool":"codex"}`)
	if st := h.status(1); st.State != Errored {
		t.Fatalf("pane 1 = %s, want errored", st.State)
	}
	h.mustSend(MethodSessionStart, `{"surface_id":1,"pid":601,"tool":"codex"}`)
	if st := h.status(1); st.State != Idle || st.PID == nil || *st.PID != 601 {
		t.Errorf("pane 1 = %s pid %v, want the new idle session 601", st.State, st.PID)
	}
	if n := len(h.c.List().Agents); n != 1 {
		t.Errorf("fleet rows = %d, want 1 (the crash is cleared)", n)
	}
}
