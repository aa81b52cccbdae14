//go:build !linux

package conductor

// systemProcs returns nil: on this system the conductor does not read the
// process table, so agents are known only from their hooks (fleet.list
// reports "detection": "hooks_only"), frames must name their pane with
// surface_id, and PID reuse is not detected.
func systemProcs() procTable { return nil }
