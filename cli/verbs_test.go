package cli

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/paneflow-go/paneflow/ipc"
)

// handler shorthands for verbCase.handlers.
type handlerFunc = func(map[string]any) (any, error)

func answer(v any) handlerFunc       { return func(map[string]any) (any, error) { return v, nil } }
func failWith(err error) handlerFunc { return func(map[string]any) (any, error) { return nil, err } }

// pretty is how a verb prints a server result v.
func pretty(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}

// listCall is the surface.list call every selector makes.
const listCall = "surface.list {}"

var (
	errUnreachable = &ipc.UnreachableError{Path: "/run/pf.sock", Err: errors.New("connect: connection refused")}
	errGate        = ipc.Errorf(ipc.CodeMethodNotFound, "surface.send_text disabled; set PANEFLOW_IPC_SCRIPTING=1 to enable")
)

// verbCase is one run of a verb against a fakeServer holding fixture().
type verbCase struct {
	name       string
	args       []string
	handlers   map[string]handlerFunc
	surfaces   []surfaceInfo // nil: fixture()
	dialErr    error
	wantCode   int
	wantCalls  []string // exact, in order
	wantStdout string   // exact
	wantStderr string   // substring; "" means stderr must be empty
}

func runVerbCases(t *testing.T, tests []verbCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkVerbCase(t, tt) })
	}
}

// checkVerbCase runs one verbCase and reports every difference.
func checkVerbCase(t *testing.T, tt verbCase) {
	t.Helper()
	skipHandedOver(t, tt.args, func(k string) string { return map[string]string{"HOME": "/home/u"}[k] })
	f := &fakeServer{t: t, surfaces: tt.surfaces, handlers: tt.handlers, dialErr: tt.dialErr}
	if f.surfaces == nil {
		f.surfaces = fixture()
	}
	code, stdout, stderr := runFake(context.Background(), f, tt.args...)
	if code != tt.wantCode {
		t.Errorf("%q: exit code = %d, want %d (stderr %q)", tt.args, code, tt.wantCode, stderr)
	}
	if diff := cmp.Diff(tt.wantCalls, f.calls); diff != "" {
		t.Errorf("%q: calls differ (-want +got):\n%s", tt.args, diff)
	}
	if stdout != tt.wantStdout {
		t.Errorf("%q: stdout = %q, want %q", tt.args, stdout, tt.wantStdout)
	}
	if tt.wantStderr == "" && stderr != "" {
		t.Errorf("%q: stderr = %q, want it empty", tt.args, stderr)
	}
	if !strings.Contains(stderr, tt.wantStderr) {
		t.Errorf("%q: stderr = %q, want it to contain %q", tt.args, stderr, tt.wantStderr)
	}
}

func TestLs(t *testing.T) {
	list := surfaceList{PaneCount: 2, Workspace: 0, Surfaces: fixture()}
	runVerbCases(t, []verbCase{
		{name: "json", args: []string{"ls"}, handlers: map[string]handlerFunc{"surface.list": answer(list)},
			wantCalls: []string{listCall}, wantStdout: pretty(list)},
		{name: "alias", args: []string{"list_panes"}, handlers: map[string]handlerFunc{"surface.list": answer(list)},
			wantCalls: []string{listCall}, wantStdout: pretty(list)},
		{name: "human", args: []string{"ls", "--human"},
			wantCalls: []string{listCall},
			wantStdout: "  ID  NAME                 CMD                      CWD\n" +
				"   1  shell                bash                     /home/u/proj\n" +
				"   2  claude               claude --resume          /home/u/proj/api\n" +
				"   3  claude-2             Claude                   /home/u/proj-backend\n" +
				"   4  vite\n"},
		{name: "human team", args: []string{"ls", "--human"},
			surfaces: []surfaceInfo{
				{ID: 1, Name: "lead", Cmd: strp("claude"), Workspace: 0, Team: "session-1"},
				{ID: 2, Name: "alpha", Cmd: strp("claude"), Workspace: 0, Team: "session-1", Teammate: "alpha"},
				{ID: 3, Name: "shell", Workspace: 0},
			},
			wantCalls: []string{listCall},
			wantStdout: "  ID  NAME                 CMD                      TEAM                             CWD\n" +
				"   1  lead                 claude                   session-1 (lead)\n" +
				"   2  alpha                claude                   session-1/alpha\n" +
				"   3  shell                                         -\n"},
		{name: "human team name", args: []string{"ls", "--human"},
			surfaces: []surfaceInfo{
				{ID: 1, Name: "lead", Cmd: strp("claude"), Workspace: 0, Team: "session-1", TeamName: "Release crew"},
				{ID: 2, Name: "alpha", Cmd: strp("claude"), Workspace: 0, Team: "session-1", TeamName: "Release crew", Teammate: "alpha"},
			},
			wantCalls: []string{listCall},
			wantStdout: "  ID  NAME                 CMD                      TEAM                             CWD\n" +
				"   1  lead                 claude                   Release crew (lead)\n" +
				"   2  alpha                claude                   Release crew/alpha\n"},
		{name: "human empty", args: []string{"ls", "--human"}, surfaces: []surfaceInfo{},
			wantCalls: []string{listCall}, wantStdout: "(no surfaces)\n"},
		{name: "extra argument", args: []string{"ls", "x"}, wantCode: ExitUsage,
			wantStderr: "paneflow: ls: unexpected argument 'x'; see `paneflow ls --help`"},
		{name: "unknown flag", args: []string{"ls", "--wide"}, wantCode: ExitUsage,
			wantStderr: "paneflow: ls: unknown flag '--wide'"},
		{name: "short flag", args: []string{"ls", "-x"}, wantCode: ExitUsage,
			wantStderr: "unknown flag '-x'"},
		{name: "no socket", args: []string{"ls"}, dialErr: errNoSocket, wantCode: ExitFailure,
			wantStderr: "paneflow: cannot locate the IPC socket; is Paneflow running? (set PANEFLOW_SOCKET_PATH"},
		{name: "unreachable", args: []string{"ls"}, handlers: map[string]handlerFunc{"surface.list": failWith(errUnreachable)},
			wantCode: ExitFailure, wantCalls: []string{listCall},
			wantStderr: "paneflow: paneflow IPC unreachable at /run/pf.sock (connect: connection refused); is Paneflow running?\n"},
		{name: "rpc error", args: []string{"ls"}, handlers: map[string]handlerFunc{"surface.list": failWith(ipc.Errorf(ipc.CodeBusy, "Paneflow is busy; retry shortly"))},
			wantCode: ExitFailure, wantCalls: []string{listCall},
			wantStderr: "paneflow: paneflow error -32000: Paneflow is busy; retry shortly\n"},
		{name: "legacy error", args: []string{"ls"}, handlers: map[string]handlerFunc{"surface.list": answer(map[string]any{"error": "No active workspace"})},
			wantCode: ExitFailure, wantCalls: []string{listCall}, wantStderr: "paneflow: No active workspace\n"},
	})
}

