package ports

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Listening returns, for each root process id, the TCP ports (IPv4
// and IPv6) that it or any of its descendants listens on, sorted; roots
// with none are absent. It lists the listening sockets (listenInodes),
// then reads /proc: the roots' trees (each thread's children file, else
// the parent of every process) and the socket inodes among the trees'
// open files. Processes it may not read (other users') are skipped.
func Listening(roots []int) map[int][]int {
	if len(roots) == 0 {
		return nil
	}
	return portsOwned(roots, listenInodes())
}

// Cache remembers the last answer of [Listening]: the /proc walk
// (every process's parent, every pane process's open files: thousands of
// reads with a hundred panes) is done again only when the listening
// sockets or the roots changed. The zero value is an empty cache, ready
// for use; it is not safe for concurrent use.
type Cache struct {
	roots  []int
	listen map[uint64]int
	ports  map[int][]int
}

// Listening is the package's [Listening], answered from the cache
// while the listening sockets (inode and port) and the roots are those of
// the last walk. A listening socket that passes from one process to
// another in the same moment is missed until the sockets change.
func (c *Cache) Listening(roots []int) map[int][]int {
	if len(roots) == 0 {
		return nil
	}
	listen := listenInodes()
	if c.listen != nil && slices.Equal(roots, c.roots) && maps.Equal(listen, c.listen) {
		return c.ports
	}
	c.roots, c.listen = slices.Clone(roots), listen
	c.ports = portsOwned(roots, listen)
	return c.ports
}

// listenInodes returns the listening TCP sockets (IPv4 and IPv6) of the
// network namespace: socket inode → port. It asks the kernel's socket
// diagnostics over netlink for listening sockets only, and falls back to
// /proc/net/tcp{,6}, whose reading walks the kernel's whole table of
// connections (empty buckets included: about 3 ms of CPU here, whatever
// the machine's connections).
func listenInodes() map[uint64]int {
	listen := map[uint64]int{}
	if err := diagListening(listen); err == nil {
		return listen
	}
	clear(listen)
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		if b, err := os.ReadFile(f); err == nil {
			parseProcNetTCP(b, listen)
		}
	}
	return listen
}

// Socket diagnostics (linux/sock_diag.h, linux/inet_diag.h).
const (
	netlinkSockDiag  = 4  // NETLINK_SOCK_DIAG
	sockDiagByFamily = 20 // SOCK_DIAG_BY_FAMILY
	tcpListen        = 10 // TCP_LISTEN
	inetDiagReqLen   = 56 // struct inet_diag_req_v2
	inetDiagMsgLen   = 72 // struct inet_diag_msg
	inetDiagMsgPort  = 4  // idiag_sport (big endian)
	inetDiagMsgInode = 68 // idiag_inode (host order)
)

// diagListening adds the listening TCP sockets of both address families
// to listen (inode → port), asking the kernel over a NETLINK_SOCK_DIAG
// socket.
func diagListening(listen map[uint64]int) error {
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_RAW|syscall.SOCK_CLOEXEC, netlinkSockDiag)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return err
	}
	buf := make([]byte, 32<<10)
	for i, family := range []byte{syscall.AF_INET, syscall.AF_INET6} {
		req := make([]byte, syscall.NLMSG_HDRLEN+inetDiagReqLen)
		binary.NativeEndian.PutUint32(req[0:], uint32(len(req)))
		binary.NativeEndian.PutUint16(req[4:], sockDiagByFamily)
		binary.NativeEndian.PutUint16(req[6:], syscall.NLM_F_REQUEST|syscall.NLM_F_DUMP)
		binary.NativeEndian.PutUint32(req[8:], uint32(i+1))
		r := req[syscall.NLMSG_HDRLEN:]
		r[0] = family
		r[1] = syscall.IPPROTO_TCP
		binary.NativeEndian.PutUint32(r[4:], 1<<tcpListen)
		if err := syscall.Sendto(fd, req, 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
			return err
		}
		if err := readDiag(fd, buf, uint32(i+1), listen); err != nil {
			return err
		}
	}
	return nil
}

// readDiag reads the answer to dump request seq on fd into listen.
func readDiag(fd int, buf []byte, seq uint32, listen map[uint64]int) error {
	for {
		n, _, err := syscall.Recvfrom(fd, buf, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return err
		}
		for _, m := range msgs {
			if m.Header.Seq != seq {
				continue
			}
			switch m.Header.Type {
			case syscall.NLMSG_DONE:
				return nil
			case syscall.NLMSG_ERROR:
				if len(m.Data) >= 4 {
					if code := int32(binary.NativeEndian.Uint32(m.Data)); code != 0 {
						return syscall.Errno(-code)
					}
				}
				return errors.New("sock_diag: error reply")
			}
			if len(m.Data) < inetDiagMsgLen {
				continue
			}
			port := int(binary.BigEndian.Uint16(m.Data[inetDiagMsgPort:]))
			inode := uint64(binary.NativeEndian.Uint32(m.Data[inetDiagMsgInode:]))
			if inode != 0 {
				listen[inode] = port
			}
		}
	}
}

// portsOwned returns, for each root, the ports of listen (inode → port)
// whose sockets it or a descendant holds open, sorted; roots with none
// are absent.
func portsOwned(roots []int, listen map[uint64]int) map[int][]int {
	if len(listen) == 0 {
		return nil
	}
	children := treeChildren
	if !haveChildrenFiles() {
		if children = tableChildren(); children == nil {
			return nil
		}
	}
	out := map[int][]int{}
	for _, root := range roots {
		if root <= 0 {
			continue
		}
		var ports []int
		stack := []int{root}
		seen := map[int]bool{}
		for len(stack) > 0 {
			pid := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[pid] {
				continue // a pid reused while the tree was read
			}
			seen[pid] = true
			stack = append(stack, children(pid)...)
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

// haveChildrenFiles reports whether the kernel lists each thread's
// children in /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN, on in
// the common distributions' kernels).
var haveChildrenFiles = sync.OnceValue(func() bool {
	pid := strconv.Itoa(os.Getpid())
	_, err := os.Stat(filepath.Join("/proc", pid, "task", pid, "children"))
	return err == nil
})

// treeChildren lists pid's children from the children files of its
// threads: a walk of the roots' trees reads their processes only, where
// tableChildren reads every process's stat (the window's port chips of
// one pane read a thousand files on a machine running a thousand
// processes). The kernel builds each file as it is read; a child forked
// or reparented meanwhile may be missed until the next reading.
func treeChildren(pid int) []int {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "task")
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, t.Name(), "children"))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// tableChildren reads every process's parent (parentOf) and returns the
// children of a pid from that table; nil when /proc cannot be listed.
func tableChildren() func(pid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, ok := parentOf(pid); ok {
			children[ppid] = append(children[ppid], pid)
		}
	}
	return func(pid int) []int { return children[pid] }
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
