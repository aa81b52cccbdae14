//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package terminal

import "golang.org/x/sys/unix"

// The termios ioctls the query helper uses, per system.
const (
	ioctlGetTermios = unix.TIOCGETA
	ioctlSetTermios = unix.TIOCSETA
)
