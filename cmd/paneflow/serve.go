//go:build !client

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/paneflow-go/paneflow/core"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/notify"
	"github.com/paneflow-go/paneflow/session"
	"github.com/paneflow-go/paneflow/terminal"
	"github.com/paneflow-go/paneflow/web"
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
	sessionFile := fs.String("session", "", "")
	detach := fs.Bool("detach", false, "")
	logPath := fs.String("log", "", "")
	var wl web.Listen
	fs.StringVar(&wl.Addr, "web", "", "")
	fs.StringVar(&wl.CertFile, "web-tls-cert", "", "")
	fs.StringVar(&wl.KeyFile, "web-tls-key", "", "")
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
	if wl.Addr == "" && (wl.CertFile != "" || wl.KeyFile != "") {
		return usageErrorf("serve: --web-tls-cert and --web-tls-key need --web HOST:PORT")
	}
	if wl.Addr != "" {
		if err := web.CheckListen(wl); err != nil {
			return usageErrorf("serve: %v", err)
		}
	}
	if *logPath != "" {
		if *detach {
			return usageErrorf("serve: --log goes without --detach (a detached server's output goes to its log already)")
		}
		f, err := openLog(*logPath)
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		defer f.Close()
		fmt.Fprintf(f, "paneflow: %s: serve (pid %d) started\n", time.Now().Format(time.RFC3339), os.Getpid())
		if err := redirectStderr(f); err != nil {
			fmt.Fprintf(f, "paneflow: a crash's report will not be in this log: %v\n", err)
		}
		stderr = f
	}
	logf := func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	if *detach {
		var pass []string // what else was given, for the started server
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "size", "session", "web", "web-tls-cert", "web-tls-key":
				pass = append(pass, "--"+f.Name, f.Value.String())
			}
		})
		return serveDetached(ctx, getenv, *socket, pass, logf)
	}
	// A processor beyond what pane output may occupy keeps requests (and
	// the window) responsive while many panes flood output.
	terminal.SpareProcessor()
	sessionPath, err := serveSessionPath(getenv, *socket, *sessionFile)
	if err != nil {
		logf("paneflow: session: %v; the session will not be kept", err)
	}
	// The server's own notifications while no window is attached (D-Bus,
	// osascript, a Windows toast); without one (no session bus) the
	// notify service logs the first failure.
	notifier, _ := notify.Desktop()
	c, err := core.New(core.Options{SocketPath: *socket, Cols: cols, Rows: rows, Getenv: getenv, Logf: logf, SessionPath: sessionPath, Web: wl,
		Notifier: notifier})
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
	case <-c.Stopping(): // system.shutdown (paneflow kill-server)
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

// serveDetached is `serve --detach`: it finds the server on socket ("":
// the default) or starts one in the background with args, and says which.
func serveDetached(ctx context.Context, getenv func(string) string, socket string, args []string, logf func(string, ...any)) error {
	if socket == "" {
		var err error
		if socket, err = ipc.ServerSocketPath(getenv); err != nil {
			return err
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	found, err := findServer{Socket: socket, Exe: exe, Args: args, Getenv: getenv, GOOS: runtime.GOOS}.run(ctx)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	if found.Started {
		logf("paneflow: started the server (pid %d) on %s; its log: %s", found.PID, socket, found.Log)
	} else {
		logf("paneflow: a server already answers on %s", socket)
	}
	return nil
}

// serveSessionPath resolves serve's session file: flag "none" keeps
// none, another non-empty flag is the file, and "" is the file of the
// server on socket (see session.ServerPath).
func serveSessionPath(getenv func(string) string, socket, flag string) (string, error) {
	switch flag {
	case "none":
		return "", nil
	case "":
	default:
		return filepath.Abs(flag)
	}
	var err error
	if socket == "" {
		if socket, err = ipc.ServerSocketPath(getenv); err != nil {
			return "", err
		}
	}
	def, err := ipc.ServerSocketPath(func(k string) string {
		if k == ipc.EnvSocketPath {
			return ""
		}
		return getenv(k)
	})
	if err != nil {
		def = ""
	}
	return session.ServerPath(getenv, runtime.GOOS, socket, def)
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
