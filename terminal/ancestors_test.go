package terminal

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"testing"
)

// TestAncestors checks that a child's ancestry starts with this test
// process, then this process's parent.
func TestAncestors(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" && runtime.GOOS != "windows" {
		t.Skip("no process table on " + runtime.GOOS)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if runtime.GOOS != "windows" {
		cmd = exec.Command("sleep", "5")
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	got, err := Ancestors(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 2 || got[0] != os.Getpid() || got[1] != os.Getppid() {
		t.Fatalf("Ancestors(child) = %v, want [%d %d ...]", got, os.Getpid(), os.Getppid())
	}
	if slices.Contains(got, cmd.Process.Pid) {
		t.Fatalf("Ancestors(child) = %v holds the child itself", got)
	}
}

// TestAncestorsNoProcess checks that an unknown pid is an error, not an
// empty ancestry (which would read as "started by nobody of ours").
func TestAncestorsNoProcess(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" && runtime.GOOS != "windows" {
		t.Skip("no process table on " + runtime.GOOS)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	// The child was reaped: its pid names no process (reuse within the
	// test is as good as impossible: pids cycle through pid_max first).
	if _, err := Ancestors(cmd.Process.Pid); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Ancestors(reaped child) error = %v, want os.ErrNotExist", err)
	}
}
