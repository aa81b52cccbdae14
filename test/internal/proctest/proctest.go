// Package proctest runs the programs end-to-end tests drive (paneflow
// serve, the desktop app, Xvfb) as child processes: their output kept in
// a [Buffer] the test may read while they run, their end awaited exactly
// once, and SIGTERM with a deadline. It is shared by test/e2e, test/gui
// and test/bench.
package proctest

import (
	"bytes"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Buffer is a bytes.Buffer safe for one writer (os/exec's copying
// goroutine) and concurrent readers (the test). The zero value is ready.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Process is a started child process that a goroutine waits for. Its
// methods are safe for concurrent use.
type Process struct {
	Cmd    *exec.Cmd
	exited chan struct{}
	err    error // cmd.Wait's result, set before exited is closed
}

// Start starts cmd and waits for it in the background.
func Start(cmd *exec.Cmd) (*Process, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Process{Cmd: cmd, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// Pid is the process id.
func (p *Process) Pid() int { return p.Cmd.Process.Pid }

// Exited is closed once the process has ended and been waited for.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Err is cmd.Wait's result (nil for exit 0) once Exited is closed, and nil
// before.
func (p *Process) Err() error {
	select {
	case <-p.exited:
		return p.err
	default:
		return nil
	}
}

// Terminate sends SIGTERM (unless the process already ended) and waits up
// to timeout for the end. It reports whether the process had to be killed
// because it outlived timeout, and cmd.Wait's result.
func (p *Process) Terminate(timeout time.Duration) (late bool, err error) {
	select {
	case <-p.exited:
		return false, p.err
	default:
	}
	p.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
		return false, p.err
	case <-time.After(timeout):
		p.Cmd.Process.Kill()
		<-p.exited
		return true, p.err
	}
}

// Indent prefixes every line of text with four spaces, for output quoted
// in a test log; empty text reads "(empty)".
func Indent(text string) string {
	if text == "" {
		return "    (empty)"
	}
	return "    " + strings.ReplaceAll(strings.TrimRight(text, "\n"), "\n", "\n    ")
}

// TerminateOrFail is Terminate for a test: a process (called name in the
// message) that outlives timeout fails t. It returns cmd.Wait's result.
func (p *Process) TerminateOrFail(t testing.TB, name string, timeout time.Duration) error {
	t.Helper()
	late, err := p.Terminate(timeout)
	if late {
		t.Errorf("%s did not exit within %v of SIGTERM", name, timeout)
	}
	return err
}

// StopOrFail terminates the process if it still runs and fails t unless
// it then exits 0. A process that already ended is left alone.
func (p *Process) StopOrFail(t testing.TB, name string, timeout time.Duration) {
	t.Helper()
	select {
	case <-p.exited:
		return
	default:
	}
	if err := p.TerminateOrFail(t, name, timeout); err != nil {
		t.Errorf("%s exited with %v after SIGTERM, want exit 0", name, err)
	}
}
