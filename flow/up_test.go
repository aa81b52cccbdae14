package flow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestParseWorkspaceErrors(t *testing.T) {
	pane := "[[panes]]\n"
	for _, c := range []struct{ name, in, want string }{
		{"no panes", `name = "x"`, "workspace spec has no [[panes]]"},
		{"unknown top key", "name = \"x\"\nlayuot = \"tiled\"\n" + pane, "line 2: unknown key `layuot`"},
		{"unknown pane key", pane + "cwd = \"/\"\n" + pane + "cwdd = \"/\"\n", "line 4: unknown key `panes.cwdd`"},
		{"unknown env-level table key", pane + "[panes.foo]\nx = 1\n", "line 2: unknown key `panes.foo`"},
		{"wrong type", pane + "focus = \"yes\"\n", "toml: line 2 (last key \"panes.focus\"): incompatible types: TOML value has type string; destination has type boolean"},
		{"syntax", "name = \n", "line 1: expected value but found '\\n' instead"},
		{"bad layout", "layout = \"grid\"\n" + pane, "layout must be one of even_h, even_v, main_vertical, tiled, got 'grid'"},
		{"bad port_base", "port_base = 70000\n" + pane, "port_base must be 1..65535, got 70000"},
		{"too many", strings.Repeat(pane, 33), "too many panes (33 > 32)"},
		{"agent and command", pane + "agent = \"codex\"\ncommand = \"ls\"\n", "pane 0: set either `agent` or `command`, not both"},
		{"empty worktree", pane + "cwd = \"/\"\nworktree = \"\"\n", "pane 0: `worktree` must name a branch"},
		{"dash branch", pane + "cwd = \"/\"\nworktree = \"-x\"\n", "pane 0: branch '-x' must not start with '-'"},
		{"dot branch", pane + "cwd = \"/\"\nworktree = \"..\"\n", "pane 0: branch '..' has no filesystem-safe name (dot-only names are not allowed)"},
		{"worktree without cwd", pane + pane + "worktree = \"b\"\n", "pane 1: `worktree` requires `cwd` (to locate the git repository)"},
		{"copy_env alone", pane + "copy_env = false\n", "pane 0: `copy_env` requires `worktree`"},
		{"setup alone", pane + "setup = \"make\"\n", "pane 0: `setup` requires `worktree`"},
		{"timeout alone", pane + "setup_timeout_secs = 5\n", "pane 0: `setup_timeout_secs` requires `worktree`"},
		{"teardown alone", pane + "worktree_teardown = \"keep\"\n", "pane 0: `worktree_teardown` requires `worktree`"},
		{"bad teardown", pane + "cwd = \"/\"\nworktree = \"b\"\nworktree_teardown = \"never\"\n", "pane 0: `worktree_teardown` must be \"auto\" or \"keep\", got 'never'"},
		{"bad budget", "budget = { tokens = -3 }\n" + pane, "budget.tokens must be positive, got -3"},
		{"bad pane budget", pane + "budget = {}\n", "pane 0: budget needs `tokens` or `cost`"},
		{"bad timeout", pane + "cwd = \"/\"\nworktree = \"b\"\nsetup_timeout_secs = -1\n", "pane 0: `setup_timeout_secs` must be a positive number of seconds, got -1"},
		{"bad command", pane + "command = \"echo 'x\"\n", "pane 0: `command`: cannot split \"echo 'x\" into shell words: invalid command line string"},
		{"bad setup", pane + "cwd = \"/\"\nworktree = \"b\"\nsetup = \"a \\\"b\"\n", "pane 0: `setup`: cannot split \"a \\\"b\" into shell words: invalid command line string"},
		{"empty agent", pane + "agent = \" \"\n", "pane 0: `agent` is empty"},
		{"unclosed", pane + "env = { A = \"${port_offset\" }\n", "pane 0: env `A`: unclosed `${`"},
		{"unknown var", pane + "env = { A = \"${port_offset}\", B = \"${HOME}\" }\n", "pane 0: env `B` references unknown variable '${HOME}' (supported: ${port_offset})"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseWorkspace([]byte(c.in))
			if err == nil || err.Error() != c.want {
				t.Fatalf("got %v\nwant %s", err, c.want)
			}
		})
	}
}

