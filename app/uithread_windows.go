package app

import "golang.org/x/sys/windows"

// threadID identifies the calling OS thread (0 where it cannot be told).
func threadID() int64 { return int64(windows.GetCurrentThreadId()) }
