//go:build linux

package mcpe2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/internal/gittest"
)

// TestSpawnWorktree: spawn_agent with worktree runs the pane in a git
// worktree of the caller's repository (the bridge's working directory, a
// subdirectory of it), made by the real `paneflow serve` with the real
// git; a second pane reuses it; the worktree goes when its last pane
// closes (branch kept); git's and the planner's errors come back as they
// are and leave no pane behind.
func TestSpawnWorktree(t *testing.T) {
	s := startServer(t)
	repo := gittest.Repo(t, filepath.Join(s.dir, "repo"), map[string]string{"sub/f": "x"})
	root, err := filepath.EvalSymlinks(repo)
	if err != nil {
		t.Fatal(err)
	}
	wantPath := filepath.Join(filepath.Dir(root), "repo.worktrees", "feat-x")
	c := connectDir(t, filepath.Join(repo, "sub"), append(s.env, "PANEFLOW_SURFACE_ID=1"), s.sock, legacy, "--orchestrate")

	type spawned struct {
		SurfaceID uint64 `json:"surface_id"`
		Worktree  struct {
			Path      string `json:"path"`
			Branch    string `json:"branch"`
			RepoRoot  string `json:"repo_root"`
			Action    string `json:"action"`
			NewBranch bool   `json:"new_branch"`
		} `json:"worktree"`
	}
	var a spawned
	out := c.mustCall(t, "spawn_agent", map[string]any{"command": "pwd; echo wt-ready; exec cat", "name": "wt-a", "worktree": "feat/x"})
	if err := json.Unmarshal([]byte(out), &a); err != nil || a.SurfaceID == 0 || a.Worktree.Path != wantPath || a.Worktree.RepoRoot != root ||
		a.Worktree.Branch != "feat/x" || a.Worktree.Action != "create" || !a.Worktree.NewBranch {
		t.Fatalf("spawn_agent with worktree: %v %s, want path %s", err, out, wantPath)
	}
	s.waitText(a.SurfaceID, "wt-ready")
	if text := c.mustCall(t, "read_pane", map[string]any{"target": "wt-a"}); !strings.Contains(text, wantPath) {
		t.Errorf("the pane does not run in the worktree:\n%s", text)
	}
	if l := gittest.Git(t, repo, "worktree", "list", "--porcelain"); !strings.Contains(l, "worktree "+wantPath+"\n") || !strings.Contains(l, "branch refs/heads/feat/x") {
		t.Errorf("git worktree list:\n%s", l)
	}

	// Another pane for the branch reuses it (an explicit cwd this time).
	var b spawned
	out = c.mustCall(t, "spawn_agent", map[string]any{"command": "echo wt-b-ready; exec cat", "name": "wt-b", "cwd": repo, "worktree": "feat/x"})
	if err := json.Unmarshal([]byte(out), &b); err != nil || b.Worktree.Path != wantPath || b.Worktree.Action != "reuse" {
		t.Fatalf("second spawn_agent: %v %s", err, out)
	}
	s.waitText(b.SurfaceID, "wt-b-ready")

	panes := func() int {
		var r struct {
			Surfaces []json.RawMessage `json:"surfaces"`
		}
		s.rpc("surface.list", map[string]any{}, &r)
		return len(r.Surfaces)
	}
	before := panes()
	os.WriteFile(filepath.Join(repo, ".git", "refs", "heads", "locked.lock"), nil, 0o644)
	q := regexp.QuoteMeta
	for args, want := range map[string]string{
		`{"command":"true","cwd":"` + repo + `","worktree":"main"}`:   "^branch 'main' already checked out at " + q(root) + "$",
		`{"command":"true","cwd":"` + repo + `","worktree":"a..b"}`:   `^branch 'a\.\.b' is not a valid branch name$`,
		`{"command":"true","cwd":"` + s.dir + `","worktree":"x"}`:     "^cwd '" + q(s.dir) + "' is not inside a git repository",
		`{"command":"true","cwd":"rel","worktree":"x"}`:               "^'cwd' must be an absolute path",
		`{"command":"true","cwd":"` + repo + `","worktree":"locked"}`: "^git -C " + q(root) + ` worktree add -b locked .*: fatal: cannot lock ref 'refs/heads/locked': .*locked\.lock': File exists\.$`,
		`{"command":"true","worktree":7}`:                             "worktree",
	} {
		var m map[string]any
		json.Unmarshal([]byte(args), &m)
		text, isErr := c.call(t, "spawn_agent", m)
		if !isErr || !regexp.MustCompile(want).MatchString(text) {
			t.Errorf("spawn_agent %s: %v %q, want %q", args, isErr, text, want)
		}
	}
	if n := panes(); n != before {
		t.Errorf("%d panes after the failed spawns, want %d", n, before)
	}

	// Torn down with its last pane, like `up`'s teardown "auto".
	c.mustCall(t, "kill_agent", map[string]any{"target": "wt-a"})
	c.mustCall(t, "kill_agent", map[string]any{"target": "wt-b"})
	waitFor(t, "the worktree's teardown", func() bool {
		_, err := os.Stat(wantPath)
		return os.IsNotExist(err)
	})
	if l := gittest.Git(t, repo, "branch", "--list", "feat/x"); !strings.Contains(l, "feat/x") {
		t.Error("the teardown deleted the branch")
	}
}
