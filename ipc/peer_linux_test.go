//go:build linux

package ipc_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/ipc"
)

// TestPeerUIDMismatch runs a client as nobody (uid 65534) against a root
// server: it must get the -32001 frame and nothing else.
func TestPeerUIDMismatch(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a client as another user")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("setpriv not installed")
	}
	// A directory nobody can traverse, holding a copy of this test binary
	// (the go build cache is private) and the socket.
	dir, err := os.MkdirTemp("", "pfuid")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	helper := filepath.Join(dir, "ipc.test")
	copyFile(t, self, helper, 0o755)

	s, _ := startTest(t, func(s *ipc.Server) { s.Path = filepath.Join(dir, "sock", "paneflow.sock") })
	// Listen made the directory 0700 and the socket 0600; open them up so
	// only the peer check stands between nobody and the server.
	if err := os.Chmod(filepath.Dir(s.Path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(s.Path, 0o666); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", helper, "-test.run=^$")
	cmd.Env = append(os.Environ(), "IPC_TEST_HELPER=client", "IPC_TEST_SOCKET="+s.Path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper client as nobody: %v\n%s", err, stderr.String())
	}
	if got := strings.TrimSuffix(string(out), "\n"); got != wantPeerUID {
		t.Errorf("nobody got %s, want %s", got, wantPeerUID)
	}

	// The same helper as root is served.
	cmd = exec.Command(helper, "-test.run=^$")
	cmd.Env = append(os.Environ(), "IPC_TEST_HELPER=client", "IPC_TEST_SOCKET="+s.Path)
	out, err = cmd.Output()
	if got := strings.TrimSuffix(string(out), "\n"); err != nil || got != wantPong1 {
		t.Errorf("root got %s (%v), want %s", got, err, wantPong1)
	}
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
