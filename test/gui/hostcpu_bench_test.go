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

// procTree is the processes of this machine by parent, read from /proc.
type procTree struct {
	parent   map[int]int
	children map[int][]int
}

func readProcTree(t testing.TB) procTree {
	t.Helper()
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	pt := procTree{parent: map[int]int{}, children: map[int][]int{}}
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue // gone
		}
		s := string(data)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		ppid, _ := strconv.Atoi(f[1])
		pt.parent[pid] = ppid
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
		data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			continue
		}
		s := string(data)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		for _, i := range []int{11, 12, 13, 14} { // utime, stime, cutime, cstime
			n, _ := strconv.ParseInt(f[i], 10, 64)
			ticks += n
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
		data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "task", task.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(data)
		if !strings.Contains(s[:strings.LastIndexByte(s, ')')], "(llvmpipe") {
			continue
		}
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		for _, i := range []int{11, 12} {
			n, _ := strconv.ParseInt(f[i], 10, 64)
			ticks += n
		}
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}
