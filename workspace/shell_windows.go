//go:build windows

package workspace

import "strings"

// defaultShell is %ComSpec%, else cmd.exe.
func defaultShell(getenv func(string) string) []string {
	if sh := getenv("ComSpec"); sh != "" {
		return []string{sh}
	}
	return []string{"cmd.exe"}
}

// commandArgv runs a command line through the shell program (shell[0]):
// "/c" for cmd.exe, "-Command" for PowerShell, "-c" for anything else
// (Git Bash, MSYS), so the pane's process ends when the command ends.
func commandArgv(shell []string, command string) []string {
	name := strings.ToLower(baseName(shell[0]))
	name = strings.TrimSuffix(name, ".exe")
	switch name {
	case "cmd":
		return []string{shell[0], "/c", command}
	case "pwsh", "powershell":
		return []string{shell[0], "-NoLogo", "-Command", command}
	}
	return []string{shell[0], "-c", command}
}