// fakeWorktrees plans every branch as <repo>.worktrees/<branch> of a
// repository at /repo, records what is done and fails on request.
type fakeWorktrees struct {
	log        []string
	failCreate string // branch whose Create fails
	failSetup  bool
	reuse      map[string]bool
	notRepo    bool
}

func (f *fakeWorktrees) Plan(_ context.Context, cwd, branch string) (Worktree, error) {
	if f.notRepo {
		return Worktree{}, fmt.Errorf("cwd '%s' is not inside a git repository (required by `worktree`)", cwd)
	}
	a := "create"
	if f.reuse[branch] {
		a = "reuse"
	}
	return Worktree{Path: "/repo.worktrees/" + strings.ReplaceAll(branch, "/", "-"), RepoRoot: "/repo", Branch: branch, Action: a, NewBranch: a == "create"}, nil
}

func (f *fakeWorktrees) Create(_ context.Context, w Worktree) error {
	if w.Branch == f.failCreate {
		return errors.New("git worktree add: fatal: nope")
	}
	f.log = append(f.log, "create "+w.Branch)
	return nil
}

func (f *fakeWorktrees) CopyEnv(_ context.Context, w Worktree) ([]string, error) {
	f.log = append(f.log, "copy_env "+w.Branch)
	return []string{".env"}, nil
}

func (f *fakeWorktrees) Setup(_ context.Context, w Worktree, script string, timeout time.Duration) error {
	f.log = append(f.log, fmt.Sprintf("setup %s %q %v", w.Branch, script, timeout))
	if f.failSetup {
		return errors.New("exit 2")
	}
	return nil
}

func (f *fakeWorktrees) Rollback(_ context.Context, w Worktree) error {
	f.log = append(f.log, "rollback "+w.Branch)
	return nil
}

// testHost resolves against a temp tree: dir is the working directory and
// home; ports in busy cannot be bound; only "claude" and "codex" are
// installed.
func testHost(t *testing.T, wt Worktrees, busy ...int) (Host, string) {
	dir := t.TempDir()
	for _, d := range []string{"api", "web", "repo"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dir, _ = filepath.EvalSymlinks(dir)
	return Host{
		Getwd: func() (string, error) { return dir, nil },
		Home:  dir,
		LookPath: func(s string) (string, error) {
			if s == "claude" || s == "codex" {
				return "/usr/bin/" + s, nil
			}
			return "", errors.New("not found")
		},
		PortFree: func(p int) bool {
			for _, b := range busy {
				if b == p {
					return false
				}
			}
			return true
		},
		Worktrees: wt,
	}, dir
}

const goldenSpec = `name = "feat-x"
layout = "main_vertical"
port_base = 4000

[[panes]]
cwd = "~/api"
agent = "Claude"
prompt = "review the diff on this branch"
focus = true
env = { PORT = "${port_offset}", MODE = "dev" }

[[panes]]
cwd = "web"
command = "npm run dev -- --port \"$PORT\""
name = "tests"
env = { PORT = "${port_offset}" }

[[panes]]
cwd = "repo"
agent = "codex"
worktree = "feat/x"
setup = "make deps"
setup_timeout_secs = 60
worktree_teardown = "keep"
env = { PORT = "${port_offset}" }

[[panes]]
`

func TestDryRunGolden(t *testing.T) {
	w, err := ParseWorkspace([]byte(goldenSpec))
	if err != nil {
		t.Fatal(err)
	}
	h, dir := testHost(t, &fakeWorktrees{}, 4010)
	plan, err := ResolveWorkspace(context.Background(), w, h)
	if err != nil {
		t.Fatal(err)
	}
	js, err := plan.DryRunJSON()
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := plan.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	golden(t, "up-dry-run.json", strings.ReplaceAll(string(js), dir, "$DIR"))
	golden(t, "up-dry-run.txt", strings.ReplaceAll(text.String(), dir, "$DIR"))
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		os.MkdirAll(filepath.Join("testdata", "failed"), 0o755)
		os.WriteFile(filepath.Join("testdata", "failed", name), []byte(got), 0o644)
		t.Fatalf("%s differs from the golden file; got written to testdata/failed/%s\n%s", name, name, got)
	}
}

