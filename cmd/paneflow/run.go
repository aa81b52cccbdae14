package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/paneflow-go/paneflow/cli"
	"github.com/paneflow-go/paneflow/hook"
	"github.com/paneflow-go/paneflow/remote"
	"github.com/paneflow-go/paneflow/version"
)

// Exit codes of the paneflow binary. They are part of its interface: scripts
// and agents branch on them, so a code never changes meaning. The client
// verbs add cli.ExitNoTarget (3), cli.ExitTimeout (4) and
// cli.ExitInterrupted (130); package cli owns the whole list.
const (
	exitOK      = cli.ExitOK      // success, including --help
	exitFailure = cli.ExitFailure // the command ran and failed
	exitUsage   = cli.ExitUsage   // bad arguments or an unknown verb; nothing was done
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
	// runProgram runs a service manager's command (systemctl, launchctl,
	// schtasks) for `paneflow service` and returns its combined output;
	// nil runs it with os/exec. Tests give a fake.
	runProgram func(ctx context.Context, name string, args ...string) ([]byte, error)
}

// command is one verb of the paneflow binary: a row of the verb table.
type command struct {
	name    string
	aliases []string      // other names that run it, e.g. list_panes for ls
	summary string        // one line for the usage text
	help    func() string // its own help text for `paneflow help <verb>`, built on demand; nil: the general usage
	run     func(ctx context.Context, inv *invocation, args []string) error
}

// commands lists every verb this build has, in the order usage shows them.
// It is filled in init because the help verb prints this very list. The
// verbs that run in this process come first (one row each); the client
// verbs of package cli follow.
var commands []command

func init() {
	commands = []command{
		{name: "help", summary: "print this help, or with a verb that verb's help", run: runHelp},
		{name: "version", summary: "print the version", run: runVersion},
		{name: "serve", summary: "run the headless server (panes and socket, no window)", help: func() string { return serveUsage },
			run: func(ctx context.Context, inv *invocation, args []string) error {
				return runServe(ctx, inv.stderr, inv.getenv, args)
			}},
		{name: "hooks", summary: "install, check or remove the Claude Code hooks (setup, status, uninstall)", help: func() string { return hook.Usage },
			run: func(_ context.Context, inv *invocation, args []string) error {
				if code := hook.RunCommand(args, inv.stdout, inv.stderr, inv.getenv); code != exitOK {
					return &exitError{Code: code}
				}
				return nil
			}},
		mcpCommand(),
		serviceCommand(),
		{name: "bridge", summary: bridgeSummary, help: func() string { return bridgeUsage }, run: runBridge},
		{name: "host", summary: hostSummary, help: func() string { return hostUsage }, run: runHost},
	}
	commands = append(commands, clientCommands()...)
}

