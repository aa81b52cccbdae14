package worktree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Land strategies: how a worktree's branch goes into its base.
const (
	// LandMerge makes a merge commit on the base (--no-ff).
	LandMerge = "merge"
	// LandSquash makes one commit on the base with the branch's changes.
	LandSquash = "squash"
	// LandRebase rebases the branch onto the base, then fast-forwards
	// the base to it.
	LandRebase = "rebase"
)

// landTimeout bounds one git command of a land (a merge or rebase checks
// files out).
const landTimeout = 120 * time.Second

// LandOptions say what [Land] does. The zero Strategy is LandMerge; the
// zero Base is the branch checked out in the repository's main working
// tree.
type LandOptions struct {
	Strategy string
	Base     string
	// Message is the squash commit's message ("" : the branch's name and
	// its commits' subjects).
	Message string
}

// Landed is what a [Land] did. Conflicts is set when it stopped on a
// conflict: the files, and nothing changed (the merge or rebase was
// aborted; the base branch and its checkout are as they were).
type Landed struct {
	Root     string // the worktree's top directory
	RepoRoot string // the repository's main working tree
	Branch   string // the branch landed
	Base     string // the branch it went into
	Strategy string
	// Commit is the base's new head; "" after a conflict.
	Commit string
	// Commits is how many commits the branch had over the base.
	Commits   int
	Conflicts []string
}

// Land puts the branch checked out in the worktree holding dir into its
// base branch with the user's git: a merge commit, a squashed commit, or
// a rebase then a fast-forward. The work happens where the base is
// checked out (it must be clean there) or, when it is checked out
// nowhere, in a temporary detached worktree whose result becomes the
// base with a compare-and-swap `git update-ref`. A conflict aborts the
// operation and is reported in Landed.Conflicts with a nil error; the
// base branch is then untouched (a rebase's branch too). Errors say what
// stood in the way: a detached HEAD, uncommitted changes, nothing to
// land, git's own message.
func Land(ctx context.Context, dir string, o LandOptions) (Landed, error) {
	switch o.Strategy {
	case "":
		o.Strategy = LandMerge
	case LandMerge, LandSquash, LandRebase:
	default:
		return Landed{}, fmt.Errorf("unknown land strategy '%s' (merge, squash, rebase)", o.Strategy)
	}
	l, wts, err := landTarget(ctx, dir, o.Base)
	if err != nil {
		return l, err
	}
	l.Strategy = o.Strategy
	root := l.Root
	if err := clean(ctx, root); err != nil {
		return l, err
	}
	n, err := git(ctx, queryTimeout, "-C", root, "rev-list", "--count", l.Base+".."+l.Branch)
	if err != nil {
		return l, err
	}
	fmt.Sscan(strings.TrimSpace(n), &l.Commits)
	if l.Commits == 0 {
		return l, fmt.Errorf("nothing to land: %s has no commits that %s lacks", l.Branch, l.Base)
	}
	at := ""
	for _, w := range wts {
		if w.branch == l.Base && !w.prunable {
			at = canonical(w.path)
		}
	}
	if at != "" {
		if err := clean(ctx, at); err != nil {
			return l, fmt.Errorf("the base branch %s is checked out at %s: %w", l.Base, at, err)
		}
		return l, landIn(ctx, at, &l, o)
	}
	// The base is checked out nowhere: land in a detached worktree of it.
	tmp, err := os.MkdirTemp("", "paneflow-land-")
	if err != nil {
		return l, err
	}
	defer os.RemoveAll(tmp)
	old, err := git(ctx, queryTimeout, "-C", root, "rev-parse", "refs/heads/"+l.Base)
	if err != nil {
		return l, err
	}
	if _, err := git(ctx, addTimeout, "-C", root, "worktree", "add", "--detach", tmp, strings.TrimSpace(old)); err != nil {
		return l, err
	}
	defer git(context.WithoutCancel(ctx), queryTimeout, "-C", root, "worktree", "remove", "--force", tmp)
	if err := landIn(ctx, tmp, &l, o); err != nil || len(l.Conflicts) > 0 {
		return l, err
	}
	if _, err := git(ctx, queryTimeout, "-C", tmp, "update-ref", "refs/heads/"+l.Base, l.Commit, strings.TrimSpace(old)); err != nil {
		l.Commit = ""
		return l, err
	}
	return l, nil
}

