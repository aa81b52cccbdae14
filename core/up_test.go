//go:build !windows

package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/internal/clock"
	"github.com/paneflow-go/paneflow/internal/gittest"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/subsystem"
	"github.com/paneflow-go/paneflow/workspace"
	"github.com/paneflow-go/paneflow/worktree"
)

// TestManagedWorktreeTeardown: closing a workspace removes the clean
// worktree Paneflow created once its undo window passed (reopened
// before, its panes find their worktrees where they were), keeps a dirty
// one, never touches one it did not create; an orphan recorded by an
// earlier run is pruned at start.
func TestManagedWorktreeTeardown(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
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
	gittest.Git(t, root, "worktree", "add", "-q", "-b", "foreign", foreign)
	regPath := filepath.Join(t.TempDir(), "worktrees.json")
	o := plans["orphan"]
	if err := worktree.OpenRegistry(regPath).Add(worktree.Record{Path: o.Path, RepoRoot: o.RepoRoot, Branch: "orphan", Teardown: "auto"}); err != nil {
		t.Fatal(err)
	}

	logs := make(chan string, 100)
	fc := clock.NewFake(time.Time{})
	c, cl, stop := startCoreStop(t, func(o *Options) {
		o.WorktreeRegistry = regPath
		o.Logf = logTo(t, logs)
		o.Clock = fc
	})
	mw := func(p worktree.Plan, action string) map[string]any {
		return map[string]any{"path": p.Path, "repo_root": p.RepoRoot, "branch": p.Branch, "action": action}
	}
	var up struct {
		Index int `json:"index"`
	}
	err := cl.Call(ctx, "workspace.up", map[string]any{"panes": []any{
		map[string]any{"cwd": plans["clean"].Path, "managed_worktree": mw(plans["clean"], "create")},
		map[string]any{"cwd": plans["dirty"].Path, "managed_worktree": mw(plans["dirty"], "create")},
		map[string]any{"cwd": foreign, "managed_worktree": mw(worktree.Plan{Path: foreign, RepoRoot: plans["clean"].RepoRoot, Branch: "foreign"}, "reuse")},
	}}, &up)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(plans["dirty"].Path, "wip"), []byte("x"), 0o644)
	// Closed and reopened within the undo window: the clean worktree is
	// where it was, its pane's shell runs in it.
	if err := cl.Call(ctx, "workspace.close", map[string]any{"index": up.Index}, nil); err != nil {
		t.Fatal(err)
	}
	if err := cl.Call(ctx, "workspace.reopen", nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(plans["clean"].Path); err != nil {
		t.Fatalf("the reopened workspace's worktree: %v", err)
	}
	if !c.session.worktrees.inUse(plans["clean"].Path) {
		t.Fatal("the reopened pane's worktree is no longer owned")
	}
	// Closed again, the window passes: the teardown.
	if err := cl.Call(ctx, "workspace.close", map[string]any{"index": up.Index}, nil); err != nil {
		t.Fatal(err)
	}
	if !c.session.worktrees.inUse(plans["clean"].Path) {
		t.Fatal("the worktree was let go within the undo window")
	}
	fc.Advance(workspace.DefaultUndoWindow)
	want := map[string]bool{
		"paneflow: orphan worktree " + o.Path + ": removed":                      true,
		"paneflow: worktree " + plans["clean"].Path + ": removed":                true,
		"paneflow: worktree kept: uncommitted changes in " + plans["dirty"].Path: true,
	}
	for len(want) > 0 {
		l := <-logs // the test's deadline bounds this
		delete(want, l)
	}
	stop()
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

// newRepo makes a git repository with one commit in a directory whose
// path holds a space.
func newRepo(t *testing.T) string {
	t.Helper()
	return gittest.Repo(t, filepath.Join(t.TempDir(), "a repo"), map[string]string{"f": "x"})
}

// logTo is an Options.Logf that logs on t and hands each line to logs
// too, dropping it when logs is full.
func logTo(t *testing.T, logs chan<- string) func(string, ...any) {
	return func(f string, a ...any) {
		t.Logf(f, a...)
		select {
		case logs <- fmt.Sprintf(f, a...):
		default:
		}
	}
}

// TestQuitKeepsWorktrees: the worktree subsystem starts after the
// workspace model, so it shuts down before the panes close: quitting
// leaves a clean worktree Paneflow created, and its record, for the next
// start to prune.
func TestQuitKeepsWorktrees(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	p, err := worktree.PlanFor(ctx, root, "quit")
	if err != nil {
		t.Fatal(err)
	}
	if err := worktree.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	regPath := filepath.Join(t.TempDir(), "worktrees.json")
	c, cl, stop := startCoreStop(t, func(o *Options) {
		o.WorktreeRegistry, o.NoInitialWorkspace = regPath, true
	})
	got := c.group.Started()
	if w, m := slices.Index(got, "worktree"), slices.Index(got, "workspace"); w < 0 || m < 0 || w < m {
		t.Fatalf("started %q: want worktree after workspace", got)
	}
	err = cl.Call(ctx, "workspace.up", map[string]any{"panes": []any{
		map[string]any{"cwd": p.Path, "managed_worktree": map[string]any{"path": p.Path, "repo_root": p.RepoRoot, "branch": p.Branch, "action": "create"}},
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if _, err := os.Stat(p.Path); err != nil {
		t.Errorf("quitting removed the worktree: %v", err)
	}
	recs, _ := worktree.OpenRegistry(regPath).Records()
	if len(recs) != 1 || recs[0].Path != p.Path {
		t.Errorf("registry keeps %+v, want the worktree", recs)
	}
}

// TestWorktreeSkippedWithoutGit: without git on PATH the worktree
// subsystem is left out (logged) and managed worktrees are refused with
// the reason, before any pane is made; the rest of the core runs.
func TestWorktreeSkippedWithoutGit(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // the core's own exec.LookPath("git")
	logs := make(chan string, 100)
	c, cl, _ := startCoreStop(t, func(o *Options) {
		o.WorktreeRegistry, o.NoInitialWorkspace, o.Logf = "-", true, logTo(t, logs)
	})
	if got := c.group.Started(); slices.Contains(got, "worktree") {
		t.Fatalf("started %q with no git on PATH", got)
	}
	skipped := false
	for len(logs) > 0 { // New logged the skip before it returned
		l := <-logs
		skipped = skipped || strings.HasPrefix(l, "paneflow: worktree skipped: git not found") && strings.HasSuffix(l, subsystem.ErrSkip.Error())
	}
	if !skipped {
		t.Error("the skip was not logged")
	}
	dir := t.TempDir()
	err := cl.Call(context.Background(), "workspace.up", map[string]any{"panes": []any{
		map[string]any{"cwd": dir, "managed_worktree": map[string]any{"path": dir, "repo_root": dir, "branch": "b", "action": "create"}},
	}}, nil)
	var re *ipc.Error
	if !errors.As(err, &re) || re.Code != ipc.CodeInvalidParams || !strings.HasPrefix(re.Message, "pane 0: managed_worktree is not supported by this server: git not found") {
		t.Fatalf("workspace.up: %v, want managed_worktree refused", err)
	}
	if n := len(c.Workspaces.Surfaces()); n != 0 {
		t.Errorf("%d panes after the refused up", n)
	}
}

// TestWorktreeWaitsForUndo: the last pane of a managed worktree closed
// but kept for undo close keeps the worktree owned (a reopen finds it)
// until the model says the pane is gone for good; then the teardown
// runs. The old owner let go of it, and tore it down, at the close.
func TestWorktreeWaitsForUndo(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	p, err := worktree.PlanFor(ctx, root, "undo")
	if err != nil {
		t.Fatal(err)
	}
	if err := worktree.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	gone := make(chan struct{})
	logs := make(chan string, 10)
	o := newWorktreeOwner("", func(uint64) bool { return true })
	o.whenGone = func(id uint64) <-chan struct{} {
		if id != 7 {
			t.Errorf("whenGone(%d), want 7", id)
		}
		return gone
	}
	o.logf = logTo(t, logs)
	t.Cleanup(func() { o.cancel(); o.wg.Wait() }) // never Init: no subscription to close
	o.Adopt(7, proto.ManagedWorktree{Path: p.Path, RepoRoot: p.RepoRoot, Branch: p.Branch, Action: "create", Teardown: "auto"})
	o.closed(7)
	if !o.inUse(p.Path) {
		t.Fatal("the worktree was let go while its pane is kept for undo")
	}
	if _, err := os.Stat(p.Path); err != nil {
		t.Fatalf("the worktree is gone within the undo window: %v", err)
	}
	close(gone)
	if l := <-logs; l != "paneflow: worktree "+p.Path+": removed" {
		t.Fatalf("log %q", l)
	}
	if o.inUse(p.Path) {
		t.Fatal("the worktree is still owned after its pane is gone")
	}
	if _, err := os.Stat(p.Path); err == nil {
		t.Fatal("the worktree is still there")
	}
}

func TestUndoWindowEnv(t *testing.T) {
	for _, c := range []struct {
		v       string
		want    time.Duration
		warning bool
	}{
		{"", 0, false}, {"30s", 30 * time.Second, false}, {"0", -1, false}, {"0s", -1, false},
		{"2m", 2 * time.Minute, false}, {"soon", 0, true}, {"-5s", 0, true}, {"30", 0, true},
	} {
		var logged []string
		got := undoWindow(func(string) string { return c.v }, func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) })
		if got != c.want || (len(logged) > 0) != c.warning {
			t.Errorf("PANEFLOW_UNDO_WINDOW=%q: %v, logged %q; want %v, warning %v", c.v, got, logged, c.want, c.warning)
		}
	}
}
