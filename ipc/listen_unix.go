//go:build unix

package ipc

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
)

// chmodSocket sets the socket file's mode; a variable so a test can make
// it fail.
var chmodSocket = os.Chmod

// listenEndpoint binds the Unix socket at path (see [Server.Listen]) and
// returns a function that removes the socket file if it is still the one
// bound here.
func listenEndpoint(path string, replaceRunning bool, logf func(string, ...any)) (net.Listener, func(), error) {
	dir := filepath.Dir(path)
	prepareDir(dir, logf)
	if err := checkSocketDir(path, dir); err != nil {
		return nil, nil, err
	}

	// The lock decides who may probe, remove and bind: without it two
	// starts that both find a stale socket (or a server that is bound but
	// not yet answering) both remove it and bind, the first then serving
	// an unlinked file. A deliberate replacement takes no lock.
	unlock := func() {}
	if !replaceRunning {
		var err error
		if unlock, err = lockSocket(path); err != nil {
			return nil, nil, err
		}
	}
	ln, remove, err := bindSocket(path, replaceRunning, logf)
	if err != nil {
		unlock()
		return nil, nil, err
	}
	return ln, func() { remove(); unlock() }, nil
}

// lockSocket takes the exclusive lock (flock) on path+".lock", creating
// it (0600), and returns the function that releases it. The lock is held
// for the server's lifetime and goes with the process, so a SIGKILLed
// server holds nothing and its stale socket is taken over. The file stays
// on disk: unlinking a lock file would let two processes lock two inodes.
// When another process holds the lock, the error is an
// *[InstanceRunningError] (Identify is the holder's system.identify reply,
// or "" while it is still starting). The descriptor is a raw one, not an
// *os.File, so no finalizer can release the lock early.
func lockSocket(path string) (func(), error) {
	lockPath := path + ".lock"
	fd, err := syscall.Open(lockPath, syscall.O_RDWR|syscall.O_CREAT|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("ipc: the socket's lock file %s: %w", lockPath, err)
	}
	for {
		err = syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	switch {
	case err == nil:
		return func() { syscall.Close(fd) }, nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		syscall.Close(fd)
		line, _ := probeOnce(path, ProbeTimeout)
		return nil, &InstanceRunningError{Path: path, Identify: line}
	default:
		syscall.Close(fd)
		return nil, fmt.Errorf("ipc: locking %s: %w", lockPath, err)
	}
}

// bindSocket is listenEndpoint's work once the lock (if any) is held.
func bindSocket(path string, replaceRunning bool, logf func(string, ...any)) (net.Listener, func(), error) {
	switch fi, err := os.Lstat(path); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, nil, fmt.Errorf("ipc: %w", err)
	case fi.Mode().Type() != fs.ModeSocket:
		return nil, nil, fmt.Errorf("ipc: %s exists and is not a socket; refusing to replace it", path)
	default:
		if !replaceRunning {
			if line, alive := ProbeInstance(path, ProbeTimeout); alive {
				return nil, nil, &InstanceRunningError{Path: path, Identify: line}
			}
		}
		// Stale (nothing answers) or a squatter that is not Paneflow. Under
		// the lock, so no other server of ours is starting here.
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("ipc: removing stale socket: %w", err)
		}
		logf("ipc: replaced a stale socket at %s", path)
	}

	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, nil, fmt.Errorf("ipc: %w", err)
	}
	ln.SetUnlinkOnClose(false) // Shutdown removes it, and only if it is still ours
	if err := chmodSocket(path, 0o600); err != nil {
		ln.Close()
		os.Remove(path)
		return nil, nil, fmt.Errorf("ipc: cannot make %s private (%w); refusing to serve", path, err)
	}
	var dev, ino uint64
	if st, err := os.Stat(path); err == nil {
		if sys, ok := st.Sys().(*syscall.Stat_t); ok {
			dev, ino = uint64(sys.Dev), uint64(sys.Ino)
		}
	}
	remove := func() {
		st, err := os.Lstat(path)
		if err != nil {
			return
		}
		if sys, ok := st.Sys().(*syscall.Stat_t); ok && (uint64(sys.Dev) != dev || uint64(sys.Ino) != ino) {
			logf("ipc: %s was replaced by another process; leaving it", path)
			return
		}
		os.Remove(path)
	}
	return ln, remove, nil
}

// prepareDir creates dir (and missing parents) with mode 0700. An existing
// directory is tightened to 0700 only when it is Paneflow's own
// ("…/paneflow"), a directory rather than a link, and owned by us: an
// override such as PANEFLOW_SOCKET_PATH=$HOME/pf.sock must not change
// $HOME's mode. Errors are logged and otherwise ignored: checkSocketDir,
// which runs next, refuses whatever is not safe, and binding reports the
// rest.
func prepareDir(dir string, logf func(string, ...any)) {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			logf("ipc: creating %s: %v", dir, err)
			return
		}
		// MkdirAll is subject to umask, and another user may have made
		// the directory first: Lstat again and tighten only our own.
		if fi, err = os.Lstat(dir); err != nil {
			return
		}
	}
	if err != nil || !fi.IsDir() || filepath.Base(dir) != socketDirName || fi.Mode().Perm() == 0o700 || statOwner(fi) != os.Geteuid() {
		return
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		logf("ipc: chmod %s: %v", dir, err)
	}
}

// dialEndpoint connects to the Unix socket at path, only if the socket
// file and the process serving it are this user's (a
// [ForeignSocketError] otherwise, with nothing sent).
func dialEndpoint(ctx context.Context, path string) (net.Conn, error) {
	if err := checkSocketOwner(path); err != nil {
		return nil, err
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, err
	}
	uid, err := peerUID(nc)
	if err := checkPeerUID(path, uid, err); err != nil {
		nc.Close()
		return nil, err
	}
	return nc, nil
}