func TestRead(t *testing.T) {
	result := map[string]any{"text": "a\nb", "lines": 2, "total_lines": 2, "eof": true, "output_generation": 7}
	h := map[string]handlerFunc{"surface.read": answer(result)}
	runVerbCases(t, []verbCase{
		{name: "text", args: []string{"read", "claude"}, handlers: h,
			wantCalls: []string{listCall, `surface.read {"surface_id":2}`}, wantStdout: "a\nb"},
		{name: "alias and flags", args: []string{"read_pane", "--lines", "80", "2", "--offset=5", "--raw"}, handlers: h,
			wantCalls:  []string{`surface.read {"fenced":false,"lines":80,"offset":5,"surface_id":2}`},
			wantStdout: "a\nb"},
		{name: "id that does not exist", args: []string{"read", "99"},
			handlers:   map[string]handlerFunc{"surface.read": failWith(ipc.InvalidParams("surface_id 99 not found"))},
			wantCode:   ExitNoTarget,
			wantCalls:  []string{`surface.read {"surface_id":99}`, listCall},
			wantStderr: "paneflow: no pane matches target '99'\n"},
		{name: "id with another invalid param", args: []string{"read", "2", "--offset", "9"},
			handlers:   map[string]handlerFunc{"surface.read": failWith(ipc.InvalidParams("offset 9 out of range (total_lines=2)"))},
			wantCode:   ExitFailure,
			wantCalls:  []string{`surface.read {"offset":9,"surface_id":2}`, listCall},
			wantStderr: "paneflow: paneflow error -32602: offset 9 out of range (total_lines=2)\n"},
		{name: "json", args: []string{"read", "cwd:api", "--json"}, handlers: h,
			wantCalls: []string{listCall, `surface.read {"surface_id":2}`}, wantStdout: pretty(result)},
		{name: "bad lines", args: []string{"read", "claude", "--lines", "many"}, wantCode: ExitUsage,
			wantStderr: "read: --lines must be a non-negative integer, got 'many'"},
		{name: "lines without value", args: []string{"read", "claude", "--lines"}, wantCode: ExitUsage,
			wantStderr: "read: flag --lines needs a value (N)"},
		{name: "lines twice", args: []string{"read", "claude", "--lines", "1", "--lines", "2"}, wantCode: ExitUsage,
			wantStderr: "read: flag --lines given more than once"},
		{name: "missing target", args: []string{"read"}, wantCode: ExitUsage,
			wantStderr: "paneflow: read: missing <target>; see `paneflow read --help`"},
		{name: "ambiguous", args: []string{"read", "cla"}, wantCode: ExitNoTarget, wantCalls: []string{listCall},
			wantStderr: "paneflow: ambiguous target 'cla'; matches: 2(claude), 3(claude-2)\n"},
		{name: "no match", args: []string{"read", "cwd:/tmp"}, wantCode: ExitNoTarget, wantCalls: []string{listCall},
			wantStderr: "paneflow: no pane matches target 'cwd:/tmp'\n"},
		{name: "list fails", args: []string{"read", "claude"}, handlers: map[string]handlerFunc{"surface.list": failWith(errUnreachable)},
			wantCode: ExitFailure, wantCalls: []string{listCall}, wantStderr: "paneflow IPC unreachable"},
		{name: "server error", args: []string{"read", "claude", "--offset", "9"},
			handlers:   map[string]handlerFunc{"surface.read": failWith(ipc.InvalidParams("offset 9 out of range (total_lines=2)"))},
			wantCode:   ExitFailure,
			wantCalls:  []string{listCall, `surface.read {"offset":9,"surface_id":2}`},
			wantStderr: "paneflow: paneflow error -32602: offset 9 out of range (total_lines=2)\n"},
	})
}

func TestSearch(t *testing.T) {
	result := map[string]any{"matches": []map[string]any{{"line": -3, "text": "error: old"}, {"line": 4, "text": "Error: new"}}, "truncated": false}
	h := map[string]handlerFunc{"surface.search": answer(result)}
	runVerbCases(t, []verbCase{
		{name: "json", args: []string{"search", "claude", "error", "--max", "5"}, handlers: h,
			wantCalls:  []string{listCall, `surface.search {"max_matches":5,"pattern":"error","surface_id":2}`},
			wantStdout: pretty(result)},
		{name: "human keeps negative history lines", args: []string{"search_pane", "claude", "--human", "error"}, handlers: h,
			wantCalls:  []string{listCall, `surface.search {"pattern":"error","surface_id":2}`},
			wantStdout: "-3: error: old\n4: Error: new\n"},
		{name: "pattern after --", args: []string{"search", "claude", "--", "--verbose"}, handlers: h,
			wantCalls:  []string{listCall, `surface.search {"pattern":"--verbose","surface_id":2}`},
			wantStdout: pretty(result)},
		{name: "missing pattern", args: []string{"search", "claude"}, wantCode: ExitUsage,
			wantStderr: "search: missing <text>"},
	})
}

func TestNewAndSplit(t *testing.T) {
	created := map[string]any{"index": 1, "title": "api", "panes": 1}
	split := map[string]any{"split": true, "direction": "vertical", "panes": 2, "surface_id": 9}
	h := map[string]handlerFunc{"workspace.create": answer(created), "surface.split": answer(split)}
	runVerbCases(t, []verbCase{
		{name: "new bare", args: []string{"new"}, handlers: h,
			wantCalls: []string{`workspace.create {}`}, wantStdout: pretty(created)},
		{name: "new everything", handlers: h,
			args:       []string{"new", "--name", "api", "--cwd", "~/code", "--command", "npm run dev", "--env", "A=1", "--env", "B=x=y", "--env", "A=2"},
			wantCalls:  []string{`workspace.create {"command":"npm run dev","cwd":"/home/u/code","env":{"A":"2","B":"x=y"},"name":"api"}`},
			wantStdout: pretty(created)},
		{name: "new relative cwd", args: []string{"new", "--cwd=../other"}, handlers: h,
			wantCalls: []string{`workspace.create {"cwd":"/home/u/other"}`}, wantStdout: pretty(created)},
		{name: "new empty env value", args: []string{"new", "--env", "EMPTY="}, handlers: h,
			wantCalls: []string{`workspace.create {"env":{"EMPTY":""}}`}, wantStdout: pretty(created)},
		{name: "new env without =", args: []string{"new", "--env", "A"}, wantCode: ExitUsage,
			wantStderr: "new: invalid --env 'A': want KEY=VALUE with a non-empty KEY"},
		{name: "new env empty key", args: []string{"new", "--env", "=1"}, wantCode: ExitUsage,
			wantStderr: "new: invalid --env '=1'"},
		{name: "new empty cwd", args: []string{"new", "--cwd", ""}, wantCode: ExitUsage,
			wantStderr: "new: --cwd must not be empty"},
		{name: "new positional", args: []string{"new", "api"}, wantCode: ExitUsage,
			wantStderr: "new: unexpected argument 'api'"},
		{name: "new limit", args: []string{"new"}, handlers: map[string]handlerFunc{"workspace.create": failWith(ipc.InvalidParams("Workspace limit reached"))},
			wantCode: ExitFailure, wantCalls: []string{`workspace.create {}`}, wantStderr: "paneflow error -32602: Workspace limit reached"},
		{name: "split default target", args: []string{"split", "h"}, handlers: h,
			wantCalls: []string{`surface.split {"direction":"horizontal"}`}, wantStdout: pretty(split)},
		{name: "split everything", handlers: h,
			args:       []string{"split", "V", "--target", "claude", "--name", "logs", "--cwd", "/srv", "--command", "tail -f x", "--env", "K=v"},
			wantCalls:  []string{listCall, `surface.split {"command":"tail -f x","cwd":"/srv","direction":"vertical","env":{"K":"v"},"label":"logs","surface_id":2}`},
			wantStdout: pretty(split)},
		{name: "split long direction", args: []string{"split", "vertical"}, handlers: h,
			wantCalls: []string{`surface.split {"direction":"vertical"}`}, wantStdout: pretty(split)},
		{name: "split bad direction", args: []string{"split", "diagonal"}, wantCode: ExitUsage,
			wantStderr: "split: direction must be h, horizontal, v or vertical, got 'diagonal'"},
		{name: "split ambiguous target splits nothing", args: []string{"split", "v", "--target", "cla"},
			wantCode: ExitNoTarget, wantCalls: []string{listCall}, wantStderr: "ambiguous target 'cla'"},
		{name: "split missing direction", args: []string{"split"}, wantCode: ExitUsage,
			wantStderr: "split: missing <direction>"},
	})
}

