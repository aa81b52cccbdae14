package worktree

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/paneflow-go/paneflow/internal/atomicfile"
)

// Record is a worktree Paneflow created and may remove again.
type Record struct {
	Path     string `json:"path"`
	RepoRoot string `json:"repo_root"`
	Branch   string `json:"branch"`
	Teardown string `json:"teardown"` // TeardownAuto or TeardownKeep
}

// Registry remembers, in a JSON file, the worktrees Paneflow created, so
// that teardown removes only those and a later start finds the ones a
// crash left behind. The zero value is not usable; use [OpenRegistry].
// Methods are safe for concurrent use.
type Registry struct {
	// Leftovers recognizes files of Paneflow's own that Prune's
	// teardowns delete (see [TeardownWith]); nil: none. Set it before
	// the first Prune.
	Leftovers Leftovers

	path string
	mu   sync.Mutex
}

// OpenRegistry returns the registry kept in the file at path (created on
// the first Add; its directory too).
func OpenRegistry(path string) *Registry { return &Registry{path: path} }

// loadLocked reads the records; a missing file is an empty registry, an
// unreadable one an error (it is never overwritten then).
func (r *Registry) loadLocked() ([]Record, error) {
	b, err := os.ReadFile(r.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("worktree: registry: %w", err)
	}
	var recs []Record
	if err := json.Unmarshal(b, &recs); err != nil {
		return nil, fmt.Errorf("worktree: registry %s is not valid JSON (left untouched): %v", r.path, err)
	}
	return recs, nil
}

func (r *Registry) saveLocked(recs []Record) error {
	if recs == nil {
		recs = []Record{}
	}
	b, err := json.MarshalIndent(recs, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(r.path), 0o700); err != nil {
		return fmt.Errorf("worktree: registry: %w", err)
	}
	return atomicfile.Write(r.path, bytes.NewReader(append(b, '\n')), 0o600)
}

// Records returns the worktrees recorded.
func (r *Registry) Records() ([]Record, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.loadLocked()
}

// Owns reports whether the worktree at path is recorded (Paneflow created
// it); its record is returned too.
func (r *Registry) Owns(path string) (Record, bool) {
	recs, err := r.Records()
	if err != nil {
		return Record{}, false
	}
	for _, rec := range recs {
		if samePath(rec.Path, path) {
			return rec, true
		}
	}
	return Record{}, false
}

// Add records rec, replacing a record of the same path.
func (r *Registry) Add(rec Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	recs, err := r.loadLocked()
	if err != nil {
		return err
	}
	out := recs[:0]
	for _, x := range recs {
		if !samePath(x.Path, rec.Path) {
			out = append(out, x)
		}
	}
	return r.saveLocked(append(out, rec))
}

// Forget drops the record of path, if any.
func (r *Registry) Forget(path string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	recs, err := r.loadLocked()
	if err != nil {
		return err
	}
	out := recs[:0]
	for _, x := range recs {
		if !samePath(x.Path, path) {
			out = append(out, x)
		}
	}
	if len(out) == len(recs) {
		return nil
	}
	return r.saveLocked(out)
}

// PruneResult is what Prune did with one recorded worktree.
type PruneResult struct {
	Record  Record
	Outcome Outcome // Removed, Pruned or Kept
	Err     error   // why it was kept, or what failed
}

// Prune cleans up the orphans of an earlier run, at start-up: every
// recorded worktree that inUse does not claim (nil: none is in use) is
// torn down as [Teardown] does when its policy is "auto" (a dirty one is
// kept, and stays recorded so that a later start tries again); one whose
// policy is "keep" is forgotten, and so left to the user. It returns one
// result per record handled.
func (r *Registry) Prune(ctx context.Context, inUse func(path string) bool) ([]PruneResult, error) {
	recs, err := r.Records()
	if err != nil {
		return nil, err
	}
	var res []PruneResult
	for _, rec := range recs {
		if inUse != nil && inUse(rec.Path) {
			continue
		}
		if rec.Teardown == TeardownKeep {
			if err := r.Forget(rec.Path); err != nil {
				return res, err
			}
			continue
		}
		if _, err := os.Stat(rec.RepoRoot); err != nil {
			res = append(res, PruneResult{Record: rec, Outcome: Pruned, Err: fmt.Errorf("repository %s is gone", rec.RepoRoot)})
			if err := r.Forget(rec.Path); err != nil {
				return res, err
			}
			continue
		}
		out, terr := TeardownWith(ctx, rec.RepoRoot, rec.Path, r.Leftovers)
		res = append(res, PruneResult{Record: rec, Outcome: out, Err: terr})
		if out != Kept {
			if err := r.Forget(rec.Path); err != nil {
				return res, err
			}
		}
	}
	return res, nil
}
