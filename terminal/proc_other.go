//go:build !windows && !linux && !darwin

package terminal

import "golang.org/x/sys/unix"

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

// groupAlive reports whether process group pgrp has any process left
// (zombies included: this package reads no process tables here).
func groupAlive(pgrp int) bool {
	return unix.Kill(-pgrp, 0) != unix.ESRCH
}
