//go:build !linux && !windows

package app

// threadID identifies the calling OS thread: 0 here, where it cannot be
// told without cgo, which turns the UI-thread check of shell.do off.
func threadID() int64 { return 0 }
