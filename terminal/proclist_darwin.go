package terminal

import (
	"bytes"

	"golang.org/x/sys/unix"
)

// ListProcesses reads every process of the system (sysctl kern.proc.all).
func ListProcesses() ([]ProcessEntry, error) {
	kps, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil, err
	}
	const zombie = 5 // SZOMB in <sys/proc.h>
	out := make([]ProcessEntry, 0, len(kps))
	for i := range kps {
		kp := &kps[i]
		comm := kp.Proc.P_comm[:]
		if j := bytes.IndexByte(comm, 0); j >= 0 {
			comm = comm[:j]
		}
		st := kp.Proc.P_starttime
		out = append(out, ProcessEntry{
			PID:    int(kp.Proc.P_pid),
			PPID:   int(kp.Eproc.Ppid),
			Start:  uint64(st.Sec)*1_000_000 + uint64(st.Usec),
			Comm:   string(comm),
			Zombie: kp.Proc.P_stat == zombie,
		})
	}
	return out, nil
}

// ProcessArgs returns pid's command line (kern.procargs2), nil when it
// cannot be read (another user's process, a zombie).
func ProcessArgs(pid int) []string { return procArgs(pid) }

// ProcessExe returns the path pid executes (the executable path of
// kern.procargs2: the path that was run, symlinks not resolved), "" when
// it cannot be read.
func ProcessExe(pid int) string {
	buf, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil || len(buf) < 4 {
		return ""
	}
	rest := buf[4:]
	if i := bytes.IndexByte(rest, 0); i >= 0 {
		return string(rest[:i])
	}
	return ""
}
