//go:build !windows

package api

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/workspace"
)

// fakeOwner records what it adopts; a non-nil notReady is what Ready
// reports.
type fakeOwner struct {
	mu       sync.Mutex
	adopted  []string
	notReady error
}

func (f *fakeOwner) Ready() error { return f.notReady }

func (f *fakeOwner) Adopt(id uint64, w proto.ManagedWorktree) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.adopted = append(f.adopted, fmt.Sprintf("%d %s %s %s %s", id, w.Path, w.Branch, w.Teardown, w.Action))
}

func TestManagedWorktreeAdopted(t *testing.T) {
	own := &fakeOwner{}
	e := newEnv(t, workspace.Options{}, Options{Worktrees: own})
	dir := t.TempDir()
	var up proto.WorkspaceUpResult
	e.ok("workspace.up", `{"panes":[{"cwd":"`+dir+`"},{"cwd":"`+dir+`","managed_worktree":{"path":"/r.worktrees/b","repo_root":"/r","branch":"b","action":"create"}}]}`, &up)
	var sp proto.SurfaceSplitResult
	e.ok("surface.split", `{"direction":"vertical","surface_id":1,"managed_worktree":{"path":"/r.worktrees/c","repo_root":"/r","branch":"c","teardown":"keep"}}`, &sp)
	want := []string{
		fmt.Sprintf("%d /r.worktrees/b b auto create", up.SurfaceIDs[1]),
		fmt.Sprintf("%d /r.worktrees/c c keep ", sp.SurfaceID),
	}
	if fmt.Sprint(own.adopted) != fmt.Sprint(want) {
		t.Fatalf("adopted %q, want %q", own.adopted, want)
	}
}

func TestManagedWorktreeInvalid(t *testing.T) {
	e := newEnv(t, workspace.Options{}, Options{Worktrees: &fakeOwner{}})
	for _, c := range []struct{ params, msg string }{
		{`{"panes":[{"managed_worktree":{"path":"rel","repo_root":"/r"}}]}`, "pane 0: managed_worktree needs absolute 'path' and 'repo_root'"},
		{`{"panes":[{"managed_worktree":{"path":"/p","repo_root":"/r","teardown":"never"}}]}`, `pane 0: managed_worktree.teardown must be "auto" or "keep", got 'never'`},
		{`{"panes":[{"managed_worktree":{"path":"/p","repo_root":"/r","action":"steal"}}]}`, `pane 0: managed_worktree.action must be "create" or "reuse", got 'steal'`},
		{`{"panes":[{"managed_worktree":"x"}]}`, "pane 0: managed_worktree: expected proto.ManagedWorktree, got string"},
	} {
		_, err := e.call("workspace.up", c.params)
		if re := rpcErr(t, err); re.Message != c.msg {
			t.Errorf("%s: got %q, want %q", c.params, re.Message, c.msg)
		}
	}
}

// TestManagedWorktreeOwnerNotReady: an owner that cannot take worktrees
// (git missing) has the param refused with its reason, before any pane
// is made.
func TestManagedWorktreeOwnerNotReady(t *testing.T) {
	own := &fakeOwner{notReady: errors.New("git not found")}
	e := newEnv(t, workspace.Options{}, Options{Worktrees: own}).withWorkspace("")
	before := len(e.m.Surfaces())
	mw := `"managed_worktree":{"path":"/r.worktrees/b","repo_root":"/r","branch":"b","action":"create"}`
	for _, c := range []struct{ method, params, msg string }{
		{"workspace.up", `{"panes":[{},{` + mw + `}]}`, "pane 1: managed_worktree is not supported by this server: git not found"},
		{"surface.split", `{"direction":"vertical",` + mw + `}`, "managed_worktree is not supported by this server: git not found"},
	} {
		_, err := e.call(c.method, c.params)
		if re := rpcErr(t, err); re.Message != c.msg {
			t.Errorf("%s: got %q, want %q", c.method, re.Message, c.msg)
		}
	}
	if n := len(e.m.Surfaces()); n != before || len(own.adopted) != 0 {
		t.Errorf("%d panes (want %d), adopted %q", n, before, own.adopted)
	}
}
