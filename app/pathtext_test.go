//go:build !windows

package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"github.com/paneflow-go/paneflow/internal/gittest"
)

func TestFitPath(t *testing.T) {
	runes := func(s string) float32 { return float32(utf8.RuneCountInString(s)) }
	for _, c := range []struct {
		prefix, path string
		width        float32
		want         string
	}{
		{"M  ", "abc/b/name.go", 16, "M  abc/b/name.go"},
		{"M  ", "abc/b/name.go", 15, "M  …/b/name.go"},
		{"M  ", "abc/b/name.go", 13, "M  …/name.go"},
		{"M  ", "abc/b/name.go", 11, "M  …ame.go"},
		{"M  ", "name.go", 7, "M  ….go"},
		{"M  ", "name.go", 3, "M  …"},
		{"", "All files", 4, "…les"},
	} {
		if got := fitPath(c.prefix, c.path, c.width, runes); got != c.want {
			t.Errorf("fitPath(%q, %q, %v) = %q, want %q", c.prefix, c.path, c.width, got, c.want)
		}
	}
}

// TestDiffViewFullPath: the file list cuts a long path from the left so
// the file's name stays in view, and the view's path line shows the full
// path of the row under the pointer, the work tree's root otherwise.
func TestDiffViewFullPath(t *testing.T) {
	h := newHarness(t, nil)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := gittest.Repo(t, filepath.Join(t.TempDir(), "repo"), map[string]string{"a.txt": "a\n"})
	long := "deep/nested/directory/with/many/levels/below/the/root/of/the/work/tree/a_very_long_file_name.go"
	if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(long)), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, long), "x\n")
	dv, _ := openDiffIn(h, dir)
	var row *hoverRow
	var text *pathText
	h.waitFor("the long path's row", func() bool {
		row = dv.fileRows[long]
		if row == nil {
			return false
		}
		text = row.content.(*fyne.Container).Objects[0].(*pathText)
		return text.shown != ""
	})
	h.s.guard(func() {
		if !strings.HasPrefix(text.shown, "?  …/") || !strings.HasSuffix(text.shown, "/a_very_long_file_name.go") {
			t.Fatalf("the row shows %q (%v wide), want the path cut from the left", text.shown, text.Size().Width)
		}
		if dv.pathLine.Text != dir {
			t.Fatalf("path line %q, want the root %q", dv.pathLine.Text, dir)
		}
	})
	row.MouseIn(&desktop.MouseEvent{})
	h.s.guard(func() {
		if want := filepath.Join(dir, long) + " (untracked)"; dv.pathLine.Text != want {
			t.Fatalf("path line under the pointer %q, want %q", dv.pathLine.Text, want)
		}
	})
	row.MouseOut()
	h.s.guard(func() {
		if dv.pathLine.Text != dir {
			t.Fatalf("path line after the pointer left %q, want %q", dv.pathLine.Text, dir)
		}
	})
	// Wide enough, the path is whole.
	h.s.guard(func() { text.Resize(fyne.NewSize(2000, text.Size().Height)) })
	h.s.guard(func() {
		if text.shown != "?  "+long {
			t.Fatalf("a wide row shows %q", text.shown)
		}
	})
}
