package config

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// watchDeadline bounds every wait for the watcher; tests never assert on
// timing, only that things happen before it.
const watchDeadline = 15 * time.Second

// watchHarness runs watch on a temp file and records what it reports.
type watchHarness struct {
	t       *testing.T
	dir     string
	path    string
	changes chan Config
	checks  chan bool
	modes   chan bool
	done    chan error
}

func startWatch(t *testing.T, o watchOptions, setup func(dir, path string)) *watchHarness {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "paneflow")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	h := &watchHarness{
		t: t, dir: dir, path: filepath.Join(dir, FileName),
		changes: make(chan Config, 64), checks: make(chan bool, 1024), modes: make(chan bool, 64),
		done: make(chan error, 1),
	}
	if setup != nil {
		setup(dir, h.path)
	}
	o.debounce, o.maxWait = 20*time.Millisecond, 200*time.Millisecond
	if o.pollFallback == 0 {
		o.pollFallback = 10 * time.Millisecond
	}
	o.onCheck = func(changed bool) {
		select {
		case h.checks <- changed:
		default:
		}
	}
	o.onWatcherMode = func(notify bool) { h.modes <- notify }
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		h.done <- watch(ctx, h.path, func(c Config, warns []string) {
			if len(warns) > 0 {
				t.Errorf("unexpected warnings: %q", warns)
			}
			h.changes <- c
		}, o)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-h.done:
			if err != nil {
				t.Errorf("watch returned %v", err)
			}
		case <-time.After(watchDeadline):
			t.Errorf("watch did not return after its context was cancelled")
		}
	})
	h.wantMode(!o.noNotify)
	select {
	case <-h.changes: // the first reading (TestWatchReportsFirstReading)
	case <-time.After(watchDeadline):
		t.Fatalf("watch did not report its first reading")
	}
	return h
}

func (h *watchHarness) wantMode(notify bool) {
	h.t.Helper()
	select {
	case got := <-h.modes:
		if got != notify {
			h.t.Fatalf("watcher mode: notifications = %v, want %v", got, notify)
		}
	case <-time.After(watchDeadline):
		h.t.Fatalf("watcher never reported its mode")
	}
}

// write replaces the file's content in place.
func (h *watchHarness) write(content string) {
	h.t.Helper()
	if err := os.WriteFile(h.path, []byte(content), 0o600); err != nil {
		h.t.Fatal(err)
	}
}

// replace writes a temp file and renames it over the config, as editors do.
func (h *watchHarness) replace(content string) {
	h.t.Helper()
	tmp := filepath.Join(h.dir, ".paneflow.toml.swp")
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		h.t.Fatal(err)
	}
	if err := os.Rename(tmp, h.path); err != nil {
		h.t.Fatal(err)
	}
}

// wantChange waits for the next onChange and checks its font size.
func (h *watchHarness) wantChange(what string, fontSize float64) {
	h.t.Helper()
	select {
	case c := <-h.changes:
		if c.FontSize != fontSize {
			h.t.Fatalf("after %s: font size %v, want %v (a change was reported twice or out of order)", what, c.FontSize, fontSize)
		}
	case <-time.After(watchDeadline):
		h.t.Fatalf("after %s: onChange was never called", what)
	}
}

// wantUnchangedCheck waits until the watcher read the file and found it
// unchanged.
func (h *watchHarness) wantUnchangedCheck(what string) {
	h.t.Helper()
	deadline := time.After(watchDeadline)
	for {
		select {
		case changed := <-h.checks:
			if !changed {
				return
			}
		case c := <-h.changes:
			h.t.Fatalf("after %s: onChange called with font size %v for unchanged content", what, c.FontSize)
		case <-deadline:
			h.t.Fatalf("after %s: the watcher never looked at the file", what)
		}
	}
}

func TestWatch(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    watchOptions
	}{
		{"notify", watchOptions{}},
		{"poll", watchOptions{noNotify: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := startWatch(t, tc.o, nil)

			h.write("font_size = 10\n")
			h.wantChange("create", 10)

			h.write("font_size = 11\n")
			h.wantChange("write", 11)

			// Same bytes again: read, compared, not reported. The next
			// real change must then be the next report.
			h.write("font_size = 11\n")
			h.wantUnchangedCheck("rewrite with the same bytes")
			now := time.Now().Add(time.Minute)
			if err := os.Chtimes(h.path, now, now); err != nil {
				t.Fatal(err)
			}
			h.wantUnchangedCheck("touch")

			h.replace("font_size = 12.5\n")
			h.wantChange("atomic replace", 12.5)

			if err := os.Remove(h.path); err != nil {
				t.Fatal(err)
			}
			h.wantChange("remove", Default().FontSize)

			h.write("font_size = 9\n")
			h.wantChange("create again", 9)
		})
	}
}

// TestWatchReportsFirstReading: the file as Watch first reads it is
// reported once (a caller's Load may be older), then only changes.
func TestWatchReportsFirstReading(t *testing.T) {
	var first []Config
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, []byte("font_size = 20\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- watch(ctx, path, func(c Config, _ []string) {
			first = append(first, c)
			cancel()
		}, watchOptions{})
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(first) != 1 || first[0].FontSize != 20 {
		t.Fatalf("reported %+v, want the first reading, font size 20", first)
	}
}

func TestWatchSameContentNotReportedAgain(t *testing.T) {
	h := startWatch(t, watchOptions{}, func(_, path string) {
		if err := os.WriteFile(path, []byte("font_size = 20\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	})
	h.write("font_size = 20\n")
	h.wantUnchangedCheck("rewriting the initial content")
	h.write("font_size = 21\n")
	h.wantChange("write", 21)
}

func TestWatchDirectoryRemovedAndRecreated(t *testing.T) {
	h := startWatch(t, watchOptions{}, func(_, path string) {
		if err := os.WriteFile(path, []byte("font_size = 20\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	})
	if err := os.RemoveAll(h.dir); err != nil {
		t.Fatal(err)
	}
	h.wantChange("removing the directory", Default().FontSize)
	h.wantMode(false)

	if err := os.Mkdir(h.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	h.wantMode(true)
	h.write("font_size = 14\n")
	h.wantChange("recreating the file", 14)
	h.write("font_size = 15\n")
	h.wantChange("writing again under the new watch", 15)
}

func TestWatchBadContentWarns(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	var mu sync.Mutex
	var got [][]string
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	checked := make(chan bool, 16)
	done := make(chan error, 1)
	ready := make(chan bool, 1)
	go func() {
		done <- watch(ctx, path, func(c Config, warns []string) {
			mu.Lock()
			got = append(got, warns)
			mu.Unlock()
		}, watchOptions{debounce: 10 * time.Millisecond, onCheck: func(bool) { checked <- true }, onWatcherMode: func(bool) { ready <- true }})
	}()
	<-ready
	if err := os.WriteFile(path, []byte("font_size = 99\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case <-checked:
	case <-time.After(watchDeadline):
		t.Fatal("never checked")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || len(got[0]) != 0 || len(got[1]) != 1 || !strings.HasPrefix(got[1][0], path+": font_size:") {
		t.Fatalf("warnings = %q, want none (no file at first), then one font_size warning prefixed with the path", got)
	}
}

func TestWatchEmptyPath(t *testing.T) {
	if err := Watch(context.Background(), "", func(Config, []string) {}); err == nil {
		t.Fatal("Watch with an empty path returned nil")
	}
}
