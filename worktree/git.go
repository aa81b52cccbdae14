package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Time limits for git calls (spec specs.md §3): listing and status are
// quick, adding a worktree checks out a whole tree.
const (
	queryTimeout = 10 * time.Second
	addTimeout   = 120 * time.Second
)

// GitError is a git command that failed: Args are its arguments (after
// "git"), Stderr git's own message (trimmed), Err how it ended.
type GitError struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *GitError) Error() string {
	msg := causeLine(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), msg)
}

func (e *GitError) Unwrap() error { return e.Err }

// causeLine returns the line of git's standard error s that says what
// went wrong: its first "fatal:" or "error:" line (advice may follow it:
// a held ref lock is "fatal: cannot lock ref …" and then six lines ending
// "remove the file manually to continue."), else the last non-empty line.
func causeLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "fatal: ") || strings.HasPrefix(l, "error: ") {
			return l
		}
	}
	return lastLine(s)
}

// lastLine returns the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}

// git runs `git args...` with a time limit and returns its standard
// output. Git never prompts (no terminal), and its messages are in English
// so that callers can quote them to the user the same way everywhere.
// core.fsmonitor is off: a repository's own configuration could name any
// program there, and git status would run it. (GitError.Args are the
// caller's args, without that option.)
func git(ctx context.Context, timeout time.Duration, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "core.fsmonitor=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	if err != nil {
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("timed out after %v", timeout)
		}
		return out.String(), &GitError{Args: args, Stderr: errb.String(), Err: err}
	}
	return out.String(), nil
}

// Root returns the top directory of the work tree (main or linked) that
// holds dir, symbolic links resolved; the error quotes git's.
func Root(ctx context.Context, dir string) (string, error) {
	out, err := git(ctx, queryTimeout, "-C", dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", err
	}
	return canonical(strings.TrimSpace(out)), nil
}
