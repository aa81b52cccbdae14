package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/internal/exefile"
)

// TestMain lets the test binary stand in for a packaged program: with
// PKGTOOL_FAKE_PROGRAM set it prints the help fakeProgram gives for its
// arguments and exits, so writeManPages runs real processes on every
// platform.
func TestMain(m *testing.M) {
	if os.Getenv("PKGTOOL_FAKE_PROGRAM") != "" {
		os.Exit(fakeProgram(os.Args[1:], os.Stdout))
	}
	os.Exit(m.Run())
}

const fakeHelp = `Paneflow: a fake workspace for tests.

Usage:
  paneflow <verb> [args]    run a verb and exit

Verbs:
  help      print this help
  ls        list the panes (also: list_panes)
  close-all close every pane

Exit codes: 0 ok, 1 failure.`

// fakeProgram is the fake paneflow, paneflow-server and paneflow-mcp.
// PKGTOOL_FAKE_FAIL names an argument list that fails.
func fakeProgram(args []string, out io.Writer) int {
	a := strings.Join(args, " ")
	if a == os.Getenv("PKGTOOL_FAKE_FAIL") {
		fmt.Fprintln(out, "broken")
		return 1
	}
	switch a {
	case "help":
		fmt.Fprintln(out, fakeHelp)
	case "help help":
		fmt.Fprintln(out, "Usage: paneflow help [verb]")
	case "help ls":
		fmt.Fprint(out, "Usage: paneflow ls [--human]\r\n\r\n.a line starting with a dot\r\n'and a quote, a back\\slash  \r\n")
	case "help close-all":
		fmt.Fprintln(out, "Usage: paneflow close-all")
	case "serve --help":
		fmt.Fprintln(out, "usage: paneflow serve [--socket PATH]\n\nRun headless.")
	case "--help":
		fmt.Fprintln(out, "usage: paneflow-mcp [--orchestrate]")
		return 2
	default:
		fmt.Fprintf(out, "unknown %q\n", a)
		return 1
	}
	return 0
}