// clientCommands returns a row for each verb of package cli. Each runs
// cli.Run, which prints its own results and errors, so a failure comes back
// as an exitError with the code and no message.
func clientCommands() []command {
	var rows []command
	for _, v := range cli.Verbs() {
		rows = append(rows, command{
			name:    v.Name,
			aliases: v.Aliases,
			summary: v.Summary,
			// Built on demand: formatting every verb's help at start-up
			// cost 0.3 ms of every CLI call.
			help: func() string { h, _ := cli.Help(v.Name); return h },
			run: func(ctx context.Context, inv *invocation, args []string) error {
				if v.InServer && (!v.OnHost || inv.getenv(remote.EnvHost) == "") ||
					v.InServerFor != nil && v.InServerFor(args, inv.getenv) {
					return runInServer(inv, append([]string{v.Name}, args...))
				}
				if v.Interruptible {
					var stop context.CancelFunc
					ctx, stop = interruptible(ctx)
					defer stop()
				}
				argv := append([]string{v.Name}, args...)
				if code := cli.Run(ctx, argv, inv.stdin, inv.stdout, inv.stderr, inv.getenv); code != exitOK {
					return &exitError{Code: code}
				}
				return nil
			},
		})
	}
	return rows
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
	host, args, given, err := hostFlag(args)
	if err != nil {
		return err
	}
	if given {
		if len(args) > 0 && slices.Contains(args, "--attach") && isGUIFlag(args[0]) {
			// A window attached to the host's server: the window's own
			// flag, passed on to the desktop app's binary as it is.
			return runGUI(ctx, inv, append([]string{"--host", host}, args...))
		}
		if len(args) == 0 || isGUIFlag(args[0]) {
			return usageErrorf("--host is for the verbs (paneflow --host HOST <verb>) and a window that attaches (paneflow --host HOST --attach)")
		}
		if !cli.IsVerb(args[0]) && args[0] != "host" {
			return usageErrorf("--host is for the client verbs and `host`, not '%s'; see `paneflow --help`", args[0])
		}
		withHost(inv, host)
	}
	if len(args) == 0 || isGUIFlag(args[0]) {
		return runGUI(ctx, inv, args)
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

// mcpSummary is the verb list's line for `paneflow mcp` (mcpverb*.go), in
// every build.
const serviceSummary = "run the server at login as a per-user service (install, uninstall, status)"

const mcpSummary = "register the MCP bridge with the agent CLIs (install, status, uninstall)"

// lookup returns the command called name (or aliased so), or nil.
func lookup(name string) *command {
	for i := range commands {
		c := &commands[i]
		if c.name == name || slices.Contains(c.aliases, name) {
			return c
		}
	}
	return nil
}

// runHelp prints the usage text to stdout, or with one argument that verb's
// own help (the same text as `paneflow <verb> --help`).
func runHelp(_ context.Context, inv *invocation, args []string) error {
	switch {
	case len(args) > 1:
		return usageErrorf("help takes at most one verb; see `paneflow --help`")
	case len(args) == 1:
		c := lookup(args[0])
		if c == nil {
			return usageErrorf("unknown verb '%s'; see `paneflow --help` for the verb list", args[0])
		}
		if c.help != nil {
			_, err := io.WriteString(inv.stdout, c.help())
			return err
		}
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

// guiUsage is the help of the desktop app's own flags.
const guiUsage = `usage: paneflow [--socket PATH] [--attach | --embedded] | --host HOST --attach

Open the desktop app: a window on the user's Paneflow server (the
workspaces, panes and socket of ` + "`paneflow serve`" + `). When no server answers on
the socket, one is started in the background first (as ` + "`paneflow serve --detach`" + `:
its own session, its output in $XDG_STATE_HOME/paneflow/server.log). Closing
the window detaches: the server and the programs in its panes keep running,
and the next window attaches to them again. Quit asks whether to detach or
to stop everything (config: quit_action). Every CLI verb works against the
server; ` + "`paneflow kill-server`" + ` stops it.

  --socket PATH   the server's socket (default: $PANEFLOW_SOCKET_PATH, else
                  $XDG_RUNTIME_DIR/paneflow/paneflow.sock and fallbacks)
  --attach        attach only: fail when no server answers on the socket
  --embedded      host the panes in this process instead (no server; the
                  socket is this process's, and quitting ends every program)
  --host HOST     with --attach: the server of HOST (ssh://[user@]host[:port]),
                  over your ssh (see ` + "`paneflow host --help`" + `); attach only
`

// isGUIFlag reports whether a first argument is a flag of the desktop app
// (so `paneflow --socket PATH` opens the window).
func isGUIFlag(a string) bool {
	return a == "--socket" || strings.HasPrefix(a, "--socket=") || a == "--attach" || a == "--embedded"
}

// guiArgs are the desktop app's flags.
type guiArgs struct {
	socket   string // "" for the default
	attach   bool   // attach to a running server, never start one
	embedded bool   // host the core in-process instead of attaching
	host     string // with attach: the server of this host, over ssh; "" for this one
}

// parseGUIArgs parses the desktop app's flags.
func parseGUIArgs(args []string) (guiArgs, error) {
	fs := flag.NewFlagSet("paneflow", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var g guiArgs
	fs.StringVar(&g.socket, "socket", "", "")
	fs.BoolVar(&g.attach, "attach", false, "")
	fs.BoolVar(&g.embedded, "embedded", false, "")
	fs.StringVar(&g.host, "host", "", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return g, &exitError{Code: exitUsage, Err: errors.New(guiUsage)}
		}
		return g, usageErrorf("%v\n%s", err, guiUsage)
	}
	if fs.NArg() > 0 {
		return g, usageErrorf("unexpected argument %q\n%s", fs.Arg(0), guiUsage)
	}
	if g.attach && g.embedded {
		return g, usageErrorf("--attach and --embedded exclude each other\n%s", guiUsage)
	}
	if g.host != "" && (!g.attach || g.socket != "") {
		return g, usageErrorf("--host needs --attach and no --socket (the window attaches to that host's server)\n%s", guiUsage)
	}
	return g, nil
}

// noDisplayMessage explains what to do on a machine without a display. The
// Makefile's `run` target prints the same advice.
const noDisplayMessage = "paneflow: no display found (DISPLAY/WAYLAND_DISPLAY unset). The desktop app needs a graphical session; " +
	"run `paneflow serve` for the headless server, then drive it with the CLI."

// noGUIMessage is what a binary built with the nogui tag says when asked
// for the window.
const noGUIMessage = "paneflow: this binary was built without the desktop app (nogui tag). " +
	"Run `paneflow serve` for the headless server, then drive it with the CLI; build without -tags nogui (cgo) for the window."

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
	b.WriteString("  paneflow [--socket PATH]  open the desktop app\n")
	b.WriteString("  paneflow <verb> [args]    run a verb and exit\n")
	b.WriteString("  paneflow --host HOST <verb> [args]\n")
	b.WriteString("                            run it on HOST's Paneflow over ssh (ssh://[user@]host[:port];\n")
	b.WriteString("                            also $PANEFLOW_HOST); see `paneflow host --help`\n\n")
	b.WriteString("Verbs:\n")
	for _, c := range commands {
		summary := c.summary
		if len(c.aliases) > 0 {
			summary += " (also: " + strings.Join(c.aliases, ", ") + ")"
		}
		fmt.Fprintf(&b, "  %-8s  %s\n", c.name, summary)
	}
	b.WriteString("\nRun `paneflow <verb> --help` (or `paneflow help <verb>`) for a verb's arguments.\n")
	b.WriteString("Verbs that act on a pane take a target: a surface id, a pane name or the start of one,\n")
	b.WriteString("cmdline:TEXT (its command contains TEXT) or cwd:PATH (it runs in PATH or below).\n")
	b.WriteString("Output is JSON unless a verb says otherwise.\n")
	b.WriteString("\nFlags:\n")
	b.WriteString("  -h, --help                print this help\n")
	b.WriteString("  -v, --version             print the version\n\n")
	fmt.Fprintf(&b, "Exit codes: %d ok, %d failure, %d usage error, %d no pane or several panes match the target,\n"+
		"%d wait timed out, %d interrupted.\n", exitOK, exitFailure, exitUsage, cli.ExitNoTarget, cli.ExitTimeout, cli.ExitInterrupted)
	io.WriteString(w, b.String())
}
