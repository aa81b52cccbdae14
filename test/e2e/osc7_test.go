//go:build linux

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOSC7ThisHostOnly (issue 25): a program's OSC 7 names its pane's
// directory only for this machine and only without control characters;
// refused, the pane's directory is its process's own, which ls shows.
func TestOSC7ThisHostOnly(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	real, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// The sequences travel in the environment, printed with %s as they are.
	refused := s.command(`cd "$REAL" && printf '%s' "$A" "$B" "$C" && echo marked && exec sleep 600`,
		"--env", "REAL="+real,
		"--env", "A=\x1b]7;file://evil.example/etc\x07",
		"--env", "B=\x1b]7;file:///tmp/a%1b%5d0%3bx%07b\x07",
		"--env", "C=\x1b]7;file:///tmp/%e2%80%aeexe.txt\x07")
	accepted := s.command(`printf '%s' "$A" && echo marked && exec sleep 600`,
		"--env", "A=\x1b]7;file://localhost/srv/from-osc7\x07")
	s.waitOutput(id(refused), "marked")
	s.waitOutput(id(accepted), "marked")
	if r, _ := s.surface(refused); r.Cwd == nil || *r.Cwd != real {
		t.Errorf("refused OSC 7: ls cwd %v; want the process's own %s", str(r.Cwd), real)
	}
	if r, _ := s.surface(accepted); r.Cwd == nil || *r.Cwd != "/srv/from-osc7" {
		t.Errorf("this host's OSC 7: ls cwd %v; want /srv/from-osc7", str(r.Cwd))
	}
}

// TestHumanListingsEscaped (issue 25): a pane whose process runs in a
// directory and whose command line hold escape sequences shows in
// ls --human with those sequences as visible escapes; ls's JSON keeps the
// exact bytes.
func TestHumanListingsEscaped(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	dir := filepath.Join(t.TempDir(), "d\x1b]0;pwned\x07\x1b[2J")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	pane := s.command("cd \"$D\" && echo ready && exec sleep 600 # \x1b[31mred", "--env", "D="+dir)
	s.waitOutput(id(pane), "ready")
	s.eventually("the pane's cwd in ls", func() (bool, string) {
		r, _ := s.surface(pane)
		return str(r.Cwd) == dir && strings.Contains(str(r.Cmd), "\x1b[31mred"), fmt.Sprintf("cwd %q cmd %q", str(r.Cwd), str(r.Cmd))
	})
	out := s.mustCLI(nil, "ls", "--human").stdout
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("ls --human wrote control characters to the terminal:\n%q", out)
	}
	if !strings.Contains(out, `d\x1b]0;pwned\x07\x1b[2J`) || !strings.Contains(out, `\x1b[31mred`) {
		t.Errorf("ls --human does not show the escapes:\n%s", out)
	}
}
