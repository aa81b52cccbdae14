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
)

// TestSetupTimeoutKillsGroup starts a grandchild that holds a FIFO open for
// writing: reading the FIFO ends (EOF) only once every writer is dead, so
// the test hangs rather than passes if the group survived.
func TestSetupTimeoutKillsGroup(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	read := make(chan error, 1)
	go func() {
		f, err := os.Open(fifo) // blocks until the grandchild opens it
		if err != nil {
			read <- err
			return
		}
		defer f.Close()
		_, err = io.ReadAll(f)
		read <- err
	}()
	err := RunSetup(context.Background(), dir, `sleep 1000 > fifo & sleep 1000`, nil, 500_000_000)
	var se *SetupError
	if !errors.As(err, &se) || !se.TimedOut {
		t.Fatalf("RunSetup = %v, want a timeout", err)
	}
	if err := <-read; err != nil {
		t.Fatal(err)
	}
}
