//go:build !windows

package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/internal/gittest"
)

// plantRepo makes a repository whose own configuration would run programs
// when git looks at it: core.fsmonitor, a textconv and an external diff
// driver, and (with filters) a clean and a process filter set through an
// included file. Each writes a file into marks; markers lists their paths.
func plantRepo(t *testing.T, filters bool) (repo string, markers []string) {
	t.Helper()
	repo, marks := t.TempDir(), t.TempDir()
	gittest.Repo(t, repo, map[string]string{"a.txt": "one\n", ".gitattributes": "*.txt diff=evil filter=evil\n"})
	mark := func(name string) string {
		p := filepath.Join(marks, name)
		markers = append(markers, p)
		return "touch " + p
	}
	gittest.Git(t, repo, "config", "core.fsmonitor", mark("fsmonitor")+"; false")
	gittest.Git(t, repo, "config", "diff.evil.textconv", mark("textconv")+"; cat")
	gittest.Git(t, repo, "config", "diff.evil.command", mark("extdiff")+"; true")
	if filters {
		inc := filepath.Join(repo, ".git", "more.config")
		if err := os.WriteFile(inc, []byte("[filter \"evil\"]\n\tclean = "+mark("clean")+"; cat\n\tprocess = "+mark("process")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		gittest.Git(t, repo, "config", "include.path", inc)
	}
	if err := os.WriteFile(filepath.Join(repo, "a.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "new.txt"), []byte("fresh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return repo, markers
}

// TestDiffHostileRepo (issue 25): the Diff view runs git in a directory a
// program may have named (OSC 7); a repository planted there runs none of
// the programs its configuration names, and its changes still show.
func TestDiffHostileRepo(t *testing.T) {
	for _, filters := range []bool{false, true} {
		repo, markers := plantRepo(t, filters)
		checkHostileDiff(t, repo, markers)
	}
}

func checkHostileDiff(t *testing.T, repo string, markers []string) {
	t.Helper()
	d, err := loadGitDiff(context.Background(), repo)
	for _, m := range markers {
		if _, err := os.Stat(m); err == nil {
			t.Errorf("the repository's configuration ran %s", filepath.Base(m))
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"+two", "+fresh"} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("diff lacks %q:\n%s", want, d.Text)
		}
	}
}
