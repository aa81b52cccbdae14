//go:build client

package main

import (
	"strings"
	"testing"
)

// TestRunInServerNamesTheVerb: a call handed over with a host is named
// by its verb when the server binary is missing, as the test binary's
// directory has none.
func TestRunInServerNamesTheVerb(t *testing.T) {
	inv := &invocation{getenv: func(string) string { return "" }}
	withHost(inv, "ssh://h")
	err := runInServer(inv, []string{"wait", "--pattern", "x"})
	if err == nil || !strings.HasPrefix(err.Error(), "wait: ") || !strings.Contains(err.Error(), "runs `wait`") {
		t.Errorf("runInServer = %v, want an error naming wait", err)
	}
}
