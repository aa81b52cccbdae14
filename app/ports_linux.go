package app

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// listeningPorts returns, for each root process id, the TCP ports (IPv4
// and IPv6) that it or any of its descendants listens on, sorted; roots
// with none are absent. It reads /proc: the parent of every process, the
// socket inodes among the tree's open files and /proc/net/tcp{,6}.
// Processes it may not read (other users') are skipped.
func listeningPorts(roots []int) map[int][]int {
	if len(roots) == 0 {
		return nil
	}
	listen := map[uint64]int{} // socket inode → port
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		if b, err := os.ReadFile(f); err == nil {
			parseProcNetTCP(b, listen)
		}
	}
	if len(listen) == 0 {
		return nil
	}
	children := map[int][]int{}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, ok := parentOf(pid); ok {
			children[ppid] = append(children[ppid], pid)
		}
	}
	out := map[int][]int{}
	for _, root := range roots {
		if root <= 0 {
			continue
		}
		var ports []int
		stack := []int{root}
		for len(stack) > 0 {
			pid := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			stack = append(stack, children[pid]...)
			fds, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "fd"))
			if err != nil {
				continue
			}
			for _, fd := range fds {
				link, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "fd", fd.Name()))
				if err != nil {
					continue
				}
				rest, ok := strings.CutPrefix(link, "socket:[")
				if !ok {
					continue
				}
				inode, err := strconv.ParseUint(strings.TrimSuffix(rest, "]"), 10, 64)
				if err != nil {
					continue
				}
				if port, ok := listen[inode]; ok && !slices.Contains(ports, port) {
					ports = append(ports, port)
				}
			}
		}
		if len(ports) > 0 {
			slices.Sort(ports)
			out[root] = ports
		}
	}
	return out
}

// parentOf reads pid's parent from /proc/PID/stat.
func parentOf(pid int) (int, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, false
	}
	// The command (field 2) is in parentheses and may hold anything.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}

// parseProcNetTCP adds the listening sockets of a /proc/net/tcp{,6} table
// to listen (inode → local port).
func parseProcNetTCP(b []byte, listen map[uint64]int) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	first := true
	for sc.Scan() {
		if first {
			first = false // the header
			continue
		}
		f := strings.Fields(sc.Text())
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
		if len(f) < 10 || f[3] != "0A" { // 0A = TCP_LISTEN
			continue
		}
		_, hexPort, ok := strings.Cut(f[1], ":")
		if !ok {
			continue
		}
		port, err := strconv.ParseUint(hexPort, 16, 16)
		if err != nil {
			continue
		}
		inode, err := strconv.ParseUint(f[9], 10, 64)
		if err != nil || inode == 0 {
			continue
		}
		listen[inode] = int(port)
	}
}
