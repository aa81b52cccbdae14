package app

import (
	"context"
	"os"
	"time"

	"github.com/paneflow-go/paneflow/flow"
	"github.com/paneflow-go/paneflow/worktree"
)

// gitWorktrees adapts package worktree to flow.Worktrees for the specs the
// launch pad launches, as the CLI's adapter does for `paneflow up`: the
// app does its git work itself, so the worktrees live where it runs.
type gitWorktrees struct{}

func (gitWorktrees) Plan(ctx context.Context, cwd, branch string) (flow.Worktree, error) {
	p, err := worktree.PlanFor(ctx, cwd, branch)
	if err != nil {
		return flow.Worktree{}, err
	}
	return flow.Worktree{Path: p.Path, RepoRoot: p.RepoRoot, Branch: p.Branch, Action: string(p.Action), NewBranch: p.NewBranch, Private: p}, nil
}

// wtPlan gets the worktree package's plan back from a flow.Worktree.
func wtPlan(w flow.Worktree) worktree.Plan {
	if p, ok := w.Private.(worktree.Plan); ok {
		return p
	}
	return worktree.Plan{Path: w.Path, RepoRoot: w.RepoRoot, Branch: w.Branch, Action: worktree.Action(w.Action), NewBranch: w.NewBranch}
}

func (gitWorktrees) Create(ctx context.Context, w flow.Worktree) error {
	return worktree.Create(ctx, wtPlan(w))
}

func (gitWorktrees) CopyEnv(ctx context.Context, w flow.Worktree) ([]string, error) {
	return worktree.CopyEnv(ctx, w.RepoRoot, w.Path)
}

func (gitWorktrees) Setup(ctx context.Context, w flow.Worktree, script string, timeout time.Duration) error {
	return worktree.RunSetup(ctx, w.Path, script, os.Environ(), timeout)
}

func (gitWorktrees) Rollback(ctx context.Context, w flow.Worktree) error {
	return worktree.Rollback(ctx, wtPlan(w))
}
