package ipc

import (
	"net"

	"golang.org/x/sys/unix"
)

// peerPID reads the peer's pid from SO_PEERCRED; 0 when it cannot.
func peerPID(nc net.Conn) int {
	pid := 0
	rawControl(nc, func(fd uintptr) {
		if cred, err := unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED); err == nil {
			pid = int(cred.Pid)
		}
	})
	return pid
}
