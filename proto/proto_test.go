package proto

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"
)

// TestEventTypes checks that EventTypes is sorted, has no duplicates and
// names exactly the events' types.
func TestEventTypes(t *testing.T) {
	events := []interface{ EventType() string }{
		SurfaceChanged{}, SurfaceCreated{}, SurfaceExited{}, SurfaceClosed{}, SurfaceRenamed{},
		TitleChanged{}, FocusChanged{}, WorkspaceCreated{}, WorkspaceClosed{}, WorkspaceSelected{}, WorkspaceChanged{},
		LayoutChanged{}, AISessionStart{}, AIPromptSubmit{}, AIToolUse{}, AINotification{},
		AIStop{}, AIExit{AgentFrame{SurfaceID: 3, ExitCode: 2, HasExitCode: true}}, AISessionEnd{}, AgentState{}, UsageChanged{}, BudgetAlert{},
		ChecksChanged{},
	}
	var want []string
	for _, e := range events {
		want = append(want, e.EventType())
	}
	slices.Sort(want)
	if got := EventTypes(); !slices.Equal(got, want) {
		t.Errorf("EventTypes() = %q, want %q", got, want)
	}
}

// TestMethods checks that Methods is sorted, without duplicates, and
// holds the ai.* and teams.* methods.
func TestMethods(t *testing.T) {
	m := Methods()
	if !slices.IsSorted(m) || len(slices.Compact(slices.Clone(m))) != len(m) {
		t.Errorf("Methods() = %q: want sorted, without duplicates", m)
	}
	for _, name := range append(AIMethods[:], TeamsMethods[:]...) {
		if !IsMethod(name) {
			t.Errorf("%s is not in Methods()", name)
		}
	}
	if IsMethod(MethodRPCConcurrent) {
		t.Errorf("%s is the transport's, not a registered method", MethodRPCConcurrent)
	}
}

// TestEnvMapDecode checks that an EnvMap keeps string (and null) values
// only, and
// that decoding errors read as those of a map[string]json.RawMessage
// (the type the server decoded into before).
func TestEnvMapDecode(t *testing.T) {
	var p PaneParams
	if err := DecodeParams([]byte(`{"env":{"A":"1","B":2,"C":null}}`), &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Env) != 2 || p.Env["A"] != "1" || p.Env["C"] != "" {
		t.Errorf("env = %v, want A=1 and C= (null reads as \"\", as it always did)", p.Env)
	}
	type old struct {
		Env   map[string]json.RawMessage `json:"env"`
		Panes []struct {
			Env map[string]json.RawMessage `json:"env"`
		} `json:"panes"`
	}
	for _, params := range []string{`{"env":"x"}`, `{"env":[1]}`, `{"panes":[{"env":7}]}`} {
		var o old
		want := DecodeParams([]byte(params), &o)
		var n struct {
			Env   EnvMap       `json:"env"`
			Panes []PaneParams `json:"panes"`
		}
		got := DecodeParams([]byte(params), &n)
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("decoding %s: error %v, want %v", params, got, want)
		}
	}
}

// TestAgents checks the known agents' table: unique binaries and tags,
// launch argv starting with the binary, and the lookups.
func TestAgents(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range Agents() {
		if seen[a.Binary] || seen["tag:"+a.Tag] || !ValidTool(a.Binary) {
			t.Errorf("agent %+v: duplicate or invalid binary or tag", a)
		}
		seen[a.Binary], seen["tag:"+a.Tag] = true, true
		if len(a.Argv) == 0 || a.Argv[0] != a.Binary {
			t.Errorf("agent %s: Argv %q does not start with its binary", a.Name, a.Argv)
		}
		if b, ok := AgentByBinary(a.Binary); !ok || b.Tag != a.Tag {
			t.Errorf("AgentByBinary(%q) = %+v, %v", a.Binary, b, ok)
		}
		if b, ok := AgentByName(a.Tag); !ok || b.Binary != a.Binary {
			t.Errorf("AgentByName(%q) = %+v, %v", a.Tag, b, ok)
		}
	}
	if a, ok := AgentByName(" Claude-Code "); !ok || a.Binary != "claude" {
		t.Errorf(`AgentByName(" Claude-Code ") = %+v, %v; want Claude Code`, a, ok)
	}
	if a, ok := AgentByName("claude"); !ok || a.Tag != "claude_code" {
		t.Errorf(`AgentByName("claude") = %+v, %v; want Claude Code`, a, ok)
	}
	if AgentRank("nope") != len(Agents()) {
		t.Errorf("an unknown tool must rank after the known ones")
	}
	for _, tt := range []struct {
		comm string
		argv []string
		want string
	}{
		{"claude", nil, "claude"},
		{"node", []string{"node", "/usr/lib/node_modules/@google/gemini-cli/dist/index.js"}, "gemini"},
		{"node", []string{"node", "--enable-source-maps", "codex.js"}, "codex"},
		{"deno", []string{"deno", "run", "npm:opencode-ai"}, "opencode"},
		{"x", []string{`C:\bin\Cursor-Agent.exe`}, ""},
		{"x", []string{`C:\bin\cursor-agent.EXE`}, "cursor-agent"},
		{"node", []string{"node", "server.js", "claude"}, ""},
	} {
		if got, _ := MatchProcess(tt.comm, tt.argv); got != tt.want {
			t.Errorf("MatchProcess(%q, %q) = %q, want %q", tt.comm, tt.argv, got, tt.want)
		}
	}
}

