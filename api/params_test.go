//go:build !windows

package api

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/workspace"
)

// errorCase is one request that must fail with code and a message
// (exact, or a prefix when prefix is set).
type errorCase struct {
	method, params string
	scripting      bool
	code           int
	msg            string
	prefix         bool
}

var errorCases = []errorCase{
	{method: "workspace.select", params: `{"index":5}`, code: ipc.CodeInvalidParams, msg: "Index out of bounds"},
	{method: "workspace.select", params: `{"index":-1}`, code: ipc.CodeInvalidParams, msg: "Index out of bounds"},
	{method: "workspace.select", params: `{"index":"x"}`, code: ipc.CodeInvalidParams, msg: "invalid params: field index: expected int, got string"},
	{method: "workspace.select", params: `[1]`, code: ipc.CodeInvalidParams, msg: "invalid params: expected an object"},
	{method: "workspace.close", params: `{}`, code: ipc.CodeInvalidParams, msg: "Cannot close last workspace"},
	{method: "workspace.close", params: `{"index":3}`, code: ipc.CodeInvalidParams, msg: "Index out of bounds"},
	{method: "workspace.create", params: `{"cwd":"/nonexistent/x"}`, code: ipc.CodeInvalidParams, msg: "cwd does not exist or is unreadable: /nonexistent/x (no such file or directory)"},
	{method: "workspace.create", params: `{"cwd":"/etc/passwd"}`, code: ipc.CodeInvalidParams, msg: "cwd is not a directory: /etc/passwd"},
	{method: "workspace.create", params: `{"layout":{"type":"tab"}}`, code: ipc.CodeInvalidParams, msg: `invalid layout: unknown variant "tab", expected "pane" or "split"`},
	{method: "workspace.create", params: `{"layout":{"type":"split","ratios":"x"}}`, code: ipc.CodeInvalidParams, msg: "invalid layout: ", prefix: true},
	{method: "workspace.restore_layout", params: `{}`, code: ipc.CodeInvalidParams, msg: "Missing 'layout' parameter"},
	{method: "workspace.restore_layout", params: `{"layout":null}`, code: ipc.CodeInvalidParams, msg: "Missing 'layout' parameter"},
	{method: "workspace.restore_layout", params: `{"layout":{}}`, code: ipc.CodeInvalidParams, msg: `Invalid layout JSON: missing field "type"`},
	{method: "workspace.up", params: `{}`, code: ipc.CodeInvalidParams, msg: "`panes` must be a non-empty array"},
	{method: "workspace.up", params: `{"panes":[]}`, code: ipc.CodeInvalidParams, msg: "`panes` must be a non-empty array"},
	{method: "workspace.up", params: `{"panes":[{"context":"notes"}]}`, code: ipc.CodeInvalidParams, msg: "pane 0: context is not supported yet"},
	{method: "workspace.up", params: `{"panes":[{},{"managed_worktree":{"path":"a","repo_root":"b"}}]}`, code: ipc.CodeInvalidParams, msg: "pane 1: managed_worktree is not supported by this server"},
	{method: "workspace.up", params: `{"panes":[{"profile":7}]}`, code: ipc.CodeInvalidParams, msg: "invalid params: field panes.profile: expected string, got number"},
	{method: "workspace.up", params: `{"panes":[{"cwd":"/nonexistent"}]}`, code: ipc.CodeInvalidParams, msg: "pane 0: cwd '/nonexistent' does not exist or is not a directory"},
	{method: "workspace.up", params: `{"panes":[` + strings.Repeat(`{},`, 64) + `{}]}`, code: ipc.CodeInvalidParams, msg: "layout exceeds maximum pane count (64)"},
	{method: "surface.read", params: `{"surface_id":999}`, code: ipc.CodeInvalidParams, msg: "surface_id 999 not found"},
	{method: "surface.read", params: `{"surface_id":0}`, code: ipc.CodeInvalidParams, msg: "surface_id 0 not found"},
	{method: "surface.read", params: `{"surface_id":-1}`, code: ipc.CodeInvalidParams, msg: "invalid params: ", prefix: true},
	{method: "surface.read", params: `{"name":"nope"}`, code: ipc.CodeInvalidParams, msg: "no surface named 'nope'; available: [shell]"},
	{method: "surface.read", params: `{"offset":-1}`, code: ipc.CodeInvalidParams, msg: "offset -1 out of range (total_lines=", prefix: true},
	{method: "surface.read", params: `{"offset":100000}`, code: ipc.CodeInvalidParams, msg: "offset 100000 out of range (total_lines=", prefix: true},
	{method: "surface.search", params: `{}`, code: ipc.CodeInvalidParams, msg: "missing or empty 'pattern' parameter"},
	{method: "surface.search", params: `{"pattern":"` + strings.Repeat("x", 513) + `","surface_id":999}`, code: ipc.CodeInvalidParams, msg: "pattern exceeds 512 bytes"},
	{method: "surface.search", params: `{"pattern":"x","surface_id":999}`, code: ipc.CodeInvalidParams, msg: "surface_id 999 not found"},
	{method: "surface.status", params: `{"name":"nope"}`, code: ipc.CodeInvalidParams, msg: "no surface named 'nope'; available: [shell]"},
	{method: "surface.rename", params: `{"surface_id":1}`, code: ipc.CodeInvalidParams, msg: "missing 'new_name' parameter"},
	{method: "surface.rename", params: `{"surface_id":7,"new_name":"x"}`, code: ipc.CodeInvalidParams, msg: "surface_id 7 not found"},
	{method: "surface.focus", params: `{}`, code: ipc.CodeInvalidParams, msg: "Missing 'surface_id' parameter"},
	{method: "surface.focus", params: `{"surface_id":999}`, code: ipc.CodeInvalidParams, msg: "Surface not found"},
	{method: "surface.split", params: `{}`, code: ipc.CodeInvalidParams, msg: `Missing or invalid 'direction' parameter (use "horizontal" or "vertical")`},
	{method: "surface.split", params: `{"direction":"Vertical"}`, code: ipc.CodeInvalidParams, msg: `Missing or invalid 'direction' parameter (use "horizontal" or "vertical")`},
	{method: "surface.split", params: `{"direction":"vertical","surface_id":999}`, code: ipc.CodeInvalidParams, msg: "Surface not found"},
	{method: "surface.split", params: `{"direction":"vertical","cwd":"/nonexistent"}`, code: ipc.CodeInvalidParams, msg: "cwd does not exist or is unreadable: /nonexistent (no such file or directory)"},
	{method: "surface.split", params: `{"direction":"vertical","context":"x"}`, code: ipc.CodeInvalidParams, msg: "context is not supported yet"},
	{method: "surface.resize", params: `{}`, code: ipc.CodeInvalidParams, msg: "Missing 'surface_id' parameter"},
	{method: "surface.resize", params: `{"surface_id":1}`, code: ipc.CodeInvalidParams, msg: "Missing 'cols' or 'rows' parameter"},
	{method: "surface.resize", params: `{"surface_id":1,"cols":0,"rows":5}`, code: ipc.CodeInvalidParams, msg: "cols and rows must be between 1 and 1000"},
	{method: "surface.resize", params: `{"surface_id":1,"cols":80,"rows":1001}`, code: ipc.CodeInvalidParams, msg: "cols and rows must be between 1 and 1000"},
	{method: "surface.resize", params: `{"surface_id":999,"cols":80,"rows":24}`, code: ipc.CodeInvalidParams, msg: "Surface not found"},
	{method: "surface.close", params: `{}`, code: ipc.CodeInvalidParams, msg: "Missing 'surface_id' parameter"},
	{method: "surface.close", params: `{"surface_id":999}`, code: ipc.CodeInvalidParams, msg: "Surface not found"},
	{method: "surface.send_text", params: `{"text":"x"}`, code: ipc.CodeMethodNotFound, msg: proto.MsgSendTextGate},
	{method: "surface.send_text", params: `{}`, scripting: true, code: ipc.CodeInvalidParams, msg: "Missing 'text' parameter"},
	{method: "surface.send_text", params: `{"text":"` + strings.Repeat("x", 65537) + `"}`, scripting: true, code: ipc.CodeInvalidParams, msg: "Text exceeds 64 KiB limit"},
	{method: "surface.send_text", params: `{"text":"x","surface_id":999}`, scripting: true, code: ipc.CodeInvalidParams, msg: "Surface not found"},
	{method: "surface.send_keystroke", params: `{"keystroke":"a"}`, code: ipc.CodeMethodNotFound, msg: proto.MsgSendKeystrokeGate},
	{method: "surface.send_keystroke", params: `{}`, scripting: true, code: ipc.CodeInvalidParams, msg: "Missing 'keystroke' parameter"},
	{method: "surface.send_keystroke", params: `{"keystroke":"a\n"}`, scripting: true, code: ipc.CodeInvalidParams, msg: "keystroke must not contain CR or LF bytes"},
	{method: "surface.send_keystroke", params: `{"keystroke":"\r","surface_id":999}`, scripting: true, code: ipc.CodeInvalidParams, msg: "keystroke must not contain CR or LF bytes"},
	{method: "surface.send_keystroke", params: `{"keystroke":"a","surface_id":999}`, scripting: true, code: ipc.CodeInvalidParams, msg: "No active terminal"},
	{method: "surface.send_keystroke", params: `{"keystroke":"hyper-x"}`, scripting: true, code: ipc.CodeInvalidParams, msg: `Invalid keystroke "hyper-x": unknown modifier "hyper" in key "hyper-x"`},
	{method: "surface.send_keystroke", params: `{"keystroke":"enter"}`, scripting: true, code: ipc.CodeInvalidParams, msg: "keystroke 'enter' would submit (CR/LF); use surface.send_text with submit=true (`paneflow send --submit`) instead"},
	{method: "surface.send_keystroke", params: `{"keystroke":"ctrl-m"}`, scripting: true, code: ipc.CodeInvalidParams, msg: "keystroke 'ctrl-m' would submit", prefix: true},
	{method: "surface.send_keystroke", params: `{"keystroke":"ctrl-j"}`, scripting: true, code: ipc.CodeInvalidParams, msg: "keystroke 'ctrl-j' would submit", prefix: true},
	{method: "surface.send_keystroke", params: `{"keystroke":"shift-enter"}`, scripting: true, code: ipc.CodeInvalidParams, msg: "keystroke 'shift-enter' would submit", prefix: true},
	{method: "surface.send_keystroke", params: `{"keystroke":"alt-enter"}`, scripting: true, code: ipc.CodeInvalidParams, msg: "keystroke 'alt-enter' would submit", prefix: true},
	{method: "surface.wait", params: `{}`, code: ipc.CodeInvalidParams, msg: "missing or empty 'surface_ids' parameter"},
	{method: "surface.wait", params: `{"surface_ids":[1]}`, code: ipc.CodeInvalidParams, msg: "missing 'pattern' parameter (required unless idle_ms is set)"},
	{method: "surface.wait", params: `{"surface_ids":[1],"pattern":"("}`, code: ipc.CodeInvalidParams, msg: "invalid pattern: missing closing ): `(`"},
	{method: "surface.wait", params: `{"surface_ids":[1],"pattern":"x","mode":"some"}`, code: ipc.CodeInvalidParams, msg: `mode must be "any" or "all"`},
	{method: "surface.wait", params: `{"surface_ids":[1],"idle_ms":-1}`, code: ipc.CodeInvalidParams, msg: "idle_ms must not be negative"},
	{method: "surface.wait", params: `{"surface_ids":[1],"pattern":"x","timeout_ms":-5}`, code: ipc.CodeInvalidParams, msg: "timeout_ms must not be negative"},
	{method: "surface.wait", params: `{"surface_ids":[1,999],"pattern":"x"}`, code: ipc.CodeInvalidParams, msg: "surface_id 999 not found"},
	{method: "surface.wait", params: `{"surface_ids":[1],"pattern":"x","timeout_ms":0}`, code: ipc.CodeTimeout, msg: "wait timed out after 0s"},
	{method: "surface.wait", params: `{"surface_ids":[1],"pattern":"x","timeout_ms":150}`, code: ipc.CodeTimeout, msg: "wait timed out after 0.15s"},
}

