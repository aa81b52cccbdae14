// Package teams makes Claude Code's agent teams open their teammates as
// Paneflow panes. It holds the server's pane registry, which gives panes
// tmux-style ids (%N for panes, @N for workspaces, allocated monotonically
// per server and never reused), and serves two protocols on top of it:
//
//   - the tmux command surface Claude Code emits (spec agent-teams.md §2):
//     the `tmux` shim (a mode of paneflow-shim, found first on PATH only by
//     Claude Code processes that Paneflow launched) sends its argv, the
//     caller's TMUX_PANE, directory and environment in one teams.tmux
//     request; [Registry.Tmux] parses and runs it and returns stdout,
//     stderr and the exit code the shim prints and exits with;
//   - the CustomPaneBackend protocol (proposal #26572, spec §3) on a socket
//     of its own ([Backend]): initialize, spawn_agent, write, capture,
//     kill, list, and pushed context_exited / context_output.
//
// Both end in the same registry and the same panes. The registry sees the
// workspace model only through the small [Host] interface that core
// adapts; it imports no other subsystem.
//
// # Concurrency
//
// A [Registry] is safe for concurrent use: every tmux command and every
// backend request runs under the registry's lock, so concurrent calls from
// several leads are serialized and a split's id is allocated, the pane
// started and the id mapped before the next call looks. Exit watchers run
// on goroutines owned by the registry and stopped by [Registry.Close].
//
// # What it does not do
//
// It does not run a tmux server and does not implement tmux's grammar:
// command sequences (`;`), copy mode, buffers, hooks, sessions other than
// the one Paneflow session, windows other than Paneflow workspaces.
// Styling verbs are accepted and ignored; layout verbs only follow
// Claude's intent (lead on the left, teammates stacked on the right).
package teams
