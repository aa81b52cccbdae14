package artifact

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRoot(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cases := []struct {
		goos string
		env  map[string]string
		want string
	}{
		{"windows", map[string]string{"LOCALAPPDATA": filepath.FromSlash("/l")}, "/l/paneflow/artifacts"},
	}
	if filepath.IsAbs("/x") { // Unix paths (on Windows "/x" is not absolute)
		cases = append(cases, []struct {
			goos string
			env  map[string]string
			want string
		}{
			{"linux", map[string]string{"XDG_DATA_HOME": "/x/data", "HOME": "/h"}, "/x/data/paneflow/artifacts"},
			{"linux", map[string]string{"XDG_DATA_HOME": "relative", "HOME": "/h"}, "/h/.local/share/paneflow/artifacts"},
			{"darwin", map[string]string{"HOME": "/h"}, "/h/Library/Application Support/paneflow/artifacts"},
		}...)
	}
	for _, c := range cases {
		if got, err := Root(env(c.env), c.goos); err != nil || got != filepath.FromSlash(c.want) {
			t.Errorf("Root(%v, %s) = %q, %v; want %q", c.env, c.goos, got, err, c.want)
		}
	}
	if _, err := Root(env(nil), "linux"); err == nil {
		t.Error("Root without HOME or XDG_DATA_HOME: no error")
	}
}

func TestWriteReadRemoveKeep(t *testing.T) {
	root := t.TempDir()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := Write(root, Artifact{Output: "x"}, now); err == nil {
		t.Error("Write without ids: no error")
	}
	if err := Write(root, Artifact{Output: "the <answer> & more", Tool: "claude", WorkspaceID: 2, SurfaceID: 7}, now); err != nil {
		t.Fatal(err)
	}
	p := Path(root, 2, 7)
	if p != filepath.Join(root, "2", "7", "output.json") {
		t.Errorf("Path = %s", p)
	}
	data, _ := os.ReadFile(p)
	if !strings.Contains(string(data), `"the <answer> & more"`) {
		t.Errorf("file not HTML-unescaped JSON: %s", data)
	}
	a, err := Read(p)
	if err != nil || a.Output != "the <answer> & more" || a.Tool != "claude" || a.WrittenAt != "2026-01-02T03:04:05Z" || a.Truncated {
		t.Errorf("Read = %+v, %v", a, err)
	}
	// An agent's own file: plain text, or JSON with just "output".
	os.WriteFile(p, []byte("plain answer\n"), 0o600)
	if a, err := Read(p); err != nil || a.Output != "plain answer\n" {
		t.Errorf("plain text: %+v %v", a, err)
	}
	os.WriteFile(p, []byte(`{"output": "json answer"}`), 0o600)
	if a, err := Read(p); err != nil || a.Output != "json answer" {
		t.Errorf("JSON: %+v %v", a, err)
	}
	// Kept: moved under kept/, the workspace directory gone when empty.
	dst, err := Keep(root, 2, 7, now)
	if err != nil || !strings.HasPrefix(dst, filepath.Join(root, KeptDir, "2-7-")) {
		t.Fatalf("Keep = %s, %v", dst, err)
	}
	if _, err := os.Stat(filepath.Join(dst, FileName)); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(root, "2")); !os.IsNotExist(err) {
		t.Errorf("empty workspace directory left: %v", err)
	}
	if dst, err := Keep(root, 2, 7, now); dst != "" || err != nil {
		t.Errorf("Keep of nothing = %q, %v", dst, err)
	}
	// Removed.
	Write(root, Artifact{Output: "y", WorkspaceID: 3, SurfaceID: 1}, now)
	Write(root, Artifact{Output: "z", WorkspaceID: 3, SurfaceID: 2}, now)
	if err := Remove(root, 3, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(Dir(root, 3, 1)); !os.IsNotExist(err) {
		t.Error("not removed")
	}
	if _, err := os.Stat(Path(root, 3, 2)); err != nil {
		t.Error("a sibling was removed")
	}
	if err := Remove(root, 9, 9); err != nil {
		t.Errorf("Remove of nothing: %v", err)
	}
}

func TestCutAndTruncated(t *testing.T) {
	if s, cut := Cut("héllo", 2); s != "h" || !cut {
		t.Errorf("Cut inside a rune = %q %v", s, cut)
	}
	if s, cut := Cut("abc", 3); s != "abc" || cut {
		t.Errorf("Cut at length = %q %v", s, cut)
	}
	root := t.TempDir()
	big := strings.Repeat("é", MaxOutput) // 2 bytes each
	if err := Write(root, Artifact{Output: big, WorkspaceID: 1, SurfaceID: 1}, time.Now()); err != nil {
		t.Fatal(err)
	}
	a, err := Read(Path(root, 1, 1))
	if err != nil || !a.Truncated || len(a.Output) != MaxOutput || a.Output != big[:MaxOutput] {
		t.Errorf("big answer: truncated %v, %d bytes, %v", a.Truncated, len(a.Output), err)
	}
}