func TestSimpleControlVerbs(t *testing.T) {
	ok := map[string]any{"ok": true}
	h := map[string]handlerFunc{
		"workspace.select": answer(map[string]any{"selected": 1}),
		"surface.focus":    answer(map[string]any{"focused": true, "surface_id": 2, "workspace": 0}),
		"surface.close":    answer(ok),
		"surface.resize":   answer(ok),
		"surface.rename":   answer(map[string]any{"renamed": true, "name": "reviewer"}),
	}
	runVerbCases(t, []verbCase{
		{name: "select", args: []string{"select", "1"}, handlers: h,
			wantCalls: []string{`workspace.select {"index":1}`}, wantStdout: pretty(map[string]any{"selected": 1})},
		{name: "select not a number", args: []string{"select", "one"}, wantCode: ExitUsage,
			wantStderr: "select: <index> must be a non-negative integer, got 'one'"},
		{name: "select negative", args: []string{"select", "-1"}, wantCode: ExitUsage, wantStderr: "unknown flag '-1'"},
		{name: "select out of range", args: []string{"select", "7"},
			handlers: map[string]handlerFunc{"workspace.select": failWith(ipc.InvalidParams("Index out of bounds"))},
			wantCode: ExitFailure, wantCalls: []string{`workspace.select {"index":7}`}, wantStderr: "Index out of bounds"},
		{name: "focus", args: []string{"focus", "cmdline:bash"}, handlers: h,
			wantCalls:  []string{listCall, `surface.focus {"surface_id":1}`},
			wantStdout: pretty(map[string]any{"focused": true, "surface_id": 2, "workspace": 0})},
		{name: "close", args: []string{"close", "vite"}, handlers: h,
			wantCalls: []string{listCall, `surface.close {"surface_id":4}`}, wantStdout: pretty(ok)},
		{name: "close no match", args: []string{"close", "99"}, handlers: h,
			wantCode: ExitNoTarget, wantCalls: []string{listCall}, wantStderr: "no pane matches target '99'"},
		{name: "reopen", args: []string{"reopen"},
			handlers:   map[string]handlerFunc{"workspace.reopen": answer(map[string]any{"workspace": false, "surface_ids": []int{4}})},
			wantCalls:  []string{`workspace.reopen {}`},
			wantStdout: pretty(map[string]any{"workspace": false, "surface_ids": []int{4}})},
		{name: "reopen nothing", args: []string{"reopen"},
			handlers: map[string]handlerFunc{"workspace.reopen": failWith(ipc.InvalidParams("Nothing to reopen: no pane or workspace was closed in the last minute"))},
			wantCode: ExitFailure, wantCalls: []string{`workspace.reopen {}`}, wantStderr: "Nothing to reopen"},
		{name: "resize", args: []string{"resize", "claude", "120x40"}, handlers: h,
			wantCalls: []string{listCall, `surface.resize {"cols":120,"rows":40,"surface_id":2}`}, wantStdout: pretty(ok)},
		{name: "resize capital X", args: []string{"resize", "claude", "80X24"}, handlers: h,
			wantCalls: []string{listCall, `surface.resize {"cols":80,"rows":24,"surface_id":2}`}, wantStdout: pretty(ok)},
		{name: "resize zero", args: []string{"resize", "claude", "0x24"}, wantCode: ExitUsage,
			wantStderr: "resize: size must be <cols>x<rows> with both between 1 and 65535, got '0x24'"},
		{name: "resize malformed", args: []string{"resize", "claude", "80"}, wantCode: ExitUsage, wantStderr: "got '80'"},
		{name: "resize too big", args: []string{"resize", "claude", "70000x10"}, wantCode: ExitUsage, wantStderr: "got '70000x10'"},
		{name: "rename", args: []string{"rename", "claude", "reviewer"}, handlers: h,
			wantCalls:  []string{listCall, `surface.rename {"new_name":"reviewer","surface_id":2}`},
			wantStdout: pretty(map[string]any{"renamed": true, "name": "reviewer"})},
		{name: "rename empty", args: []string{"rename", "claude", " "}, wantCode: ExitUsage,
			wantStderr: "rename: the new name must not be empty"},
		{name: "rename missing name", args: []string{"rename", "claude"}, wantCode: ExitUsage,
			wantStderr: "rename: missing <new-name>"},
	})
}