func TestErrors(t *testing.T) {
	e := newEnv(t, workspace.Options{}, Options{}).withWorkspace(t.TempDir())
	for _, tc := range errorCases {
		name := tc.method + " " + tc.params
		if len(name) > 80 {
			name = name[:80]
		}
		t.Run(name, func(t *testing.T) {
			e.scripting.Store(tc.scripting)
			res, err := e.call(tc.method, tc.params)
			if err == nil {
				t.Fatalf("got result %+v, want error %d %q", res, tc.code, tc.msg)
			}
			ie := rpcErr(t, err)
			if ie.Code != tc.code {
				t.Errorf("code = %d, want %d (message %q)", ie.Code, tc.code, ie.Message)
			}
			if tc.prefix && !strings.HasPrefix(ie.Message, tc.msg) || !tc.prefix && ie.Message != tc.msg {
				t.Errorf("message = %q, want %q (prefix %v)", ie.Message, tc.msg, tc.prefix)
			}
		})
	}
}

func TestSubscribeParams(t *testing.T) {
	tests := []struct {
		params  string
		wantErr string
	}{
		{`{}`, ""},
		{`{"types":["surface_changed","workspace_created"]}`, ""},
		{`{"types":"all"}`, ""},
		{`{"surfaces":[1,"x",2]}`, ""},
		{`{"types":["nope"]}`, "unknown event type: nope"},
		{`{"types":["surface_changed",7]}`, "unknown event type: 7"},
		{`{"types":["ai.stop","ai.notification","agent_state"]}`, ""},
		{`{"types":["ai.bogus"]}`, "unknown event type: ai.bogus"},
		{`[]`, "invalid params: expected an object"},
	}
	for _, tt := range tests {
		t.Run(tt.params, func(t *testing.T) {
			_, err := subscribeFilter(json.RawMessage(tt.params))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("subscribeFilter: %v", err)
				}
				return
			}
			if ie := rpcErr(t, err); ie.Code != ipc.CodeInvalidParams || ie.Message != tt.wantErr {
				t.Errorf("error = %d %q, want -32602 %q", ie.Code, ie.Message, tt.wantErr)
			}
		})
	}
}

