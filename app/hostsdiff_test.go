//go:build !windows

package app

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/core"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// reviewHost is the "host": a second core serving its socket until the
// test ends, keeping review comments in a directory of its own, with one
// workspace in wt.
func reviewHost(t *testing.T, wt string) *core.Core {
	t.Helper()
	review := filepath.Join(t.TempDir(), "review")
	return hostCore(t, "wt", wt, func(o *core.Options) { o.ReviewDir = review })
}

// openDiffNow opens the Diff view of the focused pane as its key does.
func openDiffNow(h *harness) *diffView {
	h.t.Helper()
	var dv *diffView
	h.s.guard(func() {
		h.s.openDiffLocked()
		dv = shownPanelAs[*diffView](h.s)
	})
	if dv == nil {
		h.t.Fatal("the Diff view did not open")
	}
	return dv
}

// TestHostsDiff (issue 30): the Diff view of a pane on another host
// shows the diff that host's server read (review.diff), names the host,
// follows a change of the host's files, and sends a comment to the
// host's server, not to the window's own; the folder button, land and
// pull request (this machine's) stay off.
func TestHostsDiff(t *testing.T) {
	wt := gitRepo(t)
	rc := reviewHost(t, wt)
	fh := &fakeHosts{servers: map[string]string{"ssh://build": rc.SocketPath}}
	h := newAttachedHarness(t, func(o *Options) {
		o.Hosts = fh.connect
		o.Config.Hosts = []string{"ssh://build"}
	})
	gid := globalID(1, remotePane(t, rc))
	h.waitFor("the host's card", func() bool { c := h.cards(); return len(c) == 2 && c[1].Host == 1 })
	h.s.chrome.side.onWS(1)
	h.waitFor("the remote pane focused, its directory known", func() bool {
		slot, dir := h.s.focusedDirLocked()
		return h.s.pos.focus == gid && slot == 1 && dir == wt
	})
	dv := openDiffNow(h)
	gridHas := func(s string) bool { return strings.Contains(dv.grid.Text(), s) }
	h.waitFor("the host's diff", func() bool {
		return dv.loads > 0 && gridHas("+two") && gridHas("+brand new") &&
			strings.Contains(dv.header.Text, "ssh://build "+wt) && strings.Contains(dv.header.Text, "feat against main")
	})
	h.s.guard(func() {
		if dv.slot != 1 || !dv.openBtn.Disabled() || !dv.landBtn.Disabled() || !dv.prBtn.Disabled() {
			t.Errorf("slot %d; open folder, land, pull request disabled: %v %v %v, want all",
				dv.slot, dv.openBtn.Disabled(), dv.landBtn.Disabled(), dv.prBtn.Disabled())
		}
	})
	// A file the host's agent writes shows without asking.
	if err := os.WriteFile(filepath.Join(wt, "c.txt"), []byte("seen on the host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the host's new file", func() bool { return gridHas("+seen on the host") && len(dv.files.Objects) == 4 })

	// The Unstaged scope is the host's too; its hunks are not reverted
	// from here (git apply would run on this machine).
	dv.scope.SetSelected(scopeUnstaged) // as a click: without the lock
	h.waitFor("the host's unstaged changes", func() bool {
		return strings.Contains(dv.header.Text, "ssh://build "+wt) && strings.Contains(dv.header.Text, "unstaged changes") &&
			gridHas("+three uncommitted") && !gridHas("+two")
	})
	h.s.guard(func() {
		if dv.revertBtn.Visible() || dv.stageBtn.Visible() {
			t.Errorf("stage/revert hunk shown for another host's worktree: %v %v", dv.stageBtn.Visible(), dv.revertBtn.Visible())
		}
	})
	dv.scope.SetSelected(scopeBranch)
	h.waitFor("the branch's changes again", func() bool { return gridHas("+two") && strings.Contains(dv.header.Text, "feat against main") })

	// A comment goes to the host's server.
	var two int
	h.s.guard(func() { two = rowOf(dv, "+two") })
	tapRow(h, dv, two, false)
	typeInto(h, dv.commentText, "Say two twice")
	press(t, h, &dv.commentAdd.Button)
	h.waitFor("the comment under its line", func() bool { return len(dv.comments) == 1 && gridHas("Say two twice") })
	var remote proto.ReviewListResult
	if err := (&ipc.Client{Path: rc.SocketPath}).Call(context.Background(), proto.MethodReviewList, proto.ReviewListParams{Worktree: wt}, &remote); err != nil {
		t.Fatal(err)
	}
	if len(remote.Comments) != 1 || remote.Comments[0].Body != "Say two twice" || remote.Comments[0].Path != "a.txt" {
		t.Errorf("the host's server keeps %+v, want the comment", remote.Comments)
	}
	var local proto.ReviewListResult
	h.call(proto.MethodReviewList, proto.ReviewListParams{Worktree: wt}, &local)
	if len(local.Comments) != 0 {
		t.Errorf("the window's own server keeps %+v, want none", local.Comments)
	}
}

// TestAttachedOverSSHDiff (issue 30): in a window whose own server is
// another machine's (attached over a Dial, as --host --attach does), the
// Diff view of its pane is that server's review.diff too, named by its
// directory alone, and what would run on this machine (open folder,
// land, pull request) stays off.
func TestAttachedOverSSHDiff(t *testing.T) {
	wt := gitRepo(t)
	rc := reviewHost(t, wt)
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	b, err := Attach(ctx, AttachOptions{Path: rc.SocketPath, Dial: func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", rc.SocketPath)
	}})
	if err != nil {
		t.Fatal(err)
	}
	h := startHarness(t, func(o *Options) { o.Backend = b }, false)
	h.waitFor("the host's pane focused, its directory known", func() bool {
		slot, dir := h.s.focusedDirLocked()
		return slot == 0 && dir == wt
	})
	dv := openDiffNow(h)
	h.waitFor("the host's diff", func() bool {
		return dv.loads > 0 && strings.Contains(dv.grid.Text(), "+two") && strings.Contains(dv.header.Text, "Diff — "+wt+" · feat against main")
	})
	h.s.guard(func() {
		if !dv.remote || !dv.openBtn.Disabled() || !dv.landBtn.Disabled() || !dv.prBtn.Disabled() {
			t.Errorf("remote %v; open folder, land, pull request disabled: %v %v %v, want all",
				dv.remote, dv.openBtn.Disabled(), dv.landBtn.Disabled(), dv.prBtn.Disabled())
		}
	})
}