func TestSendAndKey(t *testing.T) {
	sent := map[string]any{"sent": true, "length": 6, "submitted": false, "paste": false, "submit_mode": nil, "agent_target": false}
	h := map[string]handlerFunc{
		"surface.send_text":      answer(sent),
		"surface.send_keystroke": answer(map[string]any{"sent": true}),
	}
	failOn3 := map[string]handlerFunc{"surface.send_text": func(p map[string]any) (any, error) {
		if p["surface_id"] == json.Number("3") {
			return nil, ipc.InvalidParams("surface_id 3 not found")
		}
		return sent, nil
	}}
	runVerbCases(t, []verbCase{
		{name: "send", args: []string{"send", "claude", "ls -la"}, handlers: h,
			wantCalls: []string{listCall, `surface.send_text {"submit":false,"surface_id":2,"text":"ls -la"}`}, wantStdout: pretty(sent)},
		{name: "send verbatim text", args: []string{"send", "claude", `a\nb "c"`}, handlers: h,
			wantCalls: []string{listCall, `surface.send_text {"submit":false,"surface_id":2,"text":"a\\nb \"c\""}`}, wantStdout: pretty(sent)},
		{name: "send paste submit to a non-agent", args: []string{"send", "--paste", "claude", "hi", "--submit"}, handlers: h,
			wantCalls:  []string{listCall, `surface.status {"surface_id":2}`, `surface.send_text {"input_wait_ms":30000,"paste":true,"submit":true,"surface_id":2,"text":"hi"}`},
			wantStdout: pretty(sent)},
		{name: "send text that looks like a flag", args: []string{"send", "claude", "--", "--help"}, handlers: h,
			wantCalls: []string{listCall, `surface.send_text {"submit":false,"surface_id":2,"text":"--help"}`}, wantStdout: pretty(sent)},
		{name: "send gate closed", args: []string{"send", "claude", "x"},
			handlers:   map[string]handlerFunc{"surface.send_text": failWith(errGate)},
			wantCode:   ExitFailure,
			wantCalls:  []string{listCall, `surface.send_text {"submit":false,"surface_id":2,"text":"x"}`},
			wantStderr: "paneflow: writing into panes is disabled on this Paneflow server (paneflow error -32601: surface.send_text disabled; set PANEFLOW_IPC_SCRIPTING=1 to enable); start the server with PANEFLOW_IPC_SCRIPTING=1"},
		{name: "send ambiguous", args: []string{"send", "cmdline:claude", "x"}, handlers: h,
			wantCode: ExitNoTarget, wantCalls: []string{listCall}, wantStderr: "ambiguous target 'cmdline:claude'; matches: 2(claude), 3(claude-2)"},
		{name: "broadcast", args: []string{"send", "cmdline:claude", "x", "--broadcast"}, handlers: h,
			wantCalls: []string{listCall,
				`surface.send_text {"submit":false,"surface_id":2,"text":"x"}`,
				`surface.send_text {"submit":false,"surface_id":3,"text":"x"}`},
			wantStdout: "{\n  \"sent\": [\n    2,\n    3\n  ],\n  \"failed\": [],\n  \"submitted\": false\n}\n"},
		{name: "broadcast with a failure", args: []string{"send", "cmdline:claude", "x", "--broadcast"}, handlers: failOn3,
			wantCode: ExitFailure,
			wantCalls: []string{listCall,
				`surface.send_text {"submit":false,"surface_id":2,"text":"x"}`,
				`surface.send_text {"submit":false,"surface_id":3,"text":"x"}`},
			wantStdout: "{\n  \"sent\": [\n    2\n  ],\n  \"failed\": [\n    {\n      \"surface_id\": 3,\n      \"error\": \"paneflow error -32602: surface_id 3 not found\"\n    }\n  ],\n  \"submitted\": false\n}\n"},
		{name: "broadcast gate closed stops at the first pane", args: []string{"send", "cmdline:claude", "x", "--broadcast"},
			handlers:   map[string]handlerFunc{"surface.send_text": failWith(errGate)},
			wantCode:   ExitFailure,
			wantCalls:  []string{listCall, `surface.send_text {"submit":false,"surface_id":2,"text":"x"}`},
			wantStderr: "PANEFLOW_IPC_SCRIPTING=1"},
		{name: "broadcast no match", args: []string{"send", "nobody", "x", "--broadcast"}, handlers: h,
			wantCode: ExitNoTarget, wantCalls: []string{listCall}, wantStderr: "no pane matches target 'nobody'"},
		{name: "send missing text", args: []string{"send", "claude"}, wantCode: ExitUsage, wantStderr: "send: missing <text>"},
		{name: "key", args: []string{"key", "claude", "ctrl-c"}, handlers: h,
			wantCalls: []string{listCall, `surface.send_keystroke {"keystroke":"ctrl-c","surface_id":2}`}, wantStdout: pretty(map[string]any{"sent": true})},
		{name: "key gate closed", args: []string{"key", "claude", "escape"},
			handlers:   map[string]handlerFunc{"surface.send_keystroke": failWith(ipc.Errorf(ipc.CodeMethodNotFound, "surface.send_keystroke disabled; set PANEFLOW_IPC_SCRIPTING=1 to enable"))},
			wantCode:   ExitFailure,
			wantCalls:  []string{listCall, `surface.send_keystroke {"keystroke":"escape","surface_id":2}`},
			wantStderr: "(paneflow error -32601: surface.send_keystroke disabled; set PANEFLOW_IPC_SCRIPTING=1 to enable); start the server with PANEFLOW_IPC_SCRIPTING=1"},
		{name: "interrupt", args: []string{"interrupt", "claude"},
			handlers: map[string]handlerFunc{"surface.interrupt": func(map[string]any) (any, error) {
				return map[string]any{"sent": true, "tool": "claude", "pressed": []string{"escape"}}, nil
			}},
			wantCalls: []string{listCall, `surface.interrupt {"surface_id":2}`}, wantStdout: pretty(map[string]any{"sent": true, "tool": "claude", "pressed": []string{"escape"}})},
		{name: "interrupt gate closed", args: []string{"interrupt", "claude"},
			handlers:   map[string]handlerFunc{"surface.interrupt": failWith(ipc.Errorf(ipc.CodeMethodNotFound, "surface.interrupt disabled; set PANEFLOW_IPC_SCRIPTING=1 to enable"))},
			wantCode:   ExitFailure,
			wantCalls:  []string{listCall, `surface.interrupt {"surface_id":2}`},
			wantStderr: "start the server with PANEFLOW_IPC_SCRIPTING=1"},
		{name: "key refused", args: []string{"key", "claude", "enter"},
			handlers:   map[string]handlerFunc{"surface.send_keystroke": failWith(ipc.InvalidParams("keystroke 'enter' would submit (CR/LF)"))},
			wantCode:   ExitFailure,
			wantCalls:  []string{listCall, `surface.send_keystroke {"keystroke":"enter","surface_id":2}`},
			wantStderr: "would submit"},
	})
}

