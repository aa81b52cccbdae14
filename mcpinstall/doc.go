// Package mcpinstall registers Paneflow's MCP bridge (paneflow-mcp) with
// the agent CLIs: `paneflow mcp install | status | uninstall` (spec
// mcp-bridge.md §6). Claude Code (~/.claude.json, "mcpServers"), Codex
// (~/.codex/config.toml, [mcp_servers.paneflow]), Gemini CLI
// (~/.gemini/settings.json, "mcpServers") and opencode
// ($XDG_CONFIG_HOME/opencode/opencode.json or .jsonc, "mcp") each get an
// entry named "paneflow" that runs the bridge from a stable,
// version-independent path (<data dir>/paneflow/bin/paneflow-mcp), which
// [EnsureBridge] keeps equal to the paneflow-mcp shipped next to paneflow.
//
// Files are edited as text: only our entry's bytes change (JSONC comments,
// key order and formatting survive; TOML is edited line-wise and the result
// is decoded and compared with the original). A changed file is first
// copied to <file>.bak and replaced atomically; a symlink is followed and
// kept; a file we cannot parse, a read-only file or an entry in a form we
// do not edit is reported and left byte for byte as it was. Uninstall
// restores the backup's bytes when the file is still exactly what install
// wrote.
//
// It links no MCP SDK: the paneflow CLI stays quick to start. Nothing in it
// is safe for concurrent use on the same files.
package mcpinstall
