//go:build !windows

package app

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"github.com/paneflow-go/paneflow/app/termview"
	"github.com/paneflow-go/paneflow/core"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/terminal"
	"github.com/paneflow-go/paneflow/workspace"
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
// window follows its events), types into the new pane (a paste, a key
// in its view) and shows it (the screen stream's mirror); closing the
// window detaches: the server keeps both panes and their programs, which
// still answer.
func TestAttachedSplitTypeRead(t *testing.T) {
	h := newAttachedHarness(t, nil)
	var first uint64
	h.waitFor("the default workspace, created through the socket", func() bool {
		c := h.cards()
		first = h.s.pos.focus
		return len(c) == 1 && c[0].Title == "Terminal" && len(c[0].Panes) == 1 && first != 0
	})
	h.splitKey()
	var second uint64
	h.waitFor("two panes in the server and the window, the new one focused", func() bool {
		second = h.s.pos.focus
		return h.shape() == "V[p p]" && len(h.s.pos.snap.Order) == 2 && second != first && h.s.pos.snap.Open[second] != 0
	})
	// Type as the composer does (through the pane's mirror: screen.input)
	// and read the screen the window shows (the mirror's frames).
	if err := h.s.b.Paste(second, "echo typed-$((6*7))", true); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the echo in the new pane's view", func() bool {
		v := h.s.panes.views[second]
		return v != nil && strings.Contains(mirrorText(h.s.b, second), "typed-42")
	})
	waitPane(t, h.c.SocketPath, second, "typed-42") // the server's own screen agrees
	// A key typed into the focused view reaches the server's program.
	var v *termview.View
	h.s.guard(func() { v = h.s.panes.views[second] })
	v.TypedRune('x') // the view's key callback takes the shell's lock
	waitPane(t, h.c.SocketPath, second, "x")
	v.TypedKey(&fyne.KeyEvent{Name: fyne.KeyBackspace})

	// A program runs in the second pane; closing the window asks nothing
	// (no dialog: the window quits at once) and detaches.
	if err := h.s.b.Paste(second, "cat", true); err != nil {
		t.Fatal(err)
	}
	h.waitFor("cat running in the second pane", func() bool { return h.s.b.BusyPanes() == 1 })
	h.s.guard(h.s.closeRequestedLocked)
	h.s.guard(func() {
		if !h.s.life.quitting {
			t.Fatal("closing an attached window with a busy pane did not quit it")
		}
	})
	h.quit()
	if sf, ok := h.c.Workspaces.Surface(second); !ok || !sf.Busy() {
		t.Fatal("cat ended with the window")
	}
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

// mirrorText is pane id's screen as the backend's terminal shows it.
func mirrorText(b Backend, id uint64) string {
	p, ok := b.Pane(id)
	if !ok {
		return ""
	}
	var snap terminal.Snapshot
	p.Snapshot(&snap, 0)
	var sb strings.Builder
	for y := range snap.Rows {
		sb.WriteString(snap.RowText(y))
		sb.WriteByte('\n')
	}
	return sb.String()
}

