// Package mcp is Paneflow's MCP bridge: an MCP server (the official Go SDK,
// stdio transport) that gives agents Paneflow's panes as tools and
// resources, answering every request with calls on Paneflow's socket
// through the ipc client. cmd/paneflow-mcp runs it; it links only this
// package, ipc and version, never Fyne or the core.
//
// # Tools
//
// The read-only tools of the original bridge (spec mcp-bridge.md §3):
// list_panes, read_pane and search_pane, plus agent_status (surface.status
// of one pane, with what its agent's session and last turn used where the
// server counts usage), list_agents (fleet.list, each agent with its
// session's usage) and wait_for (surface.wait: a
// pattern and/or an idle period on one pane, with progress notifications
// while it waits, ended by the client's cancellation). A target is a pane
// name or a numeric surface_id, names resolved by [Resolve]. Terminal text
// handed back is fenced as untrusted ([Fence]); so are the JSON answers of
// list_panes, agent_status and list_agents, whose titles, cwds, commands,
// names, messages and results programs set, every string in them with
// control and bidirectional-text characters shown as escapes (unlike the
// original bridge, whose list_panes was not fenced). Tool failures, including an
// unreachable Paneflow, are tool results with isError set, never protocol
// errors.
//
// # The hook tool
//
// [HookTool] is not listed: a Codex hook of type mcp_tool calls it (the
// launch shim configures those hooks when the agent runs this bridge), so
// a lifecycle event reaches Paneflow with no hook process (issue 25). It
// forwards the event to hooks.report for the bridge's own pane
// ([Options.SelfSurface]) and nothing else: it writes no pane, and its
// arguments name none; with no pane of its own, or over --host, it
// reports nothing. It always answers as done, as the hook binary always
// exits 0.
//
// # Orchestration
//
// With [Options.Orchestrate] and Paneflow's scripting gate open, five more
// tools drive other panes: spawn_agent (surface.split with the agent's
// command and its task as the pane's first prompt; with worktree, in a
// git worktree that Paneflow makes with worktree.create and tears down
// with the pane), send_to_agent
// (surface.send_text, submitted), read_from_agent (the tail, or what came
// since the previous read, optionally after waiting for a pattern),
// wait_for_idle (the conductor's state leaving "thinking", or quiet output
// for panes without hooks) and kill_agent (surface.close, refusing the
// caller's own pane). Otherwise they are not listed at all.
//
// # Resources
//
// pane://<name>/content: a template plus one resource per live pane, kept
// current from events.subscribe (the SDK sends list_changed when the set
// changes). A client that subscribes to a pane's resource gets
// notifications/resources/updated when the pane prints, at most one per
// [UpdateInterval] per pane (the first at once, a trailing one for output
// in between).
//
// # Concurrency
//
// A [Bridge] serves one client; its tool handlers run concurrently and
// each makes its own socket connections. The background watcher owns the
// resource list and the subscription state under the Bridge's lock.
package mcp
