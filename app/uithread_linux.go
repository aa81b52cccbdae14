package app

import "syscall"

// threadID identifies the calling OS thread (0 where it cannot be told).
func threadID() int64 { return int64(syscall.Gettid()) }
