// Package conductor knows what the coding agents in Paneflow's panes are
// doing: which one is thinking, which waits for the user (and what it
// asks), which finished, failed or stalled (spec conductor.md §1–§4).
//
// Two sources feed it. The agents' hooks call paneflow-ai-hook, which
// sends one ai.* frame per lifecycle event (ai.session_start,
// ai.prompt_submit, ai.tool_use, ai.notification, ai.stop, ai.exit,
// ai.session_end) to the socket; [Conductor.Register] serves them. And a
// scan of each pane's process tree finds agent CLIs (claude, codex,
// gemini, opencode and the others of [Agents]) that send no hooks, by the
// kernel's process name, by argv[0], or by the script a node, bun, deno or
// python process runs (`node …/@anthropic-ai/claude-code/cli.js`).
//
// # States
//
// A hooked session is thinking after a prompt or a tool use, waiting for
// input after a question or permission prompt (its message is the
// question), finished after a turn ends (with last_result, inline or read
// from the transcript's tail), finished or errored after the agent exits
// (by its exit code: 0 and the signals of a user's interrupt are clean),
// and stalled when it has thought for the stall threshold without a frame.
// A pane with no session is idle, or unknown_running with reason "no_hook"
// when the scan sees an agent there.
//
// # Where it differs from the original
//
//   - Frames are matched to a pane by surface_id, else by walking up from
//     their pid to a pane's process, never to "any session of the same
//     tool"; a frame that names no pane and no pid is refused (-32602).
//     Requests with an id get an [Ack]; notifications get nothing.
//   - A pid's start time is pinned when its session begins, so a reused
//     pid is a new session, not the old one revived.
//   - There are no periodic sweeps. A timer per thinking session detects a
//     stall at the threshold (not up to 30 s later); a debounced scan
//     after a pane's activity (bus surface_changed) finds agents and
//     notices the ones that left; pane exits and closes end their
//     sessions at once; fleet.list drops unbound sessions whose process is
//     gone.
//   - A finished session stays finished (with its last_result) until its
//     next frame or until the agent leaves; the original cleared it after
//     5 s, so a slower poller saw "idle" and lost the result.
//   - A tool use clears a pending question: the agent went on.
//   - surface.status reports an agent without hooks as unknown_running
//     (hooked false, reason "no_hook"), and fleet.list gives such agents
//     their pane and pid.
//   - Every change publishes a [bus.AgentState] event, including those no
//     frame caused (stall, crash, agent found or gone), for the GUI.
//
// Paneflow's launch shim runs under the agent's name (a process named
// claude) and reports for the agent itself: it sends ai.session_start
// (hooked, or hooked:false with a reason) and waits for the answer before
// it starts the real agent as its child. The scan tells the shim from an
// agent by its executable file (/proc/<pid>/exe on Linux, read only for
// processes that look like agents; Options.ProcessExe and
// Options.ShimDir elsewhere) and never counts it, so a shim that has not
// reported yet is not shown as an agent without hooks for a moment, and
// an agent whose shim could not report is shown as running without hooks.
//
// On Linux the conductor reads /proc itself. On macOS and Windows it reads
// the process table through Options.Processes (core passes the terminal
// package's ListProcesses: sysctl kern.proc.all, a ToolHelp snapshot), one
// consistent list per scan. Where neither is available agents are known
// from their hooks only, frames must carry surface_id, and fleet.list says
// "detection": "hooks_only". On Windows command lines are read with
// NtQueryInformationProcess, so node-run agents are found there too; that
// code is compiled and vetted here but has never run on Windows or macOS.
//
// The package does not notify the desktop or draw anything (the GUI
// subscribes to its events), does not install hooks (package hook, the
// launch shim) and does not import the workspace model: the composition
// root hands it a [PaneSource].
//
// # Concurrency
//
// All methods of [Conductor] are safe for concurrent use. Its state is
// guarded by one mutex; events are published after unlocking, in the
// order the changes happened. Its goroutines (the bus subscriber, timers,
// transcript readers) end with [Conductor.Close].
package conductor
