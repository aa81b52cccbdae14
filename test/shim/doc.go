// Package shim tests the agent launch shim end to end: `paneflow serve`
// (nogui), paneflow-shim and paneflow-ai-hook are built next to each
// other, a fake `codex` (a shell script that behaves like Codex: it runs
// the hooks it finds in ./.codex/hooks.json) sits on PATH, and running
// `codex` in a pane must go through the shim: the conductor reports a
// hooked session from the frames, the hooks exist only during the run,
// and the agent's exit code reaches the shell.
package shim
