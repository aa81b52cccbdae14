// Package shim tests the agent launch shim end to end: `paneflow serve`
// (nogui), paneflow-shim and paneflow-ai-hook are built next to each
// other, a fake `codex` (a shell script that behaves like Codex: it runs
// the UserPromptSubmit hook the shim passed it with -c) sits on PATH, and running
// `codex` in a pane must go through the shim: the conductor reports a
// hooked session from the frames, nothing is left in the project,
// and the agent's exit code reaches the shell.
package shim
