//go:build client

package main

import "context"

// mcpCommand is `paneflow mcp` in the command-line client: package
// mcpinstall checks Codex's config.toml with the TOML decoder, which the
// client does not link (its package init costs every CLI call), so the
// verb, its --help included, is handed to the server binary as up and flow
// are. `paneflow help mcp` here prints the general usage.
func mcpCommand() command {
	return command{name: "mcp", summary: mcpSummary,
		run: func(_ context.Context, inv *invocation, args []string) error {
			return runInServer(inv, append([]string{"mcp"}, args...))
		}}
}
