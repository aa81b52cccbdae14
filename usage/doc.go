// Package usage is what the coding agents cost: the tokens each agent
// used, per pane, workspace, flow run and day, their cost in dollars
// where the model's price is known, and budgets that stop a run.
//
// # Where the numbers come from
//
// The agents record their own usage, and Paneflow reads those records;
// it never estimates. The conductor passes on, with every hook frame, the
// transcript path the agent's hook named ([bus.AgentFrame]); the
// subsystem follows that file (and, for Claude Code, its subagents'
// transcripts beside it) as it grows, reading each byte once:
//
//   - Claude Code 2.1.332: its transcript JSONL, the usage of each
//     assistant message (input, cache reads, cache writes with their
//     one-hour part, output), counted once per message although a message
//     of several content blocks is written as several lines;
//   - Codex 0.169.0: its session rollout, the running totals of its
//     token_count events (cached input and reasoning included);
//   - Gemini CLI 0.61.0: its chat recording JSONL, the tokens of each
//     gemini message (thoughts and tool-use prompts included), rewritten
//     messages counted by their growth;
//   - opencode 1.18.33, which keeps its sessions in SQLite: the assistant
//     messages of its message.updated events (tokens and its own cost),
//     which Paneflow's per-launch plugin appends to a file of the launch
//     (see package shim) and names as the transcript in its frames.
//
// A file is followed from where the session began: one last written
// before is read from its end (a resumed session's history is not this
// session's), and records stamped before the session's first frame are
// not counted. A truncated file is read again from its start, one
// replaced at its path is read to its end and then the new one from its
// start, and an open file removed is still read to its end. A line over
// 32 MiB is skipped. A session's files are read when a frame of it
// arrives, then polled (a stat; the new bytes only when it grew): every
// 500 ms for 4 s after an agent's frame or state change (agents write a
// response's usage around the hook it fires), every second while an agent
// works, every 5 s otherwise, and 3 s more after it exited, the polls of
// all sessions falling together on one grid; a Claude Code session's
// subagents directory is listed when its transcript grew or every 5 s. At
// most 4 MiB of one file is read per poll, so a large backlog never holds
// up the others.
//
// # Prices
//
// [Prices] is a table of per-model prices, dated: the defaults are
// Claude Code's own price catalog and the models.dev data opencode
// carries, read from the pinned versions ([DefaultPrices]); the
// configuration's [usage.prices."<model>"] tables override them field by
// field. A model is matched without provider prefixes and snapshot
// suffixes. Tokens of a model without a price are counted and marked
// unpriced; their cost is unknown, never guessed (opencode's own recorded
// cost is used for a model the table lacks).
//
// # What it shows and keeps
//
// Each pane's current agent session and its current or last turn
// (surface.status's and fleet.list's "usage", [Usage.SurfaceUsage]; the
// bus's [bus.UsageChanged] for events.subscribe and the window, at most
// one per poll per pane; workspace.view's usage for an attached window's
// sidebar), its workspace's total since the server started
// ([Usage.WorkspaceUsage]), and the usage of every
// hour by agent, model, workspace title and flow run, kept per local day
// in <state dir>/paneflow/usage/<YYYY-MM-DD>.json (written atomically, at
// most every 5 s and at shutdown; read back at start, so a day's totals
// survive a restart; a file it cannot read is left untouched).
// usage.summary totals any span by agent, workspace, flow run, model or
// day (`paneflow usage`); usage.prices lists the table.
//
// # Budgets
//
// usage.track tags a pane with a flow run (or workspace spec) and a step,
// with a budget for the step, the whole run, or both (`budget = { tokens
// = …, cost = … }` in a spec). When what they used crosses a limit, the
// agents still working in their panes are paused as each tool accepts
// (Escape in the TUIs of Claude Code, Codex and Gemini CLI, Escape twice
// in opencode's, Ctrl+C to a print mode), a [bus.BudgetAlert] is
// published (the window shows a desktop notification), and usage.budget_wait hands the alert to
// the flow engine, which fails the step with "budget exceeded". The day's
// budget of the configuration warns at 80 % and, at 100 %, pauses every
// working agent unless its pause is off. A cost limit is crossed by
// priced tokens only.
//
// The package does not draw anything, does not decide where a pane's
// keys come from (core's [Panes] types them), and reads no agent's
// database.
//
// # Concurrency
//
// [Usage] is safe for concurrent use. One goroutine, started by Init and
// stopped by Shutdown, handles the bus events and reads the files; the
// figures are guarded by one mutex, held briefly by the methods; files
// are read and keys typed without it. Events are published after
// unlocking.
package usage
