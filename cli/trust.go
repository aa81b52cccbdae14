package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/paneflow-go/paneflow/internal/spectrust"
	"github.com/paneflow-go/paneflow/internal/vis"
)

// Spec trust (issue 25): `up` and `flow run` carry out a spec only once
// the user trusted its exact content (package spectrust), asking on a
// terminal; `trust`, `untrust` and `trust --list` manage the store. The
// check is made here, on the client, before anything runs: the socket
// admits only its own user, who could run the same commands with
// `paneflow new`, so the server has nothing to defend; the user is
// defended against a repository's spec.

// trustFlags are the flags of up and flow that trust a spec without
// asking (for scripts): two names, one meaning.
var trustFlags = []flagSpec{
	{name: "yes", kind: boolFlag, usage: "trust the spec's current content without asking (recorded, as `paneflow trust`)"},
	{name: "trust", kind: boolFlag, usage: "the same as --yes"},
}

// trustStore is the user's spec trust store.
func (s *session) trustStore() (spectrust.Store, error) {
	return spectrust.Default(s.getenv, s.goos)
}

// specPath makes a spec file name given on the command line absolute.
func (s *session) specPath(name string) (string, error) {
	if filepath.IsAbs(name) {
		return name, nil
	}
	wd, err := s.getwd()
	if err != nil {
		return "", err
	}
	return filepath.Join(wd, name), nil
}

// errNotTrusted is the refusal of an untrusted spec without a terminal
// to ask on (exit 2, nothing ran).
func errNotTrusted(verbLine, file string, st spectrust.Status) error {
	why := "is not trusted"
	if st == spectrust.Changed {
		why = "changed since you trusted it"
	}
	return exitErrorf(ExitUsage, "%s %s, and there is no terminal to ask on; nothing ran. Review what it runs with `paneflow %s --dry-run %s`, then trust it with `paneflow trust %s`, or pass --yes",
		vis.String(file), why, verbLine, shellQuote(file), shellQuote(file))
}

// checkSpecTrust lets the spec in file (data, the bytes that will run) run
// or says why not. A spec in the user's config directory, or trusted with
// this content, runs; --yes/--trust trust it; on a terminal (stdin and
// stderr) the user is shown the plan (writePlan, control characters
// escaped) and asked y/N, a yes trusting it; otherwise it is refused with
// exit 2 naming the fix. verbLine is "up" or "flow run", for the message.
func (s *session) checkSpecTrust(ctx context.Context, in *input, verbLine, file string, data []byte, writePlan func(io.Writer) error) error {
	store, err := s.trustStore()
	if err != nil {
		return err
	}
	path, err := s.specPath(file)
	if err != nil {
		return err
	}
	st, err := store.Check(path, data)
	if err != nil {
		return err
	}
	if st.OK() {
		return nil
	}
	if in.bool("yes") || in.bool("trust") {
		_, err := store.Trust(path, data)
		return err
	}
	if !s.isTerminal(s.stdin) || !s.isTerminal(s.stderr) {
		return errNotTrusted(verbLine, file, st)
	}
	var b strings.Builder
	if st == spectrust.Changed {
		fmt.Fprintf(&b, "paneflow: %s changed since you trusted it.\n", vis.String(path))
	} else {
		fmt.Fprintf(&b, "paneflow: %s is not trusted yet: it comes from outside your config directory, and it runs commands.\n", vis.String(path))
	}
	b.WriteString("It will run (control characters shown as \\xNN):\n\n")
	if err := writePlan(&b); err != nil {
		return err
	}
	b.WriteString("\nRun it, and trust this content of the file from now on? [y/N] ")
	if _, err := io.WriteString(s.stderr, b.String()); err != nil {
		return err
	}
	ans, err := readAnswer(ctx, s.stdin)
	if err != nil {
		return err
	}
	if a := strings.ToLower(strings.TrimSpace(ans)); a != "y" && a != "yes" {
		return exitErrorf(ExitFailure, "not trusted; nothing ran")
	}
	_, err = store.Trust(path, data)
	return err
}

