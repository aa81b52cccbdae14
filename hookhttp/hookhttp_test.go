package hookhttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/paneflow-go/paneflow/hook"
	"github.com/paneflow-go/paneflow/hookhttp"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// frameLog records the frames the endpoint hands to the state machine.
type frameLog struct {
	mu     sync.Mutex
	frames []string // "method params"
	err    error    // returned by Frame when set
	dir    string   // the artifact root's base (XDG_DATA_HOME)
}

func (l *frameLog) frame(method string, params json.RawMessage) (any, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return nil, l.err
	}
	l.frames = append(l.frames, method+" "+string(params))
	return map[string]any{"ok": true}, nil
}

func (l *frameLog) got() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.frames...)
}

// open starts an endpoint whose artifacts go to a temporary directory.
func open(t *testing.T) (*hookhttp.Endpoint, *frameLog, string, string) {
	t.Helper()
	e, log := endpoint(t, nil)
	r, err := e.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Shutdown(context.Background()) })
	if !strings.HasPrefix(r.URL, "http://127.0.0.1:") || !strings.HasSuffix(r.URL, hookhttp.Path) || len(r.Token) != 64 {
		t.Fatalf("Open = %+v", r)
	}
	again, err := e.Open()
	if err != nil || again != r {
		t.Fatalf("second Open = %+v, %v; want %+v", again, err, r)
	}
	return e, log, r.URL, r.Token
}

// endpoint makes a closed endpoint whose frames go to the returned log and
// artifacts to a temporary directory.
func endpoint(t *testing.T, workspaceOf func(uint64) (uint64, bool)) (*hookhttp.Endpoint, *frameLog) {
	log := &frameLog{dir: t.TempDir()}
	dir := log.dir
	return hookhttp.New(hookhttp.Options{Frame: log.frame, Getenv: func(k string) string {
		if k == "XDG_DATA_HOME" || k == "HOME" {
			return dir
		}
		return ""
	}, WorkspaceOf: workspaceOf}), log
}

const ids = "&surface=7&workspace=2&tool=claude&pid=4242"

// post sends a hook POST as Claude Code 2.1.332 does, changed by edit.
func post(t *testing.T, url, token, query, body string, edit func(*http.Request)) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"?"+query, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set(hookhttp.MarkHeader, "1")
	req.Header.Set("User-Agent", "axios/1.15.2")
	if edit != nil {
		edit(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The payloads Claude Code 2.1.332 posted in print mode (captured with an
// http hook against the fake model).
const (
	prompt  = `{"session_id":"48568160-815d-4ae9-ad46-25f13bac136a","transcript_path":"/tmp/p/s.jsonl","cwd":"/tmp/p","prompt_id":"c3ad","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"run the echo please"}`
	preTool = `{"session_id":"48568160-815d-4ae9-ad46-25f13bac136a","transcript_path":"/tmp/p/s.jsonl","cwd":"/tmp/p","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"echo from-bash"},"tool_use_id":"call_0_0"}`
	stop    = `{"session_id":"48568160-815d-4ae9-ad46-25f13bac136a","transcript_path":"/tmp/p/s.jsonl","cwd":"/tmp/p","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"All done here.","background_tasks":[],"session_crons":[]}`
)

// TestFramesAsTheHookBinary: each payload becomes exactly the frame
// hook.Map makes of it for the command hook with the same environment, in
// order: Claude Code's http hooks, and opencode's events as the launch
// shim's plugin posts them.
func TestFramesAsTheHookBinary(t *testing.T) {
	for _, tc := range []struct {
		tool, last string
		posts      []struct{ event, body string }
	}{
		{"claude", "All done here.", []struct{ event, body string }{{"UserPromptSubmit", prompt}, {"PreToolUse", preTool}, {"Stop", stop}}},
		{"opencode", "opencode is done.", []struct{ event, body string }{
			{"chat.message", `{"session_id":"ses_1"}`},
			{"tool.execute.before", `{"tool_name":"bash","session_id":"ses_1"}`},
			{"session.idle", `{"type":"session.idle","session_id":"ses_1","last_assistant_message":"opencode is done."}`},
		}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			_, log, endpoint, token := open(t)
			env := map[string]string{hook.EnvSurfaceID: "7", hook.EnvWorkspaceID: "2", hook.EnvTool: tc.tool, hook.EnvPID: "4242"}
			var want []string
			for _, c := range tc.posts {
				q := "event=" + url.QueryEscape(c.event) + strings.Replace(ids, "tool=claude", "tool="+tc.tool, 1)
				if code, msg := post(t, endpoint, token, q, c.body, nil); code != http.StatusOK {
					t.Fatalf("%s: %d %s", c.event, code, msg)
				}
				m, p, ok := hook.Map(c.event, nil, []byte(c.body), func(k string) string { return env[k] })
				if !ok {
					t.Fatalf("hook.Map(%s) sends nothing", c.event)
				}
				raw, _ := json.Marshal(p)
				want = append(want, m+" "+string(raw))
			}
			if got := log.got(); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("frames:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			var answers []string
			filepath.WalkDir(log.dir, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), tc.last) {
						answers = append(answers, p)
					}
				}
				return nil
			})
			if len(answers) == 0 {
				t.Errorf("the turn's answer was not kept as an artifact under %s", log.dir)
			}
			if !strings.Contains(want[2], `"last_result":"`+tc.last+`"`) || !strings.Contains(want[1], `"tool_name":`) ||
				!strings.Contains(want[0], `"tool":"`+tc.tool+`"`) {
				t.Fatalf("the frames miss their fields: %q", want)
			}
		})
	}
}

