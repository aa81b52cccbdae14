package ipc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// slowServer answers each request with the string result reply (same id)
// after delay, or never when delay is negative (it then holds the
// connection until the client goes).
func slowServer(t *testing.T, delay time.Duration, reply string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer nc.Close()
				r := bufio.NewReader(nc)
				line, err := r.ReadString('\n')
				if err != nil {
					return
				}
				var req struct{ ID int64 }
				json.Unmarshal([]byte(line), &req)
				if delay < 0 {
					r.ReadString('\n')
					return
				}
				time.Sleep(delay)
				fmt.Fprintf(nc, `{"jsonrpc":"2.0","result":%q,"id":%d}`+"\n", reply, req.ID)
			}()
		}
	}()
	return path
}

func TestDialCallBlocking(t *testing.T) {
	path := slowServer(t, 0, "ok")
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

// TestCallCancelledWhileBlocked cancels a call whose read is blocked in
// the kernel: the shutdown must wake it.
func TestCallCancelledWhileBlocked(t *testing.T) {
	path := slowServer(t, -1, "")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	err := (&Client{Path: path, Timeout: time.Minute}).Call(ctx, "test.wait", nil, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Call = %v, want context.Canceled", err)
	}
}

// TestCallSurvivesSignals delivers signals to the process while a call
// waits for its reply: reads with a socket timeout end with EINTR even
// under SA_RESTART, and must resume.
func TestCallSurvivesSignals(t *testing.T) {
	path := slowServer(t, 300*time.Millisecond, "late")
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
				// SIGURG is the runtime's preemption signal: harmless to
				// the program, but it interrupts system calls.
				syscall.Kill(syscall.Getpid(), syscall.SIGURG)
			}
		}
	}()
	defer func() { close(stop); wg.Wait() }()
	var got string
	if err := (&Client{Path: path, Timeout: time.Minute}).Call(context.Background(), "test.slow", nil, &got); err != nil || got != "late" {
		t.Errorf("Call = %q, %v; want \"late\"", got, err)
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
