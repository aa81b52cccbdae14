//go:build !linux

package terminal

// parentFunc reads the process table once (ListProcesses).
func parentFunc() (func(int) (int, error), error) { return tableParent() }

// tableParent looks parents up in one [ListProcesses] snapshot.
func tableParent() (func(int) (int, error), error) {
	procs, err := ListProcesses()
	if err != nil {
		return nil, err
	}
	ppid := make(map[int]int, len(procs))
	for _, p := range procs {
		ppid[p.PID] = p.PPID
	}
	return func(pid int) (int, error) {
		pp, ok := ppid[pid]
		if !ok {
			return 0, errNoSuchProcess(pid)
		}
		return pp, nil
	}, nil
}
