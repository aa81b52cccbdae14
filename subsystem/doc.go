// Package subsystem is the contract between Paneflow's core and the
// subsystems it runs (the conductor, the socket server, the methods over
// the workspace model, and next the worktree, flow, MCP and teams
// subsystems): how one is started with what it may use, how it is stopped,
// and how it says it cannot run here.
//
// A [Subsystem] has a name, a [Subsystem.Init] that receives a [Host]
// (the event bus, a method registry checked against the subsystem's
// namespaces, a logger, the clock, the environment) and a
// [Subsystem.Shutdown] bounded by a context. Init returning [ErrSkip]
// (possibly wrapped: "git not found: %w") means "not available here": the
// subsystem is logged and left out, and the rest start. A [Group] is the
// list the core keeps: [Group.Start] initialises subsystems in order and,
// when one fails, shuts down the ones already started in reverse order
// before returning the error; [Group.Shutdown] stops what started in
// reverse start order.
//
// What the package does not do: it does not hand out the workspace model.
// A subsystem that needs panes declares the small interface it needs in its
// own package (as conductor.PaneSource does) and takes it as a constructor
// option; the core passes an adapter over the model. So subsystems never
// import the model or each other, and the compiler checks that the adapter
// fits.
//
// # Method names
//
// Every method a subsystem registers is named "<namespace>.<method>",
// where the namespace is the subsystem's name or one of those its
// [Namespaced.Namespaces] lists, and each namespace belongs to one
// subsystem. A name outside the subsystem's namespaces, a malformed name, a
// namespace two subsystems claim and a method registered twice are
// programming errors: they panic at start-up, inside [Group.Start]. Methods
// registered during Init reach the socket only when Init succeeds; a
// subsystem that skips or fails leaves none behind.
//
// # Concurrency
//
// A Group's methods are safe for concurrent use: Start and Shutdown run
// one at a time (a second Shutdown finds nothing to stop). A subsystem's
// Init must not call back into its Group. [Methods] is safe for concurrent
// use. Subsystems' Init and Shutdown run one at a time, on the
// goroutine that called Start or Shutdown.
package subsystem
