//go:build unix

package ipc

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Who may own what lies on the way to the socket (issue 25 item 2: with
// $XDG_RUNTIME_DIR unset and $TMPDIR shared, a "paneflow" directory
// another user made there with mode 0777 was used, and its owner replaced
// the socket and received what clients sent).
//
// The server binds only in a directory that is its user's and that no one
// else can write, or in a root-owned sticky one such as /tmp (there no one
// else can remove or rename the socket, and one they made first at the
// path is theirs, which the server does not take over and clients
// refuse); and only where no one else can swap the directory for another:
// every directory and symbolic link on the way to it, links resolved,
// belongs to the user or to root, and every directory on the way that
// others can write has the sticky bit, so they cannot rename what is in
// it. Clients, for their part, talk only to a socket file owned by their
// user, served by a process of their user (see checkSocketOwner and
// checkPeer).

// maxLinks bounds the symbolic links followed while checking a path, as
// the kernel's ELOOP does.
const maxLinks = 40

// UnsafeDirError is the server's refusal to bind in a directory another
// user could tamper with; its message names the directory at fault, why,
// and what to do.
type UnsafeDirError struct {
	// Socket is the socket path the server was to bind.
	Socket string
	// Dir is the directory or symbolic link at fault.
	Dir string
	// Reason says what is wrong with Dir, e.g. "it belongs to uid 65534".
	Reason string
	// Fix says how to get a safe directory.
	Fix string
}

func (e *UnsafeDirError) Error() string {
	return fmt.Sprintf("ipc: refusing to serve at %s: %s %s, so another user could replace the socket and read what clients send; %s",
		e.Socket, e.Dir, e.Reason, e.Fix)
}

// ForeignSocketError is a client's refusal to talk to a socket that is
// not its user's: the file belongs to another user, or the process
// serving it runs as one. Nothing was sent.
type ForeignSocketError struct {
	// Path is the socket path.
	Path string
	// UID is the other user's.
	UID int
	// Peer is true when the serving process's credentials (not the
	// file's owner) told.
	Peer bool
}

func (*ForeignSocketError) foreignSocket() {}

func (e *ForeignSocketError) Error() string {
	what := "the socket file belongs to"
	if e.Peer {
		what = "the process serving it runs as"
	}
	return fmt.Sprintf("ipc: refusing to talk to %s: %s uid %d, not to you (uid %d), so another user could be reading what is sent; "+
		"remove it if it is stale (or have its owner remove it), or set XDG_RUNTIME_DIR or %s to a directory only you can write",
		e.Path, what, e.UID, os.Geteuid(), EnvSocketPath)
}

// fixDir is the advice of an UnsafeDirError.
func fixDir(dir string) string {
	return fmt.Sprintf("remove %s (or have its owner remove it), or set XDG_RUNTIME_DIR or %s to a directory only you can write", dir, EnvSocketPath)
}

// statOwner returns fi's owning UID, or -1 where the OS does not say.
func statOwner(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

// trustedOwner reports whether uid may own something on the way to the
// socket: this user, or root.
func trustedOwner(uid int) bool { return uid == os.Geteuid() || uid == 0 }

// checkSocketDir returns an [UnsafeDirError] unless dir (where socket is
// to be bound) is this user's and writable by no one else (or root's and
// sticky), and every directory and symbolic link on the way to it is safe from other users
// (see the rules above). dir must be absolute; a directory missing on the
// way is an error of the os package.
func checkSocketDir(socket, dir string) error {
	unsafe := func(at, reason, fix string) error {
		return &UnsafeDirError{Socket: socket, Dir: at, Reason: reason, Fix: fix}
	}
	// Walk the path a component at a time, resolving links as the kernel
	// does, so every directory and link actually traversed is checked.
	rest := strings.Split(filepath.Clean(dir), "/")
	cur, links := "/", 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		if c == "" || c == "." {
			continue
		}
		if c == ".." {
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil {
			return fmt.Errorf("ipc: checking %s: %w", dir, err)
		}
		uid := statOwner(fi)
		if uid >= 0 && !trustedOwner(uid) {
			return unsafe(next, fmt.Sprintf("belongs to uid %d, not to you (uid %d) or root,", uid, os.Geteuid()), fixDir(next))
		}
		if fi.Mode().Type() == fs.ModeSymlink {
			if links++; links > maxLinks {
				return fmt.Errorf("ipc: checking %s: too many levels of symbolic links", dir)
			}
			target, err := os.Readlink(next)
			if err != nil {
				return fmt.Errorf("ipc: checking %s: %w", dir, err)
			}
			if filepath.IsAbs(target) {
				cur = "/"
			}
			rest = append(strings.Split(target, "/"), rest...)
			continue
		}
		if !fi.IsDir() {
			return fmt.Errorf("ipc: checking %s: %s is not a directory", dir, next)
		}
		last := len(rest) == 0
		perm, sticky := fi.Mode().Perm(), fi.Mode()&fs.ModeSticky != 0
		switch {
		case last && uid >= 0 && uid != os.Geteuid() && !sticky:
			return unsafe(next, fmt.Sprintf("belongs to uid %d, not to you (uid %d),", uid, os.Geteuid()), fixDir(next))
		case last && perm&0o022 != 0 && !sticky:
			return unsafe(next, fmt.Sprintf("is writable by others (mode %04o),", perm),
				fmt.Sprintf("run `chmod go-w %s`, or set XDG_RUNTIME_DIR or %s to a directory only you can write", next, EnvSocketPath))
		case perm&0o022 != 0 && !sticky:
			return unsafe(next, fmt.Sprintf("is writable by others without the sticky bit (mode %04o), so they can rename what is in it,", perm),
				fmt.Sprintf("run `chmod go-w %s` (or `chmod +t` it), or set XDG_RUNTIME_DIR or %s to a directory only you can write", next, EnvSocketPath))
		}
		cur = next
	}
	return nil
}

// checkSocketOwner returns a [ForeignSocketError] when the socket file at
// path (links followed) belongs to another user. A file that cannot be
// stat'ed is left to the dial to report.
func checkSocketOwner(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return nil
	}
	if uid := statOwner(fi); uid >= 0 && uid != os.Geteuid() {
		return &ForeignSocketError{Path: path, UID: uid}
	}
	return nil
}

// checkPeerUID returns a [ForeignSocketError] when the server process
// behind a connection to path runs as another user, per its credentials
// (uid, err from peerUID or peerCred). Where the OS cannot tell, the
// socket file's owner (checked before connecting) is the check.
func checkPeerUID(path string, uid int, err error) error {
	if err == nil && uid != os.Geteuid() {
		return &ForeignSocketError{Path: path, UID: uid, Peer: true}
	}
	return nil
}
