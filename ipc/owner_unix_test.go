//go:build unix

package ipc_test

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// nobody is the other user the tests that run as root hand things to.
const nobody = 65534

// privateDir returns a fresh directory of this user's, mode 0700, on a
// path short enough for a socket.
func privateDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "pf")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// mkdir makes dir with exactly mode.
func mkdir(t *testing.T, dir string, mode fs.FileMode) {
	t.Helper()
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
}

// listenErr binds a server at path and returns Listen's error, closing
// the server if it did listen.
func listenErr(t *testing.T, path string) error {
	t.Helper()
	s := &ipc.Server{Path: path}
	err := s.Listen()
	if err == nil {
		s.Shutdown(context.Background())
	}
	return err
}

// wantUnsafe checks err is an *ipc.UnsafeDirError naming dir, with reason
// and the fix in its message, and that no socket was left at path.
func wantUnsafe(t *testing.T, err error, path, dir, reason string) {
	t.Helper()
	var u *ipc.UnsafeDirError
	if !errors.As(err, &u) {
		t.Fatalf("Listen at %s = %v, want an *ipc.UnsafeDirError", path, err)
	}
	if u.Dir != dir || !strings.Contains(err.Error(), reason) || !strings.Contains(err.Error(), "XDG_RUNTIME_DIR") {
		t.Errorf("Listen at %s: %v\nwant the directory %s, %q and the fix named", path, err, dir, reason)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after the refusal, Lstat(%s) = %v, want no socket", path, err)
	}
}

// TestListenSocketDir: the server binds only where no other user can
// replace the socket (issue 25 item 2).
func TestListenSocketDir(t *testing.T) {
	t.Run("own paneflow directory is tightened", func(t *testing.T) {
		dir := filepath.Join(privateDir(t), "paneflow")
		mkdir(t, dir, 0o777)
		if err := listenErr(t, filepath.Join(dir, "paneflow.sock")); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s after Listen: %v %v, want mode 0700", dir, fi.Mode(), err)
		}
	})
	t.Run("missing paneflow directory is made private", func(t *testing.T) {
		dir := filepath.Join(privateDir(t), "run", "paneflow")
		if err := listenErr(t, filepath.Join(dir, "paneflow.sock")); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s after Listen: %v %v, want mode 0700", dir, fi.Mode(), err)
		}
	})
	t.Run("override directory others can write", func(t *testing.T) {
		dir := filepath.Join(privateDir(t), "shared")
		mkdir(t, dir, 0o777)
		path := filepath.Join(dir, "pf.sock")
		wantUnsafe(t, listenErr(t, path), path, dir, "is writable by others (mode 0777)")
		if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o777 {
			t.Errorf("the refused directory's mode was changed to %v", fi.Mode())
		}
	})
	t.Run("override in a sticky directory", func(t *testing.T) {
		tmp := filepath.Join(privateDir(t), "tmp")
		mkdir(t, tmp, 0o777|fs.ModeSticky) // PANEFLOW_SOCKET_PATH=/tmp/pf.sock
		if err := listenErr(t, filepath.Join(tmp, "pf.sock")); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("override directory readable by others", func(t *testing.T) {
		dir := filepath.Join(privateDir(t), "home")
		mkdir(t, dir, 0o755) // $HOME as most have it
		if err := listenErr(t, filepath.Join(dir, "pf.sock")); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o755 {
			t.Errorf("an override directory's mode was changed to %v", fi.Mode())
		}
	})
	t.Run("parent others can write, no sticky bit", func(t *testing.T) {
		open := filepath.Join(privateDir(t), "open")
		mkdir(t, open, 0o777)
		path := filepath.Join(open, "paneflow", "paneflow.sock")
		wantUnsafe(t, listenErr(t, path), path, open, "without the sticky bit")
	})
	t.Run("parent others can write, sticky bit", func(t *testing.T) {
		tmp := filepath.Join(privateDir(t), "tmp")
		mkdir(t, tmp, 0o777|fs.ModeSticky) // as /tmp
		if err := listenErr(t, filepath.Join(tmp, "paneflow", "paneflow.sock")); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("own link to own directory", func(t *testing.T) {
		base := privateDir(t)
		real := filepath.Join(base, "real")
		mkdir(t, real, 0o700)
		if err := os.Symlink("real", filepath.Join(base, "link")); err != nil {
			t.Fatal(err)
		}
		if err := listenErr(t, filepath.Join(base, "link", "pf.sock")); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("link into a directory others can write", func(t *testing.T) {
		base := privateDir(t)
		open := filepath.Join(base, "open")
		mkdir(t, open, 0o777)
		if err := os.Symlink(open, filepath.Join(base, "paneflow")); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(base, "paneflow", "paneflow.sock")
		wantUnsafe(t, listenErr(t, path), path, open, "is writable by others")
	})
	t.Run("another user's directory", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("needs root to give a directory to another user")
		}
		// The attack: TMPDIR shared, "paneflow" made there first
		// by another user with mode 0777.
		tmp := filepath.Join(privateDir(t), "tmp")
		mkdir(t, tmp, 0o777|fs.ModeSticky)
		dir := filepath.Join(tmp, "paneflow")
		mkdir(t, dir, 0o777)
		if err := os.Chown(dir, nobody, nobody); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "paneflow.sock")
		wantUnsafe(t, listenErr(t, path), path, dir, "belongs to uid 65534")
		if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o777 {
			t.Errorf("another user's directory was changed to %v", fi.Mode())
		}
	})
	t.Run("another user's link", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("needs root to give a link to another user")
		}
		base := privateDir(t)
		real := filepath.Join(base, "real")
		mkdir(t, real, 0o700)
		link := filepath.Join(base, "paneflow")
		if err := os.Symlink(real, link); err != nil {
			t.Fatal(err)
		}
		if err := os.Lchown(link, nobody, nobody); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(link, "paneflow.sock")
		wantUnsafe(t, listenErr(t, path), path, link, "belongs to uid 65534")
	})
	t.Run("side socket too", func(t *testing.T) {
		dir := filepath.Join(privateDir(t), "shared")
		mkdir(t, dir, 0o777)
		path := filepath.Join(dir, "teams.sock")
		_, _, err := ipc.ListenSide(path, nil)
		wantUnsafe(t, err, path, dir, "is writable by others")
	})
}