func TestPsAndStatus(t *testing.T) {
	fleet := map[string]any{"agents": []map[string]any{
		{"pid": 4242, "tool": "claude", "state": "thinking", "hooked": true, "workspace": 0, "surface_name": "claude"},
		{"pid": nil, "tool": "codex", "state": "unknown_running", "hooked": false, "workspace": 2, "surface_name": nil},
	}}
	status := map[string]any{"surface_id": 2, "state": "waiting_for_input", "hooked": true, "tool": "claude", "message": "Allow edit?", "output_generation": 3}
	runVerbCases(t, []verbCase{
		{name: "ps table", args: []string{"ps"}, handlers: map[string]handlerFunc{"fleet.list": answer(fleet)},
			wantCalls: []string{"fleet.list {}"},
			wantStdout: "    PID TOOL       STATE              WS PANE\n" +
				"   4242 claude     thinking            0 claude\n" +
				"      - codex      unknown_running     2 -\n"},
		{name: "ps team", args: []string{"ps"}, handlers: map[string]handlerFunc{"fleet.list": answer(map[string]any{"agents": []map[string]any{
			{"pid": 10, "tool": "claude", "state": "thinking", "hooked": true, "workspace": 0, "surface_name": "lead", "team": "session-1"},
			{"pid": 11, "tool": "claude", "state": "idle", "hooked": false, "workspace": 0, "surface_name": "alpha", "team": "session-1", "teammate": "alpha"},
		}})},
			wantCalls: []string{"fleet.list {}"},
			wantStdout: "    PID TOOL       STATE              WS PANE\n" +
				"     10 claude     thinking            0 lead  [session-1 (lead)]\n" +
				"     11 claude     idle                0 alpha  [session-1/alpha]\n"},
		{name: "ps team name", args: []string{"ps"}, handlers: map[string]handlerFunc{"fleet.list": answer(map[string]any{"agents": []map[string]any{
			{"pid": 11, "tool": "claude", "state": "idle", "hooked": false, "workspace": 0, "surface_name": "alpha", "team": "session-1", "team_name": "Release crew", "teammate": "alpha"},
		}})},
			wantCalls: []string{"fleet.list {}"},
			wantStdout: "    PID TOOL       STATE              WS PANE\n" +
				"     11 claude     idle                0 alpha  [Release crew/alpha]\n"},
		{name: "ps usage", args: []string{"ps"}, handlers: map[string]handlerFunc{"fleet.list": answer(map[string]any{"agents": []map[string]any{
			{"pid": 10, "tool": "claude", "state": "thinking", "hooked": true, "workspace": 0, "surface_name": "lead",
				"usage": map[string]any{"tool": "claude", "model": "claude-opus-5-5", "session": map[string]any{"total": 31280, "cost_usd": 0.1234}, "last_turn": map[string]any{"total": 80}}},
			{"pid": 11, "tool": "codex", "state": "idle", "hooked": true, "workspace": 1, "surface_name": "b",
				"usage": map[string]any{"tool": "codex", "model": "fake-model", "session": map[string]any{"total": 900, "unpriced_tokens": 900}, "last_turn": map[string]any{"total": 900}}},
			{"pid": nil, "tool": "gemini", "state": "unknown_running", "hooked": false, "workspace": 2, "surface_name": "c"},
		}})},
			wantCalls: []string{"fleet.list {}"},
			wantStdout: "    PID TOOL       STATE              WS     TOKENS      COST PANE\n" +
				"     10 claude     thinking            0      31280   $0.1234 lead\n" +
				"     11 codex      idle                1        900         - b\n" +
				"      - gemini     unknown_running     2          -         - c\n"},
		{name: "ps empty", args: []string{"ps"}, handlers: map[string]handlerFunc{"fleet.list": answer(map[string]any{"agents": []any{}})},
			wantCalls: []string{"fleet.list {}"}, wantStdout: "(no agents)\n"},
		{name: "ps json", args: []string{"ps", "--json"}, handlers: map[string]handlerFunc{"fleet.list": answer(fleet)},
			wantCalls: []string{"fleet.list {}"}, wantStdout: pretty(fleet)},
		{name: "status text", args: []string{"status", "claude"}, handlers: map[string]handlerFunc{"surface.status": answer(status)},
			wantCalls: []string{listCall, `surface.status {"surface_id":2}`}, wantStdout: "waiting_for_input (claude)\nAllow edit?\n"},
		{name: "status idle", args: []string{"status", "1"},
			handlers:  map[string]handlerFunc{"surface.status": answer(map[string]any{"surface_id": 1, "state": "idle", "hooked": false, "output_generation": 0})},
			wantCalls: []string{listCall, `surface.status {"surface_id":1}`}, wantStdout: "idle\n"},
		{name: "status json", args: []string{"status", "claude", "--json"}, handlers: map[string]handlerFunc{"surface.status": answer(status)},
			wantCalls: []string{listCall, `surface.status {"surface_id":2}`}, wantStdout: pretty(status)},
	})
}

