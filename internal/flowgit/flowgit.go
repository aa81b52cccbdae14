// Package flowgit adapts package worktree to flow.Worktrees: the git work
// of `paneflow up`, `paneflow flow run` and the desktop app's launch pad,
// done by the process that runs them, so the worktrees live where it runs.
// It is the only place that joins the two packages, which must not import
// each other.
package flowgit

import (
	"context"
	"time"

	"github.com/paneflow-go/paneflow/flow"
	"github.com/paneflow-go/paneflow/worktree"
)

// Worktrees is flow.Worktrees over package worktree. Env is the
// environment setup scripts run with; nil means this process's. The zero
// value is ready to use; Worktrees holds no other state and is safe for
// concurrent use.
type Worktrees struct{ Env []string }

var _ flow.Worktrees = Worktrees{}

// Plan plans the worktree of branch for the repository holding cwd
// (read-only: nothing is created).
func (Worktrees) Plan(ctx context.Context, cwd, branch string) (flow.Worktree, error) {
	p, err := worktree.PlanFor(ctx, cwd, branch)
	if err != nil {
		return flow.Worktree{}, err
	}
	return flow.Worktree{Path: p.Path, RepoRoot: p.RepoRoot, Branch: p.Branch, Action: string(p.Action), NewBranch: p.NewBranch, Private: p}, nil
}

// plan gets package worktree's plan back from w: the one Plan made, or
// one rebuilt from w's fields.
func plan(w flow.Worktree) worktree.Plan {
	if p, ok := w.Private.(worktree.Plan); ok {
		return p
	}
	return worktree.Plan{Path: w.Path, RepoRoot: w.RepoRoot, Branch: w.Branch, Action: worktree.Action(w.Action), NewBranch: w.NewBranch}
}

// Create creates (or reuses) the planned worktree.
func (Worktrees) Create(ctx context.Context, w flow.Worktree) error {
	return worktree.Create(ctx, plan(w))
}

// CopyEnv copies the repository's ignored .env* files into the worktree,
// never overwriting; it returns the files copied.
func (Worktrees) CopyEnv(ctx context.Context, w flow.Worktree) ([]string, error) {
	return worktree.CopyEnv(ctx, w.RepoRoot, w.Path)
}

// Setup runs a pane's setup script in the worktree, killing its process
// group after timeout.
func (g Worktrees) Setup(ctx context.Context, w flow.Worktree, script string, timeout time.Duration) error {
	return worktree.RunSetup(ctx, w.Path, script, g.Env, timeout)
}

// Rollback removes a worktree this run created.
func (Worktrees) Rollback(ctx context.Context, w flow.Worktree) error {
	return worktree.Rollback(ctx, plan(w))
}