// TestClientRefusesForeignSocket: a client sends nothing to a socket file
// another user owns (issue 25 item 2). The process-credential half is
// tested end to end (test/e2e TestForeignSocket), where the server can
// run as another user.
func TestClientRefusesForeignSocket(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a socket to another user")
	}
	path := filepath.Join(privateDir(t), "pf.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string, 1)
	go func() {
		var all []string
		for {
			nc, err := ln.Accept()
			if err != nil {
				got <- strings.Join(all, "")
				return
			}
			b := make([]byte, 4096)
			n, _ := nc.Read(b)
			all = append(all, string(b[:n]))
			nc.Close()
		}
	}()
	if err := os.Chown(path, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	check := func(what string, err error) {
		t.Helper()
		var f *ipc.ForeignSocketError
		if !errors.As(err, &f) || f.UID != nobody || f.Peer || !strings.Contains(err.Error(), "belongs to uid 65534") {
			t.Errorf("%s against another user's socket: %v, want an *ipc.ForeignSocketError for uid %d", what, err, nobody)
		}
		var u *ipc.UnreachableError
		if errors.As(err, &u) {
			t.Errorf("%s: %v is reported as unreachable, want the refusal as it is", what, err)
		}
	}
	cl := &ipc.Client{Path: path}
	check("Call", cl.Call(context.Background(), proto.MethodSystemPing, nil, nil))
	_, err = cl.Subscribe(context.Background(), proto.MethodEventsSubscribe, nil)
	check("Subscribe", err)
	_, err = ipc.DialMux(context.Background(), path)
	check("DialMux", err)
	_, err = ipc.DialSide(context.Background(), path)
	check("DialSide", err)
	ln.Close()
	if s := <-got; s != "" {
		t.Errorf("the foreign socket received %q, want nothing", s)
	}
}
