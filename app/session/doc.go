// Package session saves the desktop app's workspaces to session.json and
// restores them at the next start (spec gui.md §7, adapted).
//
// A [Session] is plain data: each workspace's title, directory and
// layout tree (workspace.LayoutNode), whose panes carry their custom
// name, live directory, original command and whether they were focused,
// plus the index of the active workspace. [Capture] reads it from a
// workspace.Manager, [Save] writes it atomically, [Load] reads it back and
// [Restore] recreates the workspaces in a manager.
//
// Restoring starts every program fresh: an interactive shell, or the
// command the pane was originally started with. It does not bring back
// running programs' state, scrollback, environment variables given to
// individual panes, titles or ids (surface and workspace ids are new).
//
// The file lives in the user's state directory (see [Path]). Writes never
// leave a partial file: the new content goes to a temporary file in the
// same directory, which is synced and renamed over the old one. A file
// that cannot be decoded is moved aside as session.json.corrupted-<UTC
// time> (the newest five are kept) so the app starts clean and the user
// can still look at it; one written by a newer Paneflow is kept as
// session.json.version<N>.
//
// # Concurrency
//
// Functions in this package hold no state; Capture and Restore use the
// manager's own locking and may run on any goroutine. Concurrent Saves
// to the same path are safe (each renames a complete file; the last
// rename wins).
package session