func TestWait(t *testing.T) {
	matched := map[string]any{"matched": true, "panes": []int{2}, "matches": []map[string]any{{"surface_id": 2, "lines": []string{"DONE: ok"}}}}
	idled := map[string]any{"surface_id": 2, "idle": true, "matched": false}
	h := map[string]handlerFunc{"surface.wait": answer(matched)}
	hIdle := map[string]handlerFunc{"surface.wait": answer(idled)}
	timeout := map[string]handlerFunc{"surface.wait": failWith(ipc.Errorf(ipc.CodeTimeout, "request timeout"))}
	runVerbCases(t, []verbCase{
		{name: "pattern", args: []string{"wait", "--match", "claude", "--pattern", "^DONE:"}, handlers: h,
			wantCalls:  []string{listCall, `surface.wait {"mode":"any","pattern":"^DONE:","surface_ids":[2],"timeout_ms":300000}`},
			wantStdout: pretty(matched)},
		{name: "any", args: []string{"wait", "--match", "cmdline:claude", "--pattern", "ok", "--any", "--timeout", "90"}, handlers: h,
			wantCalls:  []string{listCall, `surface.wait {"mode":"any","pattern":"ok","surface_ids":[2,3],"timeout_ms":90000}`},
			wantStdout: pretty(matched)},
		{name: "all", args: []string{"wait", "--match", "cmdline:claude", "--pattern", "ok", "--all", "--timeout", "2m"}, handlers: h,
			wantCalls:  []string{listCall, `surface.wait {"mode":"all","pattern":"ok","surface_ids":[2,3],"timeout_ms":120000}`},
			wantStdout: pretty(matched)},
		{name: "single target ambiguous", args: []string{"wait", "--match", "cmdline:claude", "--pattern", "ok"}, handlers: h,
			wantCode: ExitNoTarget, wantCalls: []string{listCall}, wantStderr: "ambiguous target 'cmdline:claude'"},
		{name: "any no match", args: []string{"wait", "--match", "nobody", "--pattern", "ok", "--any"}, handlers: h,
			wantCode: ExitNoTarget, wantCalls: []string{listCall}, wantStderr: "no pane matches target 'nobody'"},
		{name: "pattern timeout", args: []string{"wait", "--match", "claude", "--pattern", "^DONE", "--timeout", "2"}, handlers: timeout,
			wantCode:   ExitTimeout,
			wantCalls:  []string{listCall, `surface.wait {"mode":"any","pattern":"^DONE","surface_ids":[2],"timeout_ms":2000}`},
			wantStderr: "paneflow: timeout after 2s waiting for /^DONE/\n"},
		{name: "fractional timeout", args: []string{"wait", "--match", "claude", "--pattern", "x", "--timeout", "1500ms"}, handlers: timeout,
			wantCode:   ExitTimeout,
			wantCalls:  []string{listCall, `surface.wait {"mode":"any","pattern":"x","surface_ids":[2],"timeout_ms":1500}`},
			wantStderr: "paneflow: timeout after 1.5s waiting for /x/\n"},
		{name: "invalid regex sends nothing", args: []string{"wait", "--match", "claude", "--pattern", "(unclosed"}, handlers: h,
			wantCode: ExitFailure, wantStderr: "paneflow: invalid regex '(unclosed': error parsing regexp: missing closing )"},
		{name: "pane closed", args: []string{"wait", "--match", "claude", "--pattern", "x"},
			handlers:   map[string]handlerFunc{"surface.wait": failWith(ipc.InvalidParams("all target panes closed before the pattern appeared"))},
			wantCode:   ExitFailure,
			wantCalls:  []string{listCall, `surface.wait {"mode":"any","pattern":"x","surface_ids":[2],"timeout_ms":300000}`},
			wantStderr: "all target panes closed before the pattern appeared"},
		{name: "idle", args: []string{"wait", "--match", "claude", "--idle"}, handlers: hIdle,
			wantCalls:  []string{listCall, `surface.wait {"idle_ms":1000,"mode":"any","surface_ids":[2],"timeout_ms":300000}`},
			wantStdout: pretty(idled)},
		{name: "idle with sentinel and for", args: []string{"wait", "--match", "claude", "--idle", "--for", "2s", "--pattern", "^REPORT_DONE", "--timeout", "600"}, handlers: hIdle,
			wantCalls:  []string{listCall, `surface.wait {"idle_ms":2000,"mode":"any","pattern":"^REPORT_DONE","surface_ids":[2],"timeout_ms":600000}`},
			wantStdout: pretty(idled)},
		{name: "idle for in plain milliseconds, --any ignored", args: []string{"wait", "--match", "claude", "--idle", "--for", "250", "--any"}, handlers: hIdle,
			wantCalls:  []string{listCall, `surface.wait {"idle_ms":250,"mode":"any","surface_ids":[2],"timeout_ms":300000}`},
			wantStdout: pretty(idled)},
		{name: "idle timeout", args: []string{"wait", "--match", "claude", "--idle", "--timeout", "60"}, handlers: timeout,
			wantCode:   ExitTimeout,
			wantCalls:  []string{listCall, `surface.wait {"idle_ms":1000,"mode":"any","surface_ids":[2],"timeout_ms":60000}`},
			wantStderr: "paneflow: timeout after 60s waiting for surface 2 to go idle\n"},
		{name: "idle ambiguous", args: []string{"wait", "--match", "cla", "--idle"}, handlers: hIdle,
			wantCode: ExitNoTarget, wantCalls: []string{listCall}, wantStderr: "ambiguous target 'cla'"},
		{name: "idle list unreachable", args: []string{"wait", "--match", "claude", "--idle"},
			handlers: map[string]handlerFunc{"surface.list": failWith(errUnreachable)},
			wantCode: ExitNoTarget, wantCalls: []string{listCall}, wantStderr: "paneflow: wait --idle failed: paneflow IPC unreachable"},
		{name: "idle no socket", args: []string{"wait", "--match", "claude", "--idle"}, dialErr: errNoSocket,
			wantCode: ExitNoTarget, wantStderr: "paneflow: wait --idle failed: cannot locate the IPC socket"},
		{name: "idle stream died", args: []string{"wait", "--match", "claude", "--idle"},
			handlers:   map[string]handlerFunc{"surface.wait": failWith(errUnreachable)},
			wantCode:   ExitFailure,
			wantCalls:  []string{listCall, `surface.wait {"idle_ms":1000,"mode":"any","surface_ids":[2],"timeout_ms":300000}`},
			wantStderr: "closed before the pane went idle"},
		{name: "pattern list unreachable", args: []string{"wait", "--match", "claude", "--pattern", "x"},
			handlers: map[string]handlerFunc{"surface.list": failWith(errUnreachable)},
			wantCode: ExitFailure, wantCalls: []string{listCall}, wantStderr: "paneflow IPC unreachable"},
		{name: "missing match", args: []string{"wait", "--pattern", "x"}, wantCode: ExitUsage,
			wantStderr: "wait: --match <target> is required"},
		{name: "neither pattern nor idle", args: []string{"wait", "--match", "claude"}, wantCode: ExitUsage,
			wantStderr: "wait: give --pattern <regex>, --idle, or both"},
		{name: "any and all", args: []string{"wait", "--match", "claude", "--pattern", "x", "--any", "--all"}, wantCode: ExitUsage,
			wantStderr: "wait: --any and --all cannot be used together"},
		{name: "empty pattern", args: []string{"wait", "--match", "claude", "--pattern", ""}, wantCode: ExitUsage,
			wantStderr: "wait: --pattern must not be empty"},
		{name: "for without idle", args: []string{"wait", "--match", "claude", "--pattern", "x", "--for", "5"}, wantCode: ExitUsage,
			wantStderr: "wait: --for only applies with --idle"},
		{name: "for zero", args: []string{"wait", "--match", "claude", "--idle", "--for", "0"}, wantCode: ExitUsage,
			wantStderr: "wait: --for must be at least 1ms"},
		{name: "bad timeout", args: []string{"wait", "--match", "claude", "--pattern", "x", "--timeout", "soon"}, wantCode: ExitUsage,
			wantStderr: "wait: --timeout must be a number or a duration like 30s, got 'soon'"},
		{name: "negative timeout", args: []string{"wait", "--match", "claude", "--pattern", "x", "--timeout=-5"}, wantCode: ExitUsage,
			wantStderr: "wait: --timeout out of range: '-5'"},
		{name: "positional", args: []string{"wait", "claude"}, wantCode: ExitUsage,
			wantStderr: "wait: unexpected argument 'claude'"},
	})
}

// TestWaitTransportTimeout checks that surface.wait's client timeout leaves
// room for the server's own -32002 answer.
func TestWaitTransportTimeout(t *testing.T) {
	f := &fakeServer{t: t, surfaces: fixture(), handlers: map[string]handlerFunc{"surface.wait": answer(map[string]any{"matched": true})}}
	code, _, stderr := runFake(context.Background(), f, "wait", "--match", "claude", "--pattern", "x", "--timeout", "30s")
	if code != ExitOK {
		t.Fatalf("exit code = %d, want %d (stderr %q)", code, ExitOK, stderr)
	}
	want := []time.Duration{0, 40 * time.Second}
	if !slices.Equal(f.timeouts, want) {
		t.Errorf("dial timeouts = %v, want %v (default for the list, wait timeout + 10s for surface.wait)", f.timeouts, want)
	}
}

func TestWaitInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := &fakeServer{t: t, surfaces: fixture(), handlers: map[string]handlerFunc{"surface.wait": func(map[string]any) (any, error) {
		cancel() // Ctrl-C while the server holds the call
		return nil, &ipc.UnreachableError{Path: "/fake.sock", Err: context.Canceled}
	}}}
	code, stdout, stderr := runFake(ctx, f, "wait", "--match", "claude", "--idle")
	if code != ExitInterrupted {
		t.Errorf("exit code = %d, want %d", code, ExitInterrupted)
	}
	if stdout != "" || stderr != "" {
		t.Errorf("stdout %q, stderr %q; want both empty", stdout, stderr)
	}
}

