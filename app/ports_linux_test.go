package app

import (
	"net"
	"os"
	"os/exec"
	"slices"
	"testing"
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
	got := listeningPorts([]int{os.Getpid(), cmd.Process.Pid + 1_000_000})
	if !slices.Contains(got[os.Getpid()], port) {
		t.Fatalf("ports of the test's tree = %v, want %d (held by child %d)", got, port, cmd.Process.Pid)
	}
	if got := listeningPorts([]int{cmd.Process.Pid}); !slices.Equal(got[cmd.Process.Pid], []int{port}) {
		t.Fatalf("ports of the child = %v, want [%d]", got, port)
	}
	if _, ok := got[cmd.Process.Pid+1_000_000]; ok {
		t.Fatal("a missing process has ports")
	}
}
