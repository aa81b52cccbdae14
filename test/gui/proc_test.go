//go:build linux

package gui

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// readStat reads /proc/<task>/stat (task: "PID" or "PID/task/TID"): the
// command's name and the fields after it (state, ppid, …: the stat
// fields from 3 on, so utime and stime are 11 and 12).
func readStat(task string) (comm string, fields []string, ok bool) {
	data, err := os.ReadFile(filepath.Join("/proc", task, "stat"))
	if err != nil {
		return "", nil, false // gone
	}
	s := string(data)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return "", nil, false
	}
	return s[open+1 : end], strings.Fields(s[end+1:]), true
}

// statTicks adds up fields of a stat (readStat's numbering), in clock
// ticks.
func statTicks(fields []string, which ...int) int64 {
	var n int64
	for _, i := range which {
		v, _ := strconv.ParseInt(fields[i], 10, 64)
		n += v
	}
	return n
}

// procTree is the processes of this machine by parent, read from /proc.
type procTree struct {
	parent   map[int]int
	comm     map[int]string
	children map[int][]int
}

// readProcTree reads the process table.
func readProcTree(t testing.TB) procTree {
	t.Helper()
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	pt := procTree{parent: map[int]int{}, comm: map[int]string{}, children: map[int][]int{}}
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		comm, f, ok := readStat(d.Name())
		if !ok || len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pt.parent[pid], pt.comm[pid] = ppid, comm
		pt.children[ppid] = append(pt.children[ppid], pid)
	}
	return pt
}

// below adds pid and its descendants to set.
func (pt procTree) below(pid int, set map[int]bool) {
	set[pid] = true
	for _, c := range pt.children[pid] {
		pt.below(c, set)
	}
}

// hostProcs is every process of the "host" whose server listens on sock:
// the server and what runs in its panes (their command lines or
// environments name the socket), and each ssh session that reached it
// (the `sshd -i` this test started and what it ran: the ancestors of a
// process naming the socket, up to this test's process).
func hostProcs(t testing.TB, sock string) map[int]bool {
	t.Helper()
	pt := readProcTree(t)
	set := map[int]bool{}
	self := os.Getpid()
	want := []byte(sock)
	for pid := range pt.parent {
		cmd, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		env, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
		if !bytes.Contains(cmd, want) && !bytes.Contains(env, append([]byte("PANEFLOW_SOCKET_PATH="), want...)) {
			continue
		}
		pt.below(pid, set)
		for p := pt.parent[pid]; p > 1 && p != self; p = pt.parent[p] {
			set[p] = true
		}
	}
	return set
}

// pinHostApart runs the processes of the host whose server listens on
// sock (hostProcs) on the machine's last CPU, and this test process and
// every other process it started on the others, as if the host were
// another machine; the processes are allowed every CPU again when the
// benchmark ends (those the host starts later inherit their parent's
// CPUs).
func pinHostApart(t testing.TB, sock string) {
	t.Helper()
	n := runtime.NumCPU()
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	local := map[int]bool{}
	readProcTree(t).below(os.Getpid(), local)
	host := hostProcs(t, sock)
	for pid := range host {
		delete(local, pid)
	}
	pinProcs(t, local, all[:n-1]...)
	pinProcs(t, host, n-1)
	t.Cleanup(func() {
		every := map[int]bool{}
		readProcTree(t).below(os.Getpid(), every)
		pinProcs(t, every, all...)
	})
}

// pinProcs keeps every thread of each process in set on cpus.
func pinProcs(t testing.TB, set map[int]bool, cpus ...int) {
	t.Helper()
	var cs unix.CPUSet
	for _, c := range cpus {
		cs.Set(c)
	}
	for pid := range set {
		tasks, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
		if err != nil {
			continue // gone
		}
		for _, task := range tasks {
			tid, _ := strconv.Atoi(task.Name())
			if err := unix.SchedSetaffinity(tid, &cs); err != nil && err != unix.ESRCH {
				t.Fatalf("pinning %d/%d to %v: %v", pid, tid, cpus, err)
			}
		}
	}
}

// treeCPU is the CPU time the processes of set used, with the children
// they reaped (the flood's short-lived commands).
func treeCPU(set map[int]bool) time.Duration {
	var ticks int64
	for pid := range set {
		if _, f, ok := readStat(strconv.Itoa(pid)); ok {
			ticks += statTicks(f, 11, 12, 13, 14) // utime, stime, cutime, cstime
		}
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

// glCPU is the CPU time pid's llvmpipe threads used (Mesa's software
// OpenGL under Xvfb draws the window's frames on as many threads as the
// machine has CPUs).
func glCPU(pid int) time.Duration {
	tasks, _ := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
	var ticks int64
	for _, task := range tasks {
		comm, f, ok := readStat(filepath.Join(strconv.Itoa(pid), "task", task.Name()))
		if ok && strings.HasPrefix(comm, "llvmpipe") {
			ticks += statTicks(f, 11, 12)
		}
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}
