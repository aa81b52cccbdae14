//go:build linux

package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/internal/gittest"
	"github.com/paneflow-go/paneflow/test/internal/fakemodel"
)

// TestReviewClaude (issue 32): the real Claude Code 2.1.332 TUI, hooked
// by `paneflow hooks setup`, works in a git repository; a review comment
// on a line of calc.go, sent with `paneflow review send`, reaches it as
// one prompt (the model's request carries the file, the lines, the quoted
// code and the comment), the turn start is confirmed by Claude's own
// hook, and its turn (scripted: Read, then Edit) changes the file as the
// comment asks; `review list` then shows the comment outdated (its code is
// gone) until it is resolved. Then a failing check of the repository's
// trusted .paneflow.toml, sent with `paneflow checks send`, reaches the
// model fenced as untrusted output.
func TestReviewClaude(t *testing.T) {
	t.Parallel()
	const before = "\treturn xs[0] + xs[1]\n"
	const after = "\ttotal := 0\n\tfor _, x := range xs {\n\t\ttotal += x\n\t}\n\treturn total\n"
	var calc string
	model := fakemodel.Start(t)
	e := newEnv(t, model, options{profile: claudeProfile(model), setup: func(e *env) {
		e.write(".claude.json", `{"hasCompletedOnboarding":true,"projects":{"`+e.project+`":{"hasTrustDialogAccepted":true}},`+
			`"customApiKeyResponses":{"approved":["`+claudeKey[len(claudeKey)-20:]+`"],"rejected":[]}}`+"\n")
		gittest.Repo(t, e.project, map[string]string{"calc.go": "package calc\n\nfunc Sum(xs []int) int {\n" + before + "}\n"})
		calc = filepath.Join(e.project, "calc.go")
	}})
	// Claude edits a file only after reading it.
	model.Append(
		fakemodel.Turn{Text: "Reading it.", Calls: []fakemodel.Call{{Name: "Read", Args: map[string]any{"file_path": calc}}}},
		fakemodel.Turn{Text: "Changing it.", Calls: []fakemodel.Call{{Name: "Edit", Args: map[string]any{"file_path": calc, "old_string": before, "new_string": after}}}},
		fakemodel.Turn{Text: "Used a loop."},
	)
	if out := e.hooksSetup(); !strings.Contains(out, "hooks installed") {
		t.Fatalf("paneflow hooks setup said:\n%s", out)
	}
	e.typeLine("claude --permission-mode acceptEdits")
	e.waitScreen("the Claude Code prompt", "accept edits on")
	e.waitStatus("Claude's session, hooked", func(s status) bool { return s.Hooked && s.Tool == "claude" })

	e.mustCLI("review", "comment", calc, "4", "use a loop: this breaks for other lengths", "--worktree", e.project)
	var sent struct {
		SurfaceID   uint64   `json:"surface_id"`
		Comments    []string `json:"comments"`
		Started     bool     `json:"started"`
		StartReason string   `json:"start_reason"`
	}
	out := e.mustCLI("review", "send", "--worktree", e.project, "--json")
	if err := json.Unmarshal([]byte(out), &sent); err != nil || sent.SurfaceID != 1 || len(sent.Comments) != 1 || !sent.Started || sent.StartReason != "hook_turn_started" {
		t.Fatalf("review send answered %s (%v)", out, err)
	}
	e.waitStatus("the turn's end", func(s status) bool { return s.State == "finished" && str(s.LastResult) == "Used a loop." })
	if b, err := os.ReadFile(calc); err != nil || string(b) != "package calc\n\nfunc Sum(xs []int) int {\n"+after+"}\n" {
		t.Errorf("calc.go after the turn = %q, %v", b, err)
	}
	reqs := model.Requests()
	if len(reqs) == 0 {
		t.Fatal("the model got no request")
	}
	var first string
	for _, r := range reqs {
		if r.Turn == 0 {
			first = string(r.Body)
		}
	}
	for _, want := range []string{"1. calc.go, line 4:", "return xs[0] + xs[1]", "use a loop: this breaks for other lengths"} {
		if !strings.Contains(first, want) && !strings.Contains(first, strings.ReplaceAll(want, "\t", `\t`)) {
			t.Errorf("the model's first request lacks %q", want)
		}
	}
	var list struct {
		Comments []struct {
			Outdated bool `json:"outdated"`
			Sent     int  `json:"sent"`
		} `json:"comments"`
	}
	if err := json.Unmarshal([]byte(e.mustCLI("review", "list", "--worktree", e.project, "--json")), &list); err != nil || len(list.Comments) != 1 || !list.Comments[0].Outdated || list.Comments[0].Sent != 1 {
		t.Errorf("review list after the turn: %+v, %v", list, err)
	}
	e.mustCLI("review", "resolve", "--all", "--worktree", e.project)

	// A failing check's output reaches it too, fenced as untrusted.
	model.Append(fakemodel.Turn{Text: "Looked at the failure."})
	cfg := filepath.Join(e.project, ".paneflow.toml")
	if err := os.WriteFile(cfg, []byte("[checks.commands]\ntest = \"echo 'FAIL: TestSum: got 3, want 6'; exit 1\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.mustCLI("trust", cfg)
	if _, err := e.cli("checks", "run", "--worktree", e.project); err == nil || !strings.Contains(err.Error(), "exit status 1") {
		t.Errorf("checks run with a failing check: %v", err)
	}
	out = e.mustCLI("checks", "send", "test", "--worktree", e.project, "--json")
	if !strings.Contains(out, `"started": true`) {
		t.Errorf("checks send answered %s", out)
	}
	e.waitStatus("the check's turn's end", func(s status) bool { return s.State == "finished" && str(s.LastResult) == "Looked at the failure." })
	var got bool
	for _, r := range model.Requests() {
		body := string(r.Body)
		if strings.Contains(body, "FAIL: TestSum: got 3, want 6") && strings.Contains(body, `untrusted_terminal_output source=\"check:test\"`) {
			got = true
		}
	}
	if !got {
		t.Error("no model request carried the failing check's output in its envelope")
	}
	e.typeCommand("/exit")
}
