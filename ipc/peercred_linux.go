//go:build linux

package ipc

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// peerCred reads the peer's effective UID from SO_PEERCRED.
func peerCred(fd int) (int, error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return 0, fmt.Errorf("SO_PEERCRED: %w", err)
	}
	return int(cred.Uid), nil
}