// LandTarget resolves what a land of the worktree holding dir would do
// without changing anything: its root, the repository's main working
// tree, the branch checked out and the base (base, or the branch the
// main working tree holds).
func LandTarget(ctx context.Context, dir, base string) (Landed, error) {
	l, _, err := landTarget(ctx, dir, base)
	return l, err
}

// landTarget is LandTarget, also returning git's worktree list.
func landTarget(ctx context.Context, dir, base string) (Landed, []listed, error) {
	root, err := Root(ctx, dir)
	if err != nil {
		return Landed{}, nil, err
	}
	l := Landed{Root: root}
	b, err := git(ctx, queryTimeout, "-C", root, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		return l, nil, fmt.Errorf("%s is on a detached HEAD: check out the branch to land", root)
	}
	l.Branch = strings.TrimSpace(b)
	wts, err := list(ctx, root)
	if err != nil || len(wts) == 0 {
		return l, nil, fmt.Errorf("cannot list the worktrees of %s: %v", root, err)
	}
	l.RepoRoot = canonical(wts[0].path)
	l.Base = base
	if l.Base == "" {
		l.Base = wts[0].branch
		if l.Base == "" || l.Base == l.Branch {
			return l, nil, fmt.Errorf("no base branch to land %s into: the main working tree (%s) holds %s; name one", l.Branch, l.RepoRoot, orDetached(wts[0].branch))
		}
	}
	if l.Base == l.Branch {
		return l, nil, fmt.Errorf("the base branch is %s itself", l.Branch)
	}
	if _, err := git(ctx, queryTimeout, "-C", root, "rev-parse", "--verify", "--quiet", "refs/heads/"+l.Base); err != nil {
		return l, nil, fmt.Errorf("no branch '%s' to land into", l.Base)
	}
	return l, wts, nil
}

