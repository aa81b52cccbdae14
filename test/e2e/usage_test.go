//go:build linux

package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// verbNames are every client verb and alias the CLI documents.
var verbNames = []string{
	"ls", "list_panes", "read", "read_pane", "search", "search_pane", "new", "select", "split",
	"focus", "resize", "rename", "close", "send", "key", "wait", "watch", "ps", "status", "up", "flow", "trust", "untrust",
}

// TestHelpAndUsage checks --help per verb (exit 0, nothing sent), usage
// errors (exit 2) and unknown verbs (exit 2). It needs no server: the
// socket path points nowhere, so anything that tried to connect would fail
// with exit 1 instead.
func TestHelpAndUsage(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	env := append(baseEnv(dir), "PANEFLOW_SOCKET_PATH="+filepath.Join(dir, "none.sock"))
	run := func(t *testing.T, args ...string) result {
		t.Helper()
		return runCLI(t, env, dir, args...)
	}

	for _, v := range verbNames {
		t.Run(v+" --help", func(t *testing.T) {
			for _, flag := range []string{"--help", "-h"} {
				r := run(t, v, flag)
				if r.code != 0 || !strings.HasPrefix(r.stdout, "Usage: paneflow ") || r.stderr != "" {
					t.Errorf("got exit %d, want 0 with the usage on stdout and nothing on stderr:\n%s", r.code, r)
				}
				if !strings.Contains(r.stdout, "Exit codes: 0 ok, 1 failure, 2 usage error, 3 ") {
					t.Errorf("--help does not document the exit codes:\n%s", r)
				}
			}
			if r := run(t, "help", v); r.code != 0 || !strings.HasPrefix(r.stdout, "Usage: paneflow ") {
				t.Errorf("`paneflow help %s`: want exit 0 and the verb's usage:\n%s", v, r)
			}
		})
	}
	t.Run("serve --help", func(t *testing.T) {
		if r := run(t, "serve", "--help"); r.code != 0 || !strings.Contains(r.stderr+r.stdout, "--socket PATH") {
			t.Errorf("want exit 0 and serve's usage:\n%s", r)
		}
	})
	t.Run("global help lists every verb", func(t *testing.T) {
		r := run(t, "--help")
		if r.code != 0 {
			t.Fatalf("want exit 0:\n%s", r)
		}
		for _, v := range verbNames {
			if !strings.Contains(r.stdout, v) {
				t.Errorf("paneflow --help does not mention %s:\n%s", v, r.stdout)
			}
		}
	})

	usage := []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, "unknown verb 'frobnicate'"},
		{[]string{"--frobnicate"}, "unknown flag '--frobnicate'"},
		{[]string{"ls", "--bogus"}, "ls: unknown flag '--bogus'"},
		{[]string{"ls", "extra"}, "unexpected argument 'extra'"},
		{[]string{"read"}, "read: missing <target>"},
		{[]string{"read_pane"}, "read: missing <target>"},
		{[]string{"read", "1", "--lines"}, "needs a value"},
		{[]string{"read", "1", "--lines", "many"}, "--lines must be a non-negative integer"},
		{[]string{"read", "1", "--raw=maybe"}, "--raw takes no value"},
		{[]string{"search", "1"}, "missing <text>"},
		{[]string{"search", "1", "x", "--max", "-1"}, "--max must be a non-negative integer"},
		{[]string{"new", "--env", "NOEQUALS"}, "invalid --env 'NOEQUALS'"},
		{[]string{"new", "--env", "=v"}, "invalid --env"},
		{[]string{"new", "--cwd", ""}, "--cwd must not be empty"},
		{[]string{"new", "--name", "a", "--name", "b"}, "given more than once"},
		{[]string{"select"}, "missing <index>"},
		{[]string{"select", "-1"}, "unknown flag '-1'"},
		{[]string{"split"}, "missing <direction>"},
		{[]string{"split", "x"}, "direction must be"},
		{[]string{"split", "h", "--env", "K"}, "invalid --env"},
		{[]string{"focus"}, "missing <target>"},
		{[]string{"resize", "1"}, "missing <cols>x<rows>"},
		{[]string{"resize", "1", "80x"}, "size must be"},
		{[]string{"rename", "1"}, "missing <new-name>"},
		{[]string{"close"}, "missing <target>"},
		{[]string{"send", "1"}, "missing <text>"},
		{[]string{"key", "1"}, "missing <keystroke>"},
		{[]string{"wait"}, "--match <target> is required"},
		{[]string{"wait", "--match", "1", "--idle", "--for", "0"}, "--for must be at least 1ms"},
		{[]string{"wait", "--match", "1", "--pattern", "x", "--for", "1s"}, "--for only applies with --idle"},
		{[]string{"watch", "extra"}, "unexpected argument"},
		{[]string{"ps", "1"}, "unexpected argument"},
		{[]string{"status"}, "missing <target>"},
		{[]string{"status", "", "--json"}, "empty target selector"},
		{[]string{"serve", "--size", "1x1"}, "--size"},
		{[]string{"help", "frob"}, "unknown verb 'frob'"},
	}
	for _, c := range usage {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := run(t, c.args...)
			if r.code != 2 || !strings.Contains(r.stderr, c.want) || r.stdout != "" {
				t.Errorf("want exit 2, nothing on stdout and %q on stderr:\n%s", c.want, r)
			}
		})
	}

	t.Run("unreachable server is exit 1", func(t *testing.T) {
		for _, args := range [][]string{{"ls"}, {"read", "1"}, {"new"}, {"wait", "--match", "1", "--pattern", "x"}} {
			r := run(t, args...)
			if r.code != 1 || !strings.Contains(r.stderr, "unreachable") || !strings.Contains(r.stderr, "is Paneflow running?") {
				t.Errorf("want exit 1 and an unreachable message:\n%s", r)
			}
		}
	})
	t.Run("unreachable server for watch and wait --idle is exit 3", func(t *testing.T) {
		for _, args := range [][]string{{"watch"}, {"wait", "--match", "1", "--idle"}} {
			if r := run(t, args...); r.code != 3 || !strings.Contains(r.stderr, "unreachable") {
				t.Errorf("want exit 3 and an unreachable message:\n%s", r)
			}
		}
	})
}

// TestExitCodes runs one command for each documented exit code against a
// live server.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	p := s.command("echo READY; exec sleep 1000", "--name", "solo")
	s.waitOutput("solo", "READY")
	cases := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"ok", []string{"read", "solo", "--raw"}, 0, ""},
		{"JSON-RPC error", []string{"read", id(p), "--offset", "99999"}, 1, "paneflow error -32602: offset 99999 out of range"},
		{"JSON-RPC error from a mutation", []string{"select", "7"}, 1, "paneflow error -32602"},
		{"usage", []string{"read", "solo", "--lines", "x"}, 2, "see `paneflow read --help`"},
		{"no target", []string{"read", "nobody"}, 3, "no pane matches target 'nobody'"},
		{"wait timeout", []string{"wait", "--match", "solo", "--pattern", "never-printed", "--timeout", "0.5"}, 4, "timeout after 0.5s"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := s.with(t).cli(c.args...)
			if r.code != c.code || !strings.Contains(r.stderr, c.stderr) {
				t.Errorf("want exit %d and %q on stderr:\n%s", c.code, c.stderr, r)
			}
			if c.code != 0 && !strings.HasPrefix(r.stderr, "paneflow: ") {
				t.Errorf("error messages start with \"paneflow: \":\n%s", r)
			}
		})
	}
}
