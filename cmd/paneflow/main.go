// Paneflow is a desktop terminal workspace for running coding agents side by
// side in real PTY panes. The same binary is its command-line client: a known
// verb in the first argument runs that verb instead of the desktop app.
// Run `paneflow help` for the verbs this build has.
//
// Built with the tags nogui and client it is only the command-line client,
// the `paneflow` of an installation, which hands serve and the desktop app
// over to the full programs installed next to it (see serve_client.go).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// interruptible returns ctx cancelled on SIGINT or SIGTERM. Only the
// commands that run for long (serve, the desktop app, wait, watch) ask for
// it: other verbs end in moments and simply die of the signal like any
// short command, and not setting up signal handling saves a CLI call about
// half a millisecond (a goroutine and thread for the signal loop).
func interruptible(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}
