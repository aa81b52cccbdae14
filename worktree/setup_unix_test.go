//go:build !windows

package worktree

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestSetupTimeoutKillsGroup starts a grandchild that holds a FIFO open for
// writing: reading the FIFO ends (EOF) only once every writer is dead, so
// the test hangs rather than passes if the group survived. The setup's time
// runs out only once the grandchild holds the FIFO (see expiring): with a
// fixed 500 ms, a loaded machine could kill the shell before it started
// the grandchild, and the reader then waited forever.
func TestSetupTimeoutKillsGroup(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := &expiring{Context: context.Background(), done: make(chan struct{})}
	read := make(chan error, 1)
	go func() {
		f, err := os.Open(fifo) // blocks until the grandchild opens it
		close(ctx.done)         // the setup's time is up now
		if err != nil {
			read <- err
			return
		}
		defer f.Close()
		_, err = io.ReadAll(f)
		read <- err
	}()
	err := RunSetup(ctx, dir, `sleep 1000 > fifo & sleep 1000`, nil, time.Hour)
	var se *SetupError
	if !errors.As(err, &se) || !se.TimedOut {
		t.Fatalf("RunSetup = %v, want a timeout", err)
	}
	if err := <-read; err != nil {
		t.Fatal(err)
	}
}

// expiring is a context whose deadline passes when done is closed: the
// test decides when a setup's time is up.
type expiring struct {
	context.Context
	done chan struct{}
}

func (e *expiring) Done() <-chan struct{} { return e.done }

func (e *expiring) Err() error {
	select {
	case <-e.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}
