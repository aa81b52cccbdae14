//go:build unix

package ipc_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
)

// openFDs counts this process's open file descriptors, or -1 where
// /proc/self/fd does not exist.
func openFDs() int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(entries)
}

// settle waits until f reports at most want, returning the last value.
func settle(want int, f func() int) int {
	got := f()
	for deadline := time.Now().Add(10 * time.Second); got > want && time.Now().Before(deadline); got = f() {
		time.Sleep(10 * time.Millisecond)
	}
	return got
}

// TestLoad sends 1,000 clients in bursts of 50 at a server with the
// default admission limits: every client must get its pong (a burst of
// 50 is far below them), and once the server is shut down no goroutine or
// file descriptor may be left over.
func TestLoad(t *testing.T) {
	const clients, burst = 1000, 50
	goroutinesBefore, fdsBefore := runtime.NumGoroutine(), openFDs()

	reg, _ := newTestRegistry()
	s := &ipc.Server{Path: ipctest.NewPath(t), Registry: reg}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(context.Background()) }()

	var pongs atomic.Int64
	for start := 0; start < clients; start += burst {
		var wg sync.WaitGroup
		errs := make(chan error, burst)
		for range burst {
			wg.Go(func() {
				switch reply, err := loadClient(s.Path); {
				case err != nil:
					errs <- err
				case reply == wantPong1:
					pongs.Add(1)
				default:
					errs <- fmt.Errorf("unexpected reply %s", reply)
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if t.Failed() {
			break
		}
	}
	if got := pongs.Load(); got != clients && !t.Failed() {
		t.Errorf("%d clients got their pong, want %d", got, clients)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	<-served
	if got := settle(goroutinesBefore, runtime.NumGoroutine); got > goroutinesBefore {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines: %d after, %d before\n%s", got, goroutinesBefore, buf[:runtime.Stack(buf, true)])
	}
	if fdsBefore >= 0 {
		if got := settle(fdsBefore, openFDs); got > fdsBefore {
			t.Errorf("open file descriptors: %d after, %d before", got, fdsBefore)
		}
	}
}

// loadClient connects, sends one ping and returns the first reply line. A
// refused client's write may fail; the refusal frame is still read.
func loadClient(path string) (string, error) {
	nc, err := net.DialTimeout("unix", path, 10*time.Second)
	if err != nil {
		return "", err
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(30 * time.Second))
	nc.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"test.ping"}` + "\n"))
	line, err := bufio.NewReader(nc).ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("reading the reply: %w", err)
	}
	return line[:len(line)-1], nil
}
