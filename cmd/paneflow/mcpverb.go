//go:build !client

package main

import (
	"context"

	"github.com/paneflow-go/paneflow/mcpinstall"
)

// mcpCommand is `paneflow mcp`, carried out by package mcpinstall.
func mcpCommand() command {
	return command{name: "mcp", summary: mcpSummary, help: func() string { return mcpinstall.Usage },
		run: func(_ context.Context, inv *invocation, args []string) error {
			if code := mcpinstall.RunCommand(args, inv.stdout, inv.stderr, mcpinstall.Env{Getenv: inv.getenv, GOOS: inv.goos}); code != exitOK {
				return &exitError{Code: code}
			}
			return nil
		}}
}
