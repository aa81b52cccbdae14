package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/paneflow-go/paneflow/remote"
)

// Exit codes of every verb. They are part of the CLI's interface: scripts and
// agents branch on them, so a code never changes meaning.
const (
	ExitOK          = 0   // success, including --help
	ExitFailure     = 1   // the verb ran and failed: server unreachable, JSON-RPC error, scripting gate off, …
	ExitUsage       = 2   // bad arguments or an unknown verb; nothing was sent
	ExitNoTarget    = 3   // a selector matched no pane or several; also watch / wait --idle connection failures
	ExitTimeout     = 4   // wait gave up after --timeout
	ExitInterrupted = 130 // wait was interrupted (Ctrl-C), like a shell's 128+SIGINT
)

// exitError carries an exit code up to [Run] together with the message to
// print. A nil Err prints nothing.
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

// exitErrorf returns an error that makes Run print the message and exit with
// code.
func exitErrorf(code int, format string, args ...any) error {
	return &exitError{Code: code, Err: fmt.Errorf(format, args...)}
}

// Verb describes one verb for the program's usage text and dispatch.
type Verb struct {
	Name    string   // e.g. "read"
	Aliases []string // other names that run the same verb, e.g. "read_pane"
	Args    string   // synopsis of its arguments, e.g. "<target> [--lines N]"
	Summary string   // one line

	// Interruptible is set for the verbs that can run for long (wait,
	// watch). Their caller should cancel [Run]'s ctx on Ctrl-C: watch then
	// ends with ExitOK and wait with ExitInterrupted. The other verbs end
	// in moments; a caller may leave the signal's default action to them.
	Interruptible bool

	// InServer is set when this build does not carry the verb out: the
	// command-line client (build tag client) leaves out what up and flow
	// need, and its caller must hand the whole command line to the server
	// binary instead of calling [Run]; unless the verb goes to a host
	// (OnHost, with PANEFLOW_HOST set), which [Run] does itself.
	InServer bool

	// OnHost is set for the verbs that, with a host (--host,
	// PANEFLOW_HOST), run whole on that host over ssh (up, flow, trust,
	// untrust: the spec files and the trust store are the host's).
	OnHost bool

	// InServerFor, when set, reports whether this build must hand one
	// call (the arguments after the verb, its environment) to the server
	// binary as InServer does: the command-line client hands `search
	// --all` over when the configuration may list hosts, which it cannot
	// read (TOML), and `wait --pattern`, whose pattern it cannot check
	// (it does not link regexp/syntax). A host (--host, PANEFLOW_HOST)
	// goes along.
	InServerFor func(args []string, getenv func(string) string) bool
}

// Verbs returns every verb this package implements, in the order the usage
// text lists them. The slice is a fresh copy.
func Verbs() []Verb {
	out := make([]Verb, 0, len(verbs))
	for _, v := range verbs {
		out = append(out, Verb{
			Name: v.name, Aliases: append([]string(nil), v.aliases...), Args: v.synopsis, Summary: v.summary,
			Interruptible: v.interruptible, InServer: v.inServer && specVerbsInServer, OnHost: v.onHost,
		})
		switch {
		case v.name == "search" && searchInServer != nil:
			out[len(out)-1].InServerFor = searchInServer
		case v.name == "wait" && waitInServer != nil:
			out[len(out)-1].InServerFor = waitInServer
		}
	}
	return out
}

// Help returns the --help text of the verb called name (or aliased so), and
// whether there is such a verb.
func Help(name string) (string, bool) {
	v := lookupVerb(name)
	if v == nil {
		return "", false
	}
	return v.help(), true
}

// IsVerb reports whether name is a verb or an alias of one that [Run]
// handles.
func IsVerb(name string) bool { return lookupVerb(name) != nil }

// Run runs one verb: args[0] names it (or an alias), the rest are its
// arguments. Results go to stdout, diagnostics ("paneflow: <message>") to
// stderr; the return value is the exit code (ExitOK … ExitInterrupted), which
// the caller passes to os.Exit. Run never exits itself.
//
// getenv is consulted for the socket path (PANEFLOW_SOCKET_PATH and the
// fallbacks of [ipc.ClientSocketPath]) and HOME for "~" expansion; nil means
// os.Getenv. Relative paths resolve against the process's working directory.
// Cancelling ctx (Ctrl-C in main) aborts any call in flight: watch then ends
// with ExitOK, every other verb silently with ExitInterrupted. stdin is
// read only by up and flow run, for the answer to the trust question
// (see `paneflow trust --help`). Run is safe to call from several goroutines.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if getenv == nil {
		getenv = os.Getenv
	}
	s := &session{
		stdin:  stdin,
		stdout: stdout,
		stderr: stderr,
		getenv: getenv,
		getwd:  os.Getwd,
		goos:   runtime.GOOS,

		isTerminal: isTerminal,
	}
	s.dial = s.dialIPC
	s.dialMux = s.dialIPCMux
	if hs := getenv(remote.EnvHost); hs != "" {
		h, err := remote.ParseHost(hs)
		if err != nil {
			fmt.Fprintf(stderr, "paneflow: %v (from --host or %s)\n", err, remote.EnvHost)
			return ExitUsage
		}
		s.host = &hostLink{host: h, env: remote.Env{Getenv: getenv}, ctx: ctx}
		defer s.host.close()
		s.dial = s.dialHost
		s.dialMux = s.dialHostMux
	}
	return s.run(ctx, args)
}

