//go:build linux

package e2e

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/internal/gittest"
)

// upRepo makes, under dir, a git repository whose path has a space, with
// an ignored .env, a subdirectory and one commit; and a bin directory with
// a fake `gemini` agent that echoes what it is typed.
func upRepo(t *testing.T, dir string) (repo, binDir string) {
	t.Helper()
	repo = filepath.Join(dir, "my repo")
	for _, d := range []string{filepath.Join(repo, "sub"), filepath.Join(dir, "plain"), filepath.Join(dir, "bin")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	gittest.Repo(t, repo, map[string]string{".gitignore": ".env\n", "sub/f": "x\n"})
	if err := os.WriteFile(filepath.Join(repo, ".env"), []byte("SECRET=from-the-repo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	binDir = filepath.Join(dir, "bin")
	// Like the real agents it turns bracketed paste on when it reads its
	// input (a start prompt waits for that); the terminal then echoes the
	// paste's brackets as sequences, not as ^[.
	agent := "#!/bin/sh\nstty -echoctl\nprintf '\\033[?2004h'\necho \"fake gemini in $(pwd) port=$PORT\"\nwhile read -r line; do echo \"SUBMITTED: $line\"; done\n"
	writeExecutable(t, filepath.Join(binDir, "gemini"), []byte(agent))
	return repo, binDir
}

// TestUpWorkspace runs `paneflow up` on a 6-pane spec with three
// worktrees (one a subdirectory cwd, one kept), ports with a busy one
// skipped, a client-side "~" cwd, a prompt and a shell pane; then a
// failing up whose new worktree is rolled back; then closes the workspace
// and checks the teardown.
func TestUpWorkspace(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	repo, binDir := upRepo(t, dir)
	path := "PATH=" + binDir + ":" + os.Getenv("PATH")
	// Undo close keeps a closed workspace (and its worktrees) 15 s here,
	// not a minute: long enough that no stall of a loaded machine between
	// the close and the next look passes it, short enough to wait for.
	s := startServerAt(t, dir, filepath.Join(dir, "pf.sock"), path, "PANEFLOW_UNDO_WINDOW=15s")
	s.env = append(s.env, path)

	// A busy port: allocation must step over it.
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyPort := busy.Addr().(*net.TCPAddr).Port
	base := busyPort - 10

	spec := fmt.Sprintf(`name = "feat"
layout = "tiled"
port_base = %d

[[panes]]
agent = "gemini"
cwd = "my repo"
worktree = "feat/a"
prompt = "hello agent"
focus = true
env = { PORT = "${port_offset}" }

[[panes]]
command = "echo PANE1 port=$PORT; pwd; cat .env; ls; exec sleep 1000"
cwd = "my repo/sub"
worktree = "feat/b"
setup = "touch setup-ran"
env = { PORT = "${port_offset}" }

[[panes]]
command = "echo PANE2 in $(pwd); exec sleep 1000"
cwd = "~/plain"
name = "plain"

[[panes]]
command = "echo PANE3 port=$PORT; exec sleep 1000"
env = { PORT = "${port_offset}" }

[[panes]]
command = "echo PANE4 in $(pwd); exec sleep 1000"
cwd = "my repo"
worktree = "feat/c"
worktree_teardown = "keep"
copy_env = false

[[panes]]
name = "shell"
`, base)
	specPath := filepath.Join(dir, "ws.toml")
	if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	wtDir := filepath.Join(dir, "my repo.worktrees")

	// Dry run: the plan, and nothing created.
	r := s.mustCLI(nil, "up", "ws.toml", "--dry-run")
	for _, want := range []string{"workspace \"feat\": 6 panes, layout tiled", "worktree  create (new branch off HEAD) feat/a at " + filepath.Join(wtDir, "feat-a"),
		"run       gemini   (agent gemini)", "cwd       " + filepath.Join(dir, "plain"), "setup     touch setup-ran (timeout 300s)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("dry run lacks %q:\n%s", want, r)
		}
	}
	if _, err := os.Stat(wtDir); err == nil {
		t.Fatalf("--dry-run created %s", wtDir)
	}
	var plan struct {
		Panes []struct {
			Argv       []string `json:"argv"`
			PortOffset int      `json:"port_offset"`
		} `json:"panes"`
	}
	s.mustCLI(&plan, "up", "ws.toml", "--dry-run", "--json")
	if len(plan.Panes) != 6 || strings.Join(plan.Panes[0].Argv, " ") != "gemini" {
		t.Fatalf("dry-run JSON: %+v", plan)
	}

	var res struct {
		Index      int      `json:"index"`
		SurfaceIDs []uint64 `json:"surface_ids"`
	}
	r = s.mustCLI(&res, "up", specPath, "--json", "--yes")
	if len(res.SurfaceIDs) != 6 {
		t.Fatalf("surface ids %v, want 6:\n%s", res.SurfaceIDs, r)
	}
	if !strings.Contains(r.stderr, "pane 0: copied .env into "+filepath.Join(wtDir, "feat-a")) {
		t.Errorf("no copy_env report on stderr:\n%s", r)
	}
	ids := res.SurfaceIDs
	// Worktree panes run at the worktree's root, with the env copied, the
	// setup run, and their own ports.
	ports := map[int]bool{}
	port := func(target, re string) {
		p, _ := strconv.Atoi(s.waitOutput(target, re))
		if p == busyPort || p < base || (p-base)%10 != 0 || ports[p] {
			t.Errorf("pane %s got port %d: want base %d + a multiple of 10, not the busy %d, not another pane's", target, p, base, busyPort)
		}
		ports[p] = true
	}
	port(id(ids[0]), `fake gemini in `+regexp.QuoteMeta(filepath.Join(wtDir, "feat-a"))+` port=(\d+)`)
	port(id(ids[1]), `PANE1 port=(\d+)`)
	port(id(ids[3]), `PANE3 port=(\d+)`)
	s.waitOutput(id(ids[1]), regexp.QuoteMeta(filepath.Join(wtDir, "feat-b"))+`\s+SECRET=from-the-repo\s+setup-ran`)
	s.waitOutput("plain", `PANE2 in `+regexp.QuoteMeta(filepath.Join(dir, "plain")))
	s.waitOutput(id(ids[4]), `PANE4 in `+regexp.QuoteMeta(filepath.Join(wtDir, "feat-c")))
	if _, err := os.Stat(filepath.Join(wtDir, "feat-c", ".env")); err == nil {
		t.Error("copy_env = false copied .env")
	}
	// The prompt is typed, not submitted.
	s.waitOutput(id(ids[0]), `(?m)^hello agent`)
	if text := s.readRaw(id(ids[0])); strings.Contains(text, "SUBMITTED") {
		t.Errorf("the prompt was submitted:\n%s", text)
	}
	if l := s.ls(); len(l.Surfaces) != 7 {
		t.Errorf("want the first workspace's pane and 6 more, got %d", len(l.Surfaces))
	}

	// A failing up rolls back the worktree it created: its setup removes
	// the cwd of a later pane, which the server then refuses.
	if err := os.MkdirAll(filepath.Join(dir, "doomed"), 0o755); err != nil {
		t.Fatal(err)
	}
	bad := "[[panes]]\ncwd = \"my repo\"\nworktree = \"feat/x\"\nsetup = \"rmdir $HOME/doomed\"\n[[panes]]\ncwd = \"doomed\"\n"
	if err := os.WriteFile(filepath.Join(dir, "bad.toml"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	s.wantCode(1, []string{"pane 1: cwd '" + filepath.Join(dir, "doomed") + "' does not exist or is not a directory"}, "up", "bad.toml", "--yes")
	if _, err := os.Stat(filepath.Join(wtDir, "feat-x")); err == nil {
		t.Error("the failed up's worktree is still there")
	}
	if strings.Contains(gittest.Git(t, repo, "branch", "--list", "feat/x"), "feat/x") {
		t.Error("the failed up's new branch is still there")
	}

	// Closing the workspace: undo close keeps its panes, so feat/a stays
	// while the workspace can be reopened, and a reopen finds it; closed
	// again, once the undo window passed, feat/a is clean (its .env is
	// ignored) and goes, feat/b has an untracked file and stays, feat/c
	// is kept.
	s.mustCLI(nil, "close", id(ids[5]))
	closeWS := func() {
		t.Helper()
		if reply := s.rpc(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"workspace.close","params":{"index":%d}}`, res.Index)); !strings.Contains(reply, `"closed"`) {
			t.Fatalf("workspace.close: %s", reply)
		}
	}
	closeWS()
	if _, err := os.Stat(filepath.Join(wtDir, "feat-a")); err != nil {
		t.Fatalf("the worktree went with the close, within the undo window: %v", err)
	}
	s.mustCLI(nil, "reopen")
	if _, err := os.Stat(filepath.Join(wtDir, "feat-a")); err != nil {
		t.Fatalf("the reopened workspace's worktree: %v", err)
	}
	s.waitOutput(id(ids[0]), `fake gemini in `+regexp.QuoteMeta(filepath.Join(wtDir, "feat-a"))) // the same pane, its agent still there
	closeWS()
	s.eventually("the clean worktree to be removed", func() (bool, string) {
		_, err := os.Stat(filepath.Join(wtDir, "feat-a"))
		return err != nil, s.stderr.String()
	})
	for _, kept := range []string{"feat-b", "feat-c"} {
		if _, err := os.Stat(filepath.Join(wtDir, kept)); err != nil {
			t.Errorf("%s was removed", kept)
		}
	}
	if !strings.Contains(gittest.Git(t, repo, "branch", "--list", "feat/a"), "feat/a") {
		t.Error("teardown deleted the branch")
	}
	s.eventually("the dirty worktree to be reported", func() (bool, string) {
		return strings.Contains(s.stderr.String(), "worktree kept: uncommitted changes in "+filepath.Join(wtDir, "feat-b")), s.stderr.String()
	})
}
