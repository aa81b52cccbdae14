package api

import (
	"bytes"
	"encoding/json"
	"path/filepath"

	"github.com/paneflow-go/paneflow/ipc"
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
	// Adopt hands over the worktree of a pane that now exists.
	Adopt(surfaceID uint64, w ManagedWorktree)
}

// ManagedWorktree is a pane's managed_worktree param: a worktree the
// client planned (and created, when Action is "create") for the pane.
type ManagedWorktree struct {
	Path     string `json:"path"`
	RepoRoot string `json:"repo_root"`
	Branch   string `json:"branch"`
	// Teardown is "auto" (remove it when clean once its panes are gone)
	// or "keep"; "" means auto.
	Teardown string `json:"teardown"`
	// Action is "create" when the client created it for this pane, so
	// the server may remove it; "reuse" (or "") when it existed already,
	// so only a worktree the server already owns is ever removed.
	Action string `json:"action"`
}

// managedWorktree validates a pane's managed_worktree: nil when absent or
// null.
func (s *server) managedWorktree(raw json.RawMessage, prefix string) (*ManagedWorktree, error) {
	v := bytes.TrimSpace(raw)
	if len(v) == 0 || bytes.Equal(v, []byte("null")) {
		return nil, nil
	}
	if s.o.Worktrees == nil {
		return nil, ipc.InvalidParams("%smanaged_worktree is not supported by this server", prefix)
	}
	if err := s.o.Worktrees.Ready(); err != nil {
		return nil, ipc.InvalidParams("%smanaged_worktree is not supported by this server: %v", prefix, err)
	}
	var w ManagedWorktree
	if err := json.Unmarshal(v, &w); err != nil {
		return nil, ipc.InvalidParams("%smanaged_worktree: %s", prefix, jsonDetail(err))
	}
	switch {
	case !filepath.IsAbs(w.Path) || !filepath.IsAbs(w.RepoRoot):
		return nil, ipc.InvalidParams("%smanaged_worktree needs absolute 'path' and 'repo_root'", prefix)
	case w.Teardown != "" && w.Teardown != "auto" && w.Teardown != "keep":
		return nil, ipc.InvalidParams(`%smanaged_worktree.teardown must be "auto" or "keep", got '%s'`, prefix, w.Teardown)
	case w.Action != "" && w.Action != "create" && w.Action != "reuse":
		return nil, ipc.InvalidParams(`%smanaged_worktree.action must be "create" or "reuse", got '%s'`, prefix, w.Action)
	}
	if w.Teardown == "" {
		w.Teardown = "auto"
	}
	return &w, nil
}
