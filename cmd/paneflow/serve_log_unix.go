//go:build !client && !windows

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// redirectStderr makes f the process's standard error (descriptor 2), so
// that what the Go runtime writes there (a panic, a fatal error) goes to
// serve's --log too.
func redirectStderr(f *os.File) error { return unix.Dup2(int(f.Fd()), 2) }
