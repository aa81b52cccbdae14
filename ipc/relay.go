package ipc

import (
	"context"
	"net"
	"os"
)

// The functions of this file are for relays: processes that carry the
// socket's connections elsewhere (package remote's `paneflow bridge`,
// which dials the socket for a client on another host, and its local
// link, which listens on a socket of its own). They apply the same
// per-user rules as [Client] and [Server].

// DialSocket connects to the socket at path (the named pipe on Windows)
// as [Client] does: on Unix only if the socket file and the process
// serving it are this user's (a *ForeignSocketError otherwise, with
// nothing sent). The caller owns the connection.
func DialSocket(ctx context.Context, path string) (net.Conn, error) {
	return dialEndpoint(ctx, path)
}

// ListenSocket binds path as the server binds its socket: in a directory
// only this user can write (an *UnsafeDirError otherwise), the socket file
// made private (0600), a stale socket replaced, and an
// *InstanceRunningError when a Paneflow (or a relay to one) already
// answers there. remove deletes the socket file if it is still the one
// bound here; call it after closing the listener.
func ListenSocket(path string, logf func(string, ...any)) (ln net.Listener, remove func(), err error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return listenEndpoint(path, false, logf)
}

// PeerIsUser reports whether the process at the other end of nc runs as
// this process's user, as the server's admission checks it; where the
// system cannot tell, the socket file's mode is the boundary and it
// reports true.
func PeerIsUser(nc net.Conn) bool {
	uid, err := peerUID(nc)
	return err != nil || uid == os.Geteuid()
}

// RefusalFrame is the frame a relay writes to its client when it cannot
// reach the server at all (the far socket could not be dialed): a
// JSON-RPC error with a null id, as the server's own refusals are, so
// the client reports msg.
func RefusalFrame(msg string) []byte {
	return appendError(nil, nullID, &Error{Code: CodeInternal, Message: msg})
}
