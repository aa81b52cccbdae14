//go:build !linux

package ipc

import (
	"context"
	"time"
)

// dialCall connects for a one-shot [Client.Call]: elsewhere than Linux,
// the same way as a stream.
func dialCall(ctx context.Context, path string, deadline time.Time) (streamConn, error) {
	return dialStream(ctx, path, deadline)
}
