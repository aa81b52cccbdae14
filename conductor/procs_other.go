//go:build !linux

package conductor

// systemProcs returns nil: outside Linux the conductor reads the process
// table only through Options.Processes (core wires the terminal package's
// ListProcesses on macOS and Windows). Without it agents are known only
// from their hooks (fleet.list reports "detection": "hooks_only"), frames
// must name their pane with surface_id, and PID reuse is not detected.
func systemProcs() procTable { return nil }