func TestResolveErrors(t *testing.T) {
	pane := "[[panes]]\n"
	for _, c := range []struct {
		name, in, want string
		wt             *fakeWorktrees
	}{
		{"missing cwd", pane + pane + "cwd = \"nope\"\n", "pane 1: cwd 'nope' does not exist or is not a directory", nil},
		{"not a repo", pane + "cwd = \"api\"\nworktree = \"b\"\n", "pane 0: cwd '$DIR/api' is not inside a git repository (required by `worktree`)", &fakeWorktrees{notRepo: true}},
		{"same worktree", pane + "cwd = \"api\"\nworktree = \"a/b\"\n" + pane + "cwd = \"web\"\nworktree = \"a-b\"\n",
			"pane 0 and pane 1 both target worktree 'a-b' (/repo.worktrees/a-b) - a branch can only be checked out in one worktree", &fakeWorktrees{}},
		{"unknown agent", pane + "agent = \"vim\"\n", "pane 0: unknown agent 'vim'", nil},
		{"agent not installed", pane + "agent = \"gemini\"\n", "pane 0: agent 'gemini' (gemini) not found on PATH", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, err := ParseWorkspace([]byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			var wt Worktrees
			if c.wt != nil {
				wt = c.wt
			}
			h, dir := testHost(t, wt)
			_, err = ResolveWorkspace(context.Background(), w, h)
			if want := strings.ReplaceAll(c.want, "$DIR", dir); err == nil || err.Error() != want {
				t.Fatalf("got %v\nwant %s", err, c.want)
			}
		})
	}
}

// fakeCaller answers workspace.up with n surface ids, or fails.
type fakeCaller struct {
	fail   error
	params []byte
	tracks []string // usage.track params
}

func (f *fakeCaller) Call(_ context.Context, method string, params, result any) error {
	if method == "usage.track" {
		b, _ := json.Marshal(params)
		f.tracks = append(f.tracks, string(b))
		return nil
	}
	f.params, _ = json.Marshal(params)
	if f.fail != nil {
		return f.fail
	}
	var p upParams
	json.Unmarshal(f.params, &p)
	ids := []uint64{}
	for i := range p.Panes {
		ids = append(ids, uint64(i+1))
	}
	b, _ := json.Marshal(UpResult{Index: 1, Title: "x", Panes: len(ids), SurfaceIDs: ids})
	return json.Unmarshal(b, result)
}

func TestUpRollsBack(t *testing.T) {
	spec := "[[panes]]\ncwd = \"repo\"\nworktree = \"a\"\nsetup = \"make\"\n[[panes]]\ncwd = \"repo\"\nworktree = \"b\"\n[[panes]]\ncwd = \"repo\"\nworktree = \"c\"\n"
	for _, c := range []struct {
		name    string
		wt      *fakeWorktrees
		call    error
		wantErr string
		wantLog string
	}{
		{"ok", &fakeWorktrees{reuse: map[string]bool{"b": true}}, nil, "",
			`create a|copy_env a|setup a "make" 5m0s|create c|copy_env c`},
		{"create fails", &fakeWorktrees{failCreate: "c"}, nil, "pane 2: git worktree add: fatal: nope",
			`create a|copy_env a|setup a "make" 5m0s|create b|copy_env b|rollback b|rollback a`},
		{"no answer", &fakeWorktrees{}, errors.New("paneflow did not respond within 10s"), "paneflow did not respond within 10s",
			`create a|copy_env a|setup a "make" 5m0s|create b|copy_env b|create c|copy_env c`},
		{"up fails", &fakeWorktrees{reuse: map[string]bool{"a": true}}, codedErr{-32602, "pane 1: cwd"}, "paneflow error -32602: pane 1: cwd",
			`create b|copy_env b|create c|copy_env c|rollback c|rollback b`},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, err := ParseWorkspace([]byte(spec))
			if err != nil {
				t.Fatal(err)
			}
			h, _ := testHost(t, c.wt)
			plan, err := ResolveWorkspace(context.Background(), w, h)
			if err != nil {
				t.Fatal(err)
			}
			var warns []string
			res, err := Up(context.Background(), plan, c.wt, &fakeCaller{fail: c.call}, func(s string) { warns = append(warns, s) })
			if c.wantErr == "" {
				if err != nil || len(res.SurfaceIDs) != 3 {
					t.Fatalf("Up = %+v, %v", res, err)
				}
			} else if err == nil || err.Error() != c.wantErr {
				t.Fatalf("Up error = %v, want %s", err, c.wantErr)
			}
			if got := strings.Join(c.wt.log, "|"); got != c.wantLog {
				t.Fatalf("worktree calls:\n got %s\nwant %s", got, c.wantLog)
			}
		})
	}
}

