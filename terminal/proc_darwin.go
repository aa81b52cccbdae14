package terminal

import (
	"bytes"
	"encoding/binary"
	"errors"

	"golang.org/x/sys/unix"
)

// foregroundPgrp returns the terminal's foreground process group. It asks
// the master (tcgetpgrp) and, should the master refuse, the kernel's
// record of the program's controlling terminal (kinfo_proc.e_tpgid).
func (p *PTY) foregroundPgrp() (int, error) {
	if pgrp, err := p.ttyPgrp(); err == nil {
		return pgrp, nil
	}
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", p.pid)
	if err != nil {
		return 0, err
	}
	if int(kp.Proc.P_pid) != p.pid || kp.Eproc.Tpgid <= 0 {
		return 0, errNoForeground
	}
	return int(kp.Eproc.Tpgid), nil
}

// processInGroup describes the leader of process group pgrp or, when the
// leader has exited while the group lives on, its oldest remaining member.
// macOS offers no way to read another process's working directory without
// cgo (proc_pidinfo), so Cwd stays empty.
func processInGroup(pgrp int) (Process, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pgrp)
	if err != nil || int(kp.Proc.P_pid) != pgrp || int(kp.Eproc.Pgid) != pgrp {
		kp, err = oldestInGroup(pgrp)
		if err != nil {
			return Process{}, err
		}
	}
	pid := int(kp.Proc.P_pid)
	pr := Process{Pid: pid, Argv: procArgs(pid)}
	if len(pr.Argv) == 0 {
		comm := kp.Proc.P_comm[:]
		if i := bytes.IndexByte(comm, 0); i >= 0 {
			comm = comm[:i]
		}
		pr.Argv = []string{string(comm)}
	}
	return pr, nil
}

// groupAlive reports whether process group pgrp has a process that is not
// a zombie. Zombies count as gone: they are dead, and an orphan stays one
// for as long as its new parent does not reap it.
func groupAlive(pgrp int) bool {
	if unix.Kill(-pgrp, 0) == unix.ESRCH {
		return false
	}
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.pgrp", pgrp)
	if err != nil {
		return true
	}
	const zombie = 5 // SZOMB in <sys/proc.h>
	for i := range procs {
		if procs[i].Proc.P_stat != zombie {
			return true
		}
	}
	return false
}

func oldestInGroup(pgrp int) (*unix.KinfoProc, error) {
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.pgrp", pgrp)
	if err != nil {
		return nil, err
	}
	var best *unix.KinfoProc
	for i := range procs {
		kp := &procs[i]
		if best == nil || startedBefore(kp, best) {
			best = kp
		}
	}
	if best == nil {
		return nil, errNoForeground
	}
	return best, nil
}

func startedBefore(a, b *unix.KinfoProc) bool {
	ta, tb := a.Proc.P_starttime, b.Proc.P_starttime
	return ta.Sec < tb.Sec || ta.Sec == tb.Sec && ta.Usec < tb.Usec
}

// procArgs returns the argv of pid from kern.procargs2, or nil when it
// cannot be read (another user's process, a zombie).
func procArgs(pid int) []string {
	buf, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil {
		return nil
	}
	argv, err := parseProcArgs2(buf)
	if err != nil {
		return nil
	}
	return argv
}

// parseProcArgs2 parses the kern.procargs2 layout: a native-endian int32
// argc, the executable path, NUL padding, then argc NUL-terminated
// arguments (followed by the environment, which is ignored).
func parseProcArgs2(buf []byte) ([]string, error) {
	errBad := errors.New("malformed kern.procargs2")
	if len(buf) < 4 {
		return nil, errBad
	}
	argc := int(int32(binary.NativeEndian.Uint32(buf)))
	rest := buf[4:]
	if argc < 0 || argc > len(rest) {
		return nil, errBad
	}
	i := bytes.IndexByte(rest, 0) // end of the executable path
	if i < 0 {
		return nil, errBad
	}
	rest = rest[i:]
	for len(rest) > 0 && rest[0] == 0 {
		rest = rest[1:]
	}
	argv := make([]string, 0, argc)
	for len(argv) < argc {
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			return nil, errBad
		}
		argv = append(argv, string(rest[:i]))
		rest = rest[i+1:]
	}
	return argv, nil
}
