// Package shim is Paneflow's agent launch shim: the logic of the
// paneflow-shim program, which every pane runs in place of an agent CLI
// (claude, codex, gemini, opencode and the other names of [Tools]), and of
// installing the directory of shims that Paneflow puts first in each
// pane's PATH (spec conductor.md §1, §6).
//
// # The shim directory
//
// [Installer] keeps <user cache dir>/paneflow/bin/<version>/ current: a
// copy of paneflow-shim and of paneflow-ai-hook, and one entry per agent
// name that runs the shim — a relative symlink on Unix (the shim reads its
// tool from argv[0]), a copy named <tool>.exe on Windows. Copies are
// written atomically (temporary file, fsync, rename) and only when their
// SHA-256 differs; a marker file tells any shim that this directory holds
// shims, whatever their version. [Installer.Ensure] is cheap enough for
// every pane start: it compares file stamps (size, mode, time) with those
// of its last verified install and only re-hashes when one changed.
//
// # One launch
//
// [Program.Run] is the shim program. Outside a Paneflow pane (no
// PANEFLOW_SURFACE_ID, or no socket at PANEFLOW_SOCKET_PATH) it runs the
// real binary untouched (exec on Unix). Inside one it finds the real
// binary on PATH (skipping shim directories and the shim itself), adds
// the agent's hooks for this launch ([Inject]) and, when they are in
// place, sends ai.session_start, so the pane shows a hooked agent at once.
// It starts the agent as a child with PANEFLOW_AI_TOOL and PANEFLOW_AI_PID
// (its own pid, the session key) added to the environment, turns each
// Ctrl-C into ai.stop (agents fire no Stop hook when interrupted; at most
// 8 in flight), forwards SIGTERM and SIGHUP, and after the agent exits
// sends ai.exit and ai.session_end, removes the hooks and exits with the
// agent's code (128+n after signal n; a code outside 0..255 is 1).
//
// The shim sends its own frames straight to the socket with the ipc
// client (what the hook binary would send, built by [hook.Map]), not by
// running paneflow-ai-hook: no process per frame, and its pid is alive
// and unchanged for every frame, so the conductor pins its start time at
// the first one and a reused pid can never be mistaken for it.
//
// # Per-launch hooks
//
//   - Codex: nothing is written. Its hooks go on the command line as
//     `-c hooks.<Event>=[…]` overrides, with a `-c hooks.state={…}` that
//     trusts exactly those hooks by their hashes ([CodexTrustHash]):
//     Codex 0.169.0 runs a hook only once trusted, and skips untrusted
//     ones silently. The user's config.toml, hooks and trust decisions are
//     left alone (their untrusted hooks still do not run). The events are
//     [hook.CodexEvents], Interrupt included (the only one a denied permission
//     prompt fires; Codex clamps its timeout to 3 s and hashes that). When
//     the user's Codex config runs our MCP bridge
//     (mcpinstall.CodexHooksBridge: `paneflow mcp install`'s entry, or
//     one like it), the hooks are mcp_tool hooks calling the bridge's
//     unlisted hook tool instead ([CodexMCPOverrides]): no process per
//     event. Otherwise they run paneflow-ai-hook ([CodexOverrides]).
//   - Gemini CLI: ./.gemini/settings.json (project scope) gets marked
//     groups for BeforeAgent, AfterAgent, BeforeTool, AfterTool and
//     Notification, each running paneflow-ai-hook with the Claude event
//     name.
//   - opencode: a plugin, paneflow-status.js, that runs paneflow-ai-hook
//     for chat.message, tool.execute.before/after, session.idle (with the
//     last assistant text, followed through message.updated and
//     message.part.updated events) and permission events, in <state dir>/opencode-<pid>/plugins named by
//     OPENCODE_CONFIG_DIR for the run (nothing in the project: opencode
//     1.18.33 adds files of its own next to a project plugins directory);
//     in ./.opencode/plugins/ when the user sets OPENCODE_CONFIG_DIR.
//   - Claude Code: nothing when the user-scope hooks of `paneflow hooks
//     setup` are installed and their program exists; otherwise the hooks
//     go on the command line (`claude --settings '{"hooks":…}'`), which
//     touches no file at all.
//
// Files are edited with package hook's JSON editing: our entries carry
// "_paneflow_managed": true, the user's entries are kept as they are, a
// file we cannot parse is left untouched (that agent then runs without
// our hooks, and the shim says so on stderr), changed files are replaced
// atomically. A project may be a repository nobody vetted, so a symlinked
// config file or directory there is refused, never followed (the agent
// runs unhooked, and its reason names the symlink), no backup is left in
// the project, and the file's exact old bytes are kept in the registry
// below and put back when the last launch exits (unless someone edited
// the file meanwhile: then only our groups are removed). Unlike the original, cleanup is reference-counted: every
// shim that injects into a file records its pid in a small lock-protected
// registry under the user cache dir, and the hooks are removed only when
// the last live shim using that file exits, so two agents in the same
// project no longer strip each other's hooks. A file or directory the
// shim created is removed again when it is left empty. A shim killed
// before its cleanup leaves its file; [ProjectLeftover] recognizes one
// that holds nothing else, so that worktree teardown deletes it rather
// than keeping a worktree the agent never changed.
//
// What the package does not do: it does not make PATH survive a login
// shell profile that resets it (Debian's /etc/profile, macOS's
// path_helper); Paneflow's shell integration has to re-prepend the
// directory for that. It does not integrate the agents of [Tools] other
// than the four above: they only get ai.exit and ai.session_end.
//
// # Concurrency
//
// [Installer] methods are safe for concurrent use. [Program.Run] is a
// whole program: call it once per process (it handles signals).
package shim
