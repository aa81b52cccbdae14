//go:build client

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
)

// serverBinary is the full headless program (cmd/paneflow built with the
// nogui tag alone), installed next to the command-line client.
//
// The client build (tags nogui and client) links only the CLI verbs, the
// socket client and the hook installer. It is what `paneflow` is: every
// CLI call pays a Go program's start-up, and linking the server (terminal
// emulator, TOML, the conductor...) made that start-up about a millisecond
// slower than `tmux capture-pane`'s. The server lives in serverBinary (or,
// failing that, in the desktop app's binary, which includes it too), and
// `paneflow serve` hands over to it.
const serverBinary = "paneflow-server"

// runServe hands `serve` and its arguments over to the server binary next
// to this one: on Unix it replaces this process, so the pid, signals and
// exit status are the server's.
func runServe(_ context.Context, _ io.Writer, _ func(string) string, args []string) error {
	for _, name := range []string{serverBinary, guiBinary} {
		path, ok := sibling(name, runtime.GOOS)
		if !ok {
			continue
		}
		code, err := handOff(path, append([]string{"serve"}, args...), os.Environ())
		if err != nil {
			return fmt.Errorf("serve: starting %s: %w", path, err)
		}
		if code != 0 {
			return &exitError{Code: code}
		}
		return nil
	}
	return fmt.Errorf("serve: this paneflow is the command-line client; the server (%s) is not installed next to it", serverBinary)
}
