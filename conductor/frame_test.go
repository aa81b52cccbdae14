package conductor

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

func TestDecodeFrame(t *testing.T) {
	abs, _ := filepath.Abs("transcript.jsonl")
	tests := []struct {
		name    string
		method  string
		params  string
		want    frame
		wantErr string
	}{
		{"hook binary's frame", MethodNotification,
			`{"workspace_id":2,"surface_id":7,"pid":4242,"tool":"claude","session_id":"s","notification_type":"permission_prompt","message":"Claude needs your permission to use Bash"}`,
			frame{workspaceID: 2, surfaceID: 7, pid: 4242, tool: "claude", sessionID: "s", message: "Claude needs your permission to use Bash"}, ""},
		{"absent params", MethodPromptSubmit, ``, frame{}, ""},
		{"null params", MethodPromptSubmit, `null`, frame{}, ""},
		{"null fields are absent", MethodPromptSubmit, `{"pid":null,"tool":null,"surface_id":null}`, frame{}, ""},
		{"original's hook_payload fallbacks", MethodToolUse,
			`{"workspace_id":1,"hook_payload":{"surface_id":3,"tool":"codex","tool_name":"Bash","tool_input":{"command":"ls"}}}`,
			frame{workspaceID: 1, surfaceID: 3, tool: "codex", toolName: "Bash"}, ""},
		{"top level wins over hook_payload", MethodToolUse,
			`{"surface_id":1,"tool_name":"Edit","hook_payload":{"tool_name":"Bash"}}`,
			frame{surfaceID: 1, toolName: "Edit"}, ""},
		{"payload fields of the wrong type are ignored", MethodToolUse,
			`{"surface_id":1,"hook_payload":{"tool_name":7,"surface_id":"x"}}`, frame{surfaceID: 1}, ""},
		{"tool name is one line", MethodToolUse, "{\"tool_name\":\"mcp__x\\nEvil\"}", frame{toolName: "mcp__x Evil"}, ""},
		{"stop: last_result first", MethodStop, `{"last_result":"A","summary":"B","result":"C"}`, frame{lastResult: "A"}, ""},
		{"stop: summary when last_result is blank", MethodStop, `{"last_result":"  ","summary":"B"}`, frame{lastResult: "B"}, ""},
		{"stop: result", MethodStop, `{"result":"C"}`, frame{lastResult: "C"}, ""},
		{"stop: from hook_payload", MethodStop, `{"hook_payload":{"summary":"S"}}`, frame{lastResult: "S"}, ""},
		{"stop: transcript when there is no text", MethodStop, `{"transcript_path":` + jsonString(abs) + `}`, frame{transcriptPath: abs}, ""},
		{"stop: relative transcript ignored", MethodStop, `{"transcript_path":"t.jsonl"}`, frame{}, ""},
		{"stop: text wins over transcript", MethodStop, `{"last_result":"R","transcript_path":` + jsonString(abs) + `}`, frame{lastResult: "R", transcriptPath: abs}, ""},
		{"every frame's transcript", MethodToolUse, `{"tool_name":"Bash","transcript_path":` + jsonString(abs) + `,"session_id":"s1"}`,
			frame{toolName: "Bash", transcriptPath: abs, sessionID: "s1"}, ""},
		{"relative transcript ignored", MethodPromptSubmit, `{"transcript_path":"t.jsonl"}`, frame{}, ""},
		{"exit", MethodExit, `{"exit_code":130}`, frame{exitCode: 130}, ""},
		{"exit negative", MethodExit, `{"exit_code":-1073741510}`, frame{exitCode: -1073741510}, ""},
		{"exit from hook_payload", MethodExit, `{"hook_payload":{"exit_code":2}}`, frame{exitCode: 2}, ""},
		{"exit without code", MethodExit, `{"surface_id":1}`, frame{}, "invalid params: ai.exit needs exit_code"},
		{"exit code too big", MethodExit, `{"exit_code":4294967296}`, frame{}, "invalid params: exit_code 4294967296 does not fit 32 bits"},
		{"exit code not a number", MethodExit, `{"exit_code":"1"}`, frame{}, "invalid params: field exit_code: expected int64, got string"},
		{"unknown tool names are accepted", MethodPromptSubmit, `{"tool":"aider-2"}`, frame{tool: "aider-2"}, ""},
		{"bad tool", MethodPromptSubmit, `{"tool":"rm -rf"}`, frame{}, `invalid params: tool must be 1 to 64 of A-Z a-z 0-9 -, got "rm -rf"`},
		{"empty tool", MethodPromptSubmit, `{"tool":""}`, frame{}, `invalid params: tool must be 1 to 64 of A-Z a-z 0-9 -, got ""`},
		{"long tool", MethodPromptSubmit, `{"tool":"` + strings.Repeat("a", 65) + `"}`, frame{}, `invalid params: tool must be 1 to 64 of A-Z a-z 0-9 -, got "` + strings.Repeat("a", 65) + `"`},
		{"pid 0", MethodPromptSubmit, `{"pid":0}`, frame{}, "invalid params: pid must be 1 to 2147483647, got 0"},
		{"pid too big", MethodPromptSubmit, `{"pid":2147483648}`, frame{}, "invalid params: pid must be 1 to 2147483647, got 2147483648"},
		{"pid max", MethodPromptSubmit, `{"pid":2147483647}`, frame{pid: 2147483647}, ""},
		{"pid string", MethodPromptSubmit, `{"pid":"42"}`, frame{}, "invalid params: field pid: expected int64, got string"},
		{"negative surface", MethodPromptSubmit, `{"surface_id":-1}`, frame{}, "invalid params: field surface_id: expected uint64, got number -1"},
		{"not an object", MethodPromptSubmit, `[1]`, frame{}, "invalid params: expected an object"},
		{"hook_payload not an object", MethodPromptSubmit, `{"hook_payload":"x"}`, frame{}, "invalid params: hook_payload must be an object"},
		{"broken JSON", MethodPromptSubmit, `{"pid":`, frame{}, "invalid params: unexpected end of JSON input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeFrame(tt.method, json.RawMessage(tt.params))
			if tt.wantErr != "" {
				var ie *ipc.Error
				if !errors.As(err, &ie) || ie.Code != ipc.CodeInvalidParams || ie.Message != tt.wantErr {
					t.Fatalf("decodeFrame error = %v, want -32602 %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("decodeFrame: %v", err)
			}
			tt.want.method = tt.method
			if got != tt.want {
				t.Errorf("decodeFrame = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestSanitize(t *testing.T) {
	tests := []struct {
		in         string
		max        int
		singleLine bool
		want       string
	}{
		{"  Allow Bash?  ", 512, false, "Allow Bash?"},
		{"line 1\r\nline 2\rline 3", 512, false, "line 1\nline 2\nline 3"},
		{"line 1\nline 2", 512, true, "line 1 line 2"},
		{"a\tb", 512, false, "a b"},
		{"safe\u202egnp.exe", 512, false, "safegnp.exe"}, // right-to-left override
		{"\u2066isolate\u2069 \u200emark\u200f", 512, false, "isolate mark"},
		{"zero\u200bwidth\ufeff\u2060", 512, false, "zerowidth"},
		{"bell\a esc\x1b[31m red \u009b c1", 512, false, "bell esc[31m red  c1"},
		{"\x00\x01", 512, false, ""},
		{"   \n\t ", 512, false, ""},
		{"bad \xff utf8", 512, false, "bad \uFFFD utf8"},
		{strings.Repeat("é", 600), 512, false, strings.Repeat("é", 512)},
		{"abcde   fgh", 8, false, "abcde"},
		{"日本語のテキスト", 3, false, "日本語"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := sanitize(tt.in, tt.max, tt.singleLine); got != tt.want {
				t.Errorf("sanitize(%q, %d, %v) = %q, want %q", tt.in, tt.max, tt.singleLine, got, tt.want)
			}
		})
	}
}

// FuzzDecodeFrame checks that any params decode without panicking, and
// that an accepted frame is within every limit.
func FuzzDecodeFrame(f *testing.F) {
	for _, seed := range []string{
		`{"workspace_id":2,"surface_id":7,"pid":4242,"tool":"claude","message":"Allow?"}`,
		`{"hook_payload":{"tool_name":"Bash","message":"x","last_result":"y","surface_id":3,"exit_code":1}}`,
		`{"exit_code":-1073741510,"last_result":"\u202e\u200b ok"}`,
		`{"transcript_path":"/tmp/t.jsonl"}`,
		`{"pid":2147483648}`, `[]`, `null`, ``, `{"tool":"a b"}`,
	} {
		for i := range methods {
			f.Add(i, []byte(seed))
		}
	}
	f.Fuzz(func(t *testing.T, m int, params []byte) {
		method := methods[((m%len(methods))+len(methods))%len(methods)]
		fr, err := decodeFrame(method, params)
		if err != nil {
			var ie *ipc.Error
			if !errors.As(err, &ie) || ie.Code != ipc.CodeInvalidParams {
				t.Fatalf("error %v is not -32602", err)
			}
			return
		}
		if fr.method != method {
			t.Errorf("method = %q, want %q", fr.method, method)
		}
		if fr.pid < 0 || fr.pid > maxPID {
			t.Errorf("pid %d out of range", fr.pid)
		}
		if fr.tool != "" && !proto.ValidTool(fr.tool) {
			t.Errorf("invalid tool %q accepted", fr.tool)
		}
		for _, c := range []struct {
			s   string
			max int
		}{{fr.message, MaxMessage}, {fr.lastResult, MaxLastResult}, {fr.toolName, MaxActiveToolName}} {
			if !utf8.ValidString(c.s) || utf8.RuneCountInString(c.s) > c.max || c.s != strings.TrimSpace(c.s) {
				t.Errorf("text %q not sanitized to %d runes", c.s, c.max)
			}
			for _, r := range c.s {
				if invisible(r) {
					t.Errorf("text %q keeps invisible %U", c.s, r)
				}
			}
		}
		if strings.ContainsRune(fr.toolName, '\n') {
			t.Errorf("tool name %q has a newline", fr.toolName)
		}
		if fr.transcriptPath != "" && (!filepath.IsAbs(fr.transcriptPath) || fr.lastResult != "") {
			t.Errorf("transcript path %q accepted with last_result %q", fr.transcriptPath, fr.lastResult)
		}
	})
}

func TestLastAssistantText(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, content, want string
	}{
		{"last main-thread assistant text",
			`{"type":"user","message":{"content":"hi"}}
{"type":"assistant","message":{"content":[{"type":"text","text":"First answer."}]}}
{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash"}]}}
{"type":"assistant","isSidechain":true,"message":{"content":[{"type":"text","text":"subagent"}]}}
{"type":"assistant","message":{"content":[{"type":"text","text":"Done:"},{"type":"thinking","thinking":"x"},{"type":"text","text":"all tests pass."}]}}
{"type":"user","message":{"content":[{"type":"tool_result","content":"ok"}]}}
`, "Done:\nall tests pass."},
		{"string content", `{"type":"assistant","message":{"content":"  plain  "}}` + "\n", "plain"},
		{"no assistant text", `{"type":"assistant","message":{"content":[{"type":"tool_use"}]}}` + "\n" + `not json` + "\n", ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := lastAssistantText(write(tt.name, tt.content)); got != tt.want {
				t.Errorf("lastAssistantText = %q, want %q", got, tt.want)
			}
		})
	}
	if got := lastAssistantText(filepath.Join(dir, "missing")); got != "" {
		t.Errorf("missing file = %q, want empty", got)
	}
	if got := lastAssistantText(dir); got != "" {
		t.Errorf("directory = %q, want empty", got)
	}

	// A transcript over the cap: only its tail is read, and the last
	// answer is found there.
	var b strings.Builder
	filler := `{"type":"user","message":{"content":"` + strings.Repeat("x", 1000) + `"}}` + "\n"
	for b.Len() < maxTranscript+100_000 {
		b.WriteString(filler)
	}
	b.WriteString(`{"type":"assistant","message":{"content":[{"type":"text","text":"tail answer"}]}}` + "\n")
	if got := lastAssistantText(write("big.jsonl", b.String())); got != "tail answer" {
		t.Errorf("big transcript = %q, want %q", got, "tail answer")
	}
}

// TestStopReadsTranscript checks that a stop with only a transcript path
// gets its last_result from the transcript, published as agent_state.
func TestStopReadsTranscript(t *testing.T) {
	h := newHarness(t, Options{})
	p := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(p, []byte(`{"type":"assistant","message":{"content":[{"type":"text","text":"Refactored the parser."}]}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.mustSend(MethodPromptSubmit, `{"surface_id":1}`)
	h.mustSend(MethodStop, `{"surface_id":1,"transcript_path":`+jsonString(p)+`}`)
	h.c.wg.Wait() // the reader goroutine
	if st := h.status(1); st.State != Finished || deref(st.LastResult) != "Refactored the parser." {
		t.Errorf("status = %s %q, want finished with the transcript's answer", st.State, deref(st.LastResult))
	}
	if got, want := h.states(), []string{"1:claude:>thinking", "1:claude:thinking>finished", "1:claude:finished>finished"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("agent_state = %q, want %q", got, want)
	}

	// A frame that arrives before the read ends wins over it.
	h.mustSend(MethodPromptSubmit, `{"surface_id":1}`)
	h.mustSend(MethodStop, `{"surface_id":1,"transcript_path":`+jsonString(p)+`}`)
	h.mustSend(MethodPromptSubmit, `{"surface_id":1}`)
	h.c.wg.Wait()
	if st := h.status(1); st.State != Thinking {
		t.Errorf("status = %s, want thinking (the late transcript read must not change it)", st.State)
	}
}