// TestAttachedReadPass: within a read pass the reads that come from
// workspace.view share one call (the window's reader made five per tick);
// an operation of the window in the pass makes the next read fresh, and
// reads outside a pass are fresh each time.
func TestAttachedReadPass(t *testing.T) {
	var views atomic.Int64
	reg := ipc.NewRegistry()
	reg.Register(proto.MethodWorkspaceView, func(context.Context, json.RawMessage) (any, error) {
		n := views.Add(1)
		return proto.WorkspaceViewResult{
			Workspaces: []proto.WorkspaceInfo{{Index: 0, ID: 1, Title: "w", Panes: 1, Active: true}},
			Panes:      []proto.ViewPane{{ID: 7, WorkspaceID: 1, Focused: true, Pid: 42, Generation: uint64(n)}},
			Layout:     &workspace.LayoutNode{Type: "leaf"},
		}, nil
	})
	reg.Register(proto.MethodSurfaceFocus, func(context.Context, json.RawMessage) (any, error) {
		return map[string]bool{"focused": true}, nil
	})
	srv := ipctest.Start(t, reg)
	cl := &ipc.Client{Path: srv.Path}
	a := &attached{cl: cl, pc: proto.Client{Caller: cl}, ctx: context.Background()}
	readAll := func() {
		t.Helper()
		if got := a.OutputGens(); len(got) != 1 {
			t.Fatalf("OutputGens = %v", got)
		}
		a.Teams()
		if _, _, ok := a.ActiveTree(); !ok {
			t.Fatal("no active tree")
		}
		if ws := a.Workspaces(); len(ws) != 1 || ws[0].Title != "w" {
			t.Fatalf("Workspaces = %+v", ws)
		}
		if ps := a.Panes(); len(ps) != 1 || ps[0].ID != 7 {
			t.Fatalf("Panes = %+v", ps)
		}
		if pids := a.PanePIDs(); pids[7] != 42 {
			t.Fatalf("PanePIDs = %v", pids)
		}
	}
	want := func(n int64, when string) {
		t.Helper()
		if got := views.Load(); got != n {
			t.Fatalf("%s: %d workspace.view calls in all, want %d", when, got, n)
		}
	}

	end := a.beginReadPass()
	readAll()
	want(1, "a pass's six reads")
	if err := a.Focus(7); err != nil {
		t.Fatal(err)
	}
	readAll()
	want(2, "the reads after an operation in the pass")
	end()
	readAll()
	want(8, "six reads outside a pass")
	end = a.beginReadPass()
	a.Panes()
	end()
	want(9, "a new pass")
}

// TestAttachedSeesEarlierAgents: a window that attaches after an agent's
// turn ended (the window that watched it was closed) shows the agent
// finished with its result in the sidebar at once, not nothing until the
// agent's next change.
func TestAttachedSeesEarlierAgents(t *testing.T) {
	const result = "Done before the window."
	var pane uint64
	h := newAttachedHarness(t, func(o *Options) {
		ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
		defer cancel()
		cl := proto.Client{Caller: &ipc.Client{Path: o.Backend.Endpoint()}}
		if _, err := cl.WorkspaceCreate(ctx, proto.WorkspaceCreateParams{Cwd: t.TempDir()}); err != nil {
			t.Fatal(err)
		}
		l, err := cl.SurfaceList(ctx)
		if err != nil || len(l.Surfaces) != 1 {
			t.Fatalf("surface.list: %+v, %v", l, err)
		}
		pane = l.Surfaces[0].ID
		pid, tool, last := int64(os.Getpid()), "claude", result
		frame := proto.AIFrameParams{SurfaceID: &pane, PID: &pid, Tool: &tool}
		for _, m := range []string{proto.MethodAISessionStart, proto.MethodAIPromptSubmit, proto.MethodAIStop} {
			f := frame
			if m == proto.MethodAIStop {
				f.LastResult = &last
			}
			if _, err := cl.AIFrame(ctx, m, f); err != nil {
				t.Fatalf("%s: %v", m, err)
			}
		}
		st, err := cl.SurfaceStatus(ctx, proto.Target{SurfaceID: &pane})
		if err != nil || st.State != proto.StateFinished {
			t.Fatalf("surface.status before the window: %+v, %v", st, err)
		}
	})
	h.waitFor("the sidebar to show the agent finished, with its result", func() bool {
		st, ok := h.s.agents.status(pane)
		if !ok || st.LastResult != result {
			return false
		}
		for _, c := range h.cards() {
			for _, p := range c.Panes {
				if p.ID == pane && p.Glyph == "✓" && p.Status == "done" {
					return true
				}
			}
		}
		return false
	})
}

