package terminal

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// cpuDemand is [Terminal.ForegroundCPUDemand]: groupCPUDemand of the
// terminal's foreground process group.
func (p *PTY) cpuDemand() (time.Duration, error) {
	pgrp, err := p.foregroundPgrp()
	if err != nil {
		return 0, err
	}
	return groupCPUDemand(pgrp)
}

// groupCPUDemand returns how long the processes of process group pgrp
// have run on a CPU or waited runnable in a run queue for one, summed over
// every thread of each (the first two fields of the kernel's
// /proc/<pid>/task/<tid>/schedstat, in nanoseconds). Waiting counts as
// much as running: a program starved of a CPU by the machine's load, or
// throttled by its cgroup, is working all the same. Threads and processes
// that ended take their share with them, so the sum can go down.
func groupCPUDemand(pgrp int) (time.Duration, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	var sum time.Duration
	found := false
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := readProcStat(pid); err != nil || st.pgrp != pgrp {
			continue
		}
		d, err := processCPUDemand(pid)
		if err != nil {
			continue // gone meanwhile, or no schedstat (a kernel without it)
		}
		sum += d
		found = true
	}
	if !found {
		return 0, errNoForeground
	}
	return sum, nil
}

// processCPUDemand is groupCPUDemand for the threads of one process.
func processCPUDemand(pid int) (time.Duration, error) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var sum time.Duration
	read := false
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/schedstat")
		if err != nil {
			continue
		}
		run, wait, ok := parseSchedstat(b)
		if !ok {
			continue
		}
		sum += time.Duration(run + wait)
		read = true
	}
	if !read {
		return 0, errNoForeground
	}
	return sum, nil
}

// parseSchedstat reads the first two fields of a schedstat line: the
// nanoseconds a task ran and the nanoseconds it waited to run.
func parseSchedstat(b []byte) (run, wait uint64, ok bool) {
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0, 0, false
	}
	run, err1 := strconv.ParseUint(string(f[0]), 10, 64)
	wait, err2 := strconv.ParseUint(string(f[1]), 10, 64)
	return run, wait, err1 == nil && err2 == nil
}
