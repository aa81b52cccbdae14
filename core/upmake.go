package core

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/subsystem"
	"github.com/paneflow-go/paneflow/worktree"
)

// worktree.create and worktree.rollback: the git work of a pane's
// worktree done by the server, for a client that does not run git itself
// (the MCP bridge, which links only the ipc client). The client then
// hands the result to surface.split as its managed_worktree, which the
// owner adopts like one `paneflow up` made; if the split fails, it calls
// worktree.rollback. Both are Long (git may take seconds on a big
// repository) and off the executor: no mutation of the model waits for
// git.

// register adds the owner's methods to m.
func (o *worktreeOwner) register(m *subsystem.Methods) {
	m.Register(proto.MethodWorktreeCreate, o.create, ipc.Long())
	m.Register(proto.MethodWorktreeRollback, o.rollback, ipc.Long())
}

// create plans branch's worktree for a pane in cwd (absolute) and creates
// it unless it exists already (reuse), like `up`'s `worktree = "<branch>"`
// (package worktree: <repo>.worktrees/<slug>). A created worktree is
// recorded at once, so an orphan (the client never started its pane) is
// pruned at the next start. Errors are the worktree package's, git's
// message included, as they are; when a git command failed, the error's
// data is {"git": {"args": [...], "stderr": "..."}} (gitFailure): git's
// whole standard error, byte for byte, for a client that shows it as git
// printed it (the desktop app's quick launch).
func (o *worktreeOwner) create(ctx context.Context, params json.RawMessage) (any, error) {
	var p proto.WorktreeCreateParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, ipc.InvalidParams("worktree.create: %v", err)
	}
	if p.Branch == "" {
		return nil, ipc.InvalidParams("Missing 'branch' parameter")
	}
	if !filepath.IsAbs(p.Cwd) {
		return nil, ipc.InvalidParams("'cwd' must be an absolute path, got '%s'", p.Cwd)
	}
	if err := o.Ready(); err != nil {
		return nil, ipc.Errorf(ipc.CodeInternal, "%v", err)
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	defer context.AfterFunc(o.ctx, stop)() // Shutdown cancels git in flight
	plan, err := worktree.PlanFor(ctx, p.Cwd, p.Branch)
	if err != nil {
		return nil, withGitData(ipc.InvalidParams("%v", err), err)
	}
	if err := worktree.Create(ctx, plan); err != nil {
		return nil, withGitData(ipc.Errorf(ipc.CodeInternal, "%v", err), err)
	}
	res := proto.WorktreeCreateResult{Path: plan.Path, RepoRoot: plan.RepoRoot, Branch: plan.Branch, Action: string(plan.Action), Teardown: proto.TeardownAuto, NewBranch: plan.NewBranch}
	if plan.Action != worktree.ActionCreate {
		return res, nil
	}
	if p.CopyEnv == nil || *p.CopyEnv {
		names, err := worktree.CopyEnv(ctx, plan.RepoRoot, plan.Path)
		if err != nil {
			o.logf("paneflow: worktree %s: copy_env: %v", plan.Path, err)
		}
		res.CopiedEnv = names
	}
	if o.reg != nil {
		if err := o.reg.Add(worktree.Record{Path: plan.Path, RepoRoot: plan.RepoRoot, Branch: plan.Branch, Teardown: worktree.TeardownAuto}); err != nil {
			o.logf("paneflow: worktrees: %v", err)
		}
	}
	o.mu.Lock()
	o.made[plan.Path] = plan
	o.mu.Unlock()
	return res, nil
}

// withGitData gives e the data [proto.GitFailureData] when cause is (or
// wraps) a failed git command, and returns it.
func withGitData(e *ipc.Error, cause error) *ipc.Error {
	var ge *worktree.GitError
	if errors.As(cause, &ge) {
		e.Data = proto.GitFailureData{Git: proto.GitFailure{Args: ge.Args, Stderr: ge.Stderr}}
	}
	return e
}

// rollback undoes a worktree.create whose pane did not start: only a
// worktree this run's worktree.create made and no pane has adopted is
// removed (git worktree remove --force, and the branch if create made it
// and it gained no commits).
func (o *worktreeOwner) rollback(ctx context.Context, params json.RawMessage) (any, error) {
	var p proto.WorktreeRollbackParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, ipc.InvalidParams("worktree.rollback: %v", err)
	}
	o.mu.Lock()
	plan, ok := o.made[p.Path]
	delete(o.made, p.Path)
	o.mu.Unlock()
	if !ok {
		return nil, ipc.InvalidParams("'%s' is not a worktree that worktree.create made and no pane uses", p.Path)
	}
	// Not cut short by the caller going away: a half-removed worktree is
	// worse than a late reply.
	err := worktree.Rollback(context.WithoutCancel(ctx), plan)
	if o.reg != nil {
		if ferr := o.reg.Forget(plan.Path); ferr != nil {
			o.logf("paneflow: worktrees: %v", ferr)
		}
	}
	if err != nil {
		return nil, ipc.Errorf(ipc.CodeInternal, "%v", err)
	}
	return proto.WorktreeRollbackResult{RolledBack: true, Path: plan.Path}, nil
}
