// Paneflow-mcp is Paneflow's MCP bridge: an MCP server on stdin/stdout
// that gives the agent running it Paneflow's panes as tools and resources
// (package mcp), talking to Paneflow over its socket, found as the
// paneflow CLI finds it ($PANEFLOW_SOCKET_PATH in a pane). It links the
// ipc client and the MCP SDK, never Fyne or the core.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/mcp"
	"github.com/paneflow-go/paneflow/remote"
	"github.com/paneflow-go/paneflow/version"
)

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stderr))
}

// usage is paneflow-mcp's usage line.
const usage = "usage: paneflow-mcp [--orchestrate] [--host ssh://[user@]host[:port]] (an MCP server on stdin/stdout; run by an agent, see `paneflow mcp install`; --host: the panes of that host's Paneflow, over ssh)"

// run serves MCP on stdio until stdin ends (exit 0); it exits 1 when the
// socket path cannot be computed, the host cannot be reached, or stdio
// fails, 2 on arguments.
func run(args []string, getenv func(string) string, stderr io.Writer) int {
	orchestrate := false
	hostArg := ""
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--version" || a == "-V":
			fmt.Println("paneflow-mcp", version.Version)
			return 0
		case a == "--orchestrate":
			orchestrate = true
		case a == "--host" && i+1 < len(args):
			i++
			hostArg = args[i]
		case strings.HasPrefix(a, "--host="):
			hostArg = strings.TrimPrefix(a, "--host=")
		default:
			fmt.Fprintln(stderr, usage)
			return 2
		}
	}
	self, _ := strconv.ParseUint(getenv("PANEFLOW_SURFACE_ID"), 10, 64)
	var (
		path string
		dial func(context.Context) (net.Conn, error)
	)
	if hostArg != "" {
		// Another host's panes, over the user's ssh: one ssh process
		// running `paneflow bridge` for the bridge's whole life, each
		// socket connection a channel of it. The pane the agent runs
		// in is on this machine, not there.
		h, err := remote.ParseHost(hostArg)
		if err != nil {
			fmt.Fprintln(stderr, "paneflow-mcp:", err)
			return 2
		}
		// A dropped ssh is dialed again at the next call.
		rd := &remote.Redialer{Host: h, Env: remote.Env{Getenv: getenv}}
		ctx, cancel := context.WithTimeout(context.Background(), remote.HandshakeTimeout)
		probe, err := rd.Open(ctx) // reports a host without paneflow now, not at the first tool call
		cancel()
		if err != nil {
			fmt.Fprintln(stderr, "paneflow-mcp:", err)
			return 1
		}
		probe.Close()
		defer rd.Close()
		path, dial, self = h.String(), rd.Open, 0
	} else {
		var err error
		path, err = ipc.ClientSocketPath(getenv)
		if err != nil || path == "" {
			fmt.Fprintln(stderr, "paneflow-mcp: cannot locate the IPC socket; set PANEFLOW_SOCKET_PATH or launch the agent from a Paneflow pane")
			return 1
		}
	}
	// Each reply copies its text several times (the SDK compacts nested
	// JSON) in a heap of a few MiB, so the default GC ran during most
	// calls: a fifth of the bridge's CPU in BenchmarkBridgeReadPane. A
	// lazier one costs a few MiB and takes read_pane's median round trip
	// from 2.2-2.5 ms to 1.9-2.1 ms.
	debug.SetGCPercent(400)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var logger *slog.Logger
	if getenv("PANEFLOW_MCP_DEBUG") == "1" {
		logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	b := mcp.New(mcp.Options{
		Logger:      logger,
		Orchestrate: orchestrate,
		SelfSurface: self,
		SocketPath:  path,
		Dial:        dial,
		Version:     version.Version,
		Logf:        func(f string, a ...any) { fmt.Fprintf(stderr, f+"\n", a...) },
	})
	if err := b.Run(ctx, &sdk.StdioTransport{}); err != nil && ctx.Err() == nil && !isEOF(err) {
		fmt.Fprintln(stderr, "paneflow-mcp:", err)
		return 1
	}
	return 0
}

// isEOF reports whether err is the end of the client's stdin.
func isEOF(err error) bool { return errors.Is(err, io.EOF) }
