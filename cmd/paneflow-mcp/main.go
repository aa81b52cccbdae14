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
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"syscall"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/mcp"
	"github.com/paneflow-go/paneflow/version"
)

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stderr))
}

// run serves MCP on stdio until stdin ends (exit 0); it exits 1 when the
// socket path cannot be computed or stdio fails, 2 on arguments.
func run(args []string, getenv func(string) string, stderr io.Writer) int {
	orchestrate := false
	for _, a := range args {
		switch a {
		case "--version", "-V":
			fmt.Println("paneflow-mcp", version.Version)
			return 0
		case "--orchestrate":
			orchestrate = true
		default:
			fmt.Fprintln(stderr, "usage: paneflow-mcp [--orchestrate] (an MCP server on stdin/stdout; run by an agent, see `paneflow mcp install`)")
			return 2
		}
	}
	self, _ := strconv.ParseUint(getenv("PANEFLOW_SURFACE_ID"), 10, 64)
	path, err := ipc.ClientSocketPath(getenv)
	if err != nil || path == "" {
		fmt.Fprintln(stderr, "paneflow-mcp: cannot locate the IPC socket; set PANEFLOW_SOCKET_PATH or launch the agent from a Paneflow pane")
		return 1
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
