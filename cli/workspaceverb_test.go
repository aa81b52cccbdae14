package cli

import (
	"testing"

	"github.com/paneflow-go/paneflow/ipc"
)

func TestWorkspaceVerb(t *testing.T) {
	list := answer(map[string]any{"workspaces": []map[string]any{
		{"index": 0, "workspace_id": 1, "title": "main", "panes": 1, "active": true},
		{"index": 1, "workspace_id": 2, "title": "build", "panes": 2},
		{"index": 2, "workspace_id": 3, "title": "build", "panes": 1},
		{"index": 3, "workspace_id": 4, "title": "docs\x1b", "panes": 1},
	}})
	const listWs = "workspace.list {}"
	h := map[string]handlerFunc{
		"workspace.list":   list,
		"workspace.move":   func(p map[string]any) (any, error) { return map[string]any{"index": p["to"]}, nil },
		"workspace.rename": answer(map[string]any{"index": 3, "title": "notes"}),
	}
	runVerbCases(t, []verbCase{
		{name: "move by index", args: []string{"workspace", "move", "1", "0"}, handlers: h,
			wantCalls:  []string{listWs, `workspace.move {"index":1,"to":0}`},
			wantStdout: "moved workspace 'build' from 1 to 0\n"},
		{name: "move by title", args: []string{"workspace", "move", "main", "3", "--json"}, handlers: h,
			wantCalls:  []string{listWs, `workspace.move {"index":0,"to":3}`},
			wantStdout: pretty(map[string]any{"index": 3})},
		{name: "rename by title", args: []string{"workspace", "rename", "docs\x1b", "notes"}, handlers: h,
			wantCalls:  []string{listWs, `workspace.rename {"index":3,"title":"notes"}`},
			wantStdout: "renamed workspace 3 from 'docs\\x1b' to 'notes'\n"},
		{name: "rename json", args: []string{"workspace", "rename", "3", "notes", "--json"}, handlers: h,
			wantCalls:  []string{listWs, `workspace.rename {"index":3,"title":"notes"}`},
			wantStdout: pretty(map[string]any{"index": 3, "title": "notes"})},
		{name: "unknown title", args: []string{"workspace", "move", "nope", "0"}, handlers: h,
			wantCode: ExitNoTarget, wantCalls: []string{listWs},
			wantStderr: "no workspace is titled 'nope': the workspaces are 0 'main', 1 'build', 2 'build', 3 'docs\\x1b'"},
		{name: "index past the end", args: []string{"workspace", "rename", "4", "x"}, handlers: h,
			wantCode: ExitNoTarget, wantCalls: []string{listWs}, wantStderr: "no workspace at index 4: the workspaces are 0 'main'"},
		{name: "ambiguous title", args: []string{"workspace", "rename", "build", "x"}, handlers: h,
			wantCode: ExitNoTarget, wantCalls: []string{listWs}, wantStderr: "2 workspaces are titled 'build' (at 1, 2); give an index"},
		{name: "to past the end", args: []string{"workspace", "move", "0", "4"}, handlers: h,
			wantCode: ExitFailure, wantCalls: []string{listWs},
			wantStderr: "cannot move workspace 0 to 4: there are 4 workspaces, at positions 0 to 3"},
		{name: "to not a number", args: []string{"workspace", "move", "0", "end"}, wantCode: ExitUsage,
			wantStderr: "workspace: <to> must be a non-negative integer, got 'end'"},
		{name: "to negative", args: []string{"workspace", "move", "0", "-1"}, wantCode: ExitUsage, wantStderr: "unknown flag '-1'"},
		{name: "empty title", args: []string{"workspace", "rename", "0", "  "}, wantCode: ExitUsage,
			wantStderr: "workspace: the title must not be empty"},
		{name: "unknown action", args: []string{"workspace", "swap", "0", "1"}, wantCode: ExitUsage,
			wantStderr: "unknown action 'swap' (move, rename)"},
		{name: "missing argument", args: []string{"workspace", "move", "0"}, wantCode: ExitUsage,
			wantStderr: "move takes 2 arguments, got 1"},
		{name: "missing action", args: []string{"workspace"}, wantCode: ExitUsage, wantStderr: "missing <action>"},
		{name: "server refuses", args: []string{"workspace", "rename", "0", "\x07"},
			handlers: map[string]handlerFunc{"workspace.list": list,
				"workspace.rename": failWith(ipc.InvalidParams("A workspace title must not be empty"))},
			wantCode: ExitFailure, wantCalls: []string{listWs, `workspace.rename {"index":0,"title":"\u0007"}`},
			wantStderr: "A workspace title must not be empty"},
	})
}
