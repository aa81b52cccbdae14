//go:build !nogui && !client

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestGUIWithoutDisplay(t *testing.T) {
	var stdout, stderr bytes.Buffer
	inv := &invocation{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
		getenv: func(string) string { return "" }, goos: "linux"}
	err := runGUI(context.Background(), inv, []string{"--socket", "/nonexistent/x.sock"})
	var ee *exitError
	if !errors.As(err, &ee) || ee.Code != exitUsage {
		t.Fatalf("runGUI = %v, want exit code %d", err, exitUsage)
	}
	if got := stderr.String(); got != noDisplayMessage+"\n" {
		t.Errorf("stderr = %q, want %q", got, noDisplayMessage+"\n")
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q, want nothing", stdout.String())
	}
}

// TestCLocaleQuiet runs this test binary again under LANG=C.UTF-8: Fyne,
// initialised before main, must log no "Error parsing user locale C" (it
// did, on every command of the desktop binary), and the LANGUAGE that
// internal/clocale set for it must be gone by the time main runs (the
// server and the panes' shells inherit the app's environment).
func TestCLocaleQuiet(t *testing.T) {
	if os.Getenv("PANEFLOW_TEST_CLOCALE") == "1" {
		fmt.Printf("LANGUAGE=%q\n", os.Getenv("LANGUAGE"))
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCLocaleQuiet$", "-test.count=1")
	cmd.Env = []string{"PANEFLOW_TEST_CLOCALE=1", "LANG=C.UTF-8", "HOME=" + t.TempDir()}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	if strings.Contains(stderr.String(), "locale") {
		t.Errorf("stderr under LANG=C.UTF-8:\n%s", stderr.String())
	}
	if !strings.Contains(stdout.String(), `LANGUAGE=""`) {
		t.Errorf("LANGUAGE left set for main: %s", stdout.String())
	}
}
