//go:build linux || darwin || freebsd

package ipc

import (
	"fmt"
	"net"
	"syscall"
)

// peerUID returns the effective UID of the process that connected nc, as
// the kernel recorded it at connect time (see peerCred per system).
func peerUID(nc net.Conn) (int, error) {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return 0, fmt.Errorf("%T has no file descriptor", nc)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return 0, err
	}
	var uid int
	var credErr error
	if err := raw.Control(func(fd uintptr) { uid, credErr = peerCred(int(fd)) }); err != nil {
		return 0, err
	}
	return uid, credErr
}
