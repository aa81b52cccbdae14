// Package flow reads Paneflow's declarative specs and carries them out
// against a running instance: the workspace spec of `paneflow up` (panes,
// agents, prompts, env, ports, worktrees, a layout preset) and the flow
// spec of `paneflow flow run` (a DAG of steps whose barriers wait on what
// the agents print).
//
// Parsing is strict ([ParseWorkspace]): TOML whose unknown keys are errors
// naming the key and its line, then every validation of the spec, in the
// spec's order, before anything happens. [ResolveWorkspace] turns a spec
// into a [Plan] with no side effect: cwd resolved on the client ("~" and
// relative paths), agents turned into launch commands found on PATH,
// worktrees planned, ${port_offset} allocated. [Up] then creates the
// planned worktrees, calls workspace.up, and rolls the new worktrees back
// if that fails.
//
// A flow, a step, a workspace spec or one of its panes may carry a
// [Budget]: the engine (and [Up]) tell the server each pane's run, step
// and budgets (usage.track); the server pauses the agents that cross one,
// and the engine, told through usage.budget_wait, fails the step with
// "budget exceeded" (the whole run's: every running step, the rest
// skipped). A run's [Report] names the id its usage is counted under and
// what its agents had used when it ended (usage.summary).
//
// The package imports no other subsystem: it reaches git worktrees through
// its [Worktrees] interface and the instance through [Caller], both
// adapted by the CLI.
//
// # Concurrency
//
// Parsing and resolving are pure functions of their inputs and safe to call
// concurrently. [Up] and the flow engine use their Caller from one
// goroutine at a time.
package flow
