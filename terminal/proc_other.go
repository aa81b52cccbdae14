//go:build !windows && !linux && !darwin

package terminal

// foregroundPgrp returns the terminal's foreground process group.
func (p *PTY) foregroundPgrp() (int, error) {
	return p.ttyPgrp()
}

// processInGroup describes process group pgrp by its leader's pid only:
// on systems other than Linux, macOS and Windows this package reads no
// process tables, so Argv and Cwd stay empty.
func processInGroup(pgrp int) (Process, error) {
	return Process{Pid: pgrp}, nil
}
