//go:build linux

package remote

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/internal/gittest"
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
