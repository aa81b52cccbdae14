// Package mcpe2e tests the built paneflow-mcp end to end: the MCP Go SDK's
// own client runs it over a CommandTransport against a real `paneflow
// serve` on a temp socket.
package mcpe2e
