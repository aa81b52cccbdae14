// Package cli implements the verbs of the `paneflow` command line: ls, read,
// search, new, select, split, focus, resize, rename, close, send, key, wait,
// watch, ps and status. Each verb parses its arguments, resolves target
// selectors, makes JSON-RPC calls to a running Paneflow (the desktop app or
// `paneflow serve`) through the [ipc] client, and prints the result.
//
// The package is a client only: it never imports the model or the terminal
// engine, and it does not start a server. It does not exit the process
// either; [Run] returns the exit code for main.
//
// # Usage
//
//	code := cli.Run(ctx, []string{"read", "backend", "--lines", "80"}, os.Stdin, os.Stdout, os.Stderr, os.Getenv)
//
// [Verbs] lists the verbs and [IsVerb] tells whether a word is one, for the
// program's dispatcher and usage text. Every verb answers -h/--help with its
// own usage text and exit code 0.
//
// # Output and errors
//
// Results go to stdout, by default as pretty-printed JSON exactly as the
// server sent them; ls and search print tables with --human, ps and status
// print text unless --json is given, and read prints the pane's text. Every
// failure prints one line "paneflow: <message>" to stderr. A JSON-RPC error
// reads "paneflow error <code>: <message>". The exit codes are the Exit*
// constants: 0 ok, 1 failure, 2 usage, 3 no or several panes match a target,
// 4 wait timed out, 130 interrupted.
//
// # Targets
//
// Selectors are resolved here, against one surface.list call: digits are a
// surface_id; "cmdline:TEXT" matches a case-insensitive substring of the
// pane's foreground command; "cwd:PATH" matches panes whose working directory
// is PATH or lies below it on path-component boundaries ("cwd:/a/proj" does
// not match /a/proj-backend), with "~" and relative paths resolved on this
// side first; anything else is a name, matched case-insensitively, exactly
// first and then as a prefix. A selector is resolved before any mutating
// call, so a typo never changes the wrong pane.
//
// # Waiting
//
// wait sends one surface.wait call and blocks until the server answers: the
// server is woken by each pane's output, so there is no polling on either
// side. watch prints the events.subscribe stream until the server closes it
// or ctx is cancelled.
//
// # Concurrency
//
// [Run] keeps no state between calls and may be called concurrently with
// different writers; each call opens its own connections and closes them
// before it returns.
package cli
