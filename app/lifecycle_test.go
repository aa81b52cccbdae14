//go:build !windows

package app

import (
	"context"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/config"
	"github.com/paneflow-go/paneflow/proto"
)

// TestAttachedQuitAsks: in an attached window the close button detaches
// without asking, the quit action asks (quit_action "ask", the default),
// and quit_action "detach" quits at once; the server goes on each time.
func TestAttachedQuitAsks(t *testing.T) {
	h := newAttachedHarness(t, nil)
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	h.s.guard(h.s.quitRequestedLocked)
	select {
	case <-h.s.life.quitCh:
		t.Fatal("the quit action quit without asking")
	default:
	}
	h.s.guard(func() {
		if h.s.w.Canvas().Overlays().Top() == nil {
			t.Error("the quit action showed no question")
		}
		h.s.conf.cfg.QuitAction = config.QuitDetach
		h.s.quitRequestedLocked()
	})
	select {
	case <-h.s.life.quitCh:
	default:
		t.Fatal("quit_action detach did not quit")
	}
	if _, err := (proto.Client{Caller: h.cl}).Ping(context.Background()); err != nil {
		t.Fatalf("the server after the window detached: %v", err)
	}
	select {
	case <-h.c.Stopping():
		t.Fatal("detaching asked the server to stop")
	default:
	}

	h2 := newAttachedHarness(t, nil)
	h2.waitFor("the first pane", func() bool { return h2.s.pos.focus != 0 })
	h2.s.guard(h2.s.closeRequestedLocked)
	select {
	case <-h2.s.life.quitCh:
	default:
		t.Fatal("closing an attached window did not detach at once")
	}
}

// TestAttachedStopEverything: quit_action "stop" asks the server to end
// (system.shutdown) and then quits the window.
func TestAttachedStopEverything(t *testing.T) {
	h := newAttachedHarness(t, func(o *Options) { o.Config.QuitAction = config.QuitStop })
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	h.s.guard(h.s.quitRequestedLocked)
	select {
	case <-h.c.Stopping():
	case <-time.After(testDeadline):
		t.Fatal("Stop everything did not ask the server to stop")
	}
	select {
	case <-h.s.life.quitCh:
	case <-time.After(testDeadline):
		t.Fatal("the window did not quit after stopping the server")
	}
}
