//go:build !client && windows

package main

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// serviceUser is this user's security identifier, which names the
// logon task and whose logon starts it.
func serviceUser() (string, error) {
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return "", fmt.Errorf("this user's security identifier: %w", err)
	}
	return tu.User.Sid.String(), nil
}

// serviceProgram is the program the logon task runs `serve` with: the
// desktop app's paneflow-gui.exe when it is installed beside exe (a
// Windows GUI program: no console window opens at logon, and none stays
// open that closing would end the server), else exe itself.
func serviceProgram(exe, goos string) string {
	if goos != "windows" {
		return exe
	}
	gui := filepath.Join(filepath.Dir(exe), "paneflow-gui.exe")
	if fi, err := os.Stat(gui); err == nil && fi.Mode().IsRegular() {
		return gui
	}
	return exe
}
