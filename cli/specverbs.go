package cli

// The spec verbs, up and flow, parse TOML, run git and plan worktrees:
// packages flow and worktree with BurntSushi/toml, whose initialisation
// alone (it reads the local time zone) costs every CLI call about 0.1 ms.
// So the command-line client (build tag client) does not link them; its
// up and flow rows hand the whole command line to the server binary
// ([Verb.InServer]), which has them. Their definitions live here, in every
// build, so that usage and help texts are the same everywhere.

// trustHelp closes the help of up and flow: the trust step.
const trustHelp = "A spec runs only once its exact content is trusted (see `paneflow trust --help`): on a\n" +
	"terminal you are shown the plan and asked (the launch pad asks in a dialog); --yes trusts\n" +
	"it without asking; without a terminal an untrusted spec is refused (exit 2). --dry-run\n" +
	"needs no trust, and shows control characters in the spec's values as \\xNN.\n"

// upVerb is `paneflow up <file> [--dry-run] [--json]`.
func upVerb() verb {
	return verb{
		name: "up", interruptible: true, inServer: true, onHost: true, synopsis: "<file> [--dry-run] [--json] [--yes]",
		summary: "create a whole workspace (panes, agents, prompts, worktrees, ports) from a TOML spec",
		params:  []string{"<file>"},
		flags: append([]flagSpec{
			{name: "dry-run", kind: boolFlag, usage: "print the resolved plan and change nothing (needs no trust)"},
			{name: "json", kind: boolFlag, usage: "print the plan (with --dry-run) or workspace.up's result as JSON"},
		}, trustFlags...),
		details: "The spec (paneflow.workspace.toml) is checked whole before anything happens: unknown\n" +
			"keys, every pane rule, each cwd (~ and relative paths resolve here), agents on PATH,\n" +
			"worktrees (planned read-only) and ${port_offset} ports. Then the planned worktrees are\n" +
			"created (copy_env, setup), and one workspace.up call opens the panes; if that fails, the\n" +
			"worktrees it created are removed again. Prompts are typed into the panes once they\n" +
			"settle, never submitted: as one bracketed paste when the program turned that on, else\n" +
			"with its line breaks and control characters shown as \\xNN, so nothing in it runs.\n" + trustHelp,
		run: runUp,
	}
}

// flowVerb is `paneflow flow run <file> [--dry-run] [--json]`.
func flowVerb() verb {
	return verb{
		name: "flow", interruptible: true, inServer: true, onHost: true, synopsis: "run <file> [--dry-run] [--json] [--yes]",
		summary: "run a pipeline of agents from a TOML flow spec (a DAG of steps with ready barriers)",
		params:  []string{"run", "<file>"},
		flags: append([]flagSpec{
			{name: "dry-run", kind: boolFlag, usage: "print the resolved units and change nothing (needs no trust)"},
			{name: "json", kind: boolFlag, usage: "print the plan (with --dry-run) or the final report as JSON"},
		}, trustFlags...),
		details: "The whole spec is checked before anything happens (unknown keys, needs and cycles,\n" +
			"patterns, captures, the pane budget, agents, worktrees, ports); a flow that submits\n" +
			"checks the scripting gate first, even with --dry-run. Root steps open the workspace,\n" +
			"the others start when every step they need is READY. A ready barrier waits for a\n" +
			"line printed after its step began (^ and $ anchor at each line) and is told of output\n" +
			"as it arrives. One progress line per transition goes to stderr; the report (a table,\n" +
			"or --json) to stdout. Ctrl-C stops the orchestration and leaves every pane running.\n" +
			"Exit 0 when every step is READY, 4 when a barrier timed out, 1 otherwise.\n" +
			"A capture (${var}) in a submitted prompt or a send's text goes to an agent fenced as\n" +
			"untrusted output (<untrusted_terminal_output …>), to any other program as its plain\n" +
			"text with control characters shown as \\xNN; a send to a pane outside the flow counts\n" +
			"as an agent. A step chooses with captures = \"fenced\" or \"plain\"; --dry-run shows\n" +
			"which.\n" + trustHelp,
		run: runFlow,
	}
}
