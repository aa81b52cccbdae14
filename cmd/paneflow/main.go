// Paneflow is a desktop terminal workspace for running coding agents side by
// side in real PTY panes. The same binary is its command-line client: a known
// verb in the first argument runs that verb instead of the desktop app.
// Run `paneflow help` for the verbs this build has.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
