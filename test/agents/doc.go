// Package agents is the offline interop harness: it runs the real agent
// CLIs (Claude Code, Codex, Gemini CLI, opencode, at the versions pinned in
// scripts/agents.sh, installed from npm into ~/.cache/paneflow/agents) in
// panes of a real `paneflow serve` built from this tree, against a scripted
// fake model server on 127.0.0.1 (test/internal/fakemodel), and checks what
// Paneflow's conductor, hook binary, launch shim and `hooks setup` make of
// them: the states in surface.status and the ai.* events of `paneflow
// watch`. Each test gets its own HOME and XDG directories; a CLI is started
// as a user starts it, typed into the pane's shell, so the launch shim and
// the shell integration are on the path. The tests run on Linux; a CLI that
// cannot be installed or started fails the run with a message (CI never
// skips them). compat_test.go checks the README's compatibility table
// against what these tests prove.
package agents
