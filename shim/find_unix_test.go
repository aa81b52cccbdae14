//go:build !windows

package shim

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFinderFind(t *testing.T) {
	root := t.TempDir()
	shimDir := filepath.Join(root, "shims")
	self := writeExec(t, shimDir, ShimBinary, "exit 0")
	if err := os.Symlink(ShimBinary, filepath.Join(shimDir, "codex")); err != nil {
		t.Fatal(err)
	}
	realDir := filepath.Join(root, "real")
	real := writeExec(t, realDir, "codex", "exit 0")

	// A hardlink to the shim in another directory (hardlink guard).
	linkDir := filepath.Join(root, "hard")
	os.MkdirAll(linkDir, 0o755)
	if err := os.Link(self, filepath.Join(linkDir, "codex")); err != nil {
		t.Fatal(err)
	}
	// A directory of another version's shims, marked.
	otherShims := filepath.Join(root, "other-shims")
	writeExec(t, otherShims, "codex", "exit 0")
	writeFile(t, filepath.Join(otherShims, markerFile), "")
	// A symlink to some other paneflow-shim binary.
	foreign := filepath.Join(root, "foreign")
	writeExec(t, foreign, ShimBinary, "exit 0")
	symDir := filepath.Join(root, "sym")
	os.MkdirAll(symDir, 0o755)
	os.Symlink(filepath.Join(foreign, ShimBinary), filepath.Join(symDir, "codex"))
	// Not executable.
	noExec := filepath.Join(root, "noexec")
	writeFile(t, filepath.Join(noExec, "codex"), "#!/bin/sh\n")
	// A symlinked alias of the shim directory.
	alias := filepath.Join(root, "alias")
	os.Symlink(shimDir, alias)

	join := func(dirs ...string) string { return strings.Join(dirs, string(os.PathListSeparator)) }
	tests := []struct {
		name string
		path string
		want string
	}{
		{"own dir skipped", join(shimDir, realDir), real},
		{"own dir through a symlink skipped", join(alias, realDir), real},
		{"hardlink to the shim skipped", join(linkDir, realDir), real},
		{"marked shim dir skipped", join(otherShims, realDir), real},
		{"symlink to a paneflow-shim skipped", join(symDir, realDir), real},
		{"no exec bit skipped", join(noExec, realDir), real},
		{"relative and empty entries skipped", join("", ".", "real", realDir), real},
		{"missing", join(shimDir, linkDir, noExec), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Finder{Path: tt.path, Skip: []string{shimDir}, Self: self}
			t.Chdir(root) // "real" is relative to here: it must still be skipped
			got, err := f.Find("codex")
			if tt.want == "" {
				if !errors.Is(err, ErrNotFound) {
					t.Fatalf("Find = %q, %v; want ErrNotFound", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Find = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// runProgram runs p with a temporary file as stderr and returns the
// exit code and what it wrote there.
func runProgram(t *testing.T, p Program) (int, string) {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p.Stderr = f
	if p.Stdout == nil {
		p.Stdout = f
	}
	code := p.Run()
	return code, readFile(t, f.Name())
}

func TestRunNotFound(t *testing.T) {
	root := t.TempDir()
	shimDir := filepath.Join(root, "shims")
	self := writeExec(t, shimDir, ShimBinary, "exit 0")
	os.Symlink(ShimBinary, filepath.Join(shimDir, "gemini"))
	code, stderr := runProgram(t, Program{
		Args:       []string{filepath.Join(shimDir, "gemini"), "--version"},
		Environ:    []string{"PATH=" + shimDir + string(os.PathListSeparator) + filepath.Join(root, "empty")},
		Executable: self,
	})
	if code != ExitNotFound || !strings.Contains(stderr, "gemini: command not found") {
		t.Fatalf("Run = %d, stderr %q; want %d and a not-found message", code, stderr, ExitNotFound)
	}
}

func TestRunUsage(t *testing.T) {
	code, stderr := runProgram(t, Program{Args: []string{"/x/paneflow-shim"}, Executable: "/x/paneflow-shim"})
	if code != ExitUsage || !strings.Contains(stderr, "not an agent") {
		t.Fatalf("Run = %d, stderr %q; want %d and a usage message", code, stderr, ExitUsage)
	}
}

func TestToolOf(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"codex", "codex", true},
		{"/home/u/.cache/paneflow/bin/dev/claude", "claude", true},
		{`C:\x\cursor-agent.EXE`, "cursor-agent", true},
		{"Codex", "", false},
		{"paneflow-shim", "", false},
		{"codex.cmd", "", false},
	}
	for _, tt := range tests {
		if got, ok := ToolOf(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("ToolOf(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
