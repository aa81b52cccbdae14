package ipc

import (
	"net"

	"golang.org/x/sys/unix"
)

// peerPID reads the peer's pid from LOCAL_PEERPID; 0 when it cannot.
func peerPID(nc net.Conn) int {
	pid := 0
	rawControl(nc, func(fd uintptr) {
		if p, err := unix.GetsockoptInt(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERPID); err == nil {
			pid = p
		}
	})
	return pid
}
