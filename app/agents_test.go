package app

import (
	"slices"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/bus"
)

func TestNotificationDecision(t *testing.T) {
	tests := []struct {
		name      string
		ev        bus.AgentState
		focused   bool
		mode      string
		wantTitle string // "" means no notification
		wantBody  string
	}{
		{"waiting, unfocused", bus.AgentState{Tool: "claude", State: stateWaiting, Previous: stateThinking, Message: "Allow Bash?\nrm -rf build"},
			false, "", "Claude Code needs input in api", "Allow Bash?"},
		{"waiting, focused", bus.AgentState{Tool: "claude", State: stateWaiting, Previous: stateThinking}, true, "", "", ""},
		{"turned off", bus.AgentState{Tool: "claude", State: stateWaiting, Previous: stateThinking}, false, "Never", "", ""},
		{"other modes notify", bus.AgentState{Tool: "codex", State: stateFinished, Previous: stateThinking, LastResult: "All tests pass"},
			false, "AllScreens", "Codex finished in api", "All tests pass"},
		{"errored with a code", bus.AgentState{Tool: "gemini", State: stateErrored, Previous: stateThinking, ExitCode: 3, HasExitCode: true},
			false, "", "Gemini errored in api", "Gemini exited with code 3 in api."},
		{"stalled", bus.AgentState{Tool: "claude", State: stateStalled, Previous: stateThinking},
			false, "", "Claude Code may be stuck in api", "Claude Code has been silent for a while in api."},
		{"same state again (message update)", bus.AgentState{Tool: "claude", State: stateWaiting, Previous: stateWaiting}, false, "", "", ""},
		{"thinking is not news", bus.AgentState{Tool: "claude", State: stateThinking, Previous: stateWaiting}, false, "", "", ""},
		{"unknown tool", bus.AgentState{Tool: "mytool", State: stateWaiting}, false, "", "mytool needs input in api", "mytool is waiting for you in api."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, ok := notification(tt.ev, tt.focused, tt.mode, "api")
			if tt.wantTitle == "" {
				if ok {
					t.Errorf("notification = %+v, want none", n)
				}
				return
			}
			if !ok || n.Title != tt.wantTitle || n.Content != tt.wantBody {
				t.Errorf("notification = %+v, %v; want %q / %q", n, ok, tt.wantTitle, tt.wantBody)
			}
		})
	}
}

func TestAgentBoard(t *testing.T) {
	var b agentBoard
	b.apply(bus.AgentState{SurfaceID: 1, Tool: "claude", PID: 10, State: stateRunning})
	b.apply(bus.AgentState{SurfaceID: 1, Tool: "claude", PID: 11, State: stateThinking, Hooked: true})
	if st, _ := b.status(1); st.State != stateThinking || len(b.panes[1]) != 1 {
		t.Errorf("status = %+v (%d agents), want the hooked session to replace the scanned process", st, len(b.panes[1]))
	}
	b.apply(bus.AgentState{SurfaceID: 2, Tool: "codex", PID: 20, State: stateWaiting, Hooked: true})
	b.apply(bus.AgentState{SurfaceID: 2, Tool: "claude", PID: 21, State: stateFinished, Hooked: true})
	b.apply(bus.AgentState{SurfaceID: 3, Tool: "claude", PID: 30, State: stateWaiting, Hooked: true})
	b.apply(bus.AgentState{SurfaceID: 0, Tool: "claude", PID: 40, State: stateWaiting, Hooked: true}) // unbound
	if st, _ := b.status(2); st.State != stateWaiting {
		t.Errorf("status(2) = %s, want the most pressing (waiting)", st.State)
	}
	if got := b.waiting(); !slices.Equal(got, []uint64{2, 3}) {
		t.Errorf("waiting = %v, want [2 3]", got)
	}
	// A hooked session with no prompt yet is an agent the pane has.
	b.apply(bus.AgentState{SurfaceID: 4, Tool: "opencode", PID: 40, State: stateRunning})
	b.apply(bus.AgentState{SurfaceID: 4, Tool: "opencode", PID: 41, State: stateIdle, Previous: stateRunning, Hooked: true})
	if st, ok := b.status(4); !ok || st.State != stateIdle || len(b.panes[4]) != 1 {
		t.Errorf("status(4) = %+v, %v (%d agents), want the hooked idle session in the scanned process's place", st, ok, len(b.panes[4]))
	}
	// The session ended (the conductor's idle without hooks): gone.
	b.apply(bus.AgentState{SurfaceID: 3, Tool: "claude", PID: 30, State: stateIdle, Previous: stateWaiting})
	b.forget(2)
	if got := b.waiting(); len(got) != 0 {
		t.Errorf("waiting = %v after the agents left, want none", got)
	}
	if _, ok := b.status(3); ok {
		t.Error("pane 3 still has an agent after it went idle")
	}
}

