package terminal

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// foregroundPgrp returns the terminal's foreground process group.
func (p *PTY) foregroundPgrp() (int, error) {
	return p.ttyPgrp()
}

// processInGroup describes the leader of process group pgrp or, when the
// leader has exited while the group lives on (the first command of a
// finished pipeline stage, say), its oldest remaining member.
func processInGroup(pgrp int) (Process, error) {
	pid := pgrp
	if st, err := readProcStat(pgrp); err != nil || st.pgrp != pgrp {
		if pid, err = oldestInGroup(pgrp); err != nil {
			return Process{}, err
		}
	}
	return describeProcess(pid)
}

// fgCache remembers the last foreground process a PTY described, so that
// surface.list over 200 panes does not read each one's stat and cmdline
// again (they were 70 % of its CPU): while the terminal's foreground
// group and the executable of its leader are the same, the argv is too,
// and only the working directory (which a process changes at will) is
// read again. What it misses: a leader that exec'd the very same binary
// with other arguments keeps its old argv here until its group changes.
// The zero value is empty; it is safe for concurrent use.
type fgCache struct {
	mu   sync.Mutex
	pgrp int
	exe  string
	argv []string
}

// describe is processInGroup(pgrp), from the cache when it still holds,
// reading only the fields want names: without FieldArgv, the leader's
// working directory alone (or nothing), and processInGroup only when the
// leader is gone.
func (c *fgCache) describe(pgrp int, want Fields) (Process, error) {
	dir := "/proc/" + strconv.Itoa(pgrp)
	if want&FieldArgv == 0 {
		if want&FieldCwd == 0 {
			return Process{Pid: pgrp}, nil
		}
		// A leader that left (or a zombie) has no cwd link: then the
		// group's oldest member answers, as below.
		if cwd, err := os.Readlink(dir + "/cwd"); err == nil {
			return Process{Pid: pgrp, Cwd: cwd}, nil
		}
		return processInGroup(pgrp)
	}
	exe, err := os.Readlink(dir + "/exe")
	if err == nil && exe != "" {
		c.mu.Lock()
		hit := c.pgrp == pgrp && c.exe == exe
		argv := c.argv
		c.mu.Unlock()
		if hit {
			pr := Process{Pid: pgrp, Argv: slices.Clone(argv)}
			if want&FieldCwd != 0 {
				if cwd, err := os.Readlink(dir + "/cwd"); err == nil {
					pr.Cwd = cwd
				}
			}
			return pr, nil
		}
	}
	pr, perr := processInGroup(pgrp)
	c.mu.Lock()
	defer c.mu.Unlock()
	if perr == nil && err == nil && exe != "" && pr.Pid == pgrp && len(pr.Argv) > 0 {
		// Only a live leader's description is kept: for a group whose
		// leader left, the oldest member answers, read afresh each time.
		c.pgrp, c.exe, c.argv = pgrp, exe, slices.Clone(pr.Argv)
	} else {
		c.pgrp, c.exe, c.argv = 0, "", nil
	}
	return pr, perr
}

// describeProcess reads argv and cwd of pid from /proc. A process whose
// command line is empty (a zombie, or one that cleared it) is described by
// its kernel name (comm). Only a process that vanished is an error.
func describeProcess(pid int) (Process, error) {
	dir := "/proc/" + strconv.Itoa(pid)
	pr := Process{Pid: pid}
	if b, err := os.ReadFile(dir + "/cmdline"); err == nil {
		pr.Argv = splitNUL(b)
	}
	if len(pr.Argv) == 0 {
		st, err := readProcStat(pid)
		if err != nil {
			return Process{}, err
		}
		pr.Argv = []string{st.comm}
	}
	if cwd, err := os.Readlink(dir + "/cwd"); err == nil {
		pr.Cwd = cwd
	}
	return pr, nil
}

// splitNUL splits a NUL-separated, NUL-terminated list such as
// /proc/<pid>/cmdline.
func splitNUL(b []byte) []string {
	b = bytes.TrimRight(b, "\x00")
	if len(b) == 0 {
		return nil
	}
	parts := bytes.Split(b, []byte{0})
	out := make([]string, len(parts))
	for i, s := range parts {
		out[i] = string(s)
	}
	return out
}

// procStat holds the fields of /proc/<pid>/stat this package uses.
type procStat struct {
	comm      string
	state     byte // R, S, D, Z (zombie), X (dead), ...
	ppid      int
	pgrp      int
	startTime uint64 // clock ticks since boot
}

func readProcStat(pid int) (procStat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	return parseProcStat(string(b))
}

// parseProcStat parses "pid (comm) state ppid pgrp ... starttime ...".
// comm may contain spaces and parentheses, so it ends at the last ')'.
func parseProcStat(s string) (procStat, error) {
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return procStat{}, fmt.Errorf("malformed /proc stat %q", s)
	}
	// Fields after comm, counting from field 3 (state) as index 0.
	f := strings.Fields(s[end+1:])
	if len(f) < 20 {
		return procStat{}, fmt.Errorf("malformed /proc stat %q", s)
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return procStat{}, fmt.Errorf("malformed /proc stat ppid %q", f[1])
	}
	pgrp, err := strconv.Atoi(f[2])
	if err != nil {
		return procStat{}, fmt.Errorf("malformed /proc stat pgrp %q", f[2])
	}
	start, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return procStat{}, fmt.Errorf("malformed /proc stat starttime %q", f[19])
	}
	return procStat{comm: s[open+1 : end], state: f[0][0], ppid: ppid, pgrp: pgrp, startTime: start}, nil
}

// groupAlive reports whether process group pgrp has a process that is not
// a zombie. Zombies count as gone: they are dead, and an orphan stays one
// for as long as its new parent (a container's init, say) does not reap it.
func groupAlive(pgrp int) bool {
	if unix.Kill(-pgrp, 0) == unix.ESRCH {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := readProcStat(pid); err == nil && st.pgrp == pgrp && st.state != 'Z' && st.state != 'X' {
			return true
		}
	}
	return false
}

// oldestInGroup scans /proc for the earliest started live member of pgrp.
func oldestInGroup(pgrp int) (int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	best, bestStart := 0, uint64(0)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := readProcStat(pid)
		if err != nil || st.pgrp != pgrp || st.state == 'Z' || st.state == 'X' {
			continue
		}
		if best == 0 || st.startTime < bestStart {
			best, bestStart = pid, st.startTime
		}
	}
	if best == 0 {
		return 0, errNoForeground
	}
	return best, nil
}
