//go:build !client && windows

package main

import (
	"os"

	"golang.org/x/sys/windows"
)

// redirectStderr makes f the process's standard error handle, which the
// Go runtime looks up for each write of a panic or fatal error, and
// os.Stderr: the logon task's server (a GUI program) has none otherwise,
// so its crash would go nowhere.
func redirectStderr(f *os.File) error {
	if err := windows.SetStdHandle(windows.STD_ERROR_HANDLE, windows.Handle(f.Fd())); err != nil {
		return err
	}
	os.Stderr = f
	return nil
}
