//go:build linux

package remote

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/internal/gittest"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// TestRemoteDiff (issue 30): `paneflow --host … review diff` reads a
// repository of the host's through the user's ssh and the bridge: the
// host's server runs git (review.diff) and the local client, which has
// no server of its own, prints what it read; --json carries the file
// list. A path that is in no repository there is the host's error.
func TestRemoteDiff(t *testing.T) {
	w := newWorld(t)
	repo := gittest.Repo(t, filepath.Join(w.remote, "repo"), map[string]string{"a.txt": "one\n"})
	gittest.Git(t, repo, "checkout", "-q", "-b", "agent/fix")
	w.writeRemote("repo/a.txt", "one\ntwo on the host\n")
	w.writeRemote("repo/sub/new.txt", "fresh\n")

	r := w.host(portMain, "review", "diff", "--worktree", filepath.Join(repo, "sub"))
	for _, want := range []string{"--- a/a.txt\n", "+two on the host\n", "+++ b/sub/new.txt\n", "+fresh\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("review diff lacks %q:\n%s", want, r)
		}
	}

	r = w.host(portMain, "review", "diff", "--worktree", repo, "--json")
	var d proto.ReviewDiffResult
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatalf("review diff --json: %v\n%s", err, r)
	}
	want := []proto.ReviewDiffFile{{Status: "M", Path: "a.txt"}, {Status: "?", Path: "sub/new.txt"}}
	if d.Root != repo || d.Branch != "agent/fix" || d.BaseRef != "main" || !slices.Equal(d.Files, want) {
		t.Errorf("review diff --json: root %q branch %q base_ref %q files %v; want %q agent/fix main %v", d.Root, d.Branch, d.BaseRef, d.Files, repo, want)
	}

	r = w.cli(nil, "--host", w.url(portMain), "review", "diff", "--worktree", w.remote)
	if r.code == 0 || !strings.Contains(r.stderr, "not a git repository") {
		t.Errorf("review diff outside a repository:\n%s", r)
	}
}

// TestRemoteReviewWatch (issue 30): review.watch through the user's ssh
// and the bridge says when a repository of the host's changed, as the
// host's git sees it: a file of the work tree written, the index (git
// add) and HEAD (a commit), each one frame after it settled, so the Diff
// view of a remote pane asks for the diff only then. A path that is in
// no repository there is refused.
func TestRemoteReviewWatch(t *testing.T) {
	w := newWorld(t)
	repo := gittest.Repo(t, filepath.Join(w.remote, "repo"), map[string]string{"a.txt": "one\n"})
	gittest.Git(t, repo, "checkout", "-q", "-b", "agent/fix")

	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	cl := &ipc.Client{Path: w.url(portMain), Dial: w.dialHost(ctx, portMain).Open}

	if _, err := cl.Subscribe(ctx, proto.MethodReviewWatch, proto.ReviewWatchParams{Worktree: w.remote}); err == nil || !strings.Contains(err.Error(), "not a git repository") {
		t.Errorf("review.watch outside a repository: %v, want git's refusal", err)
	}

	st, err := cl.Subscribe(ctx, proto.MethodReviewWatch, proto.ReviewWatchParams{Worktree: repo})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	frames := make(chan string)
	go func() {
		defer close(frames)
		for {
			raw, err := st.Next()
			if err != nil {
				return
			}
			var f proto.ReviewWatchFrame
			if json.Unmarshal(raw, &f) != nil {
				f.Type = string(raw)
			}
			frames <- f.Type
		}
	}()
	next := func(after string) {
		t.Helper()
		select {
		case got, ok := <-frames:
			if !ok {
				t.Fatalf("after %s: the stream ended", after)
			}
			if got != proto.FrameChanged {
				t.Fatalf("after %s: frame %q, want %q", after, got, proto.FrameChanged)
			}
		case <-time.After(pollTimeout):
			t.Fatalf("after %s: no frame", after)
		}
	}
	if got := <-frames; got != proto.FrameWatching {
		t.Fatalf("first frame %q, want %q", got, proto.FrameWatching)
	}
	w.writeRemote("repo/sub/new.txt", "fresh\n")
	next("a new file in a new directory")
	w.writeRemote("repo/sub/new.txt", "fresh\nand more\n")
	next("a file of the new directory written")
	gittest.Git(t, repo, "add", "sub/new.txt")
	next("git add")
	gittest.Git(t, repo, "commit", "-q", "-m", "new")
	next("git commit")
}
