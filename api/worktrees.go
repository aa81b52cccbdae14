package api

import (
	"bytes"
	"encoding/json"
	"path/filepath"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// WorktreeOwner takes charge of the git worktrees that workspace.up and
// surface.split hand over with their panes (the managed_worktree param):
// it tears a worktree down per its policy once the last pane in it
// closes. Core implements it over package worktree; the api does not
// import it. Its methods are called from request goroutines,
// concurrently, and must not block for long.
type WorktreeOwner interface {
	// Ready reports nil when the owner takes worktrees, else why not (git
	// is missing, it is not running): a managed_worktree param is then
	// refused with that reason, before any pane is made.
	Ready() error
	// Adopt hands over the worktree of a pane that now exists (its
	// Teardown is set: "auto" when the client left it empty).
	Adopt(surfaceID uint64, w proto.ManagedWorktree)
}

// managedWorktree validates a pane's managed_worktree: nil when absent or
// null.
func (s *server) managedWorktree(raw json.RawMessage, prefix string) (*proto.ManagedWorktree, error) {
	if proto.IsAbsent(raw) {
		return nil, nil
	}
	v := bytes.TrimSpace(raw)
	if s.o.Worktrees == nil {
		return nil, ipc.InvalidParams("%smanaged_worktree is not supported by this server", prefix)
	}
	if err := s.o.Worktrees.Ready(); err != nil {
		return nil, ipc.InvalidParams("%smanaged_worktree is not supported by this server: %v", prefix, err)
	}
	var w proto.ManagedWorktree
	if err := json.Unmarshal(v, &w); err != nil {
		return nil, ipc.InvalidParams("%smanaged_worktree: %s", prefix, proto.JSONDetail(err))
	}
	switch {
	case !filepath.IsAbs(w.Path) || !filepath.IsAbs(w.RepoRoot):
		return nil, ipc.InvalidParams("%smanaged_worktree needs absolute 'path' and 'repo_root'", prefix)
	case w.Teardown != "" && w.Teardown != proto.TeardownAuto && w.Teardown != proto.TeardownKeep:
		return nil, ipc.InvalidParams(`%smanaged_worktree.teardown must be "auto" or "keep", got '%s'`, prefix, w.Teardown)
	case w.Action != "" && w.Action != proto.ActionCreate && w.Action != proto.ActionReuse:
		return nil, ipc.InvalidParams(`%smanaged_worktree.action must be "create" or "reuse", got '%s'`, prefix, w.Action)
	}
	if w.Teardown == "" {
		w.Teardown = proto.TeardownAuto
	}
	return &w, nil
}
