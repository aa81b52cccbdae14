package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"time"
)

// DefaultSetupTimeout is setup_timeout_secs' default.
const DefaultSetupTimeout = 300 * time.Second

// setupStderrCap bounds the standard error kept from a setup command (its
// last line goes into the warning).
const setupStderrCap = 64 << 10

// SetupError is a setup command that did not succeed: it exited non-zero,
// timed out (its whole process group was killed) or could not start.
type SetupError struct {
	// Code is the exit code, -1 when it did not exit by itself.
	Code int
	// TimedOut is set when the time limit killed it.
	TimedOut bool
	// Stderr is the last line the command wrote to its standard error.
	Stderr string
	Err    error
}

func (e *SetupError) Error() string {
	var s string
	switch {
	case e.TimedOut:
		s = e.Err.Error()
	case e.Code >= 0:
		s = fmt.Sprintf("exit %d", e.Code)
	default:
		s = e.Err.Error()
	}
	if e.Stderr != "" {
		s += ": " + e.Stderr
	}
	return s
}

func (e *SetupError) Unwrap() error { return e.Err }

// capped keeps at most the last n bytes written to it.
type capped struct {
	buf bytes.Buffer
	n   int
}

func (c *capped) Write(p []byte) (int, error) {
	c.buf.Write(p)
	if over := c.buf.Len() - c.n; over > 0 {
		c.buf.Next(over)
	}
	return len(p), nil
}

// RunSetup runs script with the platform's shell (sh -c; cmd /C on
// Windows) in dir, with env (nil: this process's environment), no input
// and its output discarded. It returns when the command ends, or after
// timeout (0: DefaultSetupTimeout), when it kills the command's whole
// process group (on Unix; the process tree on Windows) so that no
// grandchild lives on. A nil error means exit 0; otherwise a *SetupError.
func RunSetup(ctx context.Context, dir, script string, env []string, timeout time.Duration) error {
	return runShell(ctx, dir, script, env, timeout, false).err
}

// OutputCap is how much of a command's output [RunOutput] keeps: the
// last 64 KiB.
const OutputCap = 64 << 10

// RunOutput is [RunSetup] keeping the command's standard output and error
// together (their last [OutputCap] bytes), returned whether it succeeded
// or not.
func RunOutput(ctx context.Context, dir, script string, env []string, timeout time.Duration) (string, error) {
	r := runShell(ctx, dir, script, env, timeout, true)
	return r.out, r.err
}

// shellRun is what runShell saw: the output kept, and the error.
type shellRun struct {
	out string
	err error
}

// runShell runs script as RunSetup says; withStdout keeps standard output
// too, in the same capped buffer as standard error.
func runShell(ctx context.Context, dir, script string, env []string, timeout time.Duration, withStdout bool) shellRun {
	if timeout <= 0 {
		timeout = DefaultSetupTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := shellCommand(ctx, script)
	cmd.Dir = dir
	cmd.Env = env
	out := &capped{n: setupStderrCap}
	cmd.Stderr = out
	if withStdout {
		cmd.Stdout = out
	}
	cmd.WaitDelay = 2 * time.Second
	killGroupOnCancel(cmd)
	err := cmd.Run()
	if err == nil {
		return shellRun{out: out.buf.String()}
	}
	se := &SetupError{Code: -1, Stderr: lastLine(out.buf.String()), Err: err}
	var ee *exec.ExitError
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		se.TimedOut = true
		se.Err = fmt.Errorf("timed out after %v", timeout)
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		se.Code = ee.ExitCode()
	}
	return shellRun{out: out.buf.String(), err: se}
}
