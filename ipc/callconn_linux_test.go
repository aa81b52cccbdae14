package ipc

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestDialCallBlocking checks that a call's connection on Linux is the
// blocking one, and its closed state.
func TestDialCallBlocking(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	nc, err := dialCall(context.Background(), path, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, ok := nc.(*blockingConn); !ok {
		t.Fatalf("dialCall gave a %T, want *blockingConn", nc)
	}
	if err := nc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := nc.Close(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("second Close = %v, want os.ErrClosed", err)
	}
	if err := nc.SetDeadline(time.Now()); !errors.Is(err, os.ErrClosed) {
		t.Errorf("SetDeadline after Close = %v, want os.ErrClosed", err)
	}
}

// TestDialCallFullQueue fills a listener's accept queue: dialCall falls
// back to package net, which reports the refusal at once (it does not wait
// on a Unix socket), so the call fails as it did before dialCall.
func TestDialCallFullQueue(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.sock")
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	// Fill the queue (never accepted) until a connection would wait.
	var held []int
	defer func() {
		for _, h := range held {
			syscall.Close(h)
		}
	}()
	for range 64 {
		h, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC|syscall.SOCK_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		err = syscall.Connect(h, &syscall.SockaddrUnix{Name: path})
		held = append(held, h)
		if err == syscall.EAGAIN {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	err = (&Client{Path: path, Timeout: 100 * time.Millisecond}).Call(context.Background(), "test.ping", nil, nil)
	if !errors.As(err, new(*UnreachableError)) || !errors.Is(err, syscall.EAGAIN) {
		t.Errorf("Call on a full accept queue = %v, want an *UnreachableError for EAGAIN", err)
	}
}

// TestReadArrivedPastDeadline: a reply already in the socket's buffer is
// read even when the reader comes to it after its deadline (a process
// not scheduled in time on a busy machine), also once a past deadline
// has shut the socket down; with nothing there, the deadline's error.
func TestReadArrivedPastDeadline(t *testing.T) {
	for _, shut := range []bool{false, true} {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		c := &blockingConn{fd: fds[0]}
		peer := os.NewFile(uintptr(fds[1]), "peer")
		buf := make([]byte, 64)
		if err := c.SetDeadline(time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		c.deadline = time.Now().Add(-time.Second) // as if the reader woke up late
		if n, err := c.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("shut=%v: Read of nothing past the deadline = %d, %v; want os.ErrDeadlineExceeded", shut, n, err)
		}
		if _, err := peer.Write([]byte("reply\n")); err != nil {
			t.Fatal(err)
		}
		if shut {
			if err := c.SetDeadline(time.Now().Add(-time.Second)); err != nil {
				t.Fatal(err)
			}
		}
		n, err := c.Read(buf)
		if err != nil || string(buf[:n]) != "reply\n" {
			t.Errorf("shut=%v: Read past the deadline with a reply waiting = %q, %v; want the reply", shut, buf[:n], err)
		}
		if n, err := c.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("shut=%v: Read after the reply = %d, %v; want os.ErrDeadlineExceeded", shut, n, err)
		}
		c.Close()
		peer.Close()
	}
}
