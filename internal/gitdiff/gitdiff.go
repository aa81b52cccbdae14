// Package gitdiff reads a repository's changes with git as the Diff view
// shows them: committed, staged, unstaged and untracked, against the
// point where the branch left its base. The window's Diff view calls it
// for its own machine's panes; the server's review.diff calls it for a
// window on another machine (issue 30), so both read the same way.
//
// The directory may be one a program in a pane named (OSC 7), so its
// repository's configuration is not trusted to run programs:
// core.fsmonitor is off for every git call, the diffs run with
// --no-textconv and --no-ext-diff, submodules' work trees are not
// inspected, and the content filters the repository configures itself
// are turned off ([RepoFilters]). It never takes git's index lock
// (GIT_OPTIONAL_LOCKS=0): the agent in the pane may be committing.
//
// # Concurrency
//
// Every function is safe for concurrent use; each runs git processes of
// its own.
package gitdiff

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/paneflow-go/paneflow/proto"
)

// Limits of a load.
const (
	// MaxBytes caps the diff text read from git; the rest is cut
	// (Truncated).
	MaxBytes = 2 << 20
	// MaxUntracked caps the untracked files whose content is shown.
	MaxUntracked = 20
)

// baseCandidates are the refs a branch is compared with, first that
// exists wins: its upstream, then the usual default branches.
var baseCandidates = []string{"@{upstream}", "origin/HEAD", "main", "master", "trunk", "develop"}

// EmptyTree is git's empty tree, the base of a repository without
// commits.
const EmptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// Run runs git in dir and returns its output; a failure carries git's
// own message. okCodes are exit codes that are not failures (git diff
// --no-index exits 1 when files differ). core.fsmonitor is off.
func Run(ctx context.Context, dir string, args []string, okCodes ...int) (string, error) {
	return RunIn(ctx, dir, nil, "", args, okCodes...)
}

// RunEnv is [Run] with more environment variables.
func RunEnv(ctx context.Context, dir string, env, args []string, okCodes ...int) (string, error) {
	return RunIn(ctx, dir, env, "", args, okCodes...)
}

// RunIn is [RunEnv] with stdin as git's standard input (a patch for git
// apply; "" for none).
func RunIn(ctx context.Context, dir string, env []string, stdin string, args []string, okCodes ...int) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir, "-c", "core.fsmonitor=false"}, args...)...)
	// Never take an optional index lock: the agent in the pane may be
	// committing (git apply --cached takes the lock it needs).
	cmd.Env = append(append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C"), env...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		for _, c := range okCodes {
			if ee.ExitCode() == c {
				return out.String(), nil
			}
		}
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", args[0], msg)
	}
	if err != nil {
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	return out.String(), nil
}

