package core

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"

	"github.com/paneflow-go/paneflow/api"
	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/worktree"
)

// worktreeOwner is the server's side of managed worktrees (the
// managed_worktree param of workspace.up and surface.split): it remembers
// which panes run in which worktree and, when the last of them closes,
// tears the worktree down per its policy, off the request path. Only
// worktrees a client created for the pane (action "create") or that the
// registry says Paneflow created are ever removed; a dirty one is kept
// and reported through logf. Quitting does not tear down (Close stops
// listening first); the registry lets the next start prune what is left.
//
// Adopt is safe for concurrent use; Close waits for teardowns in flight.
type worktreeOwner struct {
	reg    *worktree.Registry // nil: nothing is recorded across runs
	logf   func(string, ...any)
	exists func(surfaceID uint64) bool
	sub    *bus.Subscription
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu        sync.Mutex
	bySurface map[uint64]string         // surface → worktree path
	byPath    map[string]*ownedWorktree // worktree path → its panes
}

// ownedWorktree is one adopted worktree and the panes in it.
type ownedWorktree struct {
	w     api.ManagedWorktree
	ours  bool // Paneflow created it, so teardown may remove it
	panes map[uint64]bool
}

// worktreeRegistryPath is where the registry of worktrees Paneflow
// created lives: $XDG_STATE_HOME/paneflow/worktrees.json (absolute only),
// else ~/.local/state/paneflow/worktrees.json; "" when neither is set.
func worktreeRegistryPath(getenv func(string) string) string {
	if d := getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "paneflow", "worktrees.json")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "paneflow", "worktrees.json")
	}
	return ""
}

// newWorktreeOwner starts following pane closes on b and, in the
// background, prunes the orphans an earlier run left (worktrees we
// created whose panes are gone).
func newWorktreeOwner(b *bus.Bus, regPath string, exists func(uint64) bool, logf func(string, ...any)) *worktreeOwner {
	o := &worktreeOwner{
		logf: logf, exists: exists,
		bySurface: map[uint64]string{}, byPath: map[string]*ownedWorktree{},
	}
	if regPath != "" {
		o.reg = worktree.OpenRegistry(regPath)
	}
	o.ctx, o.cancel = context.WithCancel(context.Background())
	o.sub = b.Subscribe("core.worktrees", bus.MatchTypes(bus.TypeSurfaceClosed), 0)
	o.wg.Go(o.loop)
	if o.reg != nil {
		o.wg.Go(o.prune)
	}
	return o
}

// prune tears down the orphans of earlier runs.
func (o *worktreeOwner) prune() {
	res, err := o.reg.Prune(o.ctx, o.inUse)
	if err != nil {
		o.logf("paneflow: worktrees: %v", err)
	}
	for _, r := range res {
		if r.Err != nil {
			o.logf("paneflow: orphan worktree %s: %s (%v)", r.Record.Path, r.Outcome, r.Err)
		} else {
			o.logf("paneflow: orphan worktree %s: %s", r.Record.Path, r.Outcome)
		}
	}
}

// inUse reports whether a pane of this run was adopted into path.
func (o *worktreeOwner) inUse(path string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	_, ok := o.byPath[path]
	return ok
}

// Adopt implements api.WorktreeOwner.
func (o *worktreeOwner) Adopt(surfaceID uint64, w api.ManagedWorktree) {
	ours := w.Action == "create"
	if ours && o.reg != nil {
		if err := o.reg.Add(worktree.Record{Path: w.Path, RepoRoot: w.RepoRoot, Branch: w.Branch, Teardown: w.Teardown}); err != nil {
			o.logf("paneflow: worktrees: %v", err)
		}
	} else if !ours && o.reg != nil {
		_, ours = o.reg.Owns(w.Path)
	}
	o.mu.Lock()
	ow := o.byPath[w.Path]
	if ow == nil {
		ow = &ownedWorktree{w: w, panes: map[uint64]bool{}}
		o.byPath[w.Path] = ow
	}
	ow.ours = ow.ours || ours
	if w.Teardown == worktree.TeardownKeep {
		ow.w.Teardown = worktree.TeardownKeep
	}
	ow.panes[surfaceID] = true
	o.bySurface[surfaceID] = w.Path
	o.mu.Unlock()
	if !o.exists(surfaceID) { // closed before we were told of it
		o.closed(surfaceID)
	}
}

// loop handles pane closes until Close.
func (o *worktreeOwner) loop() {
	var buf []bus.Event
	for {
		select {
		case <-o.ctx.Done():
			return
		case <-o.sub.Done():
			return
		case <-o.sub.Ready():
		}
		evs, _ := o.sub.Drain(buf)
		for _, e := range evs {
			if sc, ok := e.(bus.SurfaceClosed); ok {
				o.closed(sc.SurfaceID)
			}
		}
		buf = evs
	}
}

// closed forgets a pane; the last pane of a worktree starts its teardown.
func (o *worktreeOwner) closed(surfaceID uint64) {
	o.mu.Lock()
	path, ok := o.bySurface[surfaceID]
	if !ok {
		o.mu.Unlock()
		return
	}
	delete(o.bySurface, surfaceID)
	ow := o.byPath[path]
	delete(ow.panes, surfaceID)
	if len(ow.panes) > 0 {
		o.mu.Unlock()
		return
	}
	delete(o.byPath, path)
	o.mu.Unlock()
	if !ow.ours || ow.w.Teardown == worktree.TeardownKeep || o.ctx.Err() != nil {
		return
	}
	o.wg.Go(func() { o.teardown(ow.w) })
}

// teardown removes a clean worktree (and its record), keeps and reports
// a dirty one.
func (o *worktreeOwner) teardown(w api.ManagedWorktree) {
	out, err := worktree.Teardown(o.ctx, w.RepoRoot, w.Path)
	if err != nil {
		o.logf("paneflow: %v", err)
	}
	if out != worktree.Kept && o.reg != nil {
		if err := o.reg.Forget(w.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
			o.logf("paneflow: worktrees: %v", err)
		}
	}
	if err == nil {
		o.logf("paneflow: worktree %s: %s", w.Path, out)
	}
}

// Close stops following pane closes (so quitting, which closes every
// pane, tears nothing down) and waits for teardowns in flight.
func (o *worktreeOwner) Close() {
	o.cancel()
	o.sub.Close()
	o.wg.Wait()
}
