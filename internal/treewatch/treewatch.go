// Package treewatch tells when a git work tree's diff may have changed:
// a file or directory of the work tree, or the repository's index or
// HEAD (git add, a commit, a checkout). The window's Diff view of its own
// machine's panes loads the diff again on each change; the server's
// review.watch sends a frame for each change to a window on another
// machine, whose Diff view of that host's pane then asks for the diff
// (issue 30), so neither polls.
package treewatch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/paneflow-go/paneflow/internal/gitdiff"
)

// MaxDirs caps the directories of the work tree watched.
const MaxDirs = 2000

// Debounce is how long changes settle before C says so.
const Debounce = 400 * time.Millisecond

// ErrWatcher is the error of a watch that could not be set up (the
// system's limit of watchers, say), as against git's error for a
// directory outside any work tree.
var ErrWatcher = errors.New("watching for changes")

// Watch follows one work tree until Close.
type Watch struct {
	// C gets a value once changes settled for Debounce (1-buffered:
	// changes while the last value was not taken are one change).
	C <-chan struct{}

	w      *fsnotify.Watcher
	c      chan struct{}
	gitDir string
	done   chan struct{}
}

// Start watches the work tree holding dir: its directories (at most
// MaxDirs, .git and node_modules skipped; new ones as they appear) and
// its git directory's index and HEAD. Its error is git's (dir is not in a
// work tree) or an ErrWatcher. The watch is in place when Start returns:
// a change after it (a load of the diff that follows, say) reaches C.
func Start(ctx context.Context, dir string) (*Watch, error) {
	root, err := gitdiff.Run(ctx, dir, []string{"rev-parse", "--show-toplevel"})
	if err != nil {
		return nil, err
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrWatcher, err)
	}
	c := make(chan struct{}, 1)
	w := &Watch{C: c, w: fw, c: c, done: make(chan struct{})}
	// The index and HEAD change without a file of the work tree changing
	// (git add, a commit): the git directory's own entries are watched
	// too, for the Unstaged and Staged scopes.
	gitDir, _ := gitdiff.Run(ctx, dir, []string{"rev-parse", "--absolute-git-dir"})
	if w.gitDir = strings.TrimSpace(gitDir); w.gitDir != "" {
		_ = fw.Add(w.gitDir)
	}
	n := 0
	_ = filepath.WalkDir(strings.TrimSpace(root), func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return nil
		}
		if name := e.Name(); name == ".git" || name == "node_modules" {
			return filepath.SkipDir
		}
		if n++; n > MaxDirs {
			return filepath.SkipAll
		}
		_ = fw.Add(p)
		return nil
	})
	go w.run()
	return w, nil
}

// Close stops the watch; C gets nothing more.
func (w *Watch) Close() error {
	err := w.w.Close()
	<-w.done
	return err
}

// run turns the watcher's events into settled changes on C.
func (w *Watch) run() {
	defer close(w.done)
	var timer <-chan time.Time
	for {
		select {
		case ev, ok := <-w.w.Events:
			if !ok {
				return
			}
			if w.gitDir != "" && filepath.Dir(ev.Name) == w.gitDir {
				if b := filepath.Base(ev.Name); b != "index" && b != "HEAD" {
					continue
				}
			} else if ev.Op&fsnotify.Create != 0 {
				if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() && filepath.Base(ev.Name) != ".git" {
					_ = w.w.Add(ev.Name)
				}
			}
			if timer == nil {
				timer = time.After(Debounce)
			}
		case _, ok := <-w.w.Errors:
			if !ok {
				return
			}
		case <-timer:
			timer = nil
			select {
			case w.c <- struct{}{}:
			default:
			}
		}
	}
}
