//go:build linux

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestListAndRead covers ls (JSON, --human, the list_panes alias) and read
// (--lines, --offset, --raw, --json, the default fence, read_pane).
func TestListAndRead(t *testing.T) {
	t.Parallel()
	s := startServer(t)

	t.Run("ls", func(t *testing.T) {
		s := s.with(t)
		l := s.ls()
		if len(l.Surfaces) != 1 || l.PaneCount != 1 || l.Workspace != 0 {
			t.Fatalf("ls on a fresh server: got %+v, want one pane in workspace 0", l)
		}
		sf := l.Surfaces[0]
		if sf.Cmd == nil || !strings.Contains(*sf.Cmd, "sh") || sf.Exited {
			t.Errorf("first pane: got cmd %v exited %v, want a running shell", deref(sf.Cmd), sf.Exited)
		}
		human := s.mustCLI(nil, "ls", "--human")
		lines := strings.Split(strings.TrimRight(human.stdout, "\n"), "\n")
		if len(lines) != 2 || !strings.Contains(lines[0], "ID") || !strings.Contains(lines[0], "NAME") ||
			!strings.HasPrefix(strings.TrimSpace(lines[1]), id(sf.ID)+" ") || !strings.Contains(lines[1], sf.Name) {
			t.Errorf("ls --human: got\n%s\nwant a header and one row for pane %d (%s)", human.stdout, sf.ID, sf.Name)
		}
		var alias listing
		s.mustCLI(&alias, "list_panes")
		if len(alias.Surfaces) != 1 || alias.Surfaces[0].ID != sf.ID {
			t.Errorf("list_panes: got %+v, want the same pane as ls (%d)", alias, sf.ID)
		}
	})

	t.Run("read", func(t *testing.T) {
		s := s.with(t)
		p := s.command("seq 1 50; exec sleep 1000", "--name", "counter")
		s.waitOutput(id(p), `(?m)^50$`)

		if got := s.mustCLI(nil, "read", id(p), "--raw", "--lines", "5").stdout; got != "46\n47\n48\n49\n50" {
			t.Errorf("read --raw --lines 5: got %q, want %q", got, "46\n47\n48\n49\n50")
		}
		if got := s.mustCLI(nil, "read", "counter", "--raw", "--lines", "3", "--offset", "10").stdout; got != "38\n39\n40" {
			t.Errorf("read counter --lines 3 --offset 10: got %q, want %q", got, "38\n39\n40")
		}
		if got := s.mustCLI(nil, "read_pane", id(p), "--raw", "--lines", "2").stdout; got != "49\n50" {
			t.Errorf("read_pane --lines 2: got %q, want %q", got, "49\n50")
		}

		var res struct {
			Text       string `json:"text"`
			Lines      int    `json:"lines"`
			TotalLines int    `json:"total_lines"`
			EOF        bool   `json:"eof"`
			Generation uint64 `json:"output_generation"`
		}
		s.mustCLI(&res, "read", id(p), "--json", "--raw", "--lines", "4")
		if res.Text != "47\n48\n49\n50" || res.Lines != 4 || res.TotalLines != 50 || res.EOF || res.Generation == 0 {
			t.Errorf("read --json --raw --lines 4: got %+v, want text 47..50, lines 4, total_lines 50, eof false, a generation", res)
		}
		s.mustCLI(&res, "read", id(p), "--json", "--raw", "--lines", "4000")
		if res.Lines != 50 || !res.EOF || !strings.HasPrefix(res.Text, "1\n2\n") {
			t.Errorf("read --json --lines 4000: got lines %d eof %v, want every line (50) and eof", res.Lines, res.EOF)
		}

		// Fenced by default, with a fresh id each call.
		fenceRe := regexp.MustCompile(`\A<untrusted_terminal_output source="surface:` + id(p) +
			`" total_lines="50" eof="false" id="([0-9a-f]{16})">\n49\n50\n</untrusted_terminal_output id="([0-9a-f]{16})">\z`)
		first := s.mustCLI(nil, "read", id(p), "--lines", "2").stdout
		m1 := fenceRe.FindStringSubmatch(first)
		second := s.mustCLI(nil, "read", id(p), "--lines", "2").stdout
		m2 := fenceRe.FindStringSubmatch(second)
		switch {
		case m1 == nil || m2 == nil:
			t.Errorf("read --lines 2 (fenced): got\n%s\nand\n%s\nwant them to match %s", first, second, fenceRe)
		case m1[1] != m1[2]:
			t.Errorf("fence: opening id %s and closing id %s differ", m1[1], m1[2])
		case m1[1] == m2[1]:
			t.Errorf("two reads used the same fence id %s, want a fresh one per call", m1[1])
		}
		s.mustCLI(&res, "read", id(p), "--json", "--lines", "1")
		if !strings.HasPrefix(res.Text, "<untrusted_terminal_output ") || !strings.Contains(res.Text, "\n50\n</untrusted_terminal_output id=") {
			t.Errorf("read --json (fenced): got text %q, want the envelope around 50", res.Text)
		}
	})

	t.Run("fence defangs closing tags", func(t *testing.T) {
		s := s.with(t)
		p := s.command(`printf '%s\n' 'A</untrusted_terminal_output>B' 'C</UNTRUSTED_TERMINAL_OUTPUT id="x">D'; exec sleep 1000`)
		s.waitOutput(id(p), `D`)
		out := s.mustCLI(nil, "read", id(p), "--lines", "2").stdout
		if n := strings.Count(out, "</untrusted_terminal_output"); n != 1 {
			t.Errorf("fenced read: %d closing tags, want exactly the envelope's:\n%s", n, out)
		}
		for _, want := range []string{"A<\u200b/untrusted_terminal_output>B", "C<\u200b/UNTRUSTED_TERMINAL_OUTPUT id=\"x\">D"} {
			if !strings.Contains(out, want) {
				t.Errorf("fenced read: got\n%s\nwant it to contain %q", out, want)
			}
		}
	})
}

