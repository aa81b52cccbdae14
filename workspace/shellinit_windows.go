//go:build windows

package workspace

// integrate leaves a pane's argv and environment alone: Paneflow has no
// shell integration for cmd.exe or PowerShell yet (Options.NoShellIntegration
// has no effect on Windows).
func (m *Manager) integrate(argv []string, _ PaneSpec, env []string) ([]string, []string) {
	return argv, env
}
