// Package workspace is Paneflow's model: an ordered list of workspaces,
// one of them active, each holding a layout tree of horizontal and
// vertical splits with ratios whose leaves are panes ([Surface]), each
// pane owning one terminal (a program on a pseudo-terminal with its
// emulator). Paneflow has no tabs: one surface per pane.
//
// The [Manager] starts and closes the panes' programs, names panes (spec
// ipc.md §13), builds their environment (§15), applies layout presets
// and the layout-tree JSON ([LayoutNode], §14), and publishes what happens
// on the event bus: pane output ([bus.SurfaceChanged], pushed from each
// emulator's change notifications, never polled), titles, exits, pane and
// workspace lifecycle, focus and layout changes. The socket API, the GUI
// and later the conductor are consumers; none of them is imported here.
//
// A pane whose program exits stays in its layout, marked exited, until it
// is closed. Closing a pane gives its space to its neighbour; a split
// left with one child collapses into it.
//
// The package does not render anything, does not read configuration
// files and does not persist sessions.
//
// # Concurrency
//
// Every Manager and Surface method is safe for concurrent use. The
// manager's state is guarded by one mutex, which is never held while a
// program starts, while /proc is read or while events are published.
// Goroutines the manager starts (one watcher per pane, prompt prefills,
// terminals being closed, [Manager.Go]) are owned by it: [Manager.Close]
// stops and waits for them.
package workspace
