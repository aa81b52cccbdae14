//go:build !linux && !darwin && !freebsd

package ipc

import (
	"errors"
	"net"
	"runtime"
)

// peerUID reports that this OS has no peer-credential check here: on
// Windows the pipe's DACL admits only the current user; on the remaining
// Unixes the socket's 0600 mode is the boundary.
func peerUID(net.Conn) (int, error) {
	if runtime.GOOS == "windows" {
		return 0, errNoPeerCheck
	}
	return 0, errors.New("peer credentials are not supported on " + runtime.GOOS)
}
