package core

import (
	"os"
	"runtime"

	"github.com/paneflow-go/paneflow/mcpinstall"
)

// refreshBridge keeps an installed MCP bridge current, like the shim's
// binaries: when `paneflow mcp install` put paneflow-mcp at its stable
// path (which the agents' entries run) and a paneflow-mcp ships next to
// exe (or $PANEFLOW_MCP_BIN), the stable copy is replaced when their
// SHA-256 differ. It never creates the stable copy, and only logs
// failures. It reports whether it wrote. New runs it on a goroutine.
func refreshBridge(exe string, getenv func(string) string, logf func(string, ...any)) bool {
	dst, err := mcpinstall.BridgePath(getenv, runtime.GOOS)
	if err != nil {
		return false
	}
	if _, err := os.Stat(dst); err != nil {
		return false // not installed: nothing to keep current
	}
	src := mcpinstall.FindBridge(exe, getenv, runtime.GOOS)
	if src == "" || src == dst {
		return false
	}
	wrote, err := mcpinstall.EnsureBridge(src, dst)
	if err != nil {
		logf("paneflow: the MCP bridge at %s is not current: %v", dst, err)
	}
	return wrote
}
