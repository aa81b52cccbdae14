package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	"github.com/paneflow-go/paneflow/api"
	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/shim"
	"github.com/paneflow-go/paneflow/subsystem"
	"github.com/paneflow-go/paneflow/worktree"
)

var (
	_ subsystem.Namespaced = (*worktreeOwner)(nil)
	_ api.WorktreeOwner    = (*worktreeOwner)(nil)
)

// worktreeOwner is the "worktree" subsystem, the server's side of managed
// worktrees (the managed_worktree param of workspace.up and
// surface.split): it remembers which panes run in which worktree and,
// when the last of them closes, tears the worktree down per its policy,
// off the request path. Only worktrees a client created for the pane
// (action "create") or that the registry says Paneflow created are ever
// removed; a dirty one is kept and reported through the host's Logf. At
// Init it prunes, in the background, the orphans an earlier run left.
// The api hands it worktrees as its [api.WorktreeOwner]; its own methods,
// worktree.create and worktree.rollback (upmake.go), let a client that runs
// no git (the MCP bridge's spawn_agent) have one made here.
//
// The core starts it after the "workspace" subsystem, so it shuts down
// first: quitting, which closes every pane, tears nothing down; the
// registry lets the next start prune what is left. Without git on PATH
// its Init skips (wrapping [subsystem.ErrSkip]) and Ready refuses
// managed worktrees.
//
// Create it with newWorktreeOwner. Ready and Adopt are safe for
// concurrent use; Shutdown waits for teardowns in flight.
type worktreeOwner struct {
	regPath string // "": nothing is recorded across runs
	exists  func(surfaceID uint64) bool
	// whenGone, when set, says when a closed pane is gone for good (see
	// workspace.Manager.WhenGone): a pane kept for undo close keeps its
	// worktree until then. nil: a close is final.
	whenGone func(surfaceID uint64) <-chan struct{}
	lookGit  func() error // nil error when git can be run
	// wait, when set, holds the pruning of orphans back until it is
	// closed: until the session keeper gave restored panes their
	// worktrees back.
	wait   <-chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// Set by Init.
	reg  *worktree.Registry // nil: nothing is recorded across runs
	logf func(string, ...any)
	sub  *bus.Subscription

	mu        sync.Mutex
	state     error                     // what Ready reports
	bySurface map[uint64]string         // surface → worktree path
	byPath    map[string]*ownedWorktree // worktree path → its panes
	made      map[string]worktree.Plan  // created by worktree.create, no pane adopted yet
}

// ownedWorktree is one adopted worktree and the panes in it.
type ownedWorktree struct {
	w     proto.ManagedWorktree
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

// errNotStarted is what Ready reports before Init and after Shutdown.
var errNotStarted = errors.New("the worktree subsystem is not running")

// newWorktreeOwner returns an owner that records the worktrees it creates
// in the registry at regPath ("" keeps no record) and asks exists whether
// a pane is still open. It does nothing until Init.
func newWorktreeOwner(regPath string, exists func(uint64) bool) *worktreeOwner {
	o := &worktreeOwner{
		regPath: regPath, exists: exists, state: errNotStarted,
		lookGit: func() error {
			_, err := exec.LookPath("git")
			return err
		},
		logf:      func(string, ...any) {},
		bySurface: map[uint64]string{}, byPath: map[string]*ownedWorktree{}, made: map[string]worktree.Plan{},
	}
	o.ctx, o.cancel = context.WithCancel(context.Background())
	return o
}

// Name is the subsystem's name, "worktree".
func (*worktreeOwner) Name() string { return "worktree" }

// Namespaces is "worktree": worktree.create and worktree.rollback
// (core/upmake.go), for clients that run no git themselves.
func (*worktreeOwner) Namespaces() []string { return []string{"worktree"} }

// Init checks that git runs here (else it skips), then follows pane
// closes on the host's bus and starts pruning the orphans an earlier run
// left (worktrees we created whose panes are gone).
func (o *worktreeOwner) Init(h *subsystem.Host) error {
	if err := o.lookGit(); err != nil {
		o.setState(fmt.Errorf("git not found: %w", err))
		return fmt.Errorf("git not found (%v): %w", err, subsystem.ErrSkip)
	}
	if h.Bus == nil {
		return errors.New("needs the event bus")
	}
	o.logf = h.Logf
	if o.regPath != "" {
		o.reg = worktree.OpenRegistry(o.regPath)
		o.reg.Leftovers = shim.ProjectLeftover
	}
	o.register(h.Methods)
	o.sub = h.Bus.Subscribe("core.worktrees", bus.MatchTypes(bus.TypeSurfaceClosed), 0)
	o.wg.Go(o.loop)
	if o.reg != nil {
		o.wg.Go(o.prune)
	}
	o.setState(nil)
	return nil
}

// setState sets what Ready reports.
func (o *worktreeOwner) setState(err error) {
	o.mu.Lock()
	o.state = err
	o.mu.Unlock()
}

// Ready implements api.WorktreeOwner: nil between Init and Shutdown.
func (o *worktreeOwner) Ready() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.state
}

