// Package hook is the agent side of Paneflow's conductor: it turns the
// lifecycle hooks of coding-agent CLIs (Claude Code, Codex, Gemini CLI,
// opencode) into ai.* JSON-RPC notifications, and it installs Paneflow's
// persistent hooks into Claude Code's user settings.
//
// # Mapping
//
// [Map] takes what an agent gives the paneflow-ai-hook binary (the event
// name on the command line, the JSON payload on stdin or, for Codex
// `notify`, in the last argument) plus the pane's environment, and returns
// one ai.* method with only the fields the server uses (spec conductor.md §3
// and §5). Strings are trimmed to the server's limits, so a frame stays far
// below the 256 KiB frame cap whatever the input: a frame is never refused
// by the server for its size, unlike the original, which forwarded the whole
// payload. Map does no I/O.
//
// # Installing
//
// [Installer] edits ~/.claude/settings.json (spec conductor.md §7): our
// matcher groups carry "_paneflow_managed": true, so [Installer.Uninstall]
// removes only ours; [Installer.Setup] is idempotent and writes nothing when
// the file is already current; a changed file is first copied to
// settings.json.bak and then replaced atomically (temporary file in the same
// directory, fsync, rename, the old file mode kept). A file that is not a
// JSON object is reported and left untouched, byte for byte; so is a "hooks"
// value that is not an object (the original replaced it). [RunCommand] is
// the `paneflow hooks setup|status|uninstall` verb.
//
// What the package does not do: it does not talk to the socket (the
// paneflow-ai-hook binary sends what Map returns) and it does not install the
// per-launch hooks of Codex, Gemini and opencode, which belong to the launch
// shim.
//
// # Concurrency
//
// Map and the installer hold no shared state; they are safe for concurrent
// use, except that two installers editing the same file at once race like
// any two editors (the last rename wins, neither file is ever half written).
package hook
