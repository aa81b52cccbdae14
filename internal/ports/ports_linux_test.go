package ports

import (
	"net"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"
)

func TestParseProcNetTCP(t *testing.T) {
	table := `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000:0BB8 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000        0 4343 1 0000000000000000 20 4 30 10 -1
`
	listen := map[uint64]int{}
	parseProcNetTCP([]byte(table), listen)
	if len(listen) != 1 || listen[4242] != 3000 {
		t.Fatalf("listen = %v, want only inode 4242 → 3000 (the established socket is not listening)", listen)
	}
}

// TestListeningPorts finds a port held only by a child process of the
// root: the tree is walked, the socket matched by inode.
func TestListeningPorts(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	f, err := l.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sleep", "60")
	cmd.ExtraFiles = []*os.File{f}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	f.Close()
	l.Close()
	got := Listening([]int{os.Getpid(), cmd.Process.Pid + 1_000_000})
	if !slices.Contains(got[os.Getpid()], port) {
		t.Fatalf("ports of the test's tree = %v, want %d (held by child %d)", got, port, cmd.Process.Pid)
	}
	if got := Listening([]int{cmd.Process.Pid}); !slices.Equal(got[cmd.Process.Pid], []int{port}) {
		t.Fatalf("ports of the child = %v, want [%d]", got, port)
	}
	if _, ok := got[cmd.Process.Pid+1_000_000]; ok {
		t.Fatal("a missing process has ports")
	}
}

// TestListenInodesMatchesProc checks the netlink listing of listening
// sockets against /proc/net/tcp{,6}, with a listener of the test's own
// on each address family.
func TestListenInodesMatchesProc(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0"} {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Logf("%s: %v", addr, err) // a machine without IPv6
			continue
		}
		defer l.Close()
	}
	diag := map[uint64]int{}
	if err := diagListening(diag); err != nil {
		t.Fatalf("sock_diag: %v", err)
	}
	proc := map[uint64]int{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		if b, err := os.ReadFile(f); err == nil {
			parseProcNetTCP(b, proc)
		}
	}
	// Other processes of the machine open and close listeners meanwhile:
	// the test's own must be in both, with the same ports.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	got := listenInodes()
	var inode uint64
	for in, p := range got {
		if p == port {
			inode = in
		}
	}
	if inode == 0 {
		t.Fatalf("listenInodes = %v lacks port %d", got, port)
	}
	if len(diag) == 0 || len(proc) == 0 {
		t.Fatalf("sock_diag found %v, /proc %v", diag, proc)
	}
	same := 0
	for in, p := range diag {
		if proc[in] == p {
			same++
		}
	}
	if same == 0 {
		t.Errorf("no socket in common: sock_diag %v, /proc %v", diag, proc)
	}
}

// TestPortCache checks that the cache answers as listeningPorts does,
// and again after the listener closes and another opens.
func TestPortCache(t *testing.T) {
	var c Cache
	root := []int{os.Getpid()}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	for range 2 {
		if got := c.Listening(root); !slices.Contains(got[os.Getpid()], port) {
			t.Fatalf("ports = %v, want %d", got, port)
		}
	}
	l.Close()
	l2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	port2 := l2.Addr().(*net.TCPAddr).Port
	got := c.Listening(root)
	if slices.Contains(got[os.Getpid()], port) || !slices.Contains(got[os.Getpid()], port2) {
		t.Fatalf("ports after closing %d and opening %d = %v", port, port2, got)
	}
}

// TestTreeChildren: the children read from the threads' children files
// are those of the whole process table, for a shell with two children
// and for this (many-threaded) test process, whose children are forked
// by whichever thread ran exec.
func TestTreeChildren(t *testing.T) {
	if !haveChildrenFiles() {
		t.Skip("this kernel has no /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN)")
	}
	var cmds []*exec.Cmd
	for range 3 {
		cmd := exec.Command("sh", "-c", "sleep 60 & sleep 60 & wait")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		cmds = append(cmds, cmd)
	}
	sh := cmds[0].Process.Pid
	var kids []int
	for { // the shell forks its two sleeps after it started
		if kids = treeChildren(sh); len(kids) == 2 {
			break
		}
		if err := cmds[0].Process.Signal(syscall.Signal(0)); err != nil {
			t.Fatalf("the shell is gone: %v", err)
		}
		time.Sleep(time.Millisecond)
	}
	table := tableChildren()
	for _, pid := range []int{os.Getpid(), sh} {
		got, want := treeChildren(pid), table(pid)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("children of %d: %v from the children files, %v from the process table", pid, got, want)
		}
	}
	for _, c := range cmds {
		if !slices.Contains(treeChildren(os.Getpid()), c.Process.Pid) {
			t.Errorf("the test's children %v lack %d", treeChildren(os.Getpid()), c.Process.Pid)
		}
	}
}

// BenchmarkTreeWalk: finding the children of this process's tree from its
// threads' children files, against reading the whole process table.
func BenchmarkTreeWalk(b *testing.B) {
	if !haveChildrenFiles() {
		b.Skip("no children files")
	}
	b.Run("children-files", func(b *testing.B) {
		for b.Loop() {
			treeChildren(os.Getpid())
		}
	})
	b.Run("process-table", func(b *testing.B) {
		for b.Loop() {
			tableChildren()(os.Getpid())
		}
	})
}