func TestUpSetupFailureWarnsInPane(t *testing.T) {
	wt := &fakeWorktrees{failSetup: true}
	w, _ := ParseWorkspace([]byte("[[panes]]\ncwd = \"repo\"\nworktree = \"a\"\nsetup = \"make\"\ncommand = \"ls\"\n"))
	h, _ := testHost(t, wt)
	plan, err := ResolveWorkspace(context.Background(), w, h)
	if err != nil {
		t.Fatal(err)
	}
	var warns []string
	fc := &fakeCaller{}
	if _, err := Up(context.Background(), plan, wt, fc, func(s string) { warns = append(warns, s) }); err != nil {
		t.Fatal(err)
	}
	want := "pane 0: setup failed in /repo.worktrees/a (exit 2) - agent started anyway"
	if len(warns) != 2 || warns[1] != want {
		t.Fatalf("warnings %q, want the copy and %q", warns, want)
	}
	if !strings.Contains(string(fc.params), `"command":"printf '%s\\n' 'paneflow: pane 0: setup failed`) || !strings.Contains(string(fc.params), `\u003e\u00262; ls"`) {
		t.Fatalf("the pane's command does not print the warning: %s", fc.params)
	}
}

func FuzzParseWorkspace(f *testing.F) {
	f.Add([]byte(goldenSpec))
	f.Add([]byte("[[panes]]\nenv = { A = \"${port_offset\" }\n"))
	f.Add([]byte("[[panes]]\ncwd=\"/\"\nworktree=\"..\"\n[panes.x]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := ParseWorkspace(data)
		if err == nil && (len(w.Panes) == 0 || len(w.Panes) > MaxPanes) {
			t.Fatalf("accepted %d panes", len(w.Panes))
		}
		if err != nil && err.Error() == "" {
			t.Fatal("empty error message")
		}
	})
}

func jsonIndent(v any) (string, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	return string(b), err
}

// TestUpTracksBudgets: a workspace spec's budgets go to the server with
// its panes (usage.track), the whole workspace's with each; a spec
// without budgets tracks nothing.
func TestUpTracksBudgets(t *testing.T) {
	for _, c := range []struct {
		spec string
		want []string // params less the run id
	}{
		{"[[panes]]\n[[panes]]\n", nil},
		{"name = \"team\"\nbudget = { cost = 5 }\n[[panes]]\nname = \"impl\"\nbudget = { tokens = 9000 }\n[[panes]]\n", []string{
			`{"budget":{"tokens":9000},"label":"team","run_budget":{"cost_usd":5},"step":"impl","surface_id":1}`,
			`{"label":"team","run_budget":{"cost_usd":5},"step":"pane 1","surface_id":2}`,
		}},
	} {
		w, err := ParseWorkspace([]byte(c.spec))
		if err != nil {
			t.Fatal(err)
		}
		h, _ := testHost(t, &fakeWorktrees{})
		plan, err := ResolveWorkspace(context.Background(), w, h)
		if err != nil {
			t.Fatal(err)
		}
		f := &fakeCaller{}
		if _, err := Up(context.Background(), plan, &fakeWorktrees{}, f, func(string) {}); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range f.tracks {
			var m map[string]any
			json.Unmarshal([]byte(p), &m)
			if run, _ := m["run"].(string); !strings.HasPrefix(run, "team-") {
				t.Errorf("run id %q", run)
			}
			delete(m, "run")
			b, _ := json.Marshal(m)
			got = append(got, string(b))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: usage.track calls\n got %q\nwant %q", c.spec, got, c.want)
		}
	}
}
