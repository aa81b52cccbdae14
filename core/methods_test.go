//go:build !windows

package core

import (
	"context"
	"os/exec"
	"slices"
	"testing"

	"github.com/paneflow-go/paneflow/proto"
)

// TestMethodsDeclared checks that a core registers exactly the methods
// package proto declares: a method registered anywhere must be declared
// there (with its params and result types), and a declared one must
// exist. system.capabilities lists what the registry holds.
func TestMethodsDeclared(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH, so the worktree owner and its methods are skipped")
	}
	_, cl := startCore(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	caps, err := proto.Client{Caller: cl}.Capabilities(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := proto.Methods()
	for _, m := range caps.Methods {
		if !slices.Contains(want, m) {
			t.Errorf("the server registers %s, which package proto does not declare: add it to proto/methods.go with its params and result types", m)
		}
	}
	for _, m := range want {
		if !slices.Contains(caps.Methods, m) {
			t.Errorf("package proto declares %s, which the server does not register", m)
		}
	}
}
