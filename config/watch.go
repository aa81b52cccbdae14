package config

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Timing of [Watch].
const (
	// watchDebounce is how long the file must stay quiet after an event
	// before it is read.
	watchDebounce = 300 * time.Millisecond
	// watchMaxWait bounds the debounce under a steady stream of events.
	watchMaxWait = time.Second
	// pollFallback is the stat interval when no file-system watcher can
	// be used (none available, or the directory does not exist yet).
	pollFallback = time.Second
	// pollSafety is the stat interval alongside a working watcher: it
	// catches what directory events cannot show, such as an edit of the
	// target of a symbolic link kept in a dotfiles repository.
	pollSafety = 5 * time.Second
)

// watchOptions are the knobs tests turn; the zero value means the
// production behaviour.
type watchOptions struct {
	noNotify      bool               // do not use fsnotify (tests of the poll path)
	debounce      time.Duration      // 0 = watchDebounce
	maxWait       time.Duration      // 0 = watchMaxWait
	pollFallback  time.Duration      // 0 = pollFallback
	pollSafety    time.Duration      // 0 = pollSafety
	onCheck       func(changed bool) // called after each read of the file
	onWatcherMode func(notify bool)  // called when the watching method changes
}

// Watch watches the configuration file at path until ctx is done, and
// calls onChange with the new configuration and its warnings (as [Load]
// gives them) each time the file's content changes: when it is created,
// written, replaced by a rename (as editors save) or removed (the
// configuration is then the defaults). Changes are debounced: the file is
// read once it has been quiet for 300 ms (at most 1 s after the first
// event), and onChange is not called when the bytes read are the same as
// last time, so saving without edits, or a touch, does nothing.
//
// Watch reads the file once when it starts, calls onChange with that
// reading, and compares later content with it. A caller loads the file
// with Load (to start with it), then watches it: the first call brings
// what changed in between (a warning the caller shows from its Load is
// gone when the file was fixed meanwhile), and is the same configuration
// again when nothing did, so onChange must be safe to call with what the
// caller already has. It watches the file's
// directory with the operating system's notifications, plus a stat every
// 5 s as a safety net; when no watcher can be created (or the directory
// does not exist yet) it stats the file every second instead, and switches
// to notifications once the directory appears.
//
// onChange runs on the goroutine that called Watch, one call at a time;
// a GUI hands the result to its UI goroutine. Watch returns nil when ctx
// is done, and an error only when path is empty.
func Watch(ctx context.Context, path string, onChange func(Config, []string)) error {
	return watch(ctx, path, onChange, watchOptions{})
}

// fileState is what the watcher compares: the content and whether the
// file exists (a missing file and an empty one both mean defaults, but
// removing an empty file is still reported).
type fileState struct {
	exists bool
	data   []byte
	errMsg string // a read error other than "does not exist"
}

func (a fileState) equal(b fileState) bool {
	return a.exists == b.exists && a.errMsg == b.errMsg && bytes.Equal(a.data, b.data)
}

func readState(path string) fileState {
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		return fileState{exists: true, data: data}
	case errors.Is(err, fs.ErrNotExist):
		return fileState{}
	default:
		return fileState{exists: true, errMsg: err.Error()}
	}
}

// statKey is the cheap fingerprint the poll compares before reading.
type statKey struct {
	exists bool
	size   int64
	mtime  time.Time
	mode   fs.FileMode
}

func statOf(path string) statKey {
	fi, err := os.Stat(path)
	if err != nil {
		return statKey{}
	}
	return statKey{exists: true, size: fi.Size(), mtime: fi.ModTime(), mode: fi.Mode()}
}

