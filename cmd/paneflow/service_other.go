//go:build !client && !windows

package main

import "errors"

// serviceUser is the Windows user's security identifier; there is none
// here (`service` with goos "windows" is tested on Windows only).
func serviceUser() (string, error) {
	return "", errors.New("a Windows logon task is made on Windows only")
}

// serviceProgram is the program the service runs `serve` with: exe.
func serviceProgram(exe, _ string) string { return exe }
