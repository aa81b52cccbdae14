//go:build !windows

package notify

import "os/exec"

// hideConsole does nothing: only Windows opens console windows.
func hideConsole(*exec.Cmd) {}
