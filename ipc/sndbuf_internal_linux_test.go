package ipc

import (
	"context"
	"net"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestFrameWriterSetWriteBuffer: a stream can shrink its socket's send
// buffer (screen.attach does, so a flooding pane's frames queue little
// ahead of a key's echo); Linux reports twice the size asked for.
func TestFrameWriterSetWriteBuffer(t *testing.T) {
	l, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cl, err := net.Dial("unix", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	nc, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	sndbuf := func() int {
		rc, err := nc.(*net.UnixConn).SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		var n int
		var gerr error
		if err := rc.Control(func(fd uintptr) { n, gerr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDBUF) }); err != nil || gerr != nil {
			t.Fatal(err, gerr)
		}
		return n
	}
	before := sndbuf()
	w := &frameWriter{ctx: context.Background(), nc: nc, timeout: time.Second}
	if err := w.SetWriteBuffer(16 << 10); err != nil {
		t.Fatal(err)
	}
	if got := sndbuf(); got != 32<<10 {
		t.Errorf("SO_SNDBUF = %d after SetWriteBuffer(16 KiB) (was %d), want %d", got, before, 32<<10)
	}
}
