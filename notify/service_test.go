package notify

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/subsystem"
)

// fakeNotifier records the notifications it is asked to show and
// answers err.
type fakeNotifier struct {
	mu    sync.Mutex
	shown []string
	err   error
}

func (f *fakeNotifier) Notify(_ context.Context, title, body string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.shown = append(f.shown, title+": "+body)
	return f.err
}

func (f *fakeNotifier) setErr(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
}

func (f *fakeNotifier) take() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.shown
	f.shown = nil
	return out
}

// TestServiceNotifiesWithoutWindow: with no window attached the server
// notifies an agent waiting, finishing and erroring (naming the pane),
// not one thinking or repeating its state; with a window attached it
// leaves that to the window; a failing notifier is logged once per run of
// failures and does not stop the next notification.
func TestServiceNotifiesWithoutWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.New()
		defer b.Close()
		var windows atomic.Int64
		f := &fakeNotifier{}
		var logged []string
		s := New(Options{Notifier: f, Windows: func() int { return int(windows.Load()) },
			PaneName: func(id uint64) string { return fmt.Sprintf("pane-%d", id) }})
		if err := s.Init(&subsystem.Host{Bus: b, Logf: func(format string, args ...any) {
			logged = append(logged, fmt.Sprintf(format, args...))
		}}); err != nil {
			t.Fatal(err)
		}
		defer s.Shutdown(context.Background())
		publish := func(evs ...bus.AgentState) {
			for _, ev := range evs {
				b.Publish(ev)
			}
			synctest.Wait()
		}
		check := func(what string, want ...string) {
			t.Helper()
			got := f.take()
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: notified %q, want %q", what, got, want)
			}
		}

		publish(
			bus.AgentState{SurfaceID: 2, Tool: "claude", State: "thinking", Previous: "idle"},
			bus.AgentState{SurfaceID: 2, Tool: "claude", State: "waiting_for_input", Previous: "thinking", Message: "Allow Bash?"},
			bus.AgentState{SurfaceID: 2, Tool: "claude", State: "waiting_for_input", Previous: "waiting_for_input", Message: "Allow Bash? (2)"},
			bus.AgentState{SurfaceID: 3, Tool: "codex", State: "finished", Previous: "thinking", LastResult: "All tests pass\nmore"},
			bus.AgentState{SurfaceID: 4, Tool: "gemini", State: "errored", Previous: "thinking", ExitCode: 2, HasExitCode: true})
		check("no window", "Claude Code needs input in pane-2: Allow Bash?", "Codex finished in pane-3: All tests pass",
			"Gemini errored in pane-4: Gemini exited with code 2 in pane-4.")

		windows.Store(1)
		publish(bus.AgentState{SurfaceID: 3, Tool: "codex", State: "finished", Previous: "thinking", LastResult: "again"})
		check("a window attached")

		windows.Store(0)
		f.setErr(errors.New("no notification daemon"))
		publish(bus.AgentState{SurfaceID: 3, Tool: "codex", State: "finished", Previous: "thinking", LastResult: "one"},
			bus.AgentState{SurfaceID: 3, Tool: "codex", State: "finished", Previous: "thinking", LastResult: "two"})
		check("failing", "Codex finished in pane-3: one", "Codex finished in pane-3: two")
		if len(logged) != 1 {
			t.Errorf("logged %q, want the first failure only", logged)
		}
		f.setErr(nil)
		publish(bus.AgentState{SurfaceID: 3, Tool: "codex", State: "finished", Previous: "thinking", LastResult: "three"})
		check("recovered", "Codex finished in pane-3: three")
	})
}

// TestServiceNamesOnlyNotifiedPanes: the pane's name, which the server
// finds by resolving every pane's display name, is asked for a state
// change that is notified, not for the many that are not (a working
// fleet's agents change state on every hook frame).
func TestServiceNamesOnlyNotifiedPanes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.New()
		defer b.Close()
		f := &fakeNotifier{}
		var named []uint64
		s := New(Options{Notifier: f, Windows: func() int { return 0 },
			PaneName: func(id uint64) string { named = append(named, id); return fmt.Sprintf("pane-%d", id) }})
		if err := s.Init(&subsystem.Host{Bus: b, Logf: t.Logf}); err != nil {
			t.Fatal(err)
		}
		defer s.Shutdown(context.Background())
		for id := uint64(1); id <= 50; id++ {
			b.Publish(bus.AgentState{SurfaceID: id, Tool: "claude", State: "thinking", Previous: "idle"})
			b.Publish(bus.AgentState{SurfaceID: id, Tool: "claude", State: "thinking", Previous: "thinking"})
		}
		b.Publish(bus.AgentState{SurfaceID: 7, Tool: "claude", State: "finished", Previous: "thinking", LastResult: "done"})
		synctest.Wait()
		if got, want := fmt.Sprint(f.take()), fmt.Sprint([]string{"Claude Code finished in pane-7: done"}); got != want {
			t.Errorf("notified %s, want %s", got, want)
		}
		if fmt.Sprint(named) != "[7]" {
			t.Errorf("PaneName called for panes %v, want [7] (the one notified)", named)
		}
	})
}
