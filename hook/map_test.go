package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/paneflow-go/paneflow/ipc"
)

var update = flag.Bool("update", false, "rewrite the golden frames under testdata/")

// paneEnv is the environment of a process in a Paneflow pane, without the
// launch shim (Claude Code's persistent hooks run like this).
var paneEnv = map[string]string{
	EnvSocketPath:  "/run/user/1000/paneflow/paneflow.sock",
	EnvSurfaceID:   "7",
	EnvWorkspaceID: "2",
}

// withEnv returns base plus kv pairs.
func withEnv(base map[string]string, kv ...string) map[string]string {
	m := map[string]string{}
	for k, v := range base {
		m[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// shimEnv is a pane's environment plus what the launch shim adds.
func shimEnv(tool, pid string, kv ...string) map[string]string {
	return withEnv(paneEnv, append([]string{EnvTool, tool, EnvPID, pid}, kv...)...)
}

func getenv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// goldenFrame is what a golden file holds: the frame Map builds, or
// dropped.
type goldenFrame struct {
	Dropped bool           `json:"dropped,omitempty"`
	Method  string         `json:"method,omitempty"`
	Params  map[string]any `json:"params,omitempty"`
}

// goldenCases run Map on the real payload samples under testdata/: the
// payload is testdata/<name>.json (absent for Exit, which has none), the
// expected frame testdata/<name>.frame.json (rewritten with -update).
var goldenCases = []struct {
	name  string
	event string // the command-line event, as the hook configs write it
	argv  bool   // the payload is the last argument (Codex notify), not stdin
	env   map[string]string
}{
	{"claude/SessionStart", "SessionStart", false, shimEnv("claude", "4242")},
	{"claude/UserPromptSubmit", "UserPromptSubmit", false, paneEnv},
	{"claude/PreToolUse", "PreToolUse", false, paneEnv},
	{"claude/PostToolUse", "PostToolUse", false, paneEnv},
	{"claude/PermissionRequest", "PermissionRequest", false, shimEnv("claude", "4242")},
	{"claude/Notification.permission_prompt", "Notification", false, paneEnv},
	{"claude/Notification.elicitation_dialog", "Notification", false, paneEnv},
	{"claude/Notification.idle_prompt", "Notification", false, paneEnv},
	{"claude/Stop", "Stop", false, paneEnv},
	{"claude/Stop.transcript", "Stop", false, paneEnv},
	{"claude/SubagentStop", "SubagentStop", false, paneEnv},
	{"claude/SessionEnd", "SessionEnd", false, shimEnv("claude", "4242")},
	{"claude/Exit", "Exit", false, shimEnv("claude", "4242", EnvExitCode, "1")},
	{"codex/SessionStart", "SessionStart", false, shimEnv("codex", "5151")},
	{"codex/UserPromptSubmit", "UserPromptSubmit", false, shimEnv("codex", "5151")},
	{"codex/PreToolUse", "PreToolUse", false, shimEnv("codex", "5151")},
	{"codex/PostToolUse", "PostToolUse", false, paneEnv},
	{"codex/PermissionRequest", "PermissionRequest", false, shimEnv("codex", "5151")},
	{"codex/Stop", "Stop", false, shimEnv("codex", "5151")},
	{"codex/Exit.interrupted", "Exit", false, shimEnv("codex", "5151", EnvExitCode, "130")},
	{"codex/Interrupt", "Interrupt", false, shimEnv("codex", "5151")},
	{"codex/notify", "codex-notify", true, paneEnv},
	{"gemini/BeforeAgent", "UserPromptSubmit", false, paneEnv},
	{"gemini/BeforeTool", "PreToolUse", false, shimEnv("gemini", "6161")},
	{"gemini/AfterTool", "AfterTool", false, paneEnv},
	{"gemini/AfterAgent", "Stop", false, shimEnv("gemini", "6161")},
	{"gemini/Notification", "Notification", false, paneEnv},
	{"opencode/chat.message", "chat.message", false, paneEnv},
	{"opencode/tool.execute.before", "tool.execute.before", false, paneEnv},
	{"opencode/session.idle", "session.idle", false, paneEnv},
	{"opencode/permission.asked", "permission.asked", false, paneEnv},
	{"opencode/permission.asked.1.18", "permission.asked", false, paneEnv},
}

func TestMapGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			payload, err := os.ReadFile(filepath.Join("testdata", tc.name+".json"))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Fatal(err)
			}
			var argv []string
			var stdin []byte
			if tc.argv {
				argv = []string{string(payload)}
			}
			if ReadsStdin(tc.event, argv) {
				stdin = payload
			}
			method, params, ok := Map(tc.event, argv, stdin, getenv(tc.env))
			got := goldenFrame{Dropped: !ok, Method: method, Params: params}
			gotJSON, err := json.MarshalIndent(got, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			gotJSON = append(gotJSON, '\n')
			golden := filepath.Join("testdata", tc.name+".frame.json")
			if *update {
				if err := os.WriteFile(golden, gotJSON, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(gotJSON, want) {
				t.Errorf("Map(%q) frame differs from %s (-want +got):\n%s", tc.event, golden, cmp.Diff(string(want), string(gotJSON)))
			}
		})
	}
}

func TestMap(t *testing.T) {
	long := strings.Repeat("é", 5000)
	tests := []struct {
		name       string
		event      string
		argv       []string
		stdin      string
		env        map[string]string
		wantMethod string         // "" means dropped
		want       map[string]any // params that must be present with these values
		absent     []string       // params that must be absent
	}{
		{name: "outside any pane", event: "UserPromptSubmit", stdin: `{}`,
			env: map[string]string{EnvSocketPath: "/s.sock"}},
		{name: "ids that are not numbers", event: "UserPromptSubmit", stdin: `{}`,
			env: map[string]string{EnvSurfaceID: "seven", EnvWorkspaceID: "0"}},
		{name: "surface only", event: "UserPromptSubmit", stdin: `{}`,
			env: map[string]string{EnvSurfaceID: " 9 "}, wantMethod: MethodPromptSubmit,
			want: map[string]any{"surface_id": uint64(9), "tool": "claude"}, absent: []string{"workspace_id", "pid", "session_id"}},
		{name: "workspace only", event: "UserPromptSubmit", stdin: `{}`,
			env: map[string]string{EnvWorkspaceID: "3"}, wantMethod: MethodPromptSubmit,
			want: map[string]any{"workspace_id": uint64(3)}, absent: []string{"surface_id"}},
		{name: "unknown event", event: "PreCompact", stdin: `{}`, env: paneEnv},
		{name: "no event", event: "", stdin: `{}`, env: paneEnv},
		{name: "garbage stdin", event: "Stop", stdin: "\x00\xffnot json", env: paneEnv},
		{name: "blank stdin is an empty payload", event: "Stop", stdin: " \n\t", env: paneEnv, wantMethod: MethodStop},
		{name: "no stdin is an empty payload", event: "UserPromptSubmit", env: paneEnv, wantMethod: MethodPromptSubmit},
		{name: "the prompt", event: "UserPromptSubmit", stdin: `{"prompt":"  fix the tests\nplease  ","hook_event_name":"UserPromptSubmit"}`,
			env: paneEnv, wantMethod: MethodPromptSubmit, want: map[string]any{"prompt": "fix the tests\nplease"}},
		{name: "a long prompt is cut", event: "UserPromptSubmit", stdin: `{"prompt":"` + long + `"}`,
			env: paneEnv, wantMethod: MethodPromptSubmit, want: map[string]any{"prompt": strings.Repeat("é", MaxPrompt)}},
		{name: "a blank prompt is left out", event: "UserPromptSubmit", stdin: `{"prompt":" "}`,
			env: paneEnv, wantMethod: MethodPromptSubmit, absent: []string{"prompt"}},
		{name: "no stdin: a notification has no type", event: "Notification", env: paneEnv},
		{name: "array stdin", event: "Stop", stdin: `[{"last_assistant_message":"x"}]`, env: paneEnv},
		{name: "empty object", event: "Stop", stdin: `{}`, env: paneEnv, wantMethod: MethodStop,
			absent: []string{"last_result", "transcript_path", "session_id"}},
		{name: "payload cut inside a huge value keeps earlier keys", event: "PostToolUse",
			stdin: `{"session_id":"s1","tool_name":"Write","tool_input":{"content":"` + strings.Repeat("x", 1000),
			env:   paneEnv, wantMethod: MethodToolUse, want: map[string]any{"tool_name": "Write", "session_id": "s1"}},
		{name: "payload cut inside a wanted value", event: "Stop",
			stdin: `{"session_id":"s1","last_assistant_message":"all do`, env: paneEnv, wantMethod: MethodStop,
			want: map[string]any{"session_id": "s1"}, absent: []string{"last_result"}},
		{name: "trailing garbage after the object", event: "PreToolUse", stdin: `{"tool_name":"Read"} trailing`,
			env: paneEnv, wantMethod: MethodToolUse, want: map[string]any{"tool_name": "Read"}},
		{name: "wrong types are ignored", event: "PreToolUse", stdin: `{"tool_name":42,"session_id":{"a":1},"pid":"x"}`,
			env: paneEnv, wantMethod: MethodToolUse, absent: []string{"tool_name", "session_id", "pid"}},
		{name: "duplicate key: last wins", event: "PreToolUse", stdin: `{"tool_name":"A","tool_name":"B"}`,
			env: paneEnv, wantMethod: MethodToolUse, want: map[string]any{"tool_name": "B"}},
		{name: "tool name cut to 128 runes", event: "PreToolUse", stdin: `{"tool_name":"` + long + `"}`,
			env: paneEnv, wantMethod: MethodToolUse, want: map[string]any{"tool_name": strings.Repeat("é", MaxToolName)}},
		{name: "message cut to 512 runes", event: "Notification",
			stdin: `{"notification_type":"permission_prompt","message":"` + long + `"}`, env: paneEnv,
			wantMethod: MethodNotification, want: map[string]any{"message": strings.Repeat("é", MaxMessage)}},
		{name: "last result cut to 2048 runes", event: "Stop", stdin: `{"last_assistant_message":"` + long + `"}`,
			env: paneEnv, wantMethod: MethodStop, want: map[string]any{"last_result": strings.Repeat("é", MaxLastResult)}},
		{name: "invalid UTF-8 is replaced", event: "Notification",
			stdin: "{\"notification_type\":\"permission_prompt\",\"message\":\"ok \xff\xfe?\"}", env: paneEnv,
			wantMethod: MethodNotification, want: map[string]any{"message": "ok \uFFFD\uFFFD?"}},
		{name: "blank message is left out", event: "Notification",
			stdin: `{"notification_type":"elicitation_dialog","message":"   "}`, env: paneEnv,
			wantMethod: MethodNotification, absent: []string{"message"}},
		{name: "title stands in for a missing message", event: "Notification",
			stdin: `{"notification_type":"permission_prompt","title":"Permission needed"}`, env: paneEnv,
			wantMethod: MethodNotification, want: map[string]any{"message": "Permission needed"}},
		{name: "notification without a type", event: "Notification", stdin: `{"message":"hi"}`, env: paneEnv},
		{name: "auth notification", event: "Notification", stdin: `{"notification_type":"auth_success","message":"ok"}`, env: paneEnv},
		{name: "summary keys win over the assistant message", event: "Stop",
			stdin: `{"last_assistant_message":"b","summary":"a","transcript_path":"/t.jsonl"}`, env: paneEnv,
			wantMethod: MethodStop, want: map[string]any{"last_result": "a", "transcript_path": "/t.jsonl"}},
		{name: "every frame carries the transcript path", event: "PreToolUse",
			stdin: `{"tool_name":"Bash","transcript_path":"/home/u/.claude/projects/p/s.jsonl"}`, env: paneEnv,
			wantMethod: MethodToolUse, want: map[string]any{"transcript_path": "/home/u/.claude/projects/p/s.jsonl"}},
		{name: "relative transcript path is left out", event: "Stop", stdin: `{"transcript_path":"t.jsonl"}`,
			env: paneEnv, wantMethod: MethodStop, absent: []string{"transcript_path"}},
		{name: "windows transcript path", event: "Stop", stdin: `{"transcript_path":"C:\\Users\\dev\\t.jsonl"}`,
			env: paneEnv, wantMethod: MethodStop, want: map[string]any{"transcript_path": `C:\Users\dev\t.jsonl`}},
		{name: "overlong transcript path is left out", event: "Stop",
			stdin: `{"transcript_path":"/` + strings.Repeat("a", MaxPath) + `"}`,
			env:   paneEnv, wantMethod: MethodStop, absent: []string{"transcript_path"}},
		{name: "session start without pid", event: "SessionStart", stdin: `{"session_id":"s"}`, env: paneEnv},
		{name: "session start with payload pid", event: "SessionStart", stdin: `{"session_id":"s","pid":77}`,
			env: paneEnv, wantMethod: MethodSessionStart, want: map[string]any{"pid": 77}},
		{name: "env pid wins over payload pid", event: "UserPromptSubmit", stdin: `{"pid":77}`,
			env: shimEnv("claude", "88"), wantMethod: MethodPromptSubmit, want: map[string]any{"pid": 88}},
		{name: "pid zero", event: "UserPromptSubmit", stdin: `{"pid":0}`, env: shimEnv("claude", "0"),
			wantMethod: MethodPromptSubmit, absent: []string{"pid"}},
		{name: "pid above 2^31-1", event: "UserPromptSubmit", stdin: `{}`, env: shimEnv("claude", "2147483648"),
			wantMethod: MethodPromptSubmit, absent: []string{"pid"}},
		{name: "largest pid", event: "UserPromptSubmit", stdin: `{}`, env: shimEnv("claude", "2147483647"),
			wantMethod: MethodPromptSubmit, want: map[string]any{"pid": MaxPID}},
		{name: "invalid tool falls back", event: "UserPromptSubmit", stdin: `{}`, env: shimEnv("claude code", "5"),
			wantMethod: MethodPromptSubmit, want: map[string]any{"tool": "claude"}},
		{name: "overlong tool falls back", event: "UserPromptSubmit", stdin: `{"turn_id":"1"}`,
			env: shimEnv(strings.Repeat("a", 65), "5"), wantMethod: MethodPromptSubmit, want: map[string]any{"tool": "codex"}},
		{name: "64-character tool", event: "UserPromptSubmit", stdin: `{}`, env: shimEnv(strings.Repeat("a", 64), "5"),
			wantMethod: MethodPromptSubmit, want: map[string]any{"tool": strings.Repeat("a", 64)}},
		{name: "unknown but valid tool", event: "Stop", stdin: `{}`, env: shimEnv("cursor-agent", "5"),
			wantMethod: MethodStop, want: map[string]any{"tool": "cursor-agent"}},
		{name: "gemini inferred from the payload event", event: "PreToolUse",
			stdin: `{"hook_event_name":"BeforeTool","tool_name":"read_file"}`, env: paneEnv,
			wantMethod: MethodToolUse, want: map[string]any{"tool": "gemini"}},
		{name: "exit", event: "Exit", env: shimEnv("codex", "5", EnvExitCode, "-1073741510"),
			wantMethod: MethodExit, want: map[string]any{"exit_code": -1073741510}},
		{name: "exit ignores stdin", event: "Exit", stdin: "garbage", env: shimEnv("codex", "5", EnvExitCode, "0"),
			wantMethod: MethodExit, want: map[string]any{"exit_code": 0}},
		{name: "exit without a code", event: "Exit", env: shimEnv("codex", "5")},
		{name: "exit code not a number", event: "Exit", env: shimEnv("codex", "5", EnvExitCode, "one")},
		{name: "exit code beyond 32 bits", event: "Exit", env: shimEnv("codex", "5", EnvExitCode, "4294967296")},
		{name: "session end ignores stdin", event: "SessionEnd", stdin: "garbage", env: shimEnv("codex", "5"),
			wantMethod: MethodSessionEnd, want: map[string]any{"pid": 5}},
		{name: "bare codex notify", event: `{"type":"agent-turn-complete","thread-id":"t1","last-assistant-message":"done"}`,
			env: paneEnv, wantMethod: MethodStop, want: map[string]any{"tool": "codex", "session_id": "t1", "last_result": "done"}},
		{name: "codex notify of another type", event: "codex-notify", argv: []string{`{"type":"approval-requested"}`}, env: paneEnv},
		{name: "argv payload wins over stdin", event: "Stop", argv: []string{`{"last-assistant-message":"from argv"}`},
			stdin: `{"last_assistant_message":"from stdin"}`, env: paneEnv,
			wantMethod: MethodStop, want: map[string]any{"last_result": "from argv"}},
		{name: "opencode permission without title", event: "permission.updated", stdin: `{"type":"permission.updated","properties":{}}`,
			env: paneEnv, wantMethod: MethodNotification, want: map[string]any{"message": "OpenCode needs permission", "tool": "opencode"}},
		{name: "permission request without input", event: "PermissionRequest", stdin: `{}`, env: paneEnv,
			wantMethod: MethodNotification, want: map[string]any{"message": "Permission requested", "notification_type": "permission_prompt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdin []byte
			if tt.stdin != "" {
				stdin = []byte(tt.stdin)
			}
			method, params, ok := Map(tt.event, tt.argv, stdin, getenv(tt.env))
			if tt.wantMethod == "" {
				if ok {
					t.Fatalf("Map(%q) = %s %v, want dropped", tt.event, method, params)
				}
				return
			}
			if !ok || method != tt.wantMethod {
				t.Fatalf("Map(%q) = %q, ok %v; want %q", tt.event, method, ok, tt.wantMethod)
			}
			for k, want := range tt.want {
				if got, ok := params[k]; !ok || got != want {
					t.Errorf("params[%q] = %#v, want %#v", k, got, want)
				}
			}
			for _, k := range tt.absent {
				if got, ok := params[k]; ok {
					t.Errorf("params[%q] = %#v, want absent", k, got)
				}
			}
		})
	}
}

func TestReadsStdin(t *testing.T) {
	tests := []struct {
		event string
		argv  []string
		want  bool
	}{
		{"Stop", nil, true},
		{"PreToolUse", []string{"extra"}, true},
		{"Exit", nil, false},
		{"SessionEnd", nil, false},
		{"NoSuchEvent", nil, false},
		{"codex-notify", []string{`{"type":"agent-turn-complete"}`}, false},
		{`{"type":"agent-turn-complete"}`, nil, false},
		{"Stop", []string{` {"last-assistant-message":"x"}`}, false},
	}
	for _, tt := range tests {
		if got := ReadsStdin(tt.event, tt.argv); got != tt.want {
			t.Errorf("ReadsStdin(%q, %q) = %v, want %v", tt.event, tt.argv, got, tt.want)
		}
	}
}

// TestMapWorstCaseSize builds, for every method, the payload that makes the
// biggest frame: every string far over its limit and made of characters
// that JSON escapes to six bytes.
func TestMapWorstCaseSize(t *testing.T) {
	nasty := strings.Repeat("\x01\u2028", 100000)
	q := strconv.Quote(nasty)
	all := `{"session_id":` + q + `,"tool_name":` + q + `,"message":` + q + `,"title":` + q +
		`,"last_result":` + q + `,"transcript_path":"/` + strings.Repeat(`\u2028`, MaxPath-1) + `"` +
		`,"notification_type":"permission_prompt","tool_input":{"command":` + q + `},"pid":12}`
	env := shimEnv(strings.Repeat("x", 64), "2147483647", EnvSurfaceID, "18446744073709551615",
		EnvWorkspaceID, "18446744073709551615", EnvExitCode, "-2147483648")
	for event := range events {
		t.Run(event, func(t *testing.T) {
			method, params, ok := Map(event, nil, []byte(all), getenv(env))
			if !ok {
				return
			}
			b, err := json.Marshal(params)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > MaxParamsBytes {
				t.Errorf("%s params are %d bytes, want at most %d", method, len(b), MaxParamsBytes)
			}
		})
	}
}

// FuzzMap checks that Map never panics and that whatever it sends is a
// known method whose params encode within MaxParamsBytes, far below the
// frame cap.
func FuzzMap(f *testing.F) {
	for _, tc := range goldenCases {
		payload, _ := os.ReadFile(filepath.Join("testdata", tc.name+".json"))
		f.Add(tc.event, payload, tc.argv, tc.env[EnvTool])
	}
	f.Add("Stop", []byte(`{"last_assistant_message":"x`), false, "")
	f.Add(`{"type":"agent-turn-complete"}`, []byte(nil), false, "codex")
	methods := map[string]bool{MethodSessionStart: true, MethodPromptSubmit: true, MethodToolUse: true,
		MethodNotification: true, MethodStop: true, MethodExit: true, MethodSessionEnd: true}
	f.Fuzz(func(t *testing.T, event string, payload []byte, inArgv bool, tool string) {
		env := shimEnv(tool, "4242", EnvExitCode, "3")
		var argv []string
		stdin := payload
		if inArgv {
			argv, stdin = []string{string(payload)}, nil
		}
		method, params, ok := Map(event, argv, stdin, getenv(env))
		if !ok {
			return
		}
		if !methods[method] {
			t.Fatalf("Map(%q) method %q is not an ai.* method", event, method)
		}
		b, err := json.Marshal(params)
		if err != nil {
			t.Fatalf("params do not encode: %v", err)
		}
		if len(b) > MaxParamsBytes || len(b) >= ipc.MaxFrame {
			t.Fatalf("params are %d bytes, want at most %d", len(b), MaxParamsBytes)
		}
		for k, v := range params {
			if s, ok := v.(string); ok && !utf8.ValidString(s) {
				t.Fatalf("params[%q] = %q is not valid UTF-8", k, s)
			}
		}
	})
}

func TestAnswer(t *testing.T) {
	long := strings.Repeat("word ", 2000) // longer than MaxLastResult: the artifact keeps all of it
	for _, c := range []struct {
		event string
		argv  []string
		stdin string
		want  string
		ok    bool
	}{
		{"Stop", nil, `{"hook_event_name":"Stop","last_assistant_message":"  all done  "}`, "all done", true},
		{"Stop", nil, `{"last_assistant_message":"` + long + `"}`, strings.TrimSpace(long), true},
		{"AfterAgent", nil, `{"prompt_response":"gemini says"}`, "gemini says", true},
		{"session.idle", nil, `{"last_result":"opencode says"}`, "opencode says", true},
		{"codex-notify", []string{`{"type":"agent-turn-complete","last-assistant-message":"codex says"}`}, "", "codex says", true},
		{"codex-notify", []string{`{"type":"something-else","last-assistant-message":"no"}`}, "", "", false},
		{"Stop", nil, `{"transcript_path":"/tmp/t.jsonl"}`, "", false},
		{"Stop", nil, `not json`, "", false},
		{"PreToolUse", nil, `{"last_assistant_message":"not a turn end"}`, "", false},
		{"Unknown", nil, `{"last_assistant_message":"x"}`, "", false},
	} {
		got, ok := Answer(c.event, c.argv, []byte(c.stdin))
		if got != c.want || ok != c.ok {
			t.Errorf("Answer(%s, %.60s) = %.60q, %v; want %.60q, %v", c.event, c.stdin, got, ok, c.want, c.ok)
		}
	}
}

// TestOpencodeEvents: every event the opencode plugin sends is one of
// opencode's own names, so the endpoint and the hook binary infer the
// tool from it.
func TestOpencodeEvents(t *testing.T) {
	for _, ev := range OpencodeEvents {
		if spec, ok := events[ev]; !ok || spec.tool != "opencode" {
			t.Errorf("%s: spec %+v, %v; want an opencode event", ev, spec, ok)
		}
	}
}