func watch(ctx context.Context, path string, onChange func(Config, []string), o watchOptions) error {
	if path == "" {
		return errors.New("config: watch: empty path")
	}
	if o.debounce <= 0 {
		o.debounce = watchDebounce
	}
	if o.maxWait <= 0 {
		o.maxWait = watchMaxWait
	}
	if o.pollFallback <= 0 {
		o.pollFallback = pollFallback
	}
	if o.pollSafety <= 0 {
		o.pollSafety = pollSafety
	}
	path = filepath.Clean(path)
	dir, base := filepath.Dir(path), filepath.Base(path)

	last := readState(path)
	lastStat := statOf(path)

	var w *fsnotify.Watcher
	defer func() {
		if w != nil {
			w.Close()
		}
	}()
	// startWatcher tries to watch dir; it reports whether notifications
	// are in use now.
	startWatcher := func() bool {
		if o.noNotify {
			return false
		}
		nw, err := fsnotify.NewWatcher()
		if err != nil {
			return false
		}
		if err := nw.Add(dir); err != nil {
			nw.Close()
			return false
		}
		w = nw
		return true
	}
	stopWatcher := func() {
		if w != nil {
			w.Close()
			w = nil
		}
	}

	notify := startWatcher()
	if o.onWatcherMode != nil {
		o.onWatcherMode(notify)
	}
	interval := func() time.Duration {
		if w != nil {
			return o.pollSafety
		}
		return o.pollFallback
	}
	poll := time.NewTicker(interval())
	defer poll.Stop()

	// The debounce: due fires once events stopped for o.debounce, or
	// o.maxWait after the first of a burst.
	due := time.NewTimer(time.Hour)
	due.Stop()
	defer due.Stop()
	var first time.Time // zero when nothing is pending
	schedule := func() {
		now := time.Now()
		if first.IsZero() {
			first = now
		}
		wait := o.debounce
		if rest := o.maxWait - now.Sub(first); rest < wait {
			wait = max(rest, 0)
		}
		due.Reset(wait)
	}

	report := func(cur fileState) {
		var c Config
		var warns []string
		switch {
		case !cur.exists:
			c = Default()
		case cur.errMsg != "":
			c, warns = Default(), []string{cur.errMsg + "; using defaults"}
		default:
			c, warns = Parse(cur.data)
			for i, wn := range warns {
				warns[i] = path + ": " + wn
			}
		}
		onChange(c, warns)
	}
	check := func() {
		first = time.Time{}
		lastStat = statOf(path)
		cur := readState(path)
		changed := !cur.equal(last)
		if changed {
			last = cur
			report(cur)
		}
		if o.onCheck != nil {
			o.onCheck(changed)
		}
	}
	// The file as first read: it may have changed since the caller's Load.
	report(last)

	for {
		var events chan fsnotify.Event
		var errs chan error
		if w != nil {
			events, errs = w.Events, w.Errors
		}
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				stopWatcher()
				poll.Reset(interval())
				continue
			}
			name := filepath.Clean(ev.Name)
			switch {
			case filepath.Base(name) == base && filepath.Dir(name) == dir:
				schedule()
			case name == dir && ev.Has(fsnotify.Remove|fsnotify.Rename):
				// The directory itself went away: the watch is gone
				// with it. Poll until it comes back.
				stopWatcher()
				poll.Reset(interval())
				if o.onWatcherMode != nil {
					o.onWatcherMode(false)
				}
				schedule()
			}
		case _, ok := <-errs:
			if !ok {
				stopWatcher()
				poll.Reset(interval())
				continue
			}
			// An overflow or similar: events may have been lost, so
			// look at the file.
			schedule()
		case <-poll.C:
			if w == nil && !o.noNotify {
				if fi, err := os.Stat(dir); err == nil && fi.IsDir() && startWatcher() {
					poll.Reset(interval())
					if o.onWatcherMode != nil {
						o.onWatcherMode(true)
					}
					schedule() // the file may have appeared with the directory
					continue
				}
			}
			if st := statOf(path); st != lastStat {
				lastStat = st
				schedule()
			}
		case <-due.C:
			check()
		}
	}
}
