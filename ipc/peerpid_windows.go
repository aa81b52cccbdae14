package ipc

import (
	"net"

	"golang.org/x/sys/windows"
)

// peerPID asks the named pipe for its client's process; 0 when it cannot.
// go-winio's pipe connections do not implement syscall.Conn; they expose
// their handle as Fd.
func peerPID(nc net.Conn) int {
	f, ok := nc.(interface{ Fd() uintptr })
	if !ok {
		return 0
	}
	var pid uint32
	if windows.GetNamedPipeClientProcessId(windows.Handle(f.Fd()), &pid) != nil {
		return 0
	}
	return int(pid)
}