// prune tears down the orphans of earlier runs (once the restored panes
// were adopted, see wait).
func (o *worktreeOwner) prune() {
	if o.wait != nil {
		select {
		case <-o.wait:
		case <-o.ctx.Done():
			return
		}
	}
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

// worktreeOf returns the managed worktree pane surfaceID was adopted
// into, for the session file.
func (o *worktreeOwner) worktreeOf(surfaceID uint64) (proto.ManagedWorktree, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	path, ok := o.bySurface[surfaceID]
	if !ok {
		return proto.ManagedWorktree{}, false
	}
	w := o.byPath[path].w
	w.Action = proto.ActionReuse
	return w, true
}

// Adopt implements api.WorktreeOwner.
func (o *worktreeOwner) Adopt(surfaceID uint64, w proto.ManagedWorktree) {
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
	delete(o.made, w.Path) // a pane has it now: no more rollback
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

// closed notes a pane's close. A pane kept for undo close (see
// workspace.Manager.Reopen) stays in its worktree until it is gone for
// good (whenGone): reopened within the undo window it finds its
// worktree where it was, else the worktree's teardown waits for the end
// of the window. Shutdown ends the wait without a teardown.
func (o *worktreeOwner) closed(surfaceID uint64) {
	if o.whenGone == nil {
		o.gone(surfaceID)
		return
	}
	o.mu.Lock()
	_, ok := o.bySurface[surfaceID]
	o.mu.Unlock()
	if !ok {
		return
	}
	gone := o.whenGone(surfaceID)
	select {
	case <-gone:
		o.gone(surfaceID)
		return
	default:
	}
	o.wg.Go(func() {
		select {
		case <-gone:
			o.gone(surfaceID)
		case <-o.ctx.Done():
		}
	})
}

// gone forgets a pane closed for good; the last pane of a worktree
// starts its teardown.
func (o *worktreeOwner) gone(surfaceID uint64) {
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
func (o *worktreeOwner) teardown(w proto.ManagedWorktree) {
	if _, err := os.Stat(w.Path); errors.Is(err, os.ErrNotExist) {
		// Removed meanwhile (a land's teardown while the panes were kept
		// for undo close): only the record is left.
		if o.reg != nil {
			if err := o.reg.Forget(w.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
				o.logf("paneflow: worktrees: %v", err)
			}
		}
		return
	}
	// A launch shim still exiting (or killed) may not have removed its
	// hook file yet: that alone does not keep the worktree.
	out, err := worktree.TeardownWith(o.ctx, w.RepoRoot, w.Path, shim.ProjectLeftover)
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

// Shutdown stops following pane closes (so quitting, which closes every
// pane afterwards, tears nothing down), cancels the git commands in
// flight and waits for their goroutines, or until ctx is done.
func (o *worktreeOwner) Shutdown(ctx context.Context) error {
	o.setState(errNotStarted)
	o.cancel()
	o.sub.Close()
	done := make(chan struct{})
	go func() {
		o.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
