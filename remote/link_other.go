//go:build !unix

package remote

import (
	"context"
	"errors"
	"io"
	"time"
)

// LinksSupported reports whether this system keeps links: not here (the
// socket is a named pipe); each call runs its own ssh.
const LinksSupported = false

// errNoLinks is what the link functions return on this system.
var errNoLinks = errors.New("host links need Unix sockets; this system runs one ssh per call")

// RunLink is not available on this system.
func RunLink(context.Context, Host, Env, time.Duration, io.WriteCloser) error { return errNoLinks }

// EnsureLink is not available on this system.
func EnsureLink(context.Context, Host, Env, string) (string, error) { return "", errNoLinks }

// StartLink is not available on this system.
func StartLink(context.Context, Host, Env, string) error { return errNoLinks }

// CloseLink finds no link on this system.
func CloseLink(Host, Env) (bool, error) { return false, nil }
