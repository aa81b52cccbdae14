//go:build !client && windows

package main

import (
	"context"
	"syscall"
)

// Process creation flags (winbase.h).
const (
	createNewProcessGroup = 0x00000200
	detachedProcess       = 0x00000008
)

// detachedAttr starts a server without a console of its own and in its
// own process group: the console's Ctrl-C and closing it reach it no more.
func detachedAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: createNewProcessGroup | detachedProcess, HideWindow: true}
}

// lockStart takes no lock on Windows (not done: LockFileEx would): two
// starts at once are not serialised there.
func lockStart(context.Context, string) (func(), error) { return func() {}, nil }