// TestIdsFromHeaders: the pane's ids in hook.HTTPHookHeaders, as Claude
// Code sends them interpolated from the posting process's environment,
// make the same frame as in the query; a header wins over the query (a
// teammate posting with its own pane's ids through the lead's hooks),
// and an empty one (its variable unset) counts as absent.
func TestIdsFromHeaders(t *testing.T) {
	_, log, url, token := open(t)
	headers := func(surface, workspace, pid string) func(*http.Request) {
		return func(r *http.Request) {
			r.Header.Set("X-Paneflow-Surface", surface)
			r.Header.Set("X-Paneflow-Workspace", workspace)
			r.Header.Set("X-Paneflow-Pid", pid)
		}
	}
	frame := func(env map[string]string) string {
		m, p, ok := hook.Map("Stop", nil, []byte(stop), func(k string) string { return env[k] })
		if !ok {
			t.Fatal("hook.Map(Stop) sends nothing")
		}
		raw, _ := json.Marshal(p)
		return m + " " + string(raw)
	}
	for _, c := range []struct {
		name, query string
		edit        func(*http.Request)
		env         map[string]string
	}{
		{"headers only", "event=Stop&tool=claude", headers("7", "2", "4242"),
			map[string]string{hook.EnvSurfaceID: "7", hook.EnvWorkspaceID: "2", hook.EnvTool: "claude", hook.EnvPID: "4242"}},
		{"header over query", "event=Stop" + ids, headers("9", "3", "5151"),
			map[string]string{hook.EnvSurfaceID: "9", hook.EnvWorkspaceID: "3", hook.EnvTool: "claude", hook.EnvPID: "5151"}},
		{"empty headers", "event=Stop&tool=claude&surface=7", headers("", "", ""),
			map[string]string{hook.EnvSurfaceID: "7", hook.EnvTool: "claude"}},
	} {
		if code, msg := post(t, url, token, c.query, stop, c.edit); code != http.StatusOK {
			t.Fatalf("%s: %d %s", c.name, code, msg)
		}
		got := log.got()
		if want := frame(c.env); len(got) == 0 || got[len(got)-1] != want {
			t.Errorf("%s: frame %q, want %q", c.name, got, want)
		}
	}
	for _, c := range []struct {
		name string
		edit func(*http.Request)
	}{
		{"bad pane header", headers("x", "2", "1")},
		{"bad workspace header", headers("7", "0", "1")},
	} {
		if code, _ := post(t, url, token, "event=Stop&tool=claude", stop, c.edit); code != http.StatusBadRequest {
			t.Errorf("%s: %d, want %d", c.name, code, http.StatusBadRequest)
		}
	}
	if code, _ := post(t, url, token, "event=Stop&tool=claude", stop, headers("", "2", "1")); code != http.StatusBadRequest {
		t.Errorf("no pane in header or query: %d, want %d", code, http.StatusBadRequest)
	}
}

