package terminal

import (
	"fmt"
	"os"
)

// maxAncestry bounds an ancestry walk: process trees are shallow, and a
// table read while processes come and go could in theory hold a cycle.
const maxAncestry = 256

// Ancestors returns pid's parent, its parent's parent and so on, nearest
// first, ending before pid 0 (and, on Unix, including pid 1 when the walk
// reaches it). It reads the system's process table at the time of the call
// (/proc on Linux, [ListProcesses] elsewhere); a process that exits
// meanwhile ends the walk early. It fails where the system has no process
// table here ([ErrNoProcessTable]) or pid is not found.
func Ancestors(pid int) ([]int, error) {
	parent, err := parentFunc()
	if err != nil {
		return nil, err
	}
	if _, err := parent(pid); err != nil {
		return nil, err
	}
	var out []int
	seen := map[int]bool{pid: true}
	for cur := pid; len(out) < maxAncestry; {
		pp, err := parent(cur)
		if err != nil || pp <= 0 || seen[pp] {
			break
		}
		seen[pp] = true
		out = append(out, pp)
		cur = pp
	}
	return out, nil
}

// errNoSuchProcess is the walk's error for a pid the table does not hold.
func errNoSuchProcess(pid int) error {
	return fmt.Errorf("process %d: %w", pid, os.ErrNotExist)
}
