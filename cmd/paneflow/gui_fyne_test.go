//go:build !nogui && !client

package main

import (
	"bytes"
	"context"
	"errors"
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
