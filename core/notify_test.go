//go:build !windows

package core

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/attach"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/notify"
	"github.com/paneflow-go/paneflow/proto"
)

// turn sends the hook frames of one finished Claude Code turn in pane id
// that ends with result, and waits until surface.status says so.
func turn(t *testing.T, cl *ipc.Client, id uint64, result string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	pc := proto.Client{Caller: cl}
	pid, tool := int64(os.Getpid()), "claude"
	for _, m := range []string{proto.MethodAISessionStart, proto.MethodAIPromptSubmit, proto.MethodAIStop} {
		f := proto.AIFrameParams{SurfaceID: &id, PID: &pid, Tool: &tool}
		if m == proto.MethodAIStop {
			f.LastResult = &result
		}
		if _, err := pc.AIFrame(ctx, m, f); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
	}
	if st := waitStatus(t, cl, id, "finished"); st.LastResult == nil || *st.LastResult != result {
		t.Fatalf("status after the turn: %+v, want finished with %q", st, result)
	}
}

// TestServerNotifiesWithoutWindow: the server shows a desktop
// notification of an agent's finished turn while no window is attached,
// none while a window is (the window shows its own), and again once it
// detached. Notifications are shown in order, so the one after the
// window left arriving next means none came while it was there.
func TestServerNotifiesWithoutWindow(t *testing.T) {
	shown := make(chan string, 16)
	c, cl := startCoreWith(t, func(o *Options) {
		o.Notifier = notify.NotifierFunc(func(_ context.Context, title, body string) error {
			shown <- title + ": " + body
			return nil
		})
	})
	id := c.Workspaces.Panes()[0].ID
	next := func(want string) {
		t.Helper()
		select {
		case got := <-shown:
			if got != want {
				t.Errorf("notified %q, want %q", got, want)
			}
		case <-time.After(testDeadline):
			t.Fatalf("no notification; want %q", want)
		}
	}
	turn(t, cl, id, "first")
	next("Claude Code finished in shell: first")

	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	w, err := attach.Dial(ctx, c.SocketPath, attach.Options{})
	if err != nil {
		t.Fatal(err)
	}
	turn(t, cl, id, "second")
	w.Close()
	// The window's attachment ends when the server sees it closed.
	deadline := time.Now().Add(testDeadline)
	for c.windows.Count() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the server still counts the window after it detached")
		}
		time.Sleep(10 * time.Millisecond)
	}
	turn(t, cl, id, "third")
	next("Claude Code finished in shell: third")
}

// TestServerNotifierOff: notify_without_window = false and
// notify_when_agent_waiting = "Never" leave the notify subsystem out, as
// does a core given no notifier (a window hosting the core).
func TestServerNotifierOff(t *testing.T) {
	n := notify.NotifierFunc(func(context.Context, string, string) error { return nil })
	for _, tc := range []struct {
		name     string
		notifier notify.Notifier
		edit     func(o *Options)
		want     bool
	}{
		{"on", n, func(*Options) {}, true},
		{"no notifier", nil, func(*Options) {}, false},
		{"notify_without_window off", n, func(o *Options) { o.Config.NotifyWithoutWindow = false }, false},
		{"notifications never", n, func(o *Options) { o.Config.NotifyWhenAgentWaiting = "Never" }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := startCoreWith(t, func(o *Options) {
				o.NoInitialWorkspace = true
				o.Notifier = tc.notifier
				tc.edit(o)
			})
			if got := slices.Contains(c.group.Started(), "notify"); got != tc.want {
				t.Errorf("notify subsystem started: %v, want %v (started: %q)", got, tc.want, c.group.Started())
			}
		})
	}
}