// TestSeededAgentsNotify: the states a window reads when it attaches are
// shown, not announced: none sends a desktop notification (a window
// opened after ten turns ended does not pop up ten), unlike the same
// states arriving as changes.
func TestSeededAgentsNotify(t *testing.T) {
	id, pid, code := uint64(4), 77, 3
	msg, last := "Allow Bash?", "All done"
	fleet := proto.FleetListResult{Agents: []proto.FleetRow{
		{SurfaceID: &id, PID: &pid, Tool: "claude", State: proto.StateWaitingForInput, Hooked: true, Message: &msg},
		{SurfaceID: &id, Tool: "codex", State: proto.StateFinished, Hooked: true, LastResult: &last},
		{SurfaceID: &id, Tool: "gemini", State: proto.StateErrored, ExitCode: &code},
		{Tool: "opencode", State: proto.StateFinished}, // in no pane: not seeded
	}}
	got := seededAgents(fleet)
	if len(got) != 3 {
		t.Fatalf("seeded %d agents, want the 3 in panes: %+v", len(got), got)
	}
	if got[0].PID != pid || got[0].Message != msg || got[1].LastResult != last || !got[2].HasExitCode || got[2].ExitCode != code {
		t.Errorf("seeded states lost fields: %+v", got)
	}
	for _, ev := range got {
		if n, ok := notification(ev, false, "", "pane"); ok {
			t.Errorf("seeded %s %s notifies: %+v", ev.Tool, ev.State, n)
		}
		changed := ev
		changed.Previous = stateThinking
		if _, ok := notification(changed, false, "", "pane"); !ok {
			t.Errorf("the same %s %s as a change does not notify", ev.Tool, ev.State)
		}
	}
}

// TestAttachedInputRefusedBanner: input the server refuses is not
// dropped without a word: the window's banner says it was refused and
// why (here a pane the server does not have), once for a burst of keys.
func TestAttachedInputRefusedBanner(t *testing.T) {
	h := newAttachedHarness(t, nil)
	h.waitFor("the default workspace", func() bool { return len(h.cards()) == 1 && h.s.pos.focus != 0 })
	const ghost = 987654
	for range 5 {
		if err := h.s.b.Paste(ghost, "x", false); err != nil {
			t.Fatal(err)
		}
	}
	want := "input refused: Surface not found: 987654"
	h.waitFor("the refusal in the banner", func() bool { return strings.Contains(h.s.chrome.banner.text.Text, want) })
	h.s.guard(func() {
		if n := strings.Count(h.s.chrome.banner.text.Text, want); n != 1 {
			t.Errorf("banner %q says it %d times, want once", h.s.chrome.banner.text.Text, n)
		}
		checkBannerPlace(t, h.s, "shown")
		// A second line (a second refusal's), a dismiss and the same
		// banner shown again: each time the window is laid out anew, the
		// banner above the toolbar and tall enough for its lines.
		h.s.chrome.banner.show("input to pane 2 refused: " + strings.Repeat("a long reason ", 20))
		checkBannerPlace(t, h.s, "with a second, wrapping line")
		h.s.chrome.banner.dismiss()
		if c := bannerContent(t, h.s); c.Objects[0].Position().Y != 0 {
			t.Errorf("after the dismiss the panes' side starts at y=%v, want 0", c.Objects[0].Position().Y)
		}
		h.s.chrome.banner.show(want)
		checkBannerPlace(t, h.s, "shown again after a dismiss")
	})
}

// bannerContent is the window's content: the banner on top of it, the
// toolbar, tabs and panes in its center (Objects[0]).
func bannerContent(t *testing.T, s *shell) *fyne.Container {
	t.Helper()
	c, ok := s.w.Content().(*fyne.Container)
	if !ok || len(c.Objects) == 0 || !slices.Contains(c.Objects, fyne.CanvasObject(s.chrome.banner.root)) {
		t.Fatalf("the window's content %T does not hold the banner", s.w.Content())
	}
	return c
}

// checkBannerPlace fails unless the banner is laid out at its minimum
// height (every line shows) and what is below it (the toolbar first)
// starts under it. Run holding the UI lock.
func checkBannerPlace(t *testing.T, s *shell, when string) {
	t.Helper()
	c := bannerContent(t, s)
	b := s.chrome.banner.root
	if !b.Visible() || b.Size().Height < b.MinSize().Height || b.MinSize().Height == 0 {
		t.Errorf("banner %s: visible %v, height %v, want its minimum %v (its last line cut off)", when, b.Visible(), b.Size().Height, b.MinSize().Height)
	}
	center := c.Objects[0]
	if bottom := b.Position().Y + b.Size().Height; center.Position().Y < bottom {
		t.Errorf("banner %s: the toolbar's side starts at y=%v, above the banner's bottom %v (drawn over it)", when, center.Position().Y, bottom)
	}
}
