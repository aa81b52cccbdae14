//go:build windows

package autostart

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/windows"
)

// TestWindowsArgMatchesSystem: Windows' own command-line splitter reads
// the quoted arguments back as they were.
func TestWindowsArgMatchesSystem(t *testing.T) {
	q := []string{`C:\pf.exe`}
	for _, a := range windowsArgCases {
		q = append(q, WindowsArg(a))
	}
	got, err := windows.DecomposeCommandLine(strings.Join(q, " "))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%q", got[1:]) != fmt.Sprintf("%q", windowsArgCases) {
		t.Errorf("Windows splits %q\ninto %q\nwant %q", strings.Join(q, " "), got[1:], windowsArgCases)
	}
}

// TestSchtasksRegisters registers the logon task with the real schtasks
// under a test name, finds it ours and unchanged, and deletes it. It
// changes the machine's task list for a moment, so it runs only with
// PANEFLOW_TEST_SCHTASKS=1.
func TestSchtasksRegisters(t *testing.T) {
	if os.Getenv("PANEFLOW_TEST_SCHTASKS") != "1" {
		t.Skip("set PANEFLOW_TEST_SCHTASKS=1 to register (and delete) a real logon task")
	}
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	home, _ := os.UserHomeDir()
	s, err := For(Options{Exe: exe, Home: home, GOOS: "windows", User: tu.User.Sid.String(), Socket: t.TempDir() + `\a b.sock`})
	if err != nil {
		t.Fatal(err)
	}
	s.Task = fmt.Sprintf("Paneflow test %d", os.Getpid())
	ctx := context.Background()
	if changed, err := s.Install(ctx); !changed || err != nil {
		t.Fatalf("install: %v, %v", changed, err)
	}
	defer s.Uninstall(ctx)
	if ok, err := s.Installed(ctx); !ok || err != nil {
		t.Errorf("installed: %v, %v", ok, err)
	}
	if changed, err := s.Install(ctx); changed || err != nil {
		t.Errorf("install again: changed %v, %v", changed, err)
	}
	if removed, err := s.Uninstall(ctx); !removed || err != nil {
		t.Errorf("uninstall: %v, %v", removed, err)
	}
	if ok, _ := s.Installed(ctx); ok {
		t.Error("still installed after uninstall")
	}
}
