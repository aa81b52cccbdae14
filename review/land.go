package review

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/worktree"
)

// ghTimeout bounds `gh pr create`.
const ghTimeout = 2 * time.Minute

// land is land.run: the worktree's branch into its base (package
// worktree's Land), then, when asked and clean, the teardown: the panes
// working in the worktree closed through the socket, the worktree
// removed, the branch deleted if asked.
func (s *Service) land(ctx context.Context, params json.RawMessage) (any, error) {
	var p proto.LandParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := absWorktree(p.Worktree); err != nil {
		return nil, err
	}
	if p.Strategy == "" {
		st, err := LandDefault(ctx, p.Worktree)
		if err != nil {
			return nil, ipc.InvalidParams("land: %v", err)
		}
		p.Strategy = st
	}
	l, err := worktree.Land(ctx, p.Worktree, worktree.LandOptions{Strategy: p.Strategy, Base: p.Base, Message: p.Message})
	if err != nil {
		return nil, withGitData(ipc.InvalidParams("land: %v", err), err)
	}
	res := proto.LandResult{
		Worktree: l.Root, RepoRoot: l.RepoRoot, Branch: l.Branch, Base: l.Base, Strategy: l.Strategy,
		Landed: len(l.Conflicts) == 0, Commit: l.Commit, Commits: l.Commits, Conflicts: l.Conflicts,
	}
	if !res.Landed && p.SendConflicts != nil && *p.SendConflicts {
		sent, err := s.deliver(ctx, res.Worktree, proto.ReviewSendParams{SurfaceID: p.SurfaceID, InputWaitMS: p.InputWaitMS}, conflictPrompt(res))
		if err != nil {
			var pe *proto.Error
			if errors.As(err, &pe) {
				return nil, &proto.Error{Code: pe.Code, Message: fmt.Sprintf("%s did not land (conflicts in %s; %s is unchanged), and the conflicts were not sent to the agent: %s",
					res.Branch, strings.Join(res.Conflicts, ", "), res.Base, pe.Message), Data: pe.Data}
			}
			return nil, err
		}
		res.Sent = &sent
		return res, nil
	}
	if !res.Landed || p.Teardown == nil || !*p.Teardown {
		return res, nil
	}
	s.teardown(ctx, &res, p.DeleteBranch != nil && *p.DeleteBranch)
	return res, nil
}

// absWorktree checks land's worktree param: given, and absolute (the
// server's working directory means nothing to the client).
func absWorktree(dir string) error {
	if dir == "" {
		return ipc.InvalidParams("Missing 'worktree' parameter")
	}
	if !filepath.IsAbs(dir) {
		return ipc.InvalidParams("'worktree' must be an absolute path, got '%s'", dir)
	}
	return nil
}

// landTeardown is land.teardown: a landed worktree torn down after the
// fact (the window offers it once land.run succeeded).
func (s *Service) landTeardown(ctx context.Context, params json.RawMessage) (any, error) {
	var p proto.LandTeardownParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := absWorktree(p.Worktree); err != nil {
		return nil, err
	}
	switch p.Strategy {
	case "":
		p.Strategy = proto.LandMerge
	case proto.LandMerge, proto.LandSquash, proto.LandRebase:
	default:
		return nil, ipc.InvalidParams("unknown land strategy '%s' (merge, squash, rebase)", p.Strategy)
	}
	l, err := worktree.LandTarget(ctx, p.Worktree, "")
	if err != nil {
		return nil, ipc.InvalidParams("teardown: %v", err)
	}
	if p.Branch != "" && l.Branch != p.Branch {
		return nil, ipc.InvalidParams("teardown: %s holds %s now, not %s", l.Root, l.Branch, p.Branch)
	}
	res := proto.LandResult{Worktree: l.Root, RepoRoot: l.RepoRoot, Branch: l.Branch, Base: l.Base, Strategy: p.Strategy, Landed: true}
	s.teardown(ctx, &res, p.DeleteBranch != nil && *p.DeleteBranch)
	return res, nil
}

// teardown closes the panes working in a landed worktree and removes it,
// recording what happened in res; deleteBranch then deletes the branch.
// The repository's main working tree is never torn down.
func (s *Service) teardown(ctx context.Context, res *proto.LandResult, deleteBranch bool) {
	if res.Worktree == res.RepoRoot {
		res.Teardown, res.TeardownError = string(worktree.Kept), "the repository's main working tree is never torn down"
		return
	}
	cl := proto.Client{Caller: s.o.Dial(0)}
	ls, err := cl.SurfaceList(ctx)
	if err != nil {
		res.Teardown, res.TeardownError = string(worktree.Kept), fmt.Sprintf("listing the panes: %v", err)
		return
	}
	for _, sf := range ls.Surfaces {
		if sf.Cwd == nil || !inside(res.Worktree, *sf.Cwd) {
			continue
		}
		if _, err := cl.SurfaceClose(ctx, sf.ID); err != nil {
			res.Teardown, res.TeardownError = string(worktree.Kept), fmt.Sprintf("closing pane %d: %v", sf.ID, err)
			return
		}
		res.ClosedPanes = append(res.ClosedPanes, sf.ID)
	}
	out, err := worktree.Teardown(ctx, res.RepoRoot, res.Worktree)
	if _, statErr := os.Stat(res.Worktree); err != nil && errors.Is(statErr, os.ErrNotExist) {
		// The panes' own worktree owner (a managed worktree) removed it
		// as its last pane closed.
		out, err = worktree.Removed, nil
	}
	res.Teardown = string(out)
	if err != nil {
		res.TeardownError = err.Error()
		return
	}
	if deleteBranch {
		if err := worktree.DeleteBranch(ctx, res.RepoRoot, res.Branch, res.Strategy == worktree.LandSquash); err != nil {
			res.TeardownError = fmt.Sprintf("branch kept: %v", err)
			return
		}
		res.BranchDeleted = true
	}
}

