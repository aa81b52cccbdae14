package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// ownCPU splits the machine for the fleet's OwnCPU benchmarks: the timed
// loop's thread (and so the processes it starts, which inherit its CPU
// mask) on timed, everything else of this process and the bridges on
// load. The server is left on every CPU.
type ownCPU struct {
	timed, load unix.CPUSet
	all         unix.CPUSet // this process's mask before the split
}

// splitCPUs returns the split over the first two CPUs this process may
// use, or an error on a machine with fewer.
func splitCPUs() (*ownCPU, error) {
	var s ownCPU
	if err := unix.SchedGetaffinity(0, &s.all); err != nil {
		return nil, err
	}
	var cpus []int
	for c := 0; c < len(s.all)*64 && len(cpus) < 2; c++ {
		if s.all.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	if len(cpus) < 2 {
		return nil, fmt.Errorf("the OwnCPU fleet needs two CPUs, this process may use %d", s.all.Count())
	}
	s.timed.Set(cpus[0])
	s.load.Set(cpus[1])
	return &s, nil
}

// pinProcess sets the CPU mask of every thread of process pid. New
// threads inherit their creator's mask, so a process pinned whole stays
// pinned.
func pinProcess(pid int, set *unix.CPUSet) error {
	tasks, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
	if err != nil {
		return err
	}
	for _, task := range tasks {
		tid, _ := strconv.Atoi(task.Name())
		if err := unix.SchedSetaffinity(tid, set); err != nil && err != unix.ESRCH {
			return fmt.Errorf("pinning thread %d of %d: %v", tid, pid, err)
		}
	}
	return nil
}
