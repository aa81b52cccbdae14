//go:build !darwin && !windows

package terminal

// ListProcesses returns ErrNoProcessTable: on Linux callers read /proc,
// and other systems are not supported.
func ListProcesses() ([]ProcessEntry, error) { return nil, ErrNoProcessTable }

// ProcessArgs returns nil on this system (see ListProcesses).
func ProcessArgs(pid int) []string { return nil }

// ProcessExe returns "" on this system (see ListProcesses).
func ProcessExe(pid int) string { return "" }
