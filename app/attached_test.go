//go:build !windows

package app

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"github.com/paneflow-go/paneflow/core"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// attachTo serves c's socket (stopped, with c, when the test ends) and
// returns a backend attached to it over that socket.
func attachTo(t *testing.T, c *core.Core) Backend {
	t.Helper()
	served := make(chan error, 1)
	go func() { served <- c.Serve(context.Background()) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
		defer cancel()
		if err := c.Shutdown(ctx); err != nil {
			t.Errorf("server shutdown: %v", err)
		}
		if err := <-served; !errors.Is(err, ipc.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	// core.New listened already: the ping waits in the backlog until
	// Serve accepts it.
	b, err := Attach(ctx, AttachOptions{Path: c.SocketPath})
	if err != nil {
		t.Fatalf("attach: %v", err)
	}
	return b
}

// waitPane waits until pane id of the server at path shows want
// (surface.wait: pushed, never polled).
func waitPane(t *testing.T, path string, id uint64, want string) {
	t.Helper()
	timeout := int64(testDeadline / time.Millisecond)
	cl := proto.Client{Caller: &ipc.Client{Path: path, Timeout: testDeadline + 5*time.Second}}
	_, err := cl.SurfaceWait(context.Background(),
		proto.SurfaceWaitParams{SurfaceIDs: []uint64{id}, Pattern: regexp.QuoteMeta(want), TimeoutMS: &timeout, FromStart: true})
	if err != nil {
		t.Fatalf("pane %d never showed %q: %v", id, want, err)
	}
}

// TestAttachedSplitTypeRead: a window attached to a server over its
// socket splits with its shortcut (the server's layout changes, the
// window follows its events), types into the new pane and reads it back
// through its backend; closing the window detaches: the server keeps
// both panes and their programs, which still answer.
func TestAttachedSplitTypeRead(t *testing.T) {
	h := newAttachedHarness(t, nil)
	var first uint64
	h.waitFor("the default workspace, created through the socket", func() bool {
		c := h.cards()
		first = h.s.focus
		return len(c) == 1 && c[0].Title == "Terminal" && len(c[0].Panes) == 1 && first != 0
	})
	var handled bool
	h.s.guard(func() { handled = h.key(fyne.KeyE, fyne.KeyModifierShortcutDefault|fyne.KeyModifierShift) })
	if !handled {
		t.Fatal("ctrl+shift+e was not taken as an app shortcut")
	}
	var second uint64
	h.waitFor("two panes in the server and the window, the new one focused", func() bool {
		second = h.s.focus
		return h.shape() == "V[p p]" && len(h.s.snap.Order) == 2 && second != first && h.s.snap.Open[second] != 0
	})
	pc := proto.Client{Caller: h.s.b.Caller(0)}
	if _, err := pc.SurfaceSendText(context.Background(), proto.SurfaceSendTextParams{SurfaceID: &second, Text: "echo typed-$((6*7))", Submit: true}); err != nil {
		t.Fatal(err)
	}
	waitPane(t, h.c.SocketPath, second, "typed-42")
	r, err := pc.SurfaceRead(context.Background(), proto.SurfaceReadParams{Target: proto.SurfaceTarget(second)})
	if err != nil || !strings.Contains(r.Text, "typed-42") {
		t.Fatalf("surface.read: %q, %v", r.Text, err)
	}

	// Close the window: it detaches.
	h.quit()
	if n := len(h.c.Workspaces.Panes()); n != 2 {
		t.Fatalf("the server holds %d panes after the window closed, want 2", n)
	}
	for _, id := range []uint64{first, second} {
		sf, ok := h.c.Workspaces.Surface(id)
		if !ok {
			t.Fatalf("pane %d closed with the window", id)
		}
		if _, exited := sf.Exited(); exited {
			t.Fatalf("pane %d's program ended with the window", id)
		}
	}
	cl := proto.Client{Caller: &ipc.Client{Path: h.c.SocketPath}}
	if _, err := cl.SurfaceSendText(context.Background(), proto.SurfaceSendTextParams{SurfaceID: &first, Text: "echo after-$((6*7))", Submit: true}); err != nil {
		t.Fatal(err)
	}
	waitPane(t, h.c.SocketPath, first, "after-42")
}