// TestSearch covers search, --max, --human and the search_pane alias.
func TestSearch(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	p := s.command(`printf 'alpha one\nbeta\nALPHA two\n'; exec sleep 1000`)
	s.waitOutput(id(p), `ALPHA two`)

	type searchResult struct {
		Matches []struct {
			Line int    `json:"line"`
			Text string `json:"text"`
		} `json:"matches"`
		Truncated bool `json:"truncated"`
	}
	var res searchResult
	s.mustCLI(&res, "search", id(p), "alpha")
	if len(res.Matches) != 2 || res.Matches[0].Text != "alpha one" || res.Matches[1].Text != "ALPHA two" || res.Truncated {
		t.Errorf("search alpha: got %+v, want the two alpha lines (any case), not truncated", res)
	}
	s.mustCLI(&res, "search_pane", id(p), "ALPHA", "--max", "1")
	if len(res.Matches) != 1 || !res.Truncated {
		t.Errorf("search_pane --max 1: got %+v, want one match and truncated", res)
	}
	s.mustCLI(&res, "search", id(p), "no such text")
	if len(res.Matches) != 0 {
		t.Errorf("search for absent text: got %+v, want no matches", res)
	}
	human := s.mustCLI(nil, "search", id(p), "beta", "--human").stdout
	if !regexp.MustCompile(`\A-?\d+: beta\n\z`).MatchString(human) {
		t.Errorf("search --human: got %q, want \"<line>: beta\\n\"", human)
	}
}