func TestWatch(t *testing.T) {
	frames := []string{`{"type":"subscribed","id":1}`, `{"type":"surface_changed","surface_id":2,"output_generation":5,"ts":1}`, `{"type":"heartbeat"}`}
	want := strings.Join(frames, "\n") + "\n"
	tests := []struct {
		name           string
		args           []string
		list           handlerFunc
		dialErr        error
		subscribeErr   error
		streamErr      error
		wantCode       int
		wantSubscribed []string
		wantStdout     string
		wantStderr     string
	}{
		{name: "everything", args: []string{"watch"},
			wantSubscribed: []string{"events.subscribe {}"}, wantStdout: want},
		{name: "filters", args: []string{"watch", "--surface", "claude", "--type", "surface_changed", "--type=ai.stop"},
			wantSubscribed: []string{`events.subscribe {"surfaces":[2],"types":["surface_changed","ai.stop"]}`}, wantStdout: want},
		{name: "no socket", args: []string{"watch"}, dialErr: errNoSocket, wantCode: ExitNoTarget,
			wantStderr: "paneflow: watch failed: cannot locate the IPC socket; is Paneflow running? (set PANEFLOW_SOCKET_PATH"},
		{name: "connect fails", args: []string{"watch"}, subscribeErr: errUnreachable, wantCode: ExitNoTarget,
			wantSubscribed: []string{"events.subscribe {}"},
			wantStderr:     "paneflow: watch failed: paneflow IPC unreachable at /run/pf.sock (connect: connection refused); is Paneflow running?\n"},
		{name: "unknown type", args: []string{"watch", "--type", "bogus"}, subscribeErr: ipc.InvalidParams("unknown event type: bogus"),
			wantCode: ExitFailure, wantSubscribed: []string{`events.subscribe {"types":["bogus"]}`},
			wantStderr: "paneflow: paneflow error -32602: unknown event type: bogus\n"},
		{name: "surface no match", args: []string{"watch", "--surface", "nobody"}, wantCode: ExitNoTarget,
			wantStderr: "no pane matches target 'nobody'"},
		{name: "surface list unreachable", args: []string{"watch", "--surface", "claude"}, list: failWith(errUnreachable),
			wantCode: ExitNoTarget, wantStderr: "watch failed: paneflow IPC unreachable at /run/pf.sock (connect: connection refused); is Paneflow running?\n"},
		{name: "stream breaks", args: []string{"watch"}, streamErr: errors.New("read: connection reset"), wantCode: ExitFailure,
			wantSubscribed: []string{"events.subscribe {}"}, wantStdout: want,
			wantStderr: "paneflow: watch: the event stream failed: read: connection reset\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeServer{t: t, surfaces: fixture(), dialErr: tt.dialErr, subscribeErr: tt.subscribeErr, stream: newFakeStream(frames...)}
			f.stream.err = tt.streamErr
			if tt.list != nil {
				f.handlers = map[string]handlerFunc{"surface.list": tt.list}
			}
			code, stdout, stderr := runFake(context.Background(), f, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d (stderr %q)", code, tt.wantCode, stderr)
			}
			if diff := cmp.Diff(tt.wantSubscribed, f.subscribed); diff != "" {
				t.Errorf("subscriptions differ (-want +got):\n%s", diff)
			}
			if stdout != tt.wantStdout {
				t.Errorf("stdout = %q, want %q", stdout, tt.wantStdout)
			}
			if tt.wantStderr == "" && stderr != "" || !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("stderr = %q, want %q", stderr, tt.wantStderr)
			}
		})
	}
}

func TestWatchInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := newFakeStream(`{"type":"subscribed","id":3}`)
	st.block, st.onIdle = true, cancel // Ctrl-C once the first frame is out
	f := &fakeServer{t: t, surfaces: fixture(), stream: st}
	code, stdout, stderr := runFake(ctx, f, "watch")
	if code != ExitOK {
		t.Errorf("exit code = %d, want %d (stderr %q)", code, ExitOK, stderr)
	}
	if want := "{\"type\":\"subscribed\",\"id\":3}\n"; stdout != want {
		t.Errorf("stdout = %q, want %q", stdout, want)
	}
	if stderr != "" {
		t.Errorf("stderr = %q, want it empty", stderr)
	}
}

// errWriter fails every write, like a closed pipe.
type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestWatchStdoutClosed(t *testing.T) {
	f := &fakeServer{t: t, surfaces: fixture(), stream: newFakeStream(`{"type":"heartbeat"}`)}
	var stderr strings.Builder
	code := newSession(f, errWriter{}, &stderr).run(context.Background(), []string{"watch"})
	if code != ExitFailure {
		t.Errorf("exit code = %d, want %d", code, ExitFailure)
	}
	if !strings.Contains(stderr.String(), io.ErrClosedPipe.Error()) {
		t.Errorf("stderr = %q, want the write error", stderr.String())
	}
}

// TestReadText checks the read verb's own decoding of a result against
// what encoding/json makes of the same bytes.
func TestReadText(t *testing.T) {
	for _, raw := range []string{
		`{"text":"a\nb","lines":2}`,
		`{"lines":2,"text":"\u003cx\u003e \"q\" caf\u00e9 \ud83d\ude00 \ud83d"}`,
		`{"lines":0}`,
		`{"text":null}`,
		`{"Text":"folded"}`,
		`{"text":"first","text":"last"}`,
	} {
		var want struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatal(err)
		}
		got, err := readText(json.RawMessage(raw))
		if err != nil || string(got) != want.Text {
			t.Errorf("readText(%s) = %q, %v; want %q", raw, got, err, want.Text)
		}
	}
	for _, raw := range []string{`{"text":1}`, `{"text":"a"`, `[]`, `{"text":"\q"}`} {
		if got, err := readText(json.RawMessage(raw)); err == nil {
			t.Errorf("readText(%s) = %q, want an error", raw, got)
		}
	}
}

func TestUsage(t *testing.T) {
	usage := func(total int, cost any) map[string]any {
		return map[string]any{"input": total - 30, "cache_read": 10, "cache_write": 0, "output": 20, "total": total, "cost_usd": cost, "unpriced_tokens": 0}
	}
	summary := map[string]any{
		"since": "2026-12-05T00:00:00Z", "until": "2026-12-05T10:00:00Z", "by": "flow",
		"total": map[string]any{"input": 170, "cache_read": 20, "cache_write": 0, "output": 40, "total": 230, "cost_usd": 0.5, "unpriced_tokens": 30},
		"groups": []map[string]any{
			{"key": "r1", "flow": "review", "usage": usage(200, 0.5)},
			{"key": "", "usage": map[string]any{"input": 0, "cache_read": 10, "cache_write": 0, "output": 20, "total": 30, "cost_usd": nil, "unpriced_tokens": 30}},
		},
		"daily_budget": map[string]any{"day": "2026-12-05", "used": usage(230, 0.5), "limit_tokens": 1000, "limit_cost_usd": 2.0},
	}
	status := map[string]any{"surface_id": 2, "state": "finished", "tool": "codex",
		"usage": map[string]any{"tool": "codex", "model": "gpt-6-sol", "session": usage(200, 0.25), "last_turn": usage(50, nil)}}
	runVerbCases(t, []verbCase{
		{name: "summary", args: []string{"usage", "--by", "flow", "--since", "7d"}, handlers: map[string]handlerFunc{"usage.summary": answer(summary)},
			wantCalls: []string{`usage.summary {"by":"flow","since":"7d"}`},
			wantStdout: "from 2026-12-05T00:00:00Z to 2026-12-05T10:00:00Z\n" +
				"FLOW         INPUT  CACHE READ  CACHE WRITE  OUTPUT  TOTAL      COST\n" +
				"review (r1)    170          10            0      20    200   $0.5000\n" +
				"-                0          10            0      20     30         -\n" +
				"total          170          20            0      40    230  $0.5000+\n" +
				"30 tokens of models without a price are not in the cost (paneflow usage --prices)\n" +
				"daily budget, 2026-12-05: 230 of 1000 tokens (23 %), $0.50 of $2.00 (25 %)\n"},
		{name: "summary json", args: []string{"usage", "--json"}, handlers: map[string]handlerFunc{"usage.summary": answer(summary)},
			wantCalls: []string{`usage.summary {}`}, wantStdout: pretty(summary)},
		{name: "bad by", args: []string{"usage", "--by", "colour"}, wantCode: ExitUsage, wantStderr: "--by must be agent, workspace, flow, model or day"},
		{name: "prices", args: []string{"usage", "--prices"}, handlers: map[string]handlerFunc{"usage.prices": answer(map[string]any{"prices": []map[string]any{
			{"model": "claude-opus-5-5", "input": 4, "output": 20, "cache_read": 0.2, "cache_write": 5, "source": "Claude Code 2.1.332 model catalog", "as_of": "2026-12-05"},
			{"model": "gemini-2.5-pro", "input": 1.25, "output": 10, "cache_read": 0.125, "long_above": 200000, "source": "paneflow.toml"},
		}})},
			wantCalls: []string{"usage.prices {}"},
			wantStdout: "dollars per million tokens; a cache price of - is the input price\n" +
				"MODEL            INPUT  OUTPUT  CACHE READ  CACHE WRITE  LONG ABOVE  SOURCE\n" +
				"claude-opus-5-5      4      20         0.2            5           -  Claude Code 2.1.332 model catalog, 2026-12-05\n" +
				"gemini-2.5-pro    1.25      10       0.125            -      200000  paneflow.toml\n"},
		{name: "status with usage", args: []string{"status", "claude"}, handlers: map[string]handlerFunc{"surface.status": answer(status)},
			wantCalls:  []string{listCall, `surface.status {"surface_id":2}`},
			wantStdout: "finished (codex)\nsession 200 tokens $0.2500, last turn 50 tokens - (gpt-6-sol)\n"},
	})
}