func TestStatusLine(t *testing.T) {
	tests := []struct {
		ev   bus.AgentState
		want string
	}{
		{bus.AgentState{State: stateThinking}, "thinking…"},
		{bus.AgentState{State: stateThinking, ActiveToolName: "Bash"}, "thinking… (Bash)"},
		{bus.AgentState{State: stateWaiting, Message: "\n  Allow edit of main.go?  \nmore"}, "needs input: Allow edit of main.go?"},
		{bus.AgentState{State: stateFinished}, "done"},
		{bus.AgentState{State: stateErrored, ExitCode: 1, HasExitCode: true}, "errored (exit 1)"},
		{bus.AgentState{State: stateStalled}, "stalled"},
		{bus.AgentState{State: stateRunning, Tool: "codex"}, "Codex running"},
	}
	for _, tt := range tests {
		if _, got := statusLine(tt.ev); got != tt.want {
			t.Errorf("statusLine(%s) = %q, want %q", tt.ev.State, got, tt.want)
		}
	}
	long := strings.Repeat("x", 100)
	if _, got := statusLine(bus.AgentState{State: stateWaiting, Message: long}); len([]rune(got)) != len("needs input: ")+60 {
		t.Errorf("long question not cut to 60 runes: %q", got)
	}
	if windowTitle(0) != "Paneflow" || windowTitle(2) != "Paneflow — 2 waiting" {
		t.Errorf("windowTitle = %q, %q", windowTitle(0), windowTitle(2))
	}
}

// TestBudgetNotification: every budget alert notifies, focused window or
// not, titled by what crossed its budget, unless notifications are off.
func TestBudgetNotification(t *testing.T) {
	tests := []struct {
		name      string
		ev        bus.BudgetAlert
		mode      string
		wantTitle string // "" means no notification
		wantBody  string
	}{
		{"step exceeded", bus.BudgetAlert{Level: bus.BudgetExceeded, Scope: bus.BudgetScopeStep, Label: "review", Paused: []uint64{3, 4},
			Message: "budget exceeded: step 'impl' of review used 1200 tokens of its 1000 tokens"},
			"", "Budget exceeded: review", "budget exceeded: step 'impl' of review used 1200 tokens of its 1000 tokens (2 agents paused)"},
		{"run exceeded", bus.BudgetAlert{Level: bus.BudgetExceeded, Scope: bus.BudgetScopeRun, Label: "review", Paused: []uint64{3}, Message: "budget exceeded"},
			"AllScreens", "Budget exceeded: review", "budget exceeded (1 agent paused)"},
		{"day at 80 %", bus.BudgetAlert{Level: bus.BudgetWarning, Scope: bus.BudgetScopeDay, Label: "2026-12-05", Message: "daily budget at 80 %"},
			"", "Daily budget at 80 %", "daily budget at 80 %"},
		{"day exceeded", bus.BudgetAlert{Level: bus.BudgetExceeded, Scope: bus.BudgetScopeDay, Message: "daily budget exceeded"},
			"", "Daily budget exceeded", "daily budget exceeded"},
		{"turned off", bus.BudgetAlert{Level: bus.BudgetExceeded, Scope: bus.BudgetScopeStep, Message: "budget exceeded"}, "never", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, ok := budgetNotification(tt.ev, tt.mode)
			switch {
			case tt.wantTitle == "" && ok:
				t.Errorf("notification = %+v, want none", n)
			case tt.wantTitle != "" && (!ok || n.Title != tt.wantTitle || n.Content != tt.wantBody):
				t.Errorf("notification = %+v, %v; want %q: %q", n, ok, tt.wantTitle, tt.wantBody)
			}
		})
	}
}

// TestGuiEvents: the window's subscription takes what it shows (agent
// states, budget alerts, usage, the model's changes) and not the events
// it does not (output, hook frames).
func TestGuiEvents(t *testing.T) {
	for _, tt := range []struct {
		ev   bus.Event
		want bool
	}{
		{bus.AgentState{}, true}, {bus.BudgetAlert{}, true}, {bus.SurfaceCreated{}, true},
		{bus.UsageChanged{}, true},
		{bus.SurfaceChanged{}, false}, {bus.AIStop{}, false},
	} {
		if got := guiEvents(tt.ev); got != tt.want {
			t.Errorf("guiEvents(%s) = %v, want %v", tt.ev.EventType(), got, tt.want)
		}
	}
}
