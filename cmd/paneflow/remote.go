package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/remote"
	"github.com/paneflow-go/paneflow/version"
)

// bridgeSummary and hostSummary are the verb list's lines.
const (
	bridgeSummary = "relay this host's socket on stdin/stdout (what `--host` runs over ssh)"
	hostSummary   = "install paneflow on a host for --host, or stop its link (install, close)"
)

// bridgeUsage is `paneflow bridge --help`.
const bridgeUsage = `usage: paneflow bridge

Relay this host's Paneflow socket on stdin and stdout, so that
` + "`ssh HOST paneflow bridge`" + ` is HOST's socket: ` + "`paneflow --host ssh://HOST <verb>`" + `
and ` + "`paneflow-mcp --host ssh://HOST`" + ` run it as ssh's remote command. It
dials the socket as the user ssh logged in (the server admits only its own
user) and listens on nothing. It ends when stdin does.
`

// hostUsage is `paneflow host --help`.
const hostUsage = `usage: paneflow host install [HOST]
       paneflow host close [HOST]

HOST is ssh://[user@]host[:port] or a name from your ssh config; it
defaults to --host or $PANEFLOW_HOST.

  install   copy this build (paneflow, paneflow-server, paneflow-mcp,
            paneflow-ai-hook, paneflow-shim, those beside this program) to
            ~/.local/bin on HOST over ssh, after checking that HOST is the
            same OS and architecture (else it refuses and says which build
            to make); then check that paneflow there answers
  close     stop HOST's link: the background ` + "`paneflow host link`" + ` that
            keeps one ssh to HOST for the CLI calls of the next
            $PANEFLOW_HOST_PERSIST (default 10m) after the last one
`

// hostFlag splits a leading --host HOST (or --host=HOST) off args.
func hostFlag(args []string) (host string, rest []string, given bool, err error) {
	if len(args) == 0 {
		return "", args, false, nil
	}
	switch a := args[0]; {
	case a == "--host":
		if len(args) < 2 {
			return "", nil, true, usageErrorf("--host needs a value: ssh://[user@]host[:port]")
		}
		return args[1], args[2:], true, nil
	case strings.HasPrefix(a, "--host="):
		return strings.TrimPrefix(a, "--host="), args[1:], true, nil
	}
	return "", args, false, nil
}

// withHost makes inv's environment name host as PANEFLOW_HOST.
func withHost(inv *invocation, host string) {
	getenv := inv.getenv
	inv.getenv = func(k string) string {
		if k == remote.EnvHost {
			return host
		}
		return getenv(k)
	}
}

// callEnv is the environment of a call handed to another binary
// (runInServer): this process's, with the call's host as the
// environment's PANEFLOW_HOST, since --host on this command line is only
// in inv.
func callEnv(inv *invocation) []string {
	env := os.Environ()
	host := inv.getenv(remote.EnvHost)
	if host == "" || host == os.Getenv(remote.EnvHost) {
		return env
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, remote.EnvHost+"=") {
			out = append(out, kv)
		}
	}
	return append(out, remote.EnvHost+"="+host)
}

// runBridge is `paneflow bridge`.
func runBridge(ctx context.Context, inv *invocation, args []string) error {
	if len(args) > 0 {
		if args[0] == "-h" || args[0] == "--help" {
			_, err := io.WriteString(inv.stdout, bridgeUsage)
			return err
		}
		return usageErrorf("bridge takes no arguments")
	}
	path, perr := ipc.ClientSocketPath(inv.getenv)
	dial := func(ctx context.Context) (net.Conn, error) {
		if perr != nil || path == "" {
			return nil, fmt.Errorf("cannot locate the Paneflow socket (%v)", perr)
		}
		return ipc.DialSocket(ctx, path)
	}
	hello := remote.Hello{Protocol: remote.ProtocolVersion, GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, Version: version.String()}
	return remote.Serve(ctx, inv.stdin, inv.stdout, hello, dial)
}

// runHost is `paneflow host`.
func runHost(ctx context.Context, inv *invocation, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		_, err := io.WriteString(inv.stdout, hostUsage)
		return err
	}
	sub, rest := args[0], args[1:]
	hs := inv.getenv(remote.EnvHost)
	switch {
	case len(rest) == 1:
		hs = rest[0]
	case len(rest) > 1:
		return usageErrorf("host %s takes one host; see `paneflow host --help`", sub)
	}
	if hs == "" {
		return usageErrorf("host %s: which host? give ssh://[user@]host[:port], --host or %s", sub, remote.EnvHost)
	}
	h, err := remote.ParseHost(hs)
	if err != nil {
		return &exitError{Code: exitUsage, Err: err}
	}
	env := remote.Env{Getenv: inv.getenv}
	switch sub {
	case "install":
		self, err := os.Executable()
		if err != nil {
			return err
		}
		if resolved, err := filepath.EvalSymlinks(self); err == nil {
			self = resolved
		}
		return remote.Install(ctx, h, env, filepath.Dir(self), inv.stdout)
	case "close":
		stopped, err := remote.CloseLink(h, env)
		if err != nil {
			return err
		}
		if stopped {
			fmt.Fprintf(inv.stdout, "closed the link to %s\n", h)
		} else {
			fmt.Fprintf(inv.stdout, "no link to %s was open\n", h)
		}
		return nil
	case "link":
		// Started by the CLI (remote.StartLink) with the pipe it
		// waits on as fd 3.
		ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
		ready := os.NewFile(3, "ready")
		return remote.RunLink(ctx, h, env, env.Persist(), ready)
	}
	return usageErrorf("unknown host command '%s'; see `paneflow host --help`", sub)
}
