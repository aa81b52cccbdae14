package terminal

import "errors"

// ProcessEntry is one process of the system's process table, as
// [ListProcesses] reports it.
type ProcessEntry struct {
	PID, PPID int
	// Start is when the process started, in a unit of the system's choice
	// (microseconds since the epoch on macOS, 100 ns ticks on Windows);
	// 0 when unknown. Equal pids with different starts are different
	// processes.
	Start uint64
	// Comm is the process's short name: the kernel's p_comm on macOS, the
	// executable's file name without ".exe", lower-cased, on Windows.
	Comm string
	// Zombie is true for a process that ended and awaits its parent.
	Zombie bool
}

// ErrNoProcessTable is returned by [ListProcesses] on systems where this
// package does not read the whole process table (Linux callers read /proc
// themselves).
var ErrNoProcessTable = errors.New("terminal: process table not available on this system")