// session is one invocation of [Run]: its streams, environment and the way
// it reaches the server. Tests build one with a fake dial.
type session struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	getwd  func() (string, error)
	goos   string
	// isTerminal reports whether a stream (s.stdin, s.stderr) is a
	// terminal a person answers on.
	isTerminal func(any) bool

	// dial returns a caller whose calls time out after timeout (0: the
	// client's default). It fails when the socket path cannot be resolved.
	dial func(timeout time.Duration) (caller, error)
	// dialMux opens one connection that carries many calls at once (the
	// flow engine's waits); nil makes those calls use dial.
	dialMux func(ctx context.Context) (caller, io.Closer, error)

	// host is set when the verbs go to another host (--host,
	// PANEFLOW_HOST): dial and dialMux reach its socket, paths given
	// must be the host's (absolute), and the verbs that read specs run
	// there.
	host *hostLink
	// hostDial, when set, replaces the ssh link search --all opens to
	// each configured host (tests); it returns the host's caller and what
	// ends its connection.
	hostDial func(ctx context.Context, address string) (caller, func(), error)
}

// run dispatches args and turns the outcome into an exit code, printing the
// error message, if any, to stderr.
func (s *session) run(ctx context.Context, args []string) int {
	err := s.dispatch(ctx, args)
	if err == nil {
		return ExitOK
	}
	code := ExitFailure
	var ee *exitError
	if ctx.Err() != nil && !errors.As(err, &ee) {
		// Interrupted (Ctrl-C): whatever failed, failed because of that,
		// and like a shell command killed by SIGINT it says nothing.
		return ExitInterrupted
	}
	if errors.As(err, &ee) {
		code = ee.Code
		err = ee.Err
	}
	if re := remote.AsError(err); re != nil && s.host != nil {
		// The host's own problem, not "is Paneflow running?".
		err = re
	}
	if err != nil {
		fmt.Fprintf(s.stderr, "paneflow: %v\n", err)
	}
	return code
}

// dispatch finds the verb, parses its arguments and runs it.
func (s *session) dispatch(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return exitErrorf(ExitUsage, "no verb given; see `paneflow --help` for the verb list")
	}
	v := lookupVerb(args[0])
	if v == nil {
		return exitErrorf(ExitUsage, "unknown verb '%s'; see `paneflow --help` for the verb list", args[0])
	}
	in, err := parseArgs(v, args[1:])
	if errors.Is(err, errHelp) {
		_, err = io.WriteString(s.stdout, v.help())
		return err
	}
	if err != nil {
		return err
	}
	if s.host != nil && v.onHost {
		return s.runOnHost(ctx, args)
	}
	return v.run(ctx, s, in)
}

// verb is one verb: its documentation, its flags and its implementation.
type verb struct {
	name     string
	aliases  []string
	synopsis string   // arguments and flags, for the usage line
	summary  string   // one line, for the verb list
	params   []string // names of the positional arguments; the verb takes exactly these
	// rest: params are the least the verb takes; its run checks the
	// others (review comment <file> <lines> <text>).
	rest bool
	// flagParams replaces params when a bool flag is given (search --all
	// takes a pattern and no target).
	flagParams map[string][]string
	flags      []flagSpec
	details    string // paragraphs for --help, each line ending in "\n"
	// interruptible: see Verb.Interruptible
	interruptible bool
	// inServer: the verb needs packages the client build leaves out;
	// see Verb.InServer.
	inServer bool
	// onHost: with --host the whole verb runs on the host (its files
	// are the host's: specs, the trust store); see Verb.OnHost.
	onHost bool
	run    func(ctx context.Context, s *session, in *input) error
}

// lookupVerb returns the verb called name (or aliased so), or nil.
func lookupVerb(name string) *verb {
	for i := range verbs {
		v := &verbs[i]
		if v.name == name {
			return v
		}
		for _, a := range v.aliases {
			if a == name {
				return v
			}
		}
	}
	return nil
}

// flag returns the verb's flag called name, or nil.
func (v *verb) flag(name string) *flagSpec {
	for i := range v.flags {
		if v.flags[i].name == name {
			return &v.flags[i]
		}
	}
	return nil
}

// usageErrorf returns a usage error (ExitUsage) prefixed with the verb name
// and pointing at its help.
func (v *verb) usageErrorf(format string, args ...any) error {
	return &exitError{Code: ExitUsage, Err: fmt.Errorf("%s: %s; see `paneflow %s --help`", v.name, fmt.Sprintf(format, args...), v.name)}
}

// help returns the verb's --help text.
func (v *verb) help() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: paneflow %s", v.name)
	if v.synopsis != "" {
		b.WriteString(" " + v.synopsis)
	}
	b.WriteString("\n\n" + v.summary + ".\n")
	if len(v.aliases) > 0 {
		fmt.Fprintf(&b, "Also called: %s.\n", strings.Join(v.aliases, ", "))
	}
	if v.details != "" {
		b.WriteString("\n" + v.details)
	}
	b.WriteString("\nFlags:\n")
	for _, f := range v.flags {
		left := "--" + f.name
		if f.value != "" {
			left += " " + f.value
		}
		fmt.Fprintf(&b, "  %-22s  %s\n", left, f.usage)
	}
	fmt.Fprintf(&b, "  %-22s  %s\n", "-h, --help", "print this help")
	b.WriteString("\n" + exitCodesHelp)
	return b.String()
}

// exitCodesHelp closes every verb's help text.
const exitCodesHelp = "Exit codes: 0 ok, 1 failure, 2 usage error, 3 no pane or several panes match the target,\n" +
	"4 wait timed out, 130 wait interrupted.\n"
