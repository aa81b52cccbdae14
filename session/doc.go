// Package session saves Paneflow's workspaces to a session file and
// restores them at the next start (spec gui.md §7, adapted). The server
// owns it (core's session keeper, for `paneflow serve` and the desktop
// app's in-process core alike); the desktop app still runs its own saver
// over the same format until it attaches to a server.
//
// A [Session] is plain data: each workspace's title, directory and
// layout tree (workspace.LayoutNode), whose panes carry their custom
// name, live directory, original command, environment variables and
// whether they were focused, plus per pane ([Pane]) the agent it ran with
// that agent's own session id and the managed worktree it owns, and the
// index of the active workspace. [Capture] and [CaptureWith] read it from
// a workspace.Manager, [Save] writes it atomically, [Load] reads it back
// and [Restore] and [RestoreWith] recreate the workspaces in a manager.
//
// Restoring starts every program fresh: an interactive shell, or the
// command the pane was originally started with, with its environment
// variables. With RestoreOptions.Resume an agent comes back in its own
// conversation ([Resume]: its resume command typed into the restored
// shell, or replacing the pane's command), and a pane whose agent cannot
// be resumed says so on its screen. It does not bring back other running
// programs' state, scrollback, titles or ids (surface and workspace ids
// are new).
//
// The file lives in the user's state directory (see [Path] and
// [ServerPath]). Writes never leave a partial file: the new content goes
// to a temporary file in the same directory, which is synced and renamed
// over the old one. A file that cannot be decoded (truncated, not JSON)
// is moved aside as session.json.corrupted-<UTC time> (the newest five
// are kept) so the server starts clean and the user can still look at
// it; one written by a newer Paneflow is kept as session.json.version<N>.
//
// # Concurrency
//
// Functions in this package hold no state; Capture and Restore use the
// manager's own locking and may run on any goroutine. Concurrent Saves
// to the same path are safe (each renames a complete file; the last
// rename wins).
package session