// TestClamps checks defaults and clamps of read and search.
func TestClamps(t *testing.T) {
	e := newEnv(t, workspace.Options{Cols: 120, Rows: 10}, Options{}).withWorkspace(t.TempDir())
	sf := e.split(`i=1; while [ $i -le 300 ]; do echo "row $i"; i=$((i+1)); done; echo END; exec cat`)
	waitText(t, sf, "END")
	id := sf.ID()
	type readRes struct {
		Text       string `json:"text"`
		Lines      int    `json:"lines"`
		TotalLines int    `json:"total_lines"`
		EOF        bool   `json:"eof"`
	}
	tests := []struct {
		params    string
		lines     int
		eof       bool
		first     string
		wantTotal int
	}{
		{`{}`, 200, false, "row 102", 301},
		{`{"lines":0}`, 1, false, "END", 301},
		{`{"lines":-4}`, 1, false, "END", 301},
		{`{"lines":99999}`, 301, true, "row 1", 301},
		{`{"lines":10,"offset":291}`, 10, true, "row 1", 301},
		{`{"lines":10,"offset":295}`, 6, true, "row 1", 301},
		{`{"lines":10,"offset":301}`, 0, true, "", 301},
	}
	for _, tt := range tests {
		t.Run(tt.params, func(t *testing.T) {
			var p map[string]any
			_ = json.Unmarshal([]byte(tt.params), &p)
			p["surface_id"] = id
			p["fenced"] = false
			b, _ := json.Marshal(p)
			var r readRes
			e.ok("surface.read", string(b), &r)
			if r.Lines != tt.lines || r.EOF != tt.eof || r.TotalLines != tt.wantTotal {
				t.Errorf("lines %d eof %v total %d, want %d %v %d", r.Lines, r.EOF, r.TotalLines, tt.lines, tt.eof, tt.wantTotal)
			}
			first, _, _ := strings.Cut(r.Text, "\n")
			if first != tt.first {
				t.Errorf("first line = %q, want %q", first, tt.first)
			}
			if got := strings.Count(r.Text, "\n") + 1; r.Text != "" && got != r.Lines {
				t.Errorf("text has %d lines, result says %d", got, r.Lines)
			}
		})
	}
	type searchRes struct {
		Matches []struct {
			Line int    `json:"line"`
			Text string `json:"text"`
		} `json:"matches"`
		Truncated bool `json:"truncated"`
	}
	for _, tt := range []struct {
		params    string
		n         int
		truncated bool
	}{
		{`"pattern":"ROW"`, 50, true},
		{`"pattern":"row","max_matches":0`, 1, true},
		{`"pattern":"row","max_matches":5000`, 300, false},
		{`"pattern":"row 30"`, 2, false}, // rows 30 and 300
	} {
		var r searchRes
		e.ok("surface.search", `{"surface_id":`+itoa(id)+`,`+tt.params+`}`, &r)
		if len(r.Matches) != tt.n || r.Truncated != tt.truncated {
			t.Errorf("search %s: %d matches, truncated %v; want %d, %v", tt.params, len(r.Matches), r.Truncated, tt.n, tt.truncated)
		}
		if len(r.Matches) > 0 && (r.Matches[0].Line >= 0 || !strings.HasPrefix(strings.ToLower(r.Matches[0].Text), "row")) {
			t.Errorf("search %s: first match %+v, want a scrollback row (negative line)", tt.params, r.Matches[0])
		}
	}
}