// readAnswer reads one line from r. Cancelling ctx (Ctrl-C) returns at
// once; the reading goroutine then ends with the process, as the verb
// returns and the program exits.
func readAnswer(ctx context.Context, r io.Reader) (string, error) {
	type line struct {
		s   string
		err error
	}
	ch := make(chan line, 1)
	go func() {
		s, err := bufio.NewReader(r).ReadString('\n')
		if err == io.EOF && s != "" {
			err = nil
		}
		ch <- line{s, err}
	}()
	select {
	case l := <-ch:
		if l.err == io.EOF {
			return "", exitErrorf(ExitFailure, "no answer (end of input); nothing ran")
		}
		return l.s, l.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// shellQuote quotes a file name for a command line shown to the user.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return vis.String("'" + strings.ReplaceAll(s, "'", `'\''`) + "'")
}

// readSpec reads a spec file named on the command line.
func (s *session) readSpec(name string) ([]byte, error) {
	p := name
	if !filepath.IsAbs(p) {
		wd, err := s.getwd()
		if err != nil {
			return nil, err
		}
		p = filepath.Join(wd, p)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("cannot read %s: %v", name, err)
	}
	return b, nil
}

// trustVerb is `paneflow trust <file>` and `paneflow trust --list`.
func trustVerb() verb {
	return verb{
		name: "trust", onHost: true, synopsis: "<file> | --list [--json]",
		summary:    "trust a workspace or flow spec's current content, so that up and flow run carry it out",
		params:     []string{"<file>"},
		flagParams: map[string][]string{"list": nil},
		flags: []flagSpec{
			{name: "list", kind: boolFlag, usage: "list the trusted specs"},
			{name: "json", kind: boolFlag, usage: "with --list: print them as JSON"},
		},
		details: "A spec from a repository runs commands (command, setup, agents and their prompts), so\n" +
			"`paneflow up` and `paneflow flow run` carry it out only once you trusted its exact\n" +
			"content: they ask on a terminal (showing the plan), and refuse without one (exit 2)\n" +
			"unless given --yes. Review a spec with `paneflow up --dry-run <file>` (or `flow run\n" +
			"--dry-run`), then trust it here. Any change to the file makes it untrusted again.\n" +
			"Specs in your config directory (<config>/paneflow/, the launch pad's library) need no\n" +
			"trust. The store is $XDG_STATE_HOME/paneflow/trusted-specs.json.\n",
		run: runTrust,
	}
}

// untrustVerb is `paneflow untrust <file>`.
func untrustVerb() verb {
	return verb{
		name: "untrust", onHost: true, synopsis: "<file>",
		summary: "withdraw the trust of a spec (see trust)",
		params:  []string{"<file>"},
		details: "Exit 0 whether or not the spec was trusted; the message says which.\n",
		run:     runUntrust,
	}
}

func runTrust(_ context.Context, s *session, in *input) error {
	store, err := s.trustStore()
	if err != nil {
		return err
	}
	if in.bool("list") {
		list, err := store.List()
		if err != nil {
			return err
		}
		if in.bool("json") {
			if list == nil {
				list = []spectrust.Entry{}
			}
			return s.printJSON(list)
		}
		var b strings.Builder
		for _, e := range list {
			fmt.Fprintf(&b, "%s  %s  %s\n", e.Trusted.Local().Format(time.DateTime), e.Hash[:min(len(e.Hash), 19)], vis.String(e.Path))
		}
		_, err = io.WriteString(s.stdout, b.String())
		return err
	}
	if in.bool("json") {
		return in.verb.usageErrorf("--json goes with --list")
	}
	path, err := s.specPath(in.args[0])
	if err != nil {
		return err
	}
	data, err := s.readSpec(in.args[0])
	if err != nil {
		return err
	}
	if st, err := store.Check(path, data); err == nil && st == spectrust.Own {
		fmt.Fprintf(s.stdout, "%s is in your config directory: it needs no trust\n", vis.String(path))
		return nil
	}
	e, err := store.Trust(path, data)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.stdout, "trusted %s (%s)\n", vis.String(e.Path), e.Hash)
	return nil
}

func runUntrust(_ context.Context, s *session, in *input) error {
	store, err := s.trustStore()
	if err != nil {
		return err
	}
	path, err := s.specPath(in.args[0])
	if err != nil {
		return err
	}
	had, err := store.Untrust(path)
	if err != nil {
		return err
	}
	if had {
		fmt.Fprintf(s.stdout, "untrusted %s\n", vis.String(path))
	} else {
		fmt.Fprintf(s.stdout, "%s was not trusted\n", vis.String(path))
	}
	return nil
}
