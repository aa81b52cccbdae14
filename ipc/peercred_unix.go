//go:build linux || darwin || freebsd

package ipc

import (
	"fmt"
	"net"
)

// peerUID returns the effective UID of the process that connected nc, as
// the kernel recorded it at connect time (see peerCred per system).
func peerUID(nc net.Conn) (int, error) {
	uid := 0
	credErr := fmt.Errorf("%T has no file descriptor", nc)
	rawControl(nc, func(fd uintptr) { uid, credErr = peerCred(int(fd)) })
	return uid, credErr
}
