//go:build windows

package ipc

import (
	"context"
	"fmt"
	"net"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"
)

// listenEndpoint creates the named pipe at path with a DACL that lets only
// the current user (and SYSTEM) connect. go-winio creates the first
// instance exclusively, so a live server's pipe cannot be taken over; when
// creation fails, a probe tells a running Paneflow apart from other errors.
func listenEndpoint(path string, replaceRunning bool, logf func(string, ...any)) (net.Listener, func(), error) {
	sddl, err := currentUserSDDL()
	if err != nil {
		return nil, nil, fmt.Errorf("ipc: building the pipe's security descriptor: %w", err)
	}
	ln, err := winio.ListenPipe(path, &winio.PipeConfig{
		SecurityDescriptor: sddl,
		InputBufferSize:    64 << 10,
		OutputBufferSize:   64 << 10,
	})
	if err != nil {
		if line, alive := ProbeInstance(path, ProbeTimeout); alive {
			return nil, nil, &InstanceRunningError{Path: path, Identify: line}
		}
		return nil, nil, fmt.Errorf("ipc: %w", err)
	}
	return ln, func() {}, nil
}

// currentUserSDDL returns "D:P(A;;GA;;;SY)(A;;GA;;;<user SID>)": a
// protected DACL granting full access to SYSTEM and the process's user.
func currentUserSDDL() (string, error) {
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return "", err
	}
	return "D:P(A;;GA;;;SY)(A;;GA;;;" + u.User.Sid.String() + ")", nil
}

// dialEndpoint connects to the named pipe at path.
func dialEndpoint(ctx context.Context, path string) (net.Conn, error) {
	return winio.DialPipeContext(ctx, path)
}
