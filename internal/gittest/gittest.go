// Package gittest makes real git repositories for tests, with the git on
// PATH: one way to run git with a commit identity and to make a
// repository with a first commit, for the packages whose tests need one
// (worktree, core, app, test/e2e, test/mcp). A machine without git fails
// those tests with a clear message (CI never skips). It is for tests
// only; nothing in it is safe to call outside a test.
package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// identity is the commit author and committer of every call, so that
// commits work whatever the machine's git configuration.
var identity = []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e"}

// Git runs `git -C dir args...` with the test identity and returns its
// combined output; a failure ends the test with that output.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is needed by this test: %v", err)
	}
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), identity...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// Repo makes a repository in dir (created with its parents) on branch
// main whose first commit, "first", holds files: slash-separated paths
// below dir → contents (their directories are created). It returns dir.
// files must not be empty: git commits nothing else.
func Repo(t testing.TB, dir string, files map[string]string) string {
	t.Helper()
	if len(files) == 0 {
		t.Fatal("gittest.Repo: no files to commit")
	}
	for p, s := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	Git(t, dir, "init", "-q", "-b", "main")
	Git(t, dir, "add", ".")
	Git(t, dir, "commit", "-q", "-m", "first")
	return dir
}

// NumberedLines is a file of n lines "line 1" … "line n", the lines whose
// numbers are in changed ending in " changed": a file whose diff against
// the unchanged one has a hunk per changed place (lines far enough apart
// make separate hunks).
func NumberedLines(n int, changed ...int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("line " + strconv.Itoa(i))
		if slices.Contains(changed, i) {
			b.WriteString(" changed")
		}
		b.WriteByte('\n')
	}
	return b.String()
}
