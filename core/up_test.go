//go:build !windows

package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/paneflow-go/paneflow/config"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
	"github.com/paneflow-go/paneflow/worktree"
)

func gitT(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestManagedWorktreeTeardown: closing a workspace removes the clean
// worktree Paneflow created, keeps a dirty one, never touches one it did
// not create; an orphan recorded by an earlier run is pruned at start.
func TestManagedWorktreeTeardown(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "a repo")
	os.MkdirAll(root, 0o755)
	gitT(t, root, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(root, "f"), []byte("x"), 0o644)
	gitT(t, root, "add", ".")
	gitT(t, root, "commit", "-q", "-m", "one")
	plans := map[string]worktree.Plan{}
	for _, b := range []string{"clean", "dirty", "orphan"} {
		p, err := worktree.PlanFor(ctx, root, b)
		if err != nil {
			t.Fatal(err)
		}
		if err := worktree.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		plans[b] = p
	}
	foreign := filepath.Join(filepath.Dir(root), "foreign")
	gitT(t, root, "worktree", "add", "-q", "-b", "foreign", foreign)
	regPath := filepath.Join(t.TempDir(), "worktrees.json")
	o := plans["orphan"]
	if err := worktree.OpenRegistry(regPath).Add(worktree.Record{Path: o.Path, RepoRoot: o.RepoRoot, Branch: "orphan", Teardown: "auto"}); err != nil {
		t.Fatal(err)
	}

	logs := make(chan string, 100)
	cfg := config.Default()
	cfg.DefaultShell = "/bin/sh"
	c, err := New(Options{
		SocketPath: ipctest.NewPath(t), Cols: 80, Rows: 24, Config: &cfg, WorktreeRegistry: regPath,
		Getenv: func(string) string { return "" },
		Logf: func(f string, a ...any) {
			t.Logf(f, a...)
			select {
			case logs <- fmt.Sprintf(f, a...):
			default:
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- c.Serve(ctx) }()
	cl := &ipc.Client{Path: c.SocketPath}
	mw := func(p worktree.Plan, action string) map[string]any {
		return map[string]any{"path": p.Path, "repo_root": p.RepoRoot, "branch": p.Branch, "action": action}
	}
	var up struct {
		Index int `json:"index"`
	}
	err = cl.Call(ctx, "workspace.up", map[string]any{"panes": []any{
		map[string]any{"cwd": plans["clean"].Path, "managed_worktree": mw(plans["clean"], "create")},
		map[string]any{"cwd": plans["dirty"].Path, "managed_worktree": mw(plans["dirty"], "create")},
		map[string]any{"cwd": foreign, "managed_worktree": mw(worktree.Plan{Path: foreign, RepoRoot: plans["clean"].RepoRoot, Branch: "foreign"}, "reuse")},
	}}, &up)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(plans["dirty"].Path, "wip"), []byte("x"), 0o644)
	if err := cl.Call(ctx, "workspace.close", map[string]any{"index": up.Index}, nil); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		"paneflow: orphan worktree " + o.Path + ": removed":                      true,
		"paneflow: worktree " + plans["clean"].Path + ": removed":                true,
		"paneflow: worktree kept: uncommitted changes in " + plans["dirty"].Path: true,
	}
	for len(want) > 0 {
		l := <-logs // the test's deadline bounds this
		delete(want, l)
	}
	sctx, cancel := context.WithTimeout(ctx, testDeadline)
	defer cancel()
	if err := c.Shutdown(sctx); err != nil {
		t.Fatal(err)
	}
	if err := <-served; !errors.Is(err, ipc.ErrServerClosed) {
		t.Fatal(err)
	}
	for _, p := range []string{plans["dirty"].Path, foreign} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed", p)
		}
	}
	for _, p := range []string{plans["clean"].Path, o.Path} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s is still there", p)
		}
	}
	recs, _ := worktree.OpenRegistry(regPath).Records()
	if len(recs) != 1 || recs[0].Path != plans["dirty"].Path {
		t.Errorf("registry keeps %+v, want only the dirty worktree", recs)
	}
}
