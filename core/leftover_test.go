//go:build !windows

package core

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/paneflow-go/paneflow/shim"
	"github.com/paneflow-go/paneflow/worktree"
)

// TestTeardownDeletesLaunchHookLeftovers: a worktree whose only change is
// the hook file a launch shim wrote and never removed (Gemini CLI's
// .gemini/settings.json: the shim was killed) is removed by teardown, as
// core wires it; the same file with a setting of the user's in it, or
// next to another untracked file, keeps the worktree and is left as it
// is. Real git, real shim injection.
func TestTeardownDeletesLaunchHookLeftovers(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	state := t.TempDir()
	inject := func(dir string) string {
		in := shim.Inject(shim.Launch{Tool: "gemini", Dir: dir, Home: t.TempDir(), HookPath: "/opt/paneflow/paneflow-ai-hook",
			StateDir: state, PID: os.Getpid(), Getenv: func(k string) string {
				return map[string]string{"GEMINI_CLI_TRUST_WORKSPACE": "true"}[k]
			}})
		if !in.Hooked {
			t.Fatalf("no hooks injected into %s: %v", dir, in.Warnings)
		}
		return filepath.Join(dir, ".gemini", "settings.json") // never cleaned up: the shim "died"
	}
	mk := func(branch string) string {
		p, err := worktree.PlanFor(ctx, root, branch)
		if err != nil {
			t.Fatal(err)
		}
		if err := worktree.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		return p.Path
	}

	onlyOurs := mk("only-ours")
	inject(onlyOurs)
	if out, err := worktree.TeardownWith(ctx, root, onlyOurs, shim.ProjectLeftover); out != worktree.Removed || err != nil {
		t.Fatalf("worktree with only the launch's hook file: %v, %v; want removed", out, err)
	}
	if _, err := os.Stat(onlyOurs); !os.IsNotExist(err) {
		t.Fatalf("worktree still there: %v", err)
	}
	// Without the predicate the same leftovers keep it (the old defect).
	plain := mk("plain")
	inject(plain)
	if out, _ := worktree.Teardown(ctx, root, plain); out != worktree.Kept {
		t.Fatalf("plain Teardown of a worktree with a hook file: %v, want kept", out)
	}

	userEdit := mk("user-edit")
	settings := inject(userEdit)
	data, _ := os.ReadFile(settings)
	edited := append([]byte(`{"theme":"dark",`), data[1:]...) // the user's setting in the same file
	if err := os.WriteFile(settings, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _ := worktree.TeardownWith(ctx, root, userEdit, shim.ProjectLeftover); out != worktree.Kept {
		t.Fatalf("hook file with a user setting: %v, want kept", out)
	}
	if got, _ := os.ReadFile(settings); string(got) != string(edited) {
		t.Fatalf("the user's file was changed:\n%s", got)
	}

	withWork := mk("with-work")
	settings = inject(withWork)
	if err := os.WriteFile(filepath.Join(withWork, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _ := worktree.TeardownWith(ctx, root, withWork, shim.ProjectLeftover); out != worktree.Kept {
		t.Fatalf("hook file and the user's file: %v, want kept", out)
	}
	if _, err := os.Stat(settings); err != nil {
		t.Fatalf("a kept worktree lost the hook file: %v", err)
	}
}
