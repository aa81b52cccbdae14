package ipc

import (
	"context"
	"net"
	"syscall"
)

// peerKey is the context key of the peer's process ID.
type peerKey struct{}

// PeerPID returns the process ID of the client whose request ctx belongs
// to, as the kernel recorded it when the client connected (SO_PEERCRED on
// Linux, LOCAL_PEERPID on macOS, the pipe's client process on Windows).
// ok is false where the system does not tell, and for contexts that are
// not a served request's. The pid names the process that connected: a
// descriptor passed on to another process keeps its connector's pid.
func PeerPID(ctx context.Context) (pid int, ok bool) {
	pid, ok = ctx.Value(peerKey{}).(int)
	return pid, ok && pid > 0
}

// withPeerPID returns ctx carrying nc's peer pid, or ctx itself when the
// system does not tell it.
func withPeerPID(ctx context.Context, nc net.Conn) context.Context {
	if pid := peerPID(nc); pid > 0 {
		return context.WithValue(ctx, peerKey{}, pid)
	}
	return ctx
}

// rawControl runs f on nc's descriptor (socket or pipe handle); false when
// nc has none.
func rawControl(nc net.Conn, f func(fd uintptr)) bool {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	return raw.Control(f) == nil
}