// RepoFilters returns the environment that turns off the content filters
// (filter.<driver>.clean, .smudge and .process) that the repository at
// root configures itself (scope local or worktree, includes followed):
// git diff runs a clean filter on every changed file it compares, and a
// repository is not trusted to run programs. Filters of the user's own
// (global) or the system's configuration, such as Git LFS, are kept.
// The settings go in GIT_CONFIG_COUNT/KEY/VALUE, which the git
// subprocesses of a diff inherit too.
func RepoFilters(ctx context.Context, root string) []string {
	out, _ := Run(ctx, root, []string{"config", "--show-scope", "--name-only", "--get-regexp", `^filter\.`}, 1)
	var keys []string
	for _, l := range strings.Split(out, "\n") {
		scope, key, ok := strings.Cut(l, "\t")
		if !ok || scope == "global" || scope == "system" {
			continue
		}
		lk := strings.ToLower(key)
		if strings.HasSuffix(lk, ".clean") || strings.HasSuffix(lk, ".smudge") || strings.HasSuffix(lk, ".process") {
			keys = append(keys, key)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	env := []string{fmt.Sprintf("GIT_CONFIG_COUNT=%d", len(keys))}
	for i, k := range keys {
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", i, k), fmt.Sprintf("GIT_CONFIG_VALUE_%d=", i))
	}
	return env
}

// diffOpts are the options of every git diff: no program the repository
// configures (textconv, external diff) runs, a submodule's work tree is
// not inspected (git would run git status in it, with that repository's
// configuration), and the paths carry git's usual a/ and b/ whatever
// diff.noprefix or diff.mnemonicPrefix say (the Diff view's parser and
// git apply -p1 expect them).
var diffOpts = []string{"--no-textconv", "--no-ext-diff", "--ignore-submodules=dirty", "--src-prefix=a/", "--dst-prefix=b/"}

// Load reads the changes of the repository holding dir that scope names
// ([proto.DiffScopeBranch], "" too: against the branch point;
// [proto.DiffScopeUnstaged]: the work tree against the index, untracked
// files included; [proto.DiffScopeStaged]: the index against HEAD). An
// unknown scope is an error.
func Load(ctx context.Context, dir, scope string) (*proto.ReviewDiffResult, error) {
	if scope == "" {
		scope = proto.DiffScopeBranch
	}
	if scope != proto.DiffScopeBranch && scope != proto.DiffScopeUnstaged && scope != proto.DiffScopeStaged {
		return nil, fmt.Errorf("unknown diff scope '%s' (branch, unstaged, staged)", scope)
	}
	root, err := Run(ctx, dir, []string{"rev-parse", "--show-toplevel"})
	if err != nil {
		return nil, err
	}
	d := &proto.ReviewDiffResult{Root: strings.TrimSpace(root), Scope: scope}
	if b, err := Run(ctx, d.Root, []string{"symbolic-ref", "--quiet", "--short", "HEAD"}, 1); err == nil {
		d.Branch = strings.TrimSpace(b)
	}
	d.Base = EmptyTree
	if _, err := Run(ctx, d.Root, []string{"rev-parse", "--verify", "--quiet", "HEAD^{commit}"}); err == nil {
		d.Base = "HEAD"
		for _, c := range baseCandidates {
			if _, err := Run(ctx, d.Root, []string{"rev-parse", "--verify", "--quiet", c + "^{commit}"}); err != nil {
				continue
			}
			mb, err := Run(ctx, d.Root, []string{"merge-base", "HEAD", c})
			if err != nil {
				continue
			}
			d.BaseRef, d.Base = c, strings.TrimSpace(mb)
			break
		}
	}
	filters := RepoFilters(ctx, d.Root)
	diff := func(args ...string) []string { return append(append([]string{"diff"}, diffOpts...), args...) }
	// against is what the diff compares the work tree (or index) with.
	against := []string{d.Base, "--"}
	switch scope {
	case proto.DiffScopeUnstaged:
		against = []string{"--"}
	case proto.DiffScopeStaged:
		against = []string{"--cached", "--"}
	}
	// The file list, the diff and the untracked files are read at once:
	// three git processes that do not depend on each other.
	var names, text, untracked string
	var nameErr, textErr, lsErr error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		names, nameErr = RunEnv(ctx, d.Root, filters, diff(append([]string{"--name-status"}, against...)...))
	}()
	go func() {
		defer wg.Done()
		if scope != proto.DiffScopeStaged { // the index holds no untracked file
			untracked, lsErr = Run(ctx, d.Root, []string{"ls-files", "--others", "--exclude-standard"})
		}
	}()
	text, textErr = RunEnv(ctx, d.Root, filters, diff(append([]string{"--no-color"}, against...)...))
	wg.Wait()
	if err := cmp.Or(nameErr, textErr, lsErr); err != nil {
		return nil, err
	}
	for _, l := range strings.Split(names, "\n") {
		f := strings.Split(l, "\t")
		if len(f) < 2 || f[0] == "" {
			continue
		}
		d.Files = append(d.Files, proto.ReviewDiffFile{Status: f[0][:1], Path: f[len(f)-1]})
	}
	var sb strings.Builder
	sb.WriteString(text)
	shown := 0
	for _, p := range strings.Split(untracked, "\n") {
		if p == "" {
			continue
		}
		d.Files = append(d.Files, proto.ReviewDiffFile{Status: "?", Path: p})
		if shown < MaxUntracked && sb.Len() < MaxBytes {
			shown++
			t, err := RunEnv(ctx, d.Root, filters, diff("--no-color", "--no-index", "--", os.DevNull, p), 1)
			if err == nil {
				sb.WriteString(t)
			}
		}
	}
	d.Text = sb.String()
	if len(d.Text) > MaxBytes {
		d.Text, d.Truncated = d.Text[:MaxBytes], true
	}
	return d, nil
}