// TestHumanOutputEscaped (issue 25): text programs set — a pane's name,
// command line and cwd, an agent pane's name, team and message — reaches
// the user's terminal from ls --human, ps and status with its escape
// sequences, other control characters and bidi controls shown as escapes,
// never as the bytes themselves.
func TestHumanOutputEscaped(t *testing.T) {
	const evil = "x\x1b]0;pwned\x07\x1b[2J\u202e\u009b"
	const shown = `x\x1b]0;pwned\x07\x1b[2J\u202e\x9b`
	list := []surfaceInfo{{ID: 1, Name: "n" + evil, Cmd: strp("c" + evil), Cwd: strp("/d" + evil), Workspace: 0}}
	fleet := map[string]any{"agents": []map[string]any{
		{"pid": 7, "tool": "claude", "state": "idle", "hooked": true, "workspace": 0, "surface_name": "p" + evil, "team": "t" + evil},
	}}
	status := map[string]any{"surface_id": 1, "state": "waiting_for_input", "hooked": true, "tool": "claude", "message": "m" + evil, "output_generation": 3}
	runVerbCases(t, []verbCase{
		{name: "ls", args: []string{"ls", "--human"}, surfaces: list, wantCalls: []string{listCall},
			wantStdout: "  ID  NAME                 CMD                      CWD\n" +
				"   1  n" + shown + " c" + shown + " /d" + shown + "\n"},
		{name: "ps", args: []string{"ps"}, handlers: map[string]handlerFunc{"fleet.list": answer(fleet)},
			wantCalls: []string{"fleet.list {}"},
			wantStdout: "    PID TOOL       STATE              WS PANE\n" +
				"      7 claude     idle                0 p" + shown + "  [t" + shown + " (lead)]\n"},
		{name: "status", args: []string{"status", "1"}, surfaces: list, handlers: map[string]handlerFunc{"surface.status": answer(status)},
			wantCalls:  []string{listCall, `surface.status {"surface_id":1}`},
			wantStdout: "waiting_for_input (claude)\nm" + shown + "\n"},
	})
}

// TestReviewDiff: `review diff` prints the server's diff text with
// control characters (but tab and newline) escaped, says on stderr when
// the server cut it, and --json prints the result as it came.
func TestReviewDiff(t *testing.T) {
	diff := map[string]any{"root": "/srv/repo", "branch": "feat", "base_ref": "main", "base": "abc", "text": "+a\tb\x1b[2J\n-c\n",
		"files": []map[string]any{{"status": "M", "path": "a.txt"}}, "truncated": false}
	cut := map[string]any{"root": "/srv/repo", "text": "+x\n", "files": []map[string]any{}, "truncated": true}
	runVerbCases(t, []verbCase{
		{name: "text", args: []string{"review", "diff", "--worktree", "/srv/repo/sub"},
			handlers:   map[string]handlerFunc{"review.diff": answer(diff)},
			wantCalls:  []string{`review.diff {"worktree":"/srv/repo/sub"}`},
			wantStdout: "+a\tb\\x1b[2J\n-c\n"},
		{name: "cut", args: []string{"review", "diff", "--worktree", "/srv/repo"},
			handlers:  map[string]handlerFunc{"review.diff": answer(cut)},
			wantCalls: []string{`review.diff {"worktree":"/srv/repo"}`}, wantStdout: "+x\n", wantStderr: "the diff was cut at 3 bytes"},
		{name: "scope", args: []string{"review", "diff", "--worktree", "/srv/repo", "--scope", "staged"},
			handlers:  map[string]handlerFunc{"review.diff": answer(cut)},
			wantCalls: []string{`review.diff {"scope":"staged","worktree":"/srv/repo"}`}, wantStdout: "+x\n", wantStderr: "cut"},
		{name: "json", args: []string{"review", "diff", "--worktree", "/srv/repo", "--json"},
			handlers:  map[string]handlerFunc{"review.diff": answer(diff)},
			wantCalls: []string{`review.diff {"worktree":"/srv/repo"}`}, wantStdout: pretty(diff)},
		{name: "no arguments", args: []string{"review", "diff", "x"}, wantCode: ExitUsage,
			wantStderr: "diff takes 0 arguments, got 1"},
		{name: "not a repository", args: []string{"review", "diff", "--worktree", "/tmp"},
			handlers: map[string]handlerFunc{"review.diff": failWith(ipc.InvalidParams("'/tmp': git rev-parse: fatal: not a git repository"))},
			wantCode: ExitFailure, wantCalls: []string{`review.diff {"worktree":"/tmp"}`}, wantStderr: "not a git repository"},
	})
}

// skipHandedOver skips a test of a call that this build hands to the
// server binary instead of carrying it out (Verb.InServer,
// Verb.InServerFor): the command-line client (tag client) does so for
// `up`, `flow`, `mcp`, `wait --pattern` and `search --all` with hosts,
// and its own tests of those calls are TestWaitNeedsServer and
// TestSearchNeedsServer.
func skipHandedOver(t *testing.T, args []string, getenv func(string) string) {
	t.Helper()
	if len(args) == 0 {
		return
	}
	for _, v := range Verbs() {
		if v.Name != args[0] && !slices.Contains(v.Aliases, args[0]) {
			continue
		}
		if v.InServer || v.InServerFor != nil && v.InServerFor(args[1:], getenv) {
			t.Skipf("this build hands %q to the server binary", args)
		}
	}
}
