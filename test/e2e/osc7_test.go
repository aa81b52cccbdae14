//go:build linux

package e2e

import (
	"path/filepath"
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
