package conductor

// detected is an agent found in a pane's process tree.
type detected struct {
	Tool  string
	PID   int
	Start uint64
}

// detect returns the agents among procs (a pane's tree in breadth-first
// order), nearest to the pane's own process first, each tool once.
// Zombies are skipped.
func detect(procs []process) []detected {
	var out []detected
	for _, p := range procs {
		if p.Dead {
			continue
		}
		tool, ok := matchProcess(p.Comm, p.Argv)
		if !ok || hasTool(out, tool) {
			continue
		}
		out = append(out, detected{Tool: tool, PID: p.PID, Start: p.Start})
	}
	return out
}

// hasTool reports whether ds holds tool.
func hasTool(ds []detected, tool string) bool {
	_, ok := findTool(ds, tool)
	return ok
}

// findTool returns the entry of ds for tool.
func findTool(ds []detected, tool string) (detected, bool) {
	for _, d := range ds {
		if d.Tool == tool {
			return d, true
		}
	}
	return detected{}, false
}

// maxAncestorHops bounds the walk from a frame's pid up to a pane's
// process (spec limits.md).
const maxAncestorHops = 32

// ancestorIn walks from pid up its parents, at most maxAncestorHops steps,
// and returns the first pid (pid itself included) for which in reports
// true. It stops at pid 1, at a process that is its own parent, and at a
// process it cannot read.
func ancestorIn(pt procTable, pid int, in func(pid int) bool) (int, bool) {
	if f, ok := pt.(interface{ frozen() procTable }); ok {
		pt = f.frozen() // one process list for the whole walk, not one per hop
	}
	for hop := 0; hop <= maxAncestorHops && pid > 1; hop++ {
		if in(pid) {
			return pid, true
		}
		p, err := pt.Process(pid)
		if err != nil || p.PPID == pid {
			return 0, false
		}
		pid = p.PPID
	}
	return 0, false
}
