//go:build unix

package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/paneflow-go/paneflow/hook"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
)

// TestHungServers runs the hook against servers that take its connection
// and never read it, or never take it at all: it must still exit 0 at once.
func TestHungServers(t *testing.T) {
	payload := sample(t, "claude/Stop")
	log := filepath.Join(t.TempDir(), "hook.log")
	t.Cleanup(func() {
		b, _ := os.ReadFile(log)
		t.Logf("hook log:\n%s", b)
	})

	t.Run("accepts and never reads", func(t *testing.T) {
		path := ipctest.NewPath(t)
		ln, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		held := make(chan net.Conn, 16)
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				held <- c
			}
		}()
		t.Cleanup(func() {
			ln.Close()
			for len(held) > 0 {
				(<-held).Close()
			}
		})
		runHook(t, paneEnv(path, hook.EnvLog, log), bytes.NewReader(payload), "Stop").check(t)
	})

	t.Run("never accepts", func(t *testing.T) {
		path := filepath.Join(filepath.Dir(ipctest.NewPath(t)), "backlog.sock")
		fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Close(fd) })
		if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Listen(fd, 0); err != nil {
			t.Fatal(err)
		}
		// Fill the listen queue so that further connects are refused or
		// wait: the kernel keeps a few pending connections even at backlog 0.
		for i := 0; i < 64; i++ {
			c, err := net.DialTimeout("unix", path, 50e6)
			if err != nil {
				break
			}
			t.Cleanup(func() { c.Close() })
		}
		runHook(t, paneEnv(path, hook.EnvLog, log), bytes.NewReader(payload), "Stop").check(t)
	})

	t.Run("socket file without a listener", func(t *testing.T) {
		path := ipctest.NewPath(t)
		ln, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		ln.(*net.UnixListener).SetUnlinkOnClose(false)
		ln.Close()
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("stale socket file missing: %v", err)
		}
		runHook(t, paneEnv(path, hook.EnvLog, log), bytes.NewReader(payload), "Stop").check(t)
	})
}