// TestRefused: every request that is not Claude Code's hook POST with the
// secret is refused with a reason, and reaches no state machine.
func TestRefused(t *testing.T) {
	_, log, url, token := open(t)
	okQuery := "event=Stop" + ids
	cases := []struct {
		name  string
		query string
		body  string
		edit  func(*http.Request)
		code  int
	}{
		{"no secret", okQuery, stop, func(r *http.Request) { r.Header.Del("Authorization") }, http.StatusUnauthorized},
		{"wrong secret", okQuery, stop, func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+strings.Repeat("0", 64)) }, http.StatusUnauthorized},
		{"secret prefix", okQuery, stop, func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token[:63]) }, http.StatusUnauthorized},
		{"secret not bearer", okQuery, stop, func(r *http.Request) { r.Header.Set("Authorization", token) }, http.StatusUnauthorized},
		{"empty interpolation", okQuery, stop, func(r *http.Request) { r.Header.Set("Authorization", "Bearer ") }, http.StatusUnauthorized},
		{"no mark header", okQuery, stop, func(r *http.Request) { r.Header.Del(hookhttp.MarkHeader) }, http.StatusForbidden},
		{"browser origin", okQuery, stop, func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") }, http.StatusForbidden},
		{"browser fetch", okQuery, stop, func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") }, http.StatusForbidden},
		{"form post", okQuery, stop, func(r *http.Request) { r.Header.Set("Content-Type", "text/plain") }, http.StatusUnsupportedMediaType},
		{"no content type", okQuery, stop, func(r *http.Request) { r.Header.Del("Content-Type") }, http.StatusUnsupportedMediaType},
		{"rebinding host", okQuery, stop, func(r *http.Request) { r.Host = "evil.example:80" }, http.StatusMisdirectedRequest},
		{"GET", okQuery, "", func(r *http.Request) { r.Method = http.MethodGet }, http.StatusMethodNotAllowed},
		{"preflight", okQuery, "", func(r *http.Request) { r.Method = http.MethodOptions }, http.StatusMethodNotAllowed},
		{"other path", okQuery, stop, func(r *http.Request) { r.URL.Path = "/other" }, http.StatusNotFound},
		{"unknown event", "event=SessionStart" + ids, stop, nil, http.StatusBadRequest},
		{"no event", strings.TrimPrefix(ids, "&"), stop, nil, http.StatusBadRequest},
		{"no pane", "event=Stop&workspace=2", stop, nil, http.StatusBadRequest},
		{"bad pane", "event=Stop&surface=x&workspace=2", stop, nil, http.StatusBadRequest},
		{"bad workspace", "event=Stop&surface=7&workspace=0", stop, nil, http.StatusBadRequest},
		{"not json", okQuery, "hello", nil, http.StatusBadRequest},
		{"json array", okQuery, "[1,2]", nil, http.StatusBadRequest},
		{"too long", okQuery, `{"a":"` + strings.Repeat("x", hook.MaxStdin) + `"}`, nil, http.StatusRequestEntityTooLarge},
	}
	for _, c := range cases {
		code, msg := post(t, url, token, c.query, c.body, c.edit)
		if code != c.code || !strings.HasPrefix(msg, "paneflow hooks: ") {
			t.Errorf("%s: %d %q, want %d with a reason", c.name, code, msg, c.code)
		}
	}
	if got := log.got(); len(got) != 0 {
		t.Fatalf("refused requests reached the state machine: %q", got)
	}
}

// TestLongPayloadSalvaged: a payload past MaxBody is cut there, as the
// hook binary cuts stdin, and the fields before the cut still make the
// frame.
func TestLongPayloadSalvaged(t *testing.T) {
	_, log, url, token := open(t)
	body := `{"session_id":"s1","hook_event_name":"PostToolUse","tool_name":"Read","tool_response":"` + strings.Repeat("y", 2*hookhttp.MaxBody) + `"}`
	if code, msg := post(t, url, token, "event=PostToolUse"+ids, body, nil); code != http.StatusOK {
		t.Fatalf("%d %s", code, msg)
	}
	got := log.got()
	if len(got) != 1 || !strings.HasPrefix(got[0], hook.MethodToolUse+" ") || !strings.Contains(got[0], `"tool_name":"Read"`) {
		t.Fatalf("frames = %.300q", got)
	}
}

// TestStateMachineError: the state machine's -32602 is a 400 with its
// message, any other error a 503; nothing is answered 200 that was not
// applied.
func TestStateMachineError(t *testing.T) {
	_, log, url, token := open(t)
	log.err = ipc.Errorf(ipc.CodeInvalidParams, "bad tool")
	if code, msg := post(t, url, token, "event=Stop"+ids, stop, nil); code != http.StatusBadRequest || !strings.Contains(msg, "bad tool") {
		t.Errorf("invalid params: %d %q", code, msg)
	}
	log.err = ipc.Errorf(ipc.CodeBusy, "Paneflow is shutting down")
	if code, msg := post(t, url, token, "event=Stop"+ids, stop, nil); code != http.StatusServiceUnavailable || !strings.Contains(msg, "shutting down") {
		t.Errorf("busy: %d %q", code, msg)
	}
}

// TestNotAQuestion: a notification that is not a question sends nothing,
// as the hook binary sends nothing, and is answered 200.
func TestNotAQuestion(t *testing.T) {
	_, log, url, token := open(t)
	body := `{"session_id":"s1","hook_event_name":"Notification","notification_type":"auth_success","message":"ok"}`
	if code, msg := post(t, url, token, "event=Notification"+ids, body, nil); code != http.StatusOK {
		t.Fatalf("%d %s", code, msg)
	}
	if got := log.got(); len(got) != 0 {
		t.Fatalf("frames = %q", got)
	}
}

