//go:build unix

package ipc

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestListenRefusesWhenChmodFails checks that a socket whose mode cannot be
// set is removed and not served: the file mode is the trust boundary.
func TestListenRefusesWhenChmodFails(t *testing.T) {
	dir, err := os.MkdirTemp("", "pf")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "paneflow.sock")

	saved := chmodSocket
	chmodSocket = func(string, fs.FileMode) error { return fs.ErrPermission }
	defer func() { chmodSocket = saved }()

	s := &Server{Path: path}
	err = s.Listen()
	if err == nil || !strings.Contains(err.Error(), "refusing to serve") {
		t.Fatalf("Listen with a failing chmod = %v, want an error saying it refuses to serve", err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("socket file after the refusal: Lstat error %v, want it removed", err)
	}
}

// TestListenRaceOneWins has two Servers Listen at once on the same path,
// many times, half of them over a stale socket file (bound, then closed
// without unlinking, as a SIGKILLed server leaves it): exactly one may
// bind, the other gets an *InstanceRunningError, and the path is the
// winner's socket. Before the lock file, both could find the stale
// socket, both remove it and both bind, the first then serving an
// unlinked file.
func TestListenRaceOneWins(t *testing.T) {
	for round := range 60 { // before the lock, most rounds failed
		dir, err := os.MkdirTemp("", "pf")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "pf.sock")
		if round%2 == 0 {
			ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
			if err != nil {
				t.Fatal(err)
			}
			ln.SetUnlinkOnClose(false)
			ln.Close()
		}
		servers := []*Server{{Path: path}, {Path: path}}
		errs := make([]error, len(servers))
		var wg sync.WaitGroup
		for i, s := range servers {
			wg.Add(1)
			go func() { defer wg.Done(); errs[i] = s.Listen() }()
		}
		wg.Wait()
		won := 0
		for i, err := range errs {
			var running *InstanceRunningError
			switch {
			case err == nil:
				won++
			case !errors.As(err, &running):
				t.Errorf("round %d: Listen %d = %v, want nil or an *InstanceRunningError", round, i, err)
			}
		}
		if won != 1 {
			t.Errorf("round %d: %d of 2 Listens bound %s, want 1 (%v)", round, won, path, errs)
		}
		for _, s := range servers {
			s.Shutdown(context.Background())
		}
		os.RemoveAll(dir)
		if t.Failed() {
			return
		}
	}
}
