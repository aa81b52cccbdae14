//go:build darwin || freebsd

package ipc

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// peerCred reads the peer's effective UID from LOCAL_PEERCRED.
func peerCred(fd int) (int, error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return 0, fmt.Errorf("LOCAL_PEERCRED: %w", err)
	}
	return int(cred.Uid), nil
}