// withGitData adds a failed git command's arguments and whole standard
// error to e's data, as worktree.create does.
func withGitData(e *proto.Error, err error) *proto.Error {
	var ge *worktree.GitError
	if errors.As(err, &ge) {
		e.Data = proto.GitFailureData{Git: proto.GitFailure{Args: ge.Args, Stderr: ge.Stderr}}
	}
	return e
}

// pr is land.pr: the branch pushed to its GitHub remote and a pull request
// opened with `gh pr create`; where gh is missing or the remote is not
// GitHub's, the error says so.
func (s *Service) pr(ctx context.Context, params json.RawMessage) (any, error) {
	var p proto.LandPRParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	root, err := s.rootOf(ctx, p.Worktree)
	if err != nil {
		return nil, err
	}
	gh, err := exec.LookPath("gh")
	if err != nil {
		return nil, ipc.InvalidParams("cannot open a pull request: gh, GitHub's CLI, is not installed (https://cli.github.com)")
	}
	l, err := worktree.LandTarget(ctx, root, p.Base)
	if err != nil {
		return nil, ipc.InvalidParams("cannot open a pull request: %v", err)
	}
	remote, _, err := worktree.GitHubRemote(ctx, root, l.Branch)
	if err != nil {
		return nil, ipc.InvalidParams("cannot open a pull request: %v", err)
	}
	subjects, err := worktree.Subjects(ctx, root, l.Base, l.Branch)
	if err != nil || len(subjects) == 0 {
		return nil, ipc.InvalidParams("cannot open a pull request: %s has no commits that %s lacks", l.Branch, l.Base)
	}
	title, body := p.Title, p.Body
	if title == "" {
		title = subjects[0]
	}
	if body == "" {
		body = s.lastResult(ctx, root)
	}
	if body == "" {
		body = "- " + strings.Join(subjects, "\n- ")
	}
	if err := worktree.Push(ctx, root, remote, l.Branch); err != nil {
		return nil, withGitData(ipc.Errorf(ipc.CodeInternal, "cannot open a pull request: %v", err), err)
	}
	gctx, cancel := context.WithTimeout(ctx, ghTimeout)
	defer cancel()
	cmd := exec.CommandContext(gctx, gh, "pr", "create", "--base", l.Base, "--head", l.Branch, "--title", title, "--body", body)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GH_PROMPT_DISABLED=1", "NO_COLOR=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, ipc.Errorf(ipc.CodeInternal, "gh pr create: %v: %s", err, strings.TrimSpace(errb.String()))
	}
	url := strings.TrimSpace(out.String())
	if i := strings.LastIndexByte(url, '\n'); i >= 0 {
		url = url[i+1:]
	}
	return proto.LandPRResult{URL: url, Branch: l.Branch, Base: l.Base, Remote: remote}, nil
}

// lastResult is the last result of the one agent pane working in root,
// "" when there is none.
func (s *Service) lastResult(ctx context.Context, root string) string {
	cl := proto.Client{Caller: s.o.Dial(0)}
	id, err := agentPane(ctx, cl, root, nil)
	if err != nil {
		return ""
	}
	st, err := cl.SurfaceStatus(ctx, proto.SurfaceTarget(id))
	if err != nil || st.LastResult == nil {
		return ""
	}
	return *st.LastResult
}

// LandDefault is the land strategy the worktree's ConfigFile keeps
// ([land] strategy = "merge", "squash" or "rebase"), "" when it names
// none (then a merge). It only chooses among git's strategies, so the
// file needs no trust for it.
func LandDefault(ctx context.Context, dir string) (string, error) {
	root, err := worktree.Root(ctx, dir)
	if err != nil {
		return "", err
	}
	path := filepath.Join(root, ConfigFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var cfg struct {
		Land struct {
			Strategy string `toml:"strategy"`
		} `toml:"land"`
	}
	if _, err := toml.Decode(string(data), &cfg); err != nil {
		return "", fmt.Errorf("%s: %v", path, err)
	}
	switch st := cfg.Land.Strategy; st {
	case "", proto.LandMerge, proto.LandSquash, proto.LandRebase:
		return st, nil
	default:
		return "", fmt.Errorf("%s: land.strategy must be merge, squash or rebase, got '%s'", path, st)
	}
}

// conflictPrompt asks the agent to resolve, on its branch, the conflicts
// that stopped a land.
func conflictPrompt(r proto.LandResult) string {
	how := "git merge " + r.Base
	if r.Strategy == proto.LandRebase {
		how = "git rebase " + r.Base
	}
	files := make([]string, len(r.Conflicts))
	for i, f := range r.Conflicts {
		files[i] = "- " + clean(f)
	}
	return fmt.Sprintf("Landing your branch %s into %s (%s) stopped on conflicts; nothing was changed. "+
		"Bring %s into your branch (%s), resolve the conflicts in these files, commit, and say when it is done:\n%s\n",
		clean(r.Branch), clean(r.Base), r.Strategy, clean(r.Base), clean(how), strings.Join(files, "\n"))
}
