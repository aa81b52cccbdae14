//go:build client

package main

import "context"

// serviceCommand is `paneflow service` in the command-line client: handed
// to the server binary as mcp is, so the service runs that binary's
// `serve` (the headless server itself, not this client handing over).
func serviceCommand() command {
	return command{name: "service", summary: serviceSummary,
		run: func(_ context.Context, inv *invocation, args []string) error {
			return runInServer(inv, append([]string{"service"}, args...))
		}}
}
