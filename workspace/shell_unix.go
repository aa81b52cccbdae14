//go:build !windows

package workspace

// defaultShell is $SHELL as a login shell, else /bin/sh.
func defaultShell(getenv func(string) string) []string {
	if sh := getenv("SHELL"); sh != "" {
		return []string{sh, "-l"}
	}
	return []string{"/bin/sh"}
}

// commandArgv runs a command line through the shell program (shell[0]),
// so the pane's process ends when the command ends.
func commandArgv(shell []string, command string) []string {
	return []string{shell[0], "-c", command}
}
