//go:build !windows

package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/internal/gittest"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/worktree"
)

// TestWorktreeCreate: worktree.create makes a branch's worktree with the
// real git (copying the ignored .env), surface.split adopts it and the
// pane's close tears it down; git's and the planner's errors come back as
// they are; worktree.rollback removes only what create made and no pane
// took, with the branch it made.
func TestWorktreeCreate(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte(".env\n"), 0o644)
	os.WriteFile(filepath.Join(root, ".env"), []byte("SECRET=1\n"), 0o644)
	gittest.Git(t, root, "add", ".gitignore")
	gittest.Git(t, root, "commit", "-q", "-m", "ignore")
	regPath := filepath.Join(t.TempDir(), "worktrees.json")
	logs := make(chan string, 100)
	_, cl := startCoreWith(t, func(o *Options) {
		o.WorktreeRegistry = regPath
		o.Logf = func(f string, a ...any) {
			t.Logf(f, a...)
			select {
			case logs <- fmt.Sprintf(f, a...):
			default:
			}
		}
	})

	var w struct {
		Path, RepoRoot, Branch, Action, Teardown string
		NewBranch                                bool     `json:"new_branch"`
		CopiedEnv                                []string `json:"copied_env"`
		RepoRootJSON                             string   `json:"repo_root"`
	}
	if err := cl.Call(ctx, "worktree.create", map[string]any{"cwd": root, "branch": "feat/a"}, &w); err != nil {
		t.Fatal(err)
	}
	wantPath := filepath.Join(filepath.Dir(root), "a repo.worktrees", "feat-a")
	if w.Path != wantPath || w.RepoRootJSON != root || w.Branch != "feat/a" || w.Action != "create" || w.Teardown != "auto" || !w.NewBranch || len(w.CopiedEnv) != 1 {
		t.Fatalf("worktree.create: %+v, want path %s", w, wantPath)
	}
	if b, err := os.ReadFile(filepath.Join(w.Path, ".env")); err != nil || string(b) != "SECRET=1\n" {
		t.Errorf(".env not copied: %q %v", b, err)
	}
	if recs, _ := worktree.OpenRegistry(regPath).Records(); len(recs) != 1 || recs[0].Path != w.Path {
		t.Errorf("registry after create: %+v", recs)
	}
	var sp struct {
		SurfaceID uint64 `json:"surface_id"`
	}
	mw := map[string]any{"path": w.Path, "repo_root": w.RepoRootJSON, "branch": w.Branch, "teardown": "auto", "action": w.Action}
	if err := cl.Call(ctx, "surface.split", map[string]any{"direction": "vertical", "cwd": w.Path, "managed_worktree": mw}, &sp); err != nil {
		t.Fatal(err)
	}
	// Adopted: no longer the client's to roll back.
	err := cl.Call(ctx, "worktree.rollback", map[string]any{"path": w.Path}, nil)
	var ie *ipc.Error
	if !errors.As(err, &ie) || !strings.Contains(ie.Message, "is not a worktree that worktree.create made") {
		t.Errorf("rollback of an adopted worktree: %v", err)
	}

	for params, want := range map[string]string{
		`{"cwd":"` + root + `","branch":"main"}`:     "branch 'main' already checked out at " + root,
		`{"cwd":"` + root + `","branch":"a..b"}`:     "branch 'a..b' is not a valid branch name",
		`{"cwd":"relative","branch":"x"}`:            "'cwd' must be an absolute path",
		`{"cwd":"` + root + `"}`:                     "Missing 'branch' parameter",
		`{"cwd":"` + t.TempDir() + `","branch":"x"}`: "is not inside a git repository",
	} {
		var raw map[string]any
		if err := json.Unmarshal([]byte(params), &raw); err != nil {
			t.Fatal(err)
		}
		if err := cl.Call(ctx, "worktree.create", raw, nil); !errors.As(err, &ie) || !strings.Contains(ie.Message, want) || ie.Data != nil {
			t.Errorf("worktree.create %s: %v (data %v), want %q and no git data", params, err, ie.Data, want)
		}
	}
	// git's own message, as it is: the new branch's ref is locked.
	os.WriteFile(filepath.Join(root, ".git", "refs", "heads", "locked.lock"), nil, 0o644)
	err = cl.Call(ctx, "worktree.create", map[string]any{"cwd": root, "branch": "locked"}, nil)
	if !errors.As(err, &ie) || !strings.HasPrefix(ie.Message, "git -C "+root+" worktree add -b locked") || !strings.HasSuffix(ie.Message, ": fatal: cannot lock ref 'refs/heads/locked': Unable to create '"+filepath.Join(root, ".git", "refs", "heads", "locked.lock")+"': File exists.") {
		t.Errorf("worktree.create with a locked ref: %v", err)
	}
	// The error's data carries git's whole stderr, every line of it (the
	// message has only the last).
	var data struct {
		Git *struct {
			Args   []string `json:"args"`
			Stderr string   `json:"stderr"`
		} `json:"git"`
	}
	if ie != nil {
		b, _ := json.Marshal(ie.Data)
		if err := json.Unmarshal(b, &data); err != nil {
			t.Fatal(err)
		}
	}
	if g := data.Git; g == nil || !strings.Contains(g.Stderr, "fatal: cannot lock ref 'refs/heads/locked'") ||
		!strings.HasSuffix(g.Stderr, "remove the file manually to continue.\n") || strings.Count(g.Stderr, "\n") < 3 ||
		strings.Join(g.Args, " ") != "-C "+root+" worktree add -b locked "+filepath.Join(filepath.Dir(root), "a repo.worktrees", "locked") {
		t.Errorf("worktree.create with a locked ref: error data %+v", data.Git)
	}
	os.Remove(filepath.Join(root, ".git", "refs", "heads", "locked.lock"))

	// A create whose pane never started is rolled back, branch and all.
	var w2 struct {
		Path string `json:"path"`
	}
	if err := cl.Call(ctx, "worktree.create", map[string]any{"cwd": root, "branch": "tmp"}, &w2); err != nil {
		t.Fatal(err)
	}
	if err := cl.Call(ctx, "worktree.rollback", map[string]any{"path": w2.Path}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w2.Path); err == nil {
		t.Errorf("%s is still there after rollback", w2.Path)
	}
	if out, _ := exec.Command("git", "-C", root, "branch", "--list", "tmp").Output(); len(out) != 0 {
		t.Errorf("branch tmp kept after rollback: %q", out)
	}
	if err := cl.Call(ctx, "worktree.rollback", map[string]any{"path": w2.Path}, nil); err == nil {
		t.Error("a second rollback succeeded")
	}

	// The pane's close tears the created worktree down (branch kept).
	if err := cl.Call(ctx, "surface.close", map[string]any{"surface_id": sp.SurfaceID}, nil); err != nil {
		t.Fatal(err)
	}
	l := <-logs // the test's deadline bounds the waits
	for !strings.Contains(l, w.Path) {
		l = <-logs
	}
	if l != "paneflow: worktree "+w.Path+": removed" {
		t.Errorf("teardown: %s", l)
	}
	if _, err := os.Stat(w.Path); err == nil {
		t.Errorf("%s is still there after its pane closed", w.Path)
	}
	if out, _ := exec.Command("git", "-C", root, "branch", "--list", "feat/a").Output(); len(out) == 0 {
		t.Error("teardown deleted the branch")
	}
	// startCoreWith's cleanup shuts the core down and checks Serve's end.
}