func itoa(v uint64) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// FuzzParams feeds arbitrary params to every method: none may panic, and
// every result must encode. Panes run cat, so nothing typed is executed.
func FuzzParams(f *testing.F) {
	for _, tc := range errorCases {
		f.Add(tc.method, []byte(tc.params))
	}
	for _, seed := range []struct{ m, p string }{
		{"surface.read", `{"lines":3,"fenced":true}`},
		{"surface.send_text", `{"text":"\u001b[201~x","submit":true,"paste":true}`},
		{"surface.send_keystroke", `{"keystroke":"ctrl-shift-up"}`},
		{"workspace.create", `{"layout":{"type":"split","children":[{"type":"pane"}],"ratio":2}}`},
		{"surface.wait", `{"surface_ids":[1],"idle_ms":1}`},
		{"events.subscribe", `{"types":["surface_changed"],"surfaces":[1]}`},
		{"screen.rows", `{"surface_id":1,"from":0,"to":5}`},
		{"screen.lines", `{"surface_id":1,"from":-3,"to":9999999999}`},
	} {
		f.Add(seed.m, []byte(seed.p))
	}
	e := newEnv(f, workspace.Options{Shell: []string{"cat"}, MaxWorkspaces: 2, MaxPanes: 3, Cols: 40, Rows: 5}, Options{})
	e.scripting.Store(true)
	e.withWorkspace(f.TempDir())
	f.Fuzz(func(t *testing.T, method string, params []byte) {
		if method == "events.subscribe" {
			_, _ = subscribeFilter(params)
			return
		}
		h, ok := e.handlers[method]
		if !ok {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		res, err := h(ctx, params)
		if err != nil {
			return
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("%s %s: result does not encode: %v", method, params, err)
		}
	})
}
