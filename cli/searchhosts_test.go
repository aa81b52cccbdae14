package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// searchAnswer is a surface.search_all handler answering res.
func searchAnswer(res proto.SearchAllResult) func(map[string]any) (any, error) {
	return func(map[string]any) (any, error) { return res, nil }
}

// runHostSearch runs args in a session whose configuration lists hosts,
// local being this machine's server and remotes the hosts' (a host
// missing from remotes cannot be reached).
func runHostSearch(t *testing.T, local *fakeServer, hosts []string, remotes map[string]*fakeServer, args ...string) (int, string, string) {
	t.Helper()
	dir := t.TempDir()
	conf := filepath.Join(dir, "paneflow")
	if err := os.MkdirAll(conf, 0o700); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, h := range hosts {
		b.WriteString("[[hosts]]\naddress = \"" + h + "\"\n")
	}
	if err := os.WriteFile(filepath.Join(conf, "paneflow.toml"), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	s := newSession(local, &out, &errb)
	s.getenv = func(k string) string {
		return map[string]string{"HOME": "/home/u", "XDG_CONFIG_HOME": dir}[k]
	}
	skipHandedOver(t, args, s.getenv)
	s.hostDial = func(ctx context.Context, address string) (caller, func(), error) {
		f := remotes[address]
		if f == nil {
			return nil, nil, errors.New("ssh: connect to host: Connection refused")
		}
		return f, func() {}, nil
	}
	code := s.run(context.Background(), args)
	return code, out.String(), errb.String()
}

// TestSearchAllHosts: search --all asks this machine's server and every
// configured host; each host's panes print under its address, a host
// that fails is named on stderr while the others still print, and
// --json gives each pane its host.
func TestSearchAllHosts(t *testing.T) {
	seq := uint64(2)
	localRes := proto.SearchAllResult{PanesSearched: 3, MatchCount: 1, Panes: []proto.SearchAllPane{
		{SurfaceID: 1, Name: "zsh", Matches: []proto.SearchAllMatch{{Source: "scrollback", Line: -2, Text: "needle here", Spans: [][2]int{{0, 6}}}}},
	}}
	hostRes := proto.SearchAllResult{PanesSearched: 2, MatchCount: 1, Truncated: true, Panes: []proto.SearchAllPane{
		{SurfaceID: 1, Name: "claude", Workspace: 1, WorkspaceID: 5, Matches: []proto.SearchAllMatch{{Source: "history", Line: 0, Screen: &seq, Text: "needle there", Spans: [][2]int{{0, 6}}}}},
	}}
	const a, b = "ssh://u@a:2222", "ssh://b"
	newFakes := func() (*fakeServer, map[string]*fakeServer) {
		local := &fakeServer{t: t, handlers: map[string]func(map[string]any) (any, error){proto.MethodSurfaceSearchAll: searchAnswer(localRes)}}
		host := &fakeServer{t: t, handlers: map[string]func(map[string]any) (any, error){proto.MethodSurfaceSearchAll: searchAnswer(hostRes)}}
		return local, map[string]*fakeServer{a: host}
	}

	t.Run("text", func(t *testing.T) {
		local, remotes := newFakes()
		code, stdout, stderr := runHostSearch(t, local, []string{a, b}, remotes, "search", "--all", "needle", "--max", "5")
		want := "zsh (surface 1, workspace 0)\n" +
			"  scrollback -2: needle here\n\n" +
			"on ssh://u@a:2222\n" +
			"claude (surface 1, workspace 1)\n" +
			"  history screen 2 row 0: needle there\n\n" +
			"2 lines in 2 of 5 panes on 2 servers (1 not searched) (more matched: raise --max)\n"
		if code != ExitOK || stdout != want {
			t.Errorf("exit %d, stdout\n%s\nwant exit 0 and\n%s", code, stdout, want)
		}
		if stderr != "paneflow: ssh://b not searched: ssh: connect to host: Connection refused\n" {
			t.Errorf("stderr = %q", stderr)
		}
		wantCall := []string{`surface.search_all {"max_matches":5,"pattern":"needle"}`}
		if diff := cmp.Diff(wantCall, remotes[a].calls); diff != "" {
			t.Errorf("the host's calls (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(wantCall, local.calls); diff != "" {
			t.Errorf("this machine's calls (-want +got):\n%s", diff)
		}
	})

	t.Run("json", func(t *testing.T) {
		local, remotes := newFakes()
		code, stdout, _ := runHostSearch(t, local, []string{a, b}, remotes, "search", "--all", "needle", "--json")
		var got searchEveryJSON
		if err := json.Unmarshal([]byte(stdout), &got); err != nil || code != ExitOK {
			t.Fatalf("exit %d, %v:\n%s", code, err, stdout)
		}
		want := searchEveryJSON{
			Panes:      []hostSearchPane{{Host: "", SearchAllPane: localRes.Panes[0]}, {Host: a, SearchAllPane: hostRes.Panes[0]}},
			MatchCount: 2, Truncated: true, PanesSearched: 5,
			Servers: []searchServerJSON{{Host: "", PanesSearched: 3, MatchCount: 1}, {Host: a, PanesSearched: 2, MatchCount: 1, Truncated: true},
				{Host: b, Error: "ssh: connect to host: Connection refused"}},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("--json (-want +got):\n%s", diff)
		}
	})

	t.Run("no server here", func(t *testing.T) {
		local, remotes := newFakes()
		local.dialErr = errors.New("no server")
		code, stdout, stderr := runHostSearch(t, local, []string{a}, remotes, "search", "--all", "needle")
		if code != ExitOK || !strings.HasPrefix(stdout, "on ssh://u@a:2222\nclaude") || stderr != "paneflow: this machine's server not searched: no server\n" {
			t.Errorf("exit %d\nstdout %q\nstderr %q", code, stdout, stderr)
		}
	})

	t.Run("nothing matched", func(t *testing.T) {
		local, remotes := newFakes()
		empty := searchAnswer(proto.SearchAllResult{PanesSearched: 1})
		local.handlers[proto.MethodSurfaceSearchAll], remotes[a].handlers[proto.MethodSurfaceSearchAll] = empty, empty
		code, stdout, _ := runHostSearch(t, local, []string{a, b}, remotes, "search", "--all", "needle")
		if code != ExitFailure || stdout != "0 lines in 0 of 2 panes on 2 servers (1 not searched)\n" {
			t.Errorf("exit %d, stdout %q; want 1", code, stdout)
		}
	})

	t.Run("none answered", func(t *testing.T) {
		local, _ := newFakes()
		local.dialErr = errors.New("no server")
		code, stdout, stderr := runHostSearch(t, local, []string{b}, nil, "search", "--all", "needle")
		if code != ExitFailure || stdout != "" || stderr != "paneflow: no server\n" {
			t.Errorf("exit %d\nstdout %q\nstderr %q", code, stdout, stderr)
		}
	})

	t.Run("bad pattern", func(t *testing.T) {
		local, remotes := newFakes()
		bad := func(map[string]any) (any, error) { return nil, ipc.Errorf(ipc.CodeInvalidParams, "bad regex") }
		local.handlers[proto.MethodSurfaceSearchAll] = bad
		code, stdout, stderr := runHostSearch(t, local, []string{a}, remotes, "search", "--all", "(", "--regex")
		if code != ExitFailure || stdout != "" || !strings.Contains(stderr, "bad regex") {
			t.Errorf("exit %d\nstdout %q\nstderr %q", code, stdout, stderr)
		}
	})

	t.Run("no hosts configured", func(t *testing.T) {
		local, remotes := newFakes()
		code, stdout, _ := runHostSearch(t, local, nil, remotes, "search", "--all", "needle")
		if code != ExitOK || strings.Contains(stdout, "on ") || len(remotes[a].calls) != 0 {
			t.Errorf("no hosts configured: exit %d, stdout %q, host calls %v", code, stdout, remotes[a].calls)
		}
	})
}
