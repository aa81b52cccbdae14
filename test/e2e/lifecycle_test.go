//go:build linux

package e2e

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/test/internal/proctest"
)

// TestKilledPane kills a pane's process with SIGKILL: the pane stays
// listed as exited, its text stays readable, and close removes it.
func TestKilledPane(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	p, pid := s.panePID("--name", "victim")
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 %d (pane %d): %v", pid, p, err)
	}
	var row surface
	s.eventually("the killed pane to show as exited in ls", func() (bool, string) {
		row, _ = s.surface(p)
		return row.Exited, s.cli("ls").stdout
	})
	if row.Cmd != nil {
		t.Errorf("exited pane: cmd = %q, want null", *row.Cmd)
	}
	if text := s.readRaw("victim"); !strings.Contains(text, "PID=") {
		t.Errorf("read of the exited pane: got %q, want its text (PID=...)", text)
	}
	var st struct {
		SurfaceID uint64 `json:"surface_id"`
	}
	s.mustCLI(&st, "status", "victim", "--json")
	// Waiting for a pattern in a pane whose program is gone cannot succeed;
	// it must say so instead of hanging until the timeout.
	if r := s.cli("wait", "--match", "victim", "--pattern", "never", "--timeout", "60"); r.code != 1 || !strings.Contains(r.stderr, "closed before the pattern appeared") {
		t.Errorf("wait on an exited pane: want exit 1 saying the pane is gone:\n%s", r)
	}
	// The other panes are unaffected.
	s.mustCLI(nil, "read", id(s.ls().Surfaces[0].ID), "--raw")

	var res struct {
		Closed bool `json:"closed"`
	}
	s.mustCLI(&res, "close", "victim")
	if !res.Closed {
		t.Errorf("close of the exited pane: got %+v", res)
	}
	if _, ok := s.surface(p); ok {
		t.Errorf("pane %d still listed after close", p)
	}
}

// TestStaleSocket starts serve on a socket file nobody listens on (it
// replaces it) and then a second serve on the live socket (it refuses,
// naming the path, and the first keeps serving).
func TestStaleSocket(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	sock := filepath.Join(dir, "stale.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	if fi, err := os.Lstat(sock); err != nil || fi.Mode().Type() != fs.ModeSocket {
		t.Fatalf("setting up a stale socket: %v, %v", fi, err)
	}
	// A process that parallel tests fork in the same instant can hold a
	// copy of the listener until it execs (the fd is close-on-exec), so the
	// socket may accept for a moment after Close: wait until it refuses.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		c, err := net.Dial("unix", sock)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("the stale socket still accepts connections")
		}
	}

	s := startServerAt(t, dir, sock)
	s.mustCLI(nil, "ls")
	if !strings.Contains(s.stderr.String(), "replaced a stale socket at "+sock) {
		t.Errorf("serve did not report replacing the stale socket:\n%s", proctest.Indent(s.stderr.String()))
	}
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the new socket: %v, %v; want mode 0600", fi, err)
	}

	t.Run("second serve on a live socket", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "serve", "--socket", sock, "--size", "80x24")
		cmd.Env, cmd.Dir = baseEnv(dir), dir
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		switch {
		case ctx.Err() != nil:
			t.Fatalf("a second serve on %s kept running (want it to refuse); output:\n%s", sock, proctest.Indent(string(out)))
		case !errors.As(err, &ee) || ee.ExitCode() != 1:
			t.Errorf("second serve: got %v, want exit 1; output:\n%s", err, proctest.Indent(string(out)))
		}
		for _, want := range []string{"another Paneflow server is running on " + sock, "close it or use another socket path"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("second serve's message does not contain %q:\n%s", want, proctest.Indent(string(out)))
			}
		}
		// The first server still owns the socket.
		s.with(t).mustCLI(nil, "ls")
	})

	t.Run("a path that is not a socket", func(t *testing.T) {
		file := filepath.Join(dir, "regular")
		if err := os.WriteFile(file, []byte("keep me"), 0o600); err != nil {
			t.Fatal(err)
		}
		r := runCLI(t, baseEnv(dir), dir, "serve", "--socket", file)
		if r.code != 1 || !strings.Contains(r.stderr, "is not a socket") {
			t.Errorf("serve on a regular file: want exit 1 refusing it:\n%s", r)
		}
		if b, err := os.ReadFile(file); err != nil || string(b) != "keep me" {
			t.Errorf("serve touched the regular file: %q, %v", b, err)
		}
	})
}

// TestSIGTERM stops a server with SIGTERM: it exits 0, removes its socket,
// ends the panes' processes, and ends a running watch.
func TestSIGTERM(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	_, pid := s.panePID()
	_, pid2 := s.panePID()
	w := s.startWatch()
	if ack := w.next(); ack["type"] != "subscribed" {
		t.Fatalf("watch: first frame %v, want subscribed", ack)
	}

	if err := s.terminate(); err != nil {
		t.Errorf("paneflow serve after SIGTERM: %v, want exit 0", err)
	}
	if _, err := os.Lstat(s.sock); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("socket %s after SIGTERM: %v, want it removed", s.sock, err)
	}
	for _, p := range []int{pid, pid2} {
		s.eventually("the pane's process to be gone", func() (bool, string) { return processGone(p) })
	}
	// The server closed the stream: watch ends by itself with exit 0.
	w.wantExit(0)
	if r := s.cli("ls"); r.code != 1 || !strings.Contains(r.stderr, "unreachable") {
		t.Errorf("ls after the server stopped: want exit 1 (unreachable):\n%s", r)
	}
}
