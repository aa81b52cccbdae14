//go:build !client

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/paneflow-go/paneflow/core"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/terminal"
)

// serveShutdownGrace bounds a signal-triggered shutdown: closing the socket
// and killing every pane's process group.
const serveShutdownGrace = 15 * time.Second

// runServe is the `serve` verb.
func runServe(ctx context.Context, stderr io.Writer, getenv func(string) string, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	socket := fs.String("socket", "", "")
	size := fs.String("size", "200x50", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stderr, serveUsage)
			return nil
		}
		return usageErrorf("serve: %v\n%s", err, serveUsage)
	}
	if fs.NArg() > 0 {
		return usageErrorf("serve: unexpected argument %q\n%s", fs.Arg(0), serveUsage)
	}
	cols, rows, err := parseSize(*size)
	if err != nil {
		return usageErrorf("serve: --size: %v", err)
	}
	logf := func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	// A processor beyond what pane output may occupy keeps requests (and
	// the window) responsive while many panes flood output.
	terminal.SpareProcessor()
	c, err := core.New(core.Options{SocketPath: *socket, Cols: cols, Rows: rows, Getenv: getenv, Logf: logf})
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "paneflow: serving on %s\n", c.SocketPath)

	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	serveErr := make(chan error, 1)
	go func() { serveErr <- c.Serve(context.WithoutCancel(ctx)) }()
	select {
	case <-ctx.Done():
	case err := <-serveErr:
		if !errors.Is(err, ipc.ErrServerClosed) {
			c.Shutdown(context.Background())
			return fmt.Errorf("serve: %w", err)
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), serveShutdownGrace)
	defer cancel()
	if err := c.Shutdown(sctx); err != nil && !errors.Is(err, ipc.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// parseSize parses "COLSxROWS".
func parseSize(s string) (cols, rows int, err error) {
	c, r, ok := strings.Cut(strings.ToLower(s), "x")
	if ok {
		cols, err = strconv.Atoi(c)
		if err == nil {
			rows, err = strconv.Atoi(r)
		}
	}
	if !ok || err != nil || cols < 2 || rows < 2 || cols > 1000 || rows > 1000 {
		return 0, 0, fmt.Errorf("want COLSxROWS between 2x2 and 1000x1000, got %q", s)
	}
	return cols, rows, nil
}
