package core

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"runtime"
	"time"

	"github.com/paneflow-go/paneflow/internal/userdir"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/web"
)

// newWeb builds the web subsystem: it serves l (nothing when l.Addr is
// empty; optional: l is the configuration file's, whose failure to serve
// only loses the web client) and reaches the panes through the socket at
// socketPath, as a client does.
func newWeb(l web.Listen, optional bool, socketPath string, getenv func(string) string) (*web.Service, error) {
	o := web.Options{
		Listen:   l,
		Optional: optional,
		Call: func(timeout time.Duration) proto.Caller {
			return &ipc.Client{Path: socketPath, Timeout: timeout}
		},
		Subscribe: func(ctx context.Context, method string, params any) (web.Stream, error) {
			return (&ipc.Client{Path: socketPath}).Subscribe(ctx, method, params)
		},
	}
	if l.Addr != "" {
		p, err := webStatePath(getenv, socketPath)
		if err != nil {
			return nil, fmt.Errorf("web: %w", err)
		}
		o.StatePath = p
	}
	return web.New(o), nil
}

// webStatePath is the web client's file of the server on socketPath
// (its secret and paired browsers): one per socket, so two servers never
// share a secret.
func webStatePath(getenv func(string) string, socketPath string) (string, error) {
	base, err := userdir.Base(userdir.State, getenv, runtime.GOOS)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(socketPath))
	return filepath.Join(base, "paneflow", "web", "web-"+hex.EncodeToString(sum[:8])+".json"), nil
}
