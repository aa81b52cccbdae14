//go:build unix

package ipc

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