// TestDecodeEvent: every event type's frame decodes back into the event
// it was made from; other frames are refused.
func TestDecodeEvent(t *testing.T) {
	events := []Event{
		SurfaceChanged{SurfaceID: 1, Generation: 9}, SurfaceCreated{SurfaceID: 2, WorkspaceID: 1},
		SurfaceExited{SurfaceID: 2, ExitCode: 3}, SurfaceClosed{SurfaceID: 2, WorkspaceID: 1},
		SurfaceRenamed{SurfaceID: 2, Name: "x"}, TitleChanged{SurfaceID: 2, Title: "t"},
		FocusChanged{SurfaceID: 2}, WorkspaceCreated{WorkspaceID: 4}, WorkspaceClosed{WorkspaceID: 4},
		WorkspaceSelected{WorkspaceID: 4}, WorkspaceChanged{WorkspaceID: 4, Index: 1, Title: "t"}, LayoutChanged{WorkspaceID: 4},
		AISessionStart{AgentFrame{SurfaceID: 2, Tool: "claude"}}, AIPromptSubmit{}, AIToolUse{}, AINotification{},
		AIStop{}, AIExit{AgentFrame{SurfaceID: 3, ExitCode: 2, HasExitCode: true}}, AISessionEnd{}, AgentState{SurfaceID: 2, State: string(StateThinking)}, UsageChanged{SurfaceID: 2},
		BudgetAlert{Level: BudgetWarning},
		ChecksChanged{Worktree: "/r", Status: CheckFail, DurationMS: 1200, Checks: []CheckResult{{Name: "lint", Command: "go vet", Status: CheckFail, DurationMS: 1200, Trigger: "run"}}},
	}
	seen := map[string]bool{}
	for _, e := range events {
		frame, err := EventFrameJSON(e, time.UnixMilli(5))
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeEvent(frame)
		if err != nil {
			t.Fatalf("%s: %v", frame, err)
		}
		if !reflect.DeepEqual(got, e) {
			t.Errorf("%s decoded as %#v, want %#v", frame, got, e)
		}
		seen[e.EventType()] = true
	}
	if len(seen) != len(EventTypes()) {
		t.Errorf("tested %d event types of %d", len(seen), len(EventTypes()))
	}
	for _, bad := range []string{`{"type":"heartbeat"}`, `{"type":"bogus"}`, `[1]`, `{"type":"focus_changed","surface_id":"x"}`} {
		if e, err := DecodeEvent([]byte(bad)); err == nil {
			t.Errorf("%s decoded as %#v", bad, e)
		}
	}
}

// TestTurnShownIn: a screen belongs to the newest turn begun by the time
// it was first shown.
func TestTurnShownIn(t *testing.T) {
	turns := []AITurn{
		{Turn: 4, StartedAt: "2026-12-01T10:00:00Z"},
		{Turn: 7, StartedAt: "2026-12-01T10:05:00.5Z"},
	}
	for _, tc := range []struct {
		shown string
		want  uint64
		ok    bool
	}{
		{"2026-12-01T09:59:59Z", 0, false},
		{"2026-12-01T10:00:00Z", 4, true},
		{"2026-12-01T10:05:00.4999Z", 4, true},
		{"2026-12-01T10:05:00.5Z", 7, true},
		{"2026-12-02T00:00:00+01:00", 7, true},
		{"not a time", 0, false},
	} {
		got, ok := TurnShownIn(tc.shown, turns)
		if got.Turn != tc.want || ok != tc.ok {
			t.Errorf("TurnShownIn(%q) = turn %d, %v; want %d, %v", tc.shown, got.Turn, ok, tc.want, tc.ok)
		}
	}
}