// manFixture makes a bin directory of fake programs (copies of the test
// binary) and a cmd directory with their packages' doc comments.
func manFixture(t *testing.T, progs ...string) (bin, cmd string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin, cmd = filepath.Join(dir, "bin"), filepath.Join(dir, "cmd")
	exe := ""
	if runtime.GOOS == "windows" {
		exe = ".exe"
	}
	docs := map[string]string{
		"paneflow":      "// Paneflow is a fake desktop app.\n// .It has a line starting with a dot.\n//\n//\tpaneflow -x\n//\n// A list:\n//   - one item\npackage main\n",
		"paneflow-shim": "// Paneflow-shim is the launch shim: it runs the agent. More text.\npackage main\n",
		"paneflow-mcp":  "// Paneflow-mcp is the MCP bridge: more.\npackage main\n",
	}
	for d, doc := range docs {
		write(t, mkdir(t, filepath.Join(cmd, d)), "main.go", []byte(doc))
		write(t, filepath.Join(cmd, d), "main_test.go", []byte("// Not the doc.\npackage main\n"))
	}
	mkdir(t, bin)
	for _, p := range progs {
		if err := exefile.Write(filepath.Join(bin, p+exe), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PKGTOOL_FAKE_PROGRAM", "1")
	return bin, cmd
}

func mkdir(t *testing.T, d string) string {
	t.Helper()
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestManPages(t *testing.T) {
	bin, cmd := manFixture(t, "paneflow", "paneflow-server", "paneflow-shim", "paneflow-mcp")
	out := filepath.Join(t.TempDir(), "man")
	var stdout, stderr bytes.Buffer
	args := []string{"man", "-o", out, "-bin", bin, "-cmd", cmd, "-version", "1.2.3-4-gabc", "-date", "2026-11-25"}
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("pkgtool man exited %d: %s", code, stderr.String())
	}
	page := func(name string) string {
		b, err := os.ReadFile(filepath.Join(out, name+".1"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	p := page("paneflow")
	for _, want := range []string{
		".TH PANEFLOW 1 2026-11-25 \"Paneflow 1.2.3\\-4\\-gabc\" \"User Commands\"\n",
		".SH NAME\npaneflow \\- a fake workspace for tests\n",
		// The doc comment: filled text, a leading dot escaped, code
		// kept, a list item.
		".SH DESCRIPTION\n.PP\nPaneflow is a fake desktop app.\n\\&.It has a line starting with a dot.\n",
		".RS 4\n.nf\npaneflow \\-x\n.fi\n.RE\n",
		".IP \\(bu 2\none item\n",
		// The help, verbatim in a no-fill block.
		".SH OPTIONS\n.nf\nPaneflow: a fake workspace for tests.\n",
		"  close\\-all close every pane\n",
		// Every verb's help, CRLF and trailing blanks dropped, lines
		// that would be requests escaped, backslashes too.
		".SH VERBS\n.SS help\n",
		".SS ls\n.nf\nUsage: paneflow ls [\\-\\-human]\n\n\\&.a line starting with a dot\n\\&'and a quote, a back\\eslash\n.fi\n",
		".SS close\\-all\n",
		".SH SEE ALSO\n.BR paneflow\\-mcp (1),\n.BR paneflow\\-server (1),\n.BR paneflow\\-shim (1)\n",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("paneflow.1 lacks %q:\n%s", want, p)
		}
	}
	if strings.Contains(p, "\r") || strings.Contains(p, "Not the doc") {
		t.Errorf("paneflow.1 has a CR or a test file's comment:\n%s", p)
	}
	s := page("paneflow-server")
	for _, want := range []string{
		".SH NAME\npaneflow\\-server \\- Paneflow without its window: the server `paneflow serve` runs, and every verb\n",
		".SH OPTIONS\n.nf\nusage: paneflow serve [\\-\\-socket PATH]\n\nRun headless.\n.fi\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("paneflow-server.1 lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, ".SH VERBS") {
		t.Errorf("paneflow-server.1 has a VERBS section:\n%s", s)
	}
	if sh := page("paneflow-shim"); !strings.Contains(sh, ".SH NAME\npaneflow\\-shim \\- the launch shim\n") ||
		strings.Contains(sh, ".SH OPTIONS") {
		t.Errorf("paneflow-shim.1: want the doc's summary and no OPTIONS:\n%s", sh)
	}
	if m := page("paneflow-mcp"); !strings.Contains(m, ".SH OPTIONS\n.nf\nusage: paneflow\\-mcp [\\-\\-orchestrate]\n.fi\n") {
		t.Errorf("paneflow-mcp.1 lacks its usage (exit 2 expected):\n%s", m)
	}
}

func TestManPageErrors(t *testing.T) {
	for _, tc := range []struct {
		name, fail string
		progs      []string
		want       string
	}{
		{"a verb's help fails", "help close-all", []string{"paneflow"}, "help close-all"},
		{"the main help fails", "help", []string{"paneflow"}, "broken"},
		{"no package doc", "", []string{"paneflow-ai-hook"}, "paneflow-ai-hook"},
		{"mcp exits 0 instead of 2", "", []string{"paneflow-mcp"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin, cmd := manFixture(t, tc.progs...)
			t.Setenv("PKGTOOL_FAKE_FAIL", tc.fail)
			if tc.name == "mcp exits 0 instead of 2" {
				// Replace the fake --help by a successful one.
				t.Setenv("PKGTOOL_FAKE_FAIL", "none")
				manSpecs2 := manSpecs["paneflow-mcp"]
				manSpecs2.help = []string{"help"}
				old := manSpecs["paneflow-mcp"]
				manSpecs["paneflow-mcp"] = manSpecs2
				defer func() { manSpecs["paneflow-mcp"] = old }()
				tc.want = "exit status 0, want 2"
			}
			err := writeManPages(filepath.Join(t.TempDir(), "man"), bin, cmd, "v", "2026-11-25")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("writeManPages = %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
	if err := writeManPages(t.TempDir(), t.TempDir(), "cmd", "v", "2026-11-25"); err == nil {
		t.Error("writeManPages of an empty bin directory succeeded")
	}
}

func TestHelpVerbsAndSummary(t *testing.T) {
	if got := strings.Join(helpVerbs(fakeHelp), " "); got != "help ls close-all" {
		t.Errorf("helpVerbs = %q", got)
	}
	if got := helpVerbs("Usage: x\n"); got != nil {
		t.Errorf("helpVerbs without a Verbs block = %q", got)
	}
	for doc, want := range map[string]string{
		"Paneflow-x is the thing: more. And more.\n": "the thing",
		"Paneflow-y is a tool. Next sentence.\n":     "a tool",
		"Runs things.\n":                             "Runs things.",
	} {
		if got := docSummary(doc); got != want {
			t.Errorf("docSummary(%q) = %q, want %q", doc, got, want)
		}
	}
}
