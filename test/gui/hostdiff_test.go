//go:build linux

package gui

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/test/internal/proctest"
	"github.com/paneflow-go/paneflow/test/internal/sshdtest"
)

// noGitPath is a directory of links to every program in /usr/bin but
// git's: a PATH on which this machine has no git.
func noGitPath(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(tempDir(t), "nogit")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	es, err := os.ReadDir("/usr/bin")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if strings.HasPrefix(e.Name(), "git") {
			continue
		}
		if err := os.Symlink(filepath.Join("/usr/bin", e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestHostDiff (issue 30): the Diff view of a pane on another host, in
// the window binary under Xvfb, behind a real sshd on loopback: the
// window and its own server run with no git on their PATH, so the diff
// (its added lines green on screen) can only come from the host's
// server, which reads the repository with the real git (review.diff).
func TestHostDiff(t *testing.T) {
	x := display(t)
	srv := startServe(t, "100x30")
	dir := tempDir(t)
	repo := filepath.Join(dir, "repo")
	env := append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	git := func(args ...string) string { return mustTool(t, env, "git", append([]string{"-C", repo}, args...)...) }
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q", "-b", "main")
	write("a.txt", "one\n")
	git("add", "a.txt")
	git("commit", "-q", "-m", "first")
	git("checkout", "-q", "-b", "agent/fix")
	write("a.txt", "one\ntwo on the host\nthree on the host\nfour on the host\n")
	write("new.txt", "fresh on the host\n")
	srv.rpc(nil, "workspace.create", map[string]any{"name": "repo", "cwd": repo})
	sshd := sshdtest.Start(t, sshdtest.Config{Dir: dir, Ports: []sshdtest.Port{{Env: []string{
		"PATH=" + filepath.Dir(cliBin) + ":/usr/bin:/bin", "HOME=" + dir, "LANG=C.UTF-8", "PANEFLOW_SOCKET_PATH=" + srv.sock,
	}}}})

	w := startAppConfig(t, x, hostsConfig([]string{sshd.URL(0)}), "PANEFLOW_SSH="+sshd.SSHCommand(), "PANEFLOW_UI_PROBE=1",
		"PATH="+noGitPath(t))
	host := regexp.QuoteMeta(sshd.URL(0))
	if _, err := w.waitLine(regexp.MustCompile(`^ui-probe sidebar hosts=\[`+host+`=connected\] cards=\[[^@]+@0/1 [^@]+@1/1 repo@1/1\]`), 0, appStartTimeout); err != nil {
		t.Fatalf("the host's workspaces never showed: %v\n%s", err, proctest.Indent(w.log.String()))
	}
	from := w.log.count()
	w.xdo("windowfocus", "--sync", w.win)
	w.xdo("key", "ctrl+3")
	if _, err := w.waitLine(regexp.MustCompile(`^ui-probe sidebar .* shown=@1 focus=@1$`), from, appStartTimeout); err != nil {
		t.Fatalf("the host's repo workspace was not shown: %v\n%s", err, proctest.Indent(w.log.String()))
	}
	g := w.geometry()
	full := image.Rect(0, 0, g.W, g.H)
	greenBefore := find(w.stable("before", full), full, isGreen).N
	w.xdo("key", "ctrl+shift+g")
	w.eventually("the host's diff on screen", func() (bool, string) {
		green := find(w.screenshot("diff"), full, isGreen)
		return green.N > greenBefore+100, fmt.Sprintf("%d green pixels (%d before)", green.N, greenBefore)
	})
	w.stable("diff", full)
	// A file the host's agent writes shows without asking (the host's
	// server watches the worktree, review.watch, and the view asks for the
	// diff when it says so): more added lines.
	rows := len(greenRows(w.screenshot("rows"), image.Rect(g.W/3, 150, g.W, g.H)))
	write("c.txt", "one more\nand another\n")
	w.eventually("the host's new file on screen", func() (bool, string) {
		n := len(greenRows(w.screenshot("more"), image.Rect(g.W/3, 150, g.W, g.H)))
		return n >= rows+2, fmt.Sprintf("%d green rows (%d before)", n, rows)
	})
	w.stable("diff-more", full)
}
