//go:build !client && !windows

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// detachedAttr makes a started server the leader of its own session (and
// so of its own process group): the terminal's hangup, a Ctrl-C in it and
// the window's end reach it no more.
func detachedAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// lockStart takes the exclusive lock (flock) on the file at path,
// creating it, waiting while another process holds it until ctx ends or
// serverStartTimeout passes; the returned function releases it. The lock
// goes with the process, so a holder that died holds nothing.
func lockStart(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("the server start lock: %w", err)
	}
	deadline := time.Now().Add(serverStartTimeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("the server start lock %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("another process has been starting a server for %v (lock %s)", serverStartTimeout, path)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
	}
}
