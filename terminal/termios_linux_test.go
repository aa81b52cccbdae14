package terminal

import "golang.org/x/sys/unix"

// The termios ioctls the query helper uses, per system.
const (
	ioctlGetTermios = unix.TCGETS
	ioctlSetTermios = unix.TCSETS
)
