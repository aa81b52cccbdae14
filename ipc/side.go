package ipc

import (
	"context"
	"net"
)

// ListenSide binds a private endpoint for a protocol of its own next to
// the JSON-RPC socket (the CustomPaneBackend socket of package teams):
// on Unix a socket file with mode 0600 in a 0700 directory, replacing a
// socket file left at path (the caller owns the main socket, so nothing
// else of ours can be serving there); on Windows a named pipe only this
// user may open. It returns the listener and a function that removes the
// socket file if it is still the one bound here.
func ListenSide(path string, logf func(string, ...any)) (net.Listener, func(), error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return listenEndpoint(path, true, logf)
}

// DialSide connects to an endpoint bound with [ListenSide].
func DialSide(ctx context.Context, path string) (net.Conn, error) {
	return dialEndpoint(ctx, path)
}

// PeerSameUser reports whether the peer of a connection accepted on a
// [ListenSide] listener runs as this process's user. Where the OS cannot
// tell, the endpoint's permissions are the boundary and it reports true.
func PeerSameUser(nc net.Conn) bool {
	return (&Server{}).peerAllowed(nc)
}