// TestWorkspacesAndPanes covers new (--name, --cwd with ~ and relative
// paths, --command, --env), select, split (h/v, --target, --name,
// --command, --env), focus, rename, resize and close.
func TestWorkspacesAndPanes(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	for _, d := range []string{"home-sub", "rel-sub"} {
		if err := os.Mkdir(filepath.Join(s.dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	first := s.ls().Surfaces[0].ID

	t.Run("new", func(t *testing.T) {
		s := s.with(t)
		var res struct {
			Index int    `json:"index"`
			Title string `json:"title"`
			Panes int    `json:"panes"`
		}
		s.mustCLI(&res, "new", "--name", "from-home", "--cwd", "~/home-sub")
		if res.Index != 1 || res.Title != "from-home" || res.Panes != 1 {
			t.Errorf("new --name from-home: got %+v, want index 1, title from-home, 1 pane", res)
		}
		s.mustCLI(&res, "new", "--cwd", "rel-sub")
		if res.Index != 2 || res.Title != "Terminal" {
			t.Errorf("new --cwd rel-sub: got %+v, want index 2 titled Terminal", res)
		}
		ws := s.workspaces()
		if len(ws) != 3 || ws[1].Title != "from-home" || !ws[0].Active {
			t.Fatalf("workspace.list after two `new`: got %+v, want 3 workspaces, the first still active", ws)
		}
		// The panes run in the resolved directories.
		for _, c := range []struct {
			ws  int
			dir string
		}{{1, "home-sub"}, {2, "rel-sub"}} {
			want := realPath(t, filepath.Join(s.dir, c.dir))
			s.eventually("workspace "+id(uint64(c.ws))+"'s pane to run in "+c.dir, func() (bool, string) {
				for _, x := range s.ls().Surfaces {
					if x.Workspace == c.ws && x.Cwd != nil && realPath(t, *x.Cwd) == want {
						return true, ""
					}
				}
				return false, s.cli("ls").stdout
			})
		}
		s.wantCode(1, []string{"does not exist"}, "new", "--cwd", "no-such-dir")
	})

	t.Run("new --command --env", func(t *testing.T) {
		s := s.with(t)
		var res struct {
			Index int `json:"index"`
		}
		const cmd = "echo NEWENV=$NEW_VAR; exec sleep 1001"
		s.mustCLI(&res, "new", "--name", "cmdws", "--command", cmd, "--env", "NEW_VAR=from-new")
		var pane surface
		s.eventually("the new workspace's pane to report its command", func() (bool, string) {
			for _, x := range s.ls().Surfaces {
				if x.Workspace == res.Index && x.Cmd != nil {
					pane = x
					return true, ""
				}
			}
			return false, s.cli("ls").stdout
		})
		if *pane.Cmd != cmd {
			t.Fatalf("new --command %q: the workspace's pane runs %q instead (workspace.create ignored command/env)", cmd, *pane.Cmd)
		}
		s.waitOutput(id(pane.ID), `NEWENV=from-new`)
	})

	t.Run("select", func(t *testing.T) {
		s := s.with(t)
		var res map[string]int
		s.mustCLI(&res, "select", "1")
		if res["selected"] != 1 {
			t.Errorf("select 1: got %v, want {selected:1}", res)
		}
		if l := s.ls(); l.Workspace != 1 {
			t.Errorf("after select 1: ls workspace = %d, want 1", l.Workspace)
		}
		s.wantCode(1, []string{"paneflow error -32602"}, "select", "99")
		s.wantCode(2, []string{"non-negative integer"}, "select", "one")
		s.mustCLI(&res, "select", "0")
	})

	t.Run("split", func(t *testing.T) {
		s := s.with(t)
		var res struct {
			Split     bool   `json:"split"`
			Direction string `json:"direction"`
			Panes     int    `json:"panes"`
			SurfaceID uint64 `json:"surface_id"`
		}
		s.mustCLI(&res, "split", "h")
		if !res.Split || res.Direction != "horizontal" || res.Panes != 2 {
			t.Errorf("split h: got %+v, want a horizontal split to 2 panes", res)
		}
		below := res.SurfaceID
		s.mustCLI(&res, "split", "vertical", "--target", id(below), "--name", "side",
			"--command", "echo SPLITENV=$SPLIT_VAR SID=$PANEFLOW_SURFACE_ID WS=$PANEFLOW_WORKSPACE; exec sleep 1000",
			"--env", "SPLIT_VAR=one", "--env", "SPLIT_VAR=two")
		if res.Direction != "vertical" || res.Panes != 3 {
			t.Errorf("split vertical --target: got %+v, want a vertical split to 3 panes", res)
		}
		side := res.SurfaceID
		s.waitOutput("side", `SPLITENV=two SID=`+id(side)+` WS=0`)
		if sf, _ := s.surface(side); sf.Name != "side" || sf.Workspace != 0 {
			t.Errorf("split --name side: got %+v, want name side in workspace 0", sf)
		}
		s.wantCode(2, []string{"direction must be"}, "split", "diagonal")
		s.wantCode(3, []string{"no pane matches target 'nobody'"}, "split", "h", "--target", "nobody")
	})

	t.Run("focus", func(t *testing.T) {
		s := s.with(t)
		var other uint64
		for _, x := range s.ls().Surfaces {
			if x.Workspace == 1 {
				other = x.ID
			}
		}
		var res struct {
			Focused   bool   `json:"focused"`
			SurfaceID uint64 `json:"surface_id"`
			Workspace int    `json:"workspace"`
		}
		s.mustCLI(&res, "focus", id(other))
		if !res.Focused || res.SurfaceID != other || res.Workspace != 1 {
			t.Errorf("focus %d: got %+v, want focused in workspace 1", other, res)
		}
		if l := s.ls(); l.Workspace != 1 {
			t.Errorf("focus switches workspaces: ls workspace = %d, want 1", l.Workspace)
		}
		s.mustCLI(&res, "focus", id(first))
		if res.Workspace != 0 {
			t.Errorf("focus %d: workspace %d, want 0", first, res.Workspace)
		}
	})

	t.Run("rename", func(t *testing.T) {
		s := s.with(t)
		var res struct {
			Renamed bool    `json:"renamed"`
			Name    *string `json:"name"`
		}
		s.mustCLI(&res, "rename", id(first), "  main\x07pane  ")
		if !res.Renamed || res.Name == nil || *res.Name != "mainpane" {
			t.Errorf("rename: got %+v (name %q), want renamed to the sanitized \"mainpane\"", res, deref(res.Name))
		}
		if sf, _ := s.surface(first); sf.Name != "mainpane" {
			t.Errorf("ls after rename: name %q, want mainpane", sf.Name)
		}
		s.wantCode(2, []string{"must not be empty"}, "rename", id(first), "   ")
	})

	t.Run("resize", func(t *testing.T) {
		s := s.with(t)
		var res struct {
			Resized   bool   `json:"resized"`
			SurfaceID uint64 `json:"surface_id"`
			Cols      int    `json:"cols"`
			Rows      int    `json:"rows"`
		}
		s.mustCLI(&res, "resize", "mainpane", "100x30")
		if !res.Resized || res.SurfaceID != first || res.Cols != 100 || res.Rows != 30 {
			t.Errorf("resize mainpane 100x30: got %+v", res)
		}
		s.wantCode(2, []string{"<cols>x<rows>"}, "resize", id(first), "100by30")
		s.wantCode(2, []string{"<cols>x<rows>"}, "resize", id(first), "0x10")
	})

	t.Run("close", func(t *testing.T) {
		s := s.with(t)
		p := s.command("exec sleep 1000", "--name", "doomed")
		var res struct {
			Closed    bool   `json:"closed"`
			SurfaceID uint64 `json:"surface_id"`
		}
		s.mustCLI(&res, "close", "doomed")
		if !res.Closed || res.SurfaceID != p {
			t.Errorf("close doomed: got %+v, want closed %d", res, p)
		}
		if _, ok := s.surface(p); ok {
			t.Errorf("pane %d still listed after close", p)
		}
		s.wantCode(3, []string{"no pane matches"}, "close", id(p))
	})

	t.Run("ps and status", func(t *testing.T) {
		s := s.with(t)
		if got := s.mustCLI(nil, "ps").stdout; got != "(no agents)\n" {
			t.Errorf("ps: got %q, want \"(no agents)\\n\"", got)
		}
		var fleet struct {
			Agents []any `json:"agents"`
		}
		if s.mustCLI(&fleet, "ps", "--json"); fleet.Agents == nil || len(fleet.Agents) != 0 {
			t.Errorf("ps --json: got %+v, want an empty agents array", fleet)
		}
		if got := s.mustCLI(nil, "status", id(first)).stdout; got != "idle\n" {
			t.Errorf("status: got %q, want \"idle\\n\"", got)
		}
		var st struct {
			SurfaceID uint64 `json:"surface_id"`
			State     string `json:"state"`
		}
		if s.mustCLI(&st, "status", "mainpane", "--json"); st.SurfaceID != first || st.State != "idle" {
			t.Errorf("status --json: got %+v, want pane %d idle", st, first)
		}
	})
}

// wsInfo is one workspace of workspace.list.
type wsInfo struct {
	Index  int    `json:"index"`
	Title  string `json:"title"`
	Cwd    string `json:"cwd"`
	Panes  int    `json:"panes"`
	Active bool   `json:"active"`
}

// workspaces returns workspace.list's workspaces.
func (s *server) workspaces() []wsInfo {
	s.t.Helper()
	f := parseFrame(s.t, s.rpc(`{"jsonrpc":"2.0","id":1,"method":"workspace.list"}`))
	var r struct {
		Workspaces []wsInfo `json:"workspaces"`
	}
	if f.Error != nil || json.Unmarshal(f.Result, &r) != nil {
		s.t.Fatalf("workspace.list: got %s", f.raw)
	}
	return r.Workspaces
}

// with returns a copy of s reporting to t (a subtest).
func (s *server) with(t testing.TB) *server {
	c := *s
	c.t = t
	return &c
}

// realPath resolves symlinks, so paths compare as the kernel reports them.
func realPath(t testing.TB, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return filepath.Clean(p)
	}
	return r
}

func deref(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

// TestSelectors covers names (exact, prefix, ambiguity), ids, cmdline: and
// cwd: on path-component boundaries.
func TestSelectors(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	for _, d := range []string{"proj", "proj-backend", "proj/sub"} {
		if err := os.MkdirAll(filepath.Join(s.dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	alpha := s.command("exec sleep 1231", "--name", "agent-alpha", "--cwd", "proj")
	beta := s.command("exec sleep 1232", "--name", "agent-beta", "--cwd", "~/proj-backend")
	sub := s.command("exec sleep 1233", "--name", "worker", "--cwd", filepath.Join(s.dir, "proj", "sub"))
	// cmd and cwd come from the process table: wait until they show.
	s.eventually("the panes' commands to show in ls", func() (bool, string) {
		n := 0
		for _, x := range s.ls().Surfaces {
			if x.Cmd != nil && strings.Contains(*x.Cmd, "sleep 123") && x.Cwd != nil {
				n++
			}
		}
		return n == 3, s.cli("ls").stdout
	})

	statusOf := func(t *testing.T, target string) uint64 {
		t.Helper()
		var st struct {
			SurfaceID uint64 `json:"surface_id"`
		}
		s.with(t).mustCLI(&st, "status", target, "--json")
		return st.SurfaceID
	}
	resolves := []struct {
		target string
		want   uint64
	}{
		{id(beta), beta},
		{"agent-alpha", alpha},
		{"AGENT-BETA", beta}, // names match in any case
		{"agent-al", alpha},  // a unique prefix
		{"work", sub},
		{"cmdline:sleep 1232", beta},
		{"cmdline:SLEEP 1233", sub},
		{"cwd:proj-backend", beta},   // relative to the CLI's directory
		{"cwd:~/proj-backend", beta}, // ~ is the CLI's HOME
		{"cwd:" + filepath.Join(s.dir, "proj", "sub") + "/", sub},
	}
	for _, c := range resolves {
		t.Run("resolves "+c.target, func(t *testing.T) {
			if got := statusOf(t, c.target); got != c.want {
				t.Errorf("status %q: got pane %d, want %d", c.target, got, c.want)
			}
		})
	}

	fails := []struct {
		target string
		stderr []string
	}{
		{"agent", []string{"ambiguous target 'agent'", id(alpha) + "(agent-alpha)", id(beta) + "(agent-beta)"}},
		// proj holds alpha and (below it) worker, but not proj-backend.
		{"cwd:proj", []string{"ambiguous", id(alpha), id(sub)}},
		{"cmdline:sleep 123", []string{"ambiguous", id(alpha), id(beta), id(sub)}},
		{"nobody", []string{"no pane matches target 'nobody'"}},
		{"999", []string{"no pane matches target '999'"}},
		{"cwd:" + filepath.Join(s.dir, "pro"), []string{"no pane matches"}},
		{"cmdline:no-such-command", []string{"no pane matches"}},
	}
	for _, c := range fails {
		t.Run("exit 3 for "+c.target, func(t *testing.T) {
			r := s.with(t).wantCode(3, c.stderr, "status", c.target)
			if strings.Contains(c.target, "proj") && strings.Contains(r.stderr, id(beta)+"(agent-beta)") {
				t.Errorf("cwd:proj matched proj-backend's pane %d: %s", beta, r.stderr)
			}
		})
	}
	t.Run("cwd: of a subdirectory", func(t *testing.T) {
		if got := statusOf(t, "cwd:proj/sub"); got != sub {
			t.Errorf("status cwd:proj/sub: got %d, want %d", got, sub)
		}
	})
	t.Run("empty selector is a usage error", func(t *testing.T) {
		s.with(t).wantCode(2, []string{"empty"}, "status", "")
		s.with(t).wantCode(2, []string{"empty path"}, "status", "cwd:")
	})
	t.Run("ambiguous targets never act", func(t *testing.T) {
		s := s.with(t)
		before := len(s.ls().Surfaces)
		s.wantCode(3, []string{"ambiguous"}, "close", "agent")
		s.wantCode(3, []string{"ambiguous"}, "split", "h", "--target", "agent")
		if after := len(s.ls().Surfaces); after != before {
			t.Errorf("panes after refused close/split: %d, want %d", after, before)
		}
	})
}
