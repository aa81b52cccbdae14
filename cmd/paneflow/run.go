package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/paneflow-go/paneflow/version"
)

// Exit codes of the paneflow binary. They are part of its interface: scripts
// and agents branch on them, so a code never changes meaning.
const (
	exitOK      = 0 // success, including --help
	exitFailure = 1 // the command ran and failed
	exitUsage   = 2 // bad arguments or an unknown verb; nothing was done
)

// exitError carries an exit code up to [run] together with the message to
// print. A nil Err prints nothing (the command already reported the problem).
type exitError struct {
	Code int
	Err  error
}

func (e *exitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *exitError) Unwrap() error { return e.Err }

// usageErrorf returns an error that makes run print the message and exit with
// [exitUsage].
func usageErrorf(format string, args ...any) error {
	return &exitError{Code: exitUsage, Err: fmt.Errorf(format, args...)}
}

// invocation is what one call of run gives a command: its streams and the
// environment it may consult. Commands write results to stdout and
// diagnostics to stderr, never to os.Stdout/os.Stderr directly.
type invocation struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	goos   string
}

// command is one verb of the paneflow binary.
type command struct {
	name    string
	args    string // argument synopsis for the usage text; empty when none
	summary string
	run     func(ctx context.Context, inv *invocation, args []string) error
}

// commands lists every verb this build has, in the order usage shows them.
// It is filled in init because the help verb prints this very list.
var commands []command

func init() {
	commands = []command{
		{name: "help", summary: "print this help", run: runHelp},
		{name: "version", summary: "print the version", run: runVersion},
	}
}

// run is the whole program: main only adds the signal context and exits
// with the code run returns. It prints every error itself, to stderr.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	inv := &invocation{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv, goos: runtime.GOOS}
	err := dispatch(ctx, inv, args)
	if err == nil {
		return exitOK
	}
	code := exitFailure
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.Code
		err = ee.Err
	}
	if err != nil {
		fmt.Fprintf(stderr, "paneflow: %v\n", err)
	}
	return code
}

// dispatch picks what args ask for: a verb, a global flag, or, with no
// arguments at all, the desktop app.
func dispatch(ctx context.Context, inv *invocation, args []string) error {
	if len(args) == 0 {
		return runDesktop(inv)
	}
	if c := lookup(args[0]); c != nil {
		return c.run(ctx, inv, args[1:])
	}
	// Global flags apply only when the first argument is not a verb: a verb
	// owns the flags that follow it.
	for _, a := range args {
		if a == "-h" || a == "--help" {
			return runHelp(ctx, inv, nil)
		}
	}
	switch first := args[0]; {
	case first == "-v" || first == "--version":
		return runVersion(ctx, inv, args[1:])
	case strings.HasPrefix(first, "-"):
		return usageErrorf("unknown flag '%s'; see `paneflow --help`", first)
	default:
		return usageErrorf("unknown verb '%s'; see `paneflow --help` for the verb list", first)
	}
}

// lookup returns the command called name, or nil.
func lookup(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

// runHelp prints the usage text to stdout. `help` takes no arguments yet:
// verb-specific help arrives with the first verb that has flags.
func runHelp(_ context.Context, inv *invocation, args []string) error {
	if len(args) > 0 {
		return usageErrorf("help takes no arguments; see `paneflow --help`")
	}
	writeUsage(inv.stdout)
	return nil
}

// runVersion prints "paneflow <version>" to stdout.
func runVersion(_ context.Context, inv *invocation, args []string) error {
	if len(args) > 0 {
		return usageErrorf("version takes no arguments")
	}
	fmt.Fprintf(inv.stdout, "paneflow %s\n", version.String())
	return nil
}

// runDesktop is what a bare `paneflow` does. The desktop window does not
// exist yet, so it says so and points at what does exist.
func runDesktop(inv *invocation) error {
	fmt.Fprintln(inv.stderr, "paneflow: this build has no desktop window yet; so far only the terminal engine exists.")
	if !hasDisplay(inv.getenv, inv.goos) {
		fmt.Fprintln(inv.stderr, noDisplayMessage)
	}
	fmt.Fprintln(inv.stderr, "paneflow: run `paneflow help` for the verbs this build has.")
	return &exitError{Code: exitFailure}
}

// noDisplayMessage explains what to do on a machine without a display. The
// Makefile's `run` target prints the same advice.
const noDisplayMessage = "paneflow: no display found (DISPLAY and WAYLAND_DISPLAY are unset), so no window could open here;\n" +
	"paneflow: on a headless machine use `paneflow serve`, the headless server (it arrives with the next release)."

// hasDisplay reports whether a window could open: macOS and Windows always
// have a display, other systems announce X11 or Wayland in the environment.
func hasDisplay(getenv func(string) string, goos string) bool {
	switch goos {
	case "darwin", "windows", "ios", "android":
		return true
	}
	return getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != ""
}

// writeUsage writes the help text, listing exactly the verbs in commands.
func writeUsage(w io.Writer) {
	var b strings.Builder
	b.WriteString("Paneflow: a terminal workspace for running coding agents side by side.\n\n")
	b.WriteString("Usage:\n")
	b.WriteString("  paneflow                  open the desktop app (not built yet)\n")
	b.WriteString("  paneflow <verb> [args]    run a verb and exit\n\n")
	b.WriteString("Verbs:\n")
	for _, c := range commands {
		name := c.name
		if c.args != "" {
			name += " " + c.args
		}
		fmt.Fprintf(&b, "  %-24s  %s\n", name, c.summary)
	}
	b.WriteString("\nFlags:\n")
	b.WriteString("  -h, --help                print this help\n")
	b.WriteString("  -v, --version             print the version\n\n")
	fmt.Fprintf(&b, "Exit codes: %d ok, %d failure, %d usage error.\n", exitOK, exitFailure, exitUsage)
	io.WriteString(w, b.String())
}
