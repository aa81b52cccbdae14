// Paneflow-shim is the agent launch shim: Paneflow installs it under each
// agent's name (claude, codex, gemini, opencode, …) in a directory at the
// front of every pane's PATH. Run as `codex …` in a pane, it finds the
// real codex further down PATH, puts Paneflow's hooks in place for that
// run, runs it, reports its start and exit to the pane, removes the hooks
// and exits with its code. Outside a Paneflow pane it runs the real
// binary untouched. See package shim.
package main

import (
	"os"

	"github.com/paneflow-go/paneflow/shim"
)

func main() {
	os.Exit(shim.Main())
}
