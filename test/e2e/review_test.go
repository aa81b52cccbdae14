//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/internal/gittest"
)

// reviewComment is review.comment's and review.list's comment, as the
// CLI prints it.
type reviewComment struct {
	ID        string   `json:"id"`
	Path      string   `json:"path"`
	StartLine int      `json:"start_line"`
	EndLine   int      `json:"end_line"`
	Code      []string `json:"code"`
	Outdated  bool     `json:"outdated"`
	Resolved  bool     `json:"resolved"`
	Sent      int      `json:"sent"`
}

// TestReviewLoop: `paneflow review` against a real server and a real git
// worktree: comments made on a range and on a line, the file changed
// (lines inserted above the first, the second's code deleted), list shows
// the first moved and the second outdated, send types the open current
// one into the (fake, hooked) agent working in the worktree and confirms
// its turn start, resolve closes them; a server with the scripting gate
// closed refuses the send naming the fix.
func TestReviewLoop(t *testing.T) {
	s := startServer(t, "PANEFLOW_IPC_SCRIPTING=1")
	base := tempDir(t)
	repo := gittest.Repo(t, filepath.Join(base, "repo"), map[string]string{"calc.go": "package calc\n\nfunc Sum(xs []int) int {\n\treturn xs[0] + xs[1]\n}\n\nfunc Unused() {}\n"})
	wt := filepath.Join(base, "repo.worktrees", "feat")
	gittest.Git(t, repo, "worktree", "add", "-q", "-b", "feat", wt)

	var made struct {
		Worktree string        `json:"worktree"`
		Comment  reviewComment `json:"comment"`
	}
	s.mustCLI(&made, "review", "comment", filepath.Join(wt, "calc.go"), "3-5", "use a loop: this breaks for other lengths", "--worktree", wt, "--json")
	if made.Comment.ID != "c1" || made.Comment.StartLine != 3 || made.Comment.EndLine != 5 || made.Comment.Code[1] != "\treturn xs[0] + xs[1]" {
		t.Fatalf("comment: %+v", made)
	}
	s.mustCLI(&made, "review", "comment", filepath.Join(wt, "calc.go"), "7", "delete this", "--worktree", wt, "--json")
	// A relative file is taken against the CLI's directory (s.dir), not
	// the worktree: it is not in it.
	s.wantCode(1, []string{"not a file inside the worktree"}, "review", "comment", "calc.go", "7", "x", "--worktree", wt)

	text := "package calc\n\n// Sum adds xs.\n// It takes any length.\nfunc Sum(xs []int) int {\n\treturn xs[0] + xs[1]\n}\n"
	if err := os.WriteFile(filepath.Join(wt, "calc.go"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var list struct {
		Comments []reviewComment `json:"comments"`
	}
	s.mustCLI(&list, "review", "list", "--worktree", wt, "--json")
	if len(list.Comments) != 2 || list.Comments[0].StartLine != 5 || list.Comments[0].EndLine != 7 || list.Comments[0].Outdated || !list.Comments[1].Outdated {
		t.Fatalf("list after the change: %+v", list.Comments)
	}
	human := s.mustCLI(nil, "review", "list", "--worktree", wt)
	if !strings.Contains(human.stdout, "c1  calc.go:5-7\n  | func Sum(xs []int) int {") || !strings.Contains(human.stdout, "c2  calc.go:7  (outdated)") {
		t.Errorf("list as text:\n%s", human.stdout)
	}

	args, _ := agentDir(t, "banner", "hook:SessionStart", "read", "hook:UserPromptSubmit", "echo")
	agent := s.split(append(args, "--cwd", wt)...)
	hooked := func(st agentStatus) bool { return st.Hooked } // idle alone is also a pane without an agent yet
	s.waitStatus(agent, "idle", hooked)
	var sent struct {
		SurfaceID   uint64   `json:"surface_id"`
		Comments    []string `json:"comments"`
		Text        string   `json:"text"`
		Started     bool     `json:"started"`
		StartReason string   `json:"start_reason"`
	}
	s.mustCLI(&sent, "review", "send", "--worktree", filepath.Join(wt), "--json")
	if sent.SurfaceID != agent || strings.Join(sent.Comments, ",") != "c1" || !sent.Started || sent.StartReason != "hook_turn_started" {
		t.Fatalf("send: %+v", sent)
	}
	if !strings.Contains(sent.Text, "1. calc.go, lines 5-7:\n```\nfunc Sum(xs []int) int {\n\treturn xs[0] + xs[1]\n}\n```\nuse a loop") {
		t.Errorf("prompt:\n%s", sent.Text)
	}
	s.waitOutput(id(agent), `got "Review of your changes in `)
	s.waitOutput(id(agent), `use a loop: this breaks`)
	s.waitState(agent, "thinking")

	var resolved struct {
		Resolved []string `json:"resolved"`
	}
	s.mustCLI(&resolved, "review", "resolve", "--all", "--worktree", wt, "--json")
	if strings.Join(resolved.Resolved, ",") != "c1,c2" {
		t.Errorf("resolved %v", resolved.Resolved)
	}
	s.wantCode(1, []string{"no open comments"}, "review", "send", "--worktree", wt)
	s.wantCode(2, []string{"resolve takes comment ids or --all"}, "review", "resolve", "--worktree", wt)

	closed := startServer(t)
	closed.mustCLI(nil, "review", "comment", filepath.Join(wt, "calc.go"), "1", "x", "--worktree", wt)
	closed.waitStatus(closed.split(append(args, "--cwd", wt)...), "idle", hooked)
	closed.wantCode(1, []string{"PANEFLOW_IPC_SCRIPTING=1"}, "review", "send", "--worktree", wt)
}

// gitIdentity is the commit identity of a server that lands.
var gitIdentity = []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e"}

// TestLand: `paneflow land` against a real server and real git: a
// conflicting branch stops with the file listed, exit 1 and main where it
// was; a clean one squashes into main, and --teardown --delete-branch
// closes the pane working in its worktree, removes the worktree and
// deletes the branch; --pr without gh says why.
func TestLand(t *testing.T) {
	s := startServer(t, append([]string{"PANEFLOW_IPC_SCRIPTING=1"}, gitIdentity...)...)
	base := tempDir(t)
	repo := gittest.Repo(t, filepath.Join(base, "repo"), map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	clash, clean := filepath.Join(base, "repo.worktrees", "clash"), filepath.Join(base, "repo.worktrees", "clean")
	gittest.Git(t, repo, "worktree", "add", "-q", "-b", "clash", clash)
	gittest.Git(t, repo, "worktree", "add", "-q", "-b", "clean", clean)
	commit := func(dir, file, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, file), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		gittest.Git(t, dir, "commit", "-qam", "change "+file)
	}
	commit(clash, "a.txt", "a on clash\n")
	commit(clean, "b.txt", "b on clean\n")
	commit(repo, "a.txt", "a on main\n")
	mainWas := gittest.Git(t, repo, "rev-parse", "main")

	r := s.wantCode(1, []string{"clash did not land: conflicts in a.txt; main is unchanged"}, "land", "--worktree", clash)
	if !strings.Contains(r.stdout, "conflict: clash (merge) into main stopped; nothing changed. Files:\n  a.txt\n") {
		t.Errorf("conflict output:\n%s", r)
	}
	if got := gittest.Git(t, repo, "rev-parse", "main"); got != mainWas {
		t.Errorf("main moved: %s → %s", mainWas, got)
	}
	if st := gittest.Git(t, repo, "status", "--porcelain"); st != "" {
		t.Errorf("main checkout not clean after the conflict: %q", st)
	}

	// --to-agent: the conflict goes to the (fake, hooked) agent in the
	// worktree, whose turn start is confirmed.
	args, _ := agentDir(t, "banner", "hook:SessionStart", "read", "hook:UserPromptSubmit", "echo")
	agent := s.split(append(args, "--cwd", clash)...)
	s.waitStatus(agent, "idle", func(st agentStatus) bool { return st.Hooked })
	r = s.wantCode(1, []string{"clash did not land"}, "land", "--to-agent", "--worktree", clash, "--json")
	var sentConflicts struct {
		Landed      bool   `json:"landed"`
		Started     bool   `json:"started"`
		StartReason string `json:"start_reason"`
		Sent        struct {
			SurfaceID uint64 `json:"surface_id"`
		} `json:"sent"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &sentConflicts); err != nil || sentConflicts.Landed || !sentConflicts.Started || sentConflicts.StartReason != "hook_turn_started" || sentConflicts.Sent.SurfaceID != agent {
		t.Errorf("land --to-agent: %+v (%v)\n%s", sentConflicts, err, r)
	}
	s.waitOutput(id(agent), `got "Landing your branch clash into main \(merge\) stopped on conflicts`)
	if got := gittest.Git(t, repo, "rev-parse", "main"); got != mainWas {
		t.Errorf("main moved: %s → %s", mainWas, got)
	}

	pane := s.split("v", "--cwd", clean, "--command", "sleep 600")
	s.eventually("the pane's cwd", func() (bool, string) {
		sf, ok := s.surface(pane)
		return ok && sf.Cwd != nil && *sf.Cwd == clean, fmt.Sprintf("%+v", sf)
	})
	var landed struct {
		Landed        bool     `json:"landed"`
		Strategy      string   `json:"strategy"`
		Commits       int      `json:"commits"`
		ClosedPanes   []uint64 `json:"closed_panes"`
		Teardown      string   `json:"teardown"`
		BranchDeleted bool     `json:"branch_deleted"`
	}
	s.mustCLI(&landed, "land", "--squash", "--teardown", "--delete-branch", "--worktree", clean, "--json")
	if !landed.Landed || landed.Strategy != "squash" || landed.Commits != 1 || len(landed.ClosedPanes) != 1 || landed.ClosedPanes[0] != pane || landed.Teardown != "removed" || !landed.BranchDeleted {
		t.Fatalf("land: %+v", landed)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "b.txt")); string(b) != "b on clean\n" {
		t.Errorf("main's b.txt = %q", b)
	}
	if _, ok := s.surface(pane); ok {
		t.Error("the pane in the worktree is still open")
	}
	if _, err := os.Stat(clean); !os.IsNotExist(err) {
		t.Errorf("the worktree is still there: %v", err)
	}
	s.wantCode(2, []string{"--delete-branch needs --teardown"}, "land", "--delete-branch", "--worktree", clash)
	s.wantCode(1, []string{"cannot open a pull request"}, "land", "--pr", "--worktree", clash)
}

// TestChecksLoop: `paneflow checks` against a real server: the worktree's
// .paneflow.toml runs nothing until `paneflow trust` trusts it; then run
// reports the pass and the failure (exit 1, its output), status shows
// them, and send types the failing output into the worktree's (fake,
// hooked) agent and confirms its turn start.
func TestChecksLoop(t *testing.T) {
	s := startServer(t, "PANEFLOW_IPC_SCRIPTING=1")
	repo := gittest.Repo(t, filepath.Join(tempDir(t), "repo"), map[string]string{
		".paneflow.toml": "[checks.commands]\nbuild = \"true\"\ntest = \"echo FAIL: TestSum; exit 1\"\n",
	})
	cfg := filepath.Join(repo, ".paneflow.toml")
	s.wantCode(1, []string{"is not trusted", "paneflow trust " + cfg}, "checks", "run", "--worktree", repo)
	s.mustCLI(nil, "trust", cfg)
	r := s.cli("checks", "run", "--worktree", repo)
	if r.code != 1 || !strings.Contains(r.stdout, "pass  build") || !strings.Contains(r.stdout, "fail  test") || !strings.Contains(r.stdout, "(exit 1)\n      FAIL: TestSum\n") {
		t.Errorf("checks run:\n%s", r)
	}
	var st struct {
		Checks []struct {
			Name       string `json:"name"`
			Status     string `json:"status"`
			DurationMS *int64 `json:"duration_ms"`
			Output     string `json:"output"`
		} `json:"checks"`
	}
	s.mustCLI(&st, "checks", "status", "--worktree", repo, "--json")
	if len(st.Checks) != 2 || st.Checks[1].Status != "fail" || st.Checks[1].Output != "FAIL: TestSum\n" || st.Checks[0].DurationMS == nil {
		t.Errorf("status: %+v", st)
	}

	args, _ := agentDir(t, "banner", "hook:SessionStart", "read", "hook:UserPromptSubmit", "echo")
	agent := s.split(append(args, "--cwd", repo)...)
	s.waitStatus(agent, "idle", func(st agentStatus) bool { return st.Hooked })
	var sent struct {
		Check       string `json:"check"`
		Started     bool   `json:"started"`
		StartReason string `json:"start_reason"`
	}
	s.mustCLI(&sent, "checks", "send", "test", "--worktree", repo, "--json")
	if sent.Check != "test" || !sent.Started || sent.StartReason != "hook_turn_started" {
		t.Errorf("send: %+v", sent)
	}
	s.waitOutput(id(agent), `got "The check \\"test\\"`)
	s.waitOutput(id(agent), `FAIL: TestSum`)
	s.wantCode(1, []string{"did not fail"}, "checks", "send", "build", "--worktree", repo)
}

// TestChecksOnTurnEnd: with on_turn_end in the trusted .paneflow.toml,
// the server runs the checks when the (fake, hooked) agent working in the
// worktree finishes a turn (its Stop hook).
func TestChecksOnTurnEnd(t *testing.T) {
	s := startServer(t)
	repo := gittest.Repo(t, filepath.Join(tempDir(t), "repo"), map[string]string{
		".paneflow.toml": "[checks]\non_turn_end = true\n[checks.commands]\ntest = \"echo ran at turn end; exit 1\"\n",
	})
	s.mustCLI(nil, "trust", filepath.Join(repo, ".paneflow.toml"))
	args, _ := agentDir(t, "banner", "hook:SessionStart", "hook:UserPromptSubmit", "hook:Stop", "read")
	s.split(append(args, "--cwd", repo)...)
	var st struct {
		Checks []struct {
			Status  string `json:"status"`
			Trigger string `json:"trigger"`
			Output  string `json:"output"`
		} `json:"checks"`
	}
	s.eventually("the turn-end check", func() (bool, string) {
		s.mustCLI(&st, "checks", "status", "--worktree", repo, "--json")
		return len(st.Checks) == 1 && st.Checks[0].Status == "fail", fmt.Sprintf("%+v", st)
	})
	if st.Checks[0].Trigger != "turn_end" || st.Checks[0].Output != "ran at turn end\n" {
		t.Errorf("status: %+v", st)
	}
}