// TestSlowHeaders: a connection that sends a partial request holds no
// request open past HeaderTimeout; meanwhile others are served.
func TestSlowClientDoesNotBlock(t *testing.T) {
	_, log, url, token := open(t)
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), hookhttp.Path)
	var slow []net.Conn
	for i := 0; i < 50; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\n", hookhttp.Path, addr) // never finished
		slow = append(slow, c)
	}
	if code, msg := post(t, url, token, "event=Stop"+ids, stop, nil); code != http.StatusOK {
		t.Fatalf("with %d slow clients: %d %s", len(slow), code, msg)
	}
	if len(log.got()) != 1 {
		t.Fatalf("frames = %q", log.got())
	}
}

// TestShutdown: after Shutdown Open refuses and requests fail.
func TestShutdown(t *testing.T) {
	e, log, url, token := open(t)
	if err := e.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Open(); err == nil {
		t.Fatal("Open after Shutdown succeeded")
	}
	req, _ := http.NewRequest(http.MethodPost, url+"?event=Stop"+ids, strings.NewReader(stop))
	req.Header.Set("Authorization", "Bearer "+token)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("a request after Shutdown got %s", resp.Status)
	}
	if len(log.got()) != 0 {
		t.Fatalf("frames = %q", log.got())
	}
}

// Payloads as a Codex 0.169.0 mcp_tool hook of the launch shim sends them
// (shim.CodexMCPOverrides: the fields each event needs, interpolated).
const (
	codexPrompt = `{"session_id":"01a2","transcript_path":"/tmp/c/r.jsonl","turn_id":"01a3","prompt":"run the echo please"}`
	codexTool   = `{"session_id":"01a2","transcript_path":"/tmp/c/r.jsonl","turn_id":"01a3","tool_name":"Bash"}`
	codexStop   = `{"session_id":"01a2","transcript_path":"/tmp/c/r.jsonl","turn_id":"01a3","last_assistant_message":"Codex is done."}`
)

// TestReportAsTheHookBinary: hooks.report makes of each event exactly the
// frame hook.Map makes for the command hook with the same payload and
// environment, the workspace being the server's (WorkspaceOf), not the
// caller's; a Stop's answer is kept; an unknown pane, event or a payload
// that is not an object are refused.
func TestReportAsTheHookBinary(t *testing.T) {
	e, log := endpoint(t, func(id uint64) (uint64, bool) { return 2, id == 7 })
	dir := log.dir
	env := map[string]string{hook.EnvSurfaceID: "7", hook.EnvWorkspaceID: "2", hook.EnvTool: "codex", hook.EnvPID: "4242"}
	var want []string
	for _, c := range []struct{ event, body string }{
		{"UserPromptSubmit", codexPrompt}, {"PreToolUse", codexTool}, {"PostToolUse", codexTool}, {"Stop", codexStop}, {"Interrupt", codexTool},
	} {
		r, err := e.Report(proto.HooksReportParams{Event: c.event, SurfaceID: 7, Tool: "codex", PID: 4242, Payload: json.RawMessage(c.body)})
		m, p, ok := hook.Map(c.event, nil, []byte(c.body), func(k string) string { return env[k] })
		if err != nil || !ok || r.Sent != m {
			t.Fatalf("Report(%s) = %+v, %v; hook.Map sends %q (%v)", c.event, r, err, m, ok)
		}
		raw, _ := json.Marshal(p)
		want = append(want, m+" "+string(raw))
	}
	if got := log.got(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("frames:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(want[3], `"last_result":"Codex is done."`) || !strings.Contains(want[3], `"workspace_id":2`) {
		t.Fatalf("the Stop frame misses its fields: %s", want[3])
	}
	var answers int
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), "Codex is done.") {
				answers++
			}
		}
		return nil
	})
	if answers == 0 {
		t.Errorf("the turn's answer was not kept as an artifact under %s", dir)
	}
	for _, bad := range []proto.HooksReportParams{
		{Event: "Stop", SurfaceID: 8, Payload: json.RawMessage(codexStop)},
		{Event: "Stop", Payload: json.RawMessage(codexStop)},
		{Event: "codex-notify", SurfaceID: 7, Payload: json.RawMessage(codexStop)},
		{Event: "Stop", SurfaceID: 7, Payload: json.RawMessage(`"text"`)},
	} {
		var ie *ipc.Error
		if _, err := e.Report(bad); !errors.As(err, &ie) || ie.Code != ipc.CodeInvalidParams {
			t.Errorf("Report(%+v) = %v, want -32602", bad, err)
		}
	}
	if n := len(log.got()); n != 5 {
		t.Errorf("%d frames after the refused reports, want 5", n)
	}
}
