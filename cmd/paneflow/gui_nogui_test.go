//go:build nogui || client

package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

func TestGUINotBuilt(t *testing.T) {
	var stdout, stderr bytes.Buffer
	inv := &invocation{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
		getenv: func(string) string { return ":0" }, goos: "linux"}
	err := runGUI(context.Background(), inv, nil)
	var ee *exitError
	if !errors.As(err, &ee) || ee.Code != exitUsage {
		t.Fatalf("runGUI = %v, want exit code %d", err, exitUsage)
	}
	if got := stderr.String(); !strings.Contains(got, "nogui") || !strings.Contains(got, "paneflow serve") {
		t.Errorf("stderr = %q, want it to name the nogui tag and paneflow serve", got)
	}
}