// landIn lands l.Branch in the work tree at (holding the base, or
// detached at it) and records the new head in l.
func landIn(ctx context.Context, at string, l *Landed, o LandOptions) error {
	var err error
	switch l.Strategy {
	case LandMerge:
		_, err = git(ctx, landTimeout, "-C", at, "merge", "--no-ff", "--no-edit", "-m", fmt.Sprintf("Merge branch '%s' into %s", l.Branch, l.Base), l.Branch)
		if err != nil {
			return conflicted(ctx, at, l, err, "merge", "--abort")
		}
	case LandSquash:
		if _, err = git(ctx, landTimeout, "-C", at, "merge", "--squash", l.Branch); err != nil {
			return conflicted(ctx, at, l, err, "reset", "--merge")
		}
		msg := o.Message
		if msg == "" {
			subj, err := Subjects(ctx, at, l.Base, l.Branch)
			if err != nil {
				return err
			}
			msg = fmt.Sprintf("%s (squashed)\n\n- %s", l.Branch, strings.Join(subj, "\n- "))
		}
		if _, err := git(ctx, landTimeout, "-C", at, "commit", "-q", "-m", msg); err != nil {
			git(context.WithoutCancel(ctx), queryTimeout, "-C", at, "reset", "--merge")
			return err
		}
	case LandRebase:
		if _, err = git(ctx, landTimeout, "-C", l.Root, "rebase", l.Base); err != nil {
			return conflicted(ctx, l.Root, l, err, "rebase", "--abort")
		}
		if _, err := git(ctx, landTimeout, "-C", at, "merge", "--ff-only", l.Branch); err != nil {
			return err
		}
	}
	head, err := git(ctx, queryTimeout, "-C", at, "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	l.Commit = strings.TrimSpace(head)
	return nil
}

// conflicted handles a failed merge or rebase in dir: with unmerged
// files, it lists them in l.Conflicts and aborts with abort (git's
// arguments); without, it is another failure, which is aborted too and
// returned.
func conflicted(ctx context.Context, dir string, l *Landed, failure error, abort ...string) error {
	out, _ := git(ctx, queryTimeout, "-C", dir, "diff", "--name-only", "--diff-filter=U", "-z")
	for f := range strings.SplitSeq(out, "\x00") {
		if f != "" {
			l.Conflicts = append(l.Conflicts, filepath.ToSlash(f))
		}
	}
	_, aerr := git(context.WithoutCancel(ctx), queryTimeout, append([]string{"-C", dir}, abort...)...)
	if len(l.Conflicts) > 0 && aerr == nil {
		return nil
	}
	l.Conflicts = nil
	return errors.Join(failure, aerr)
}

// clean reports tracked changes in the work tree at dir as an error
// ("has uncommitted changes"); untracked files are not landed and do not
// count.
func clean(ctx context.Context, dir string) error {
	st, err := git(ctx, queryTimeout, "-C", dir, "status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return err
	}
	if strings.TrimSpace(st) != "" {
		return fmt.Errorf("%s has uncommitted changes: commit or stash them first", dir)
	}
	return nil
}

func orDetached(branch string) string {
	if branch == "" {
		return "a detached HEAD"
	}
	return branch
}

// DeleteBranch deletes a landed branch from the repository at repoRoot:
// `git branch -d`, which refuses a branch the base does not contain, or
// -D after a squash (the base has its changes, not its commits).
func DeleteBranch(ctx context.Context, repoRoot, branch string, squashed bool) error {
	flag := "-d"
	if squashed {
		flag = "-D"
	}
	_, err := git(ctx, queryTimeout, "-C", repoRoot, "branch", flag, branch)
	return err
}

// pushTimeout bounds a push to the remote.
const pushTimeout = 5 * time.Minute

// GitHubRemote returns the remote a pull request of branch goes to (the
// branch's configured remote, else "origin") and its URL, or an error
// saying why there is none on GitHub.
func GitHubRemote(ctx context.Context, root, branch string) (remote, url string, err error) {
	remote = "origin"
	if r, err := git(ctx, queryTimeout, "-C", root, "config", "--get", "branch."+branch+".remote"); err == nil && strings.TrimSpace(r) != "" && strings.TrimSpace(r) != "." {
		remote = strings.TrimSpace(r)
	}
	// The URL as configured: get-url would show it rewritten by insteadOf.
	u, err := git(ctx, queryTimeout, "-C", root, "config", "--get", "remote."+remote+".url")
	if err != nil {
		return "", "", fmt.Errorf("the repository has no remote '%s'", remote)
	}
	url = strings.TrimSpace(u)
	if !onGitHub(url) {
		return "", "", fmt.Errorf("the remote '%s' (%s) is not on GitHub", remote, url)
	}
	return remote, url, nil
}

// onGitHub reports whether a remote URL's host is github.com (https,
// ssh:// and scp-like git@github.com:owner/repo forms).
func onGitHub(url string) bool {
	rest := url
	if _, after, ok := strings.Cut(url, "://"); ok {
		rest = after
	}
	if _, after, ok := strings.Cut(rest, "@"); ok && !strings.Contains(rest[:strings.Index(rest, "@")], "/") {
		rest = after
	}
	host := rest
	if i := strings.IndexAny(rest, "/:"); i >= 0 {
		host = rest[:i]
	}
	return strings.EqualFold(host, "github.com") || strings.HasSuffix(strings.ToLower(host), ".github.com")
}

// Push pushes branch to remote and makes it the branch's upstream.
func Push(ctx context.Context, root, remote, branch string) error {
	_, err := git(ctx, pushTimeout, "-C", root, "push", "--set-upstream", remote, branch)
	return err
}

// Subjects returns the subjects of the commits of branch that base
// lacks, oldest first.
func Subjects(ctx context.Context, root, base, branch string) ([]string, error) {
	out, err := git(ctx, queryTimeout, "-C", root, "log", "--reverse", "--format=%s", base+".."+branch)
	if err != nil {
		return nil, err
	}
	var subj []string
	for l := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		if l != "" {
			subj = append(subj, l)
		}
	}
	return subj, nil
}
