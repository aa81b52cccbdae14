package session

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/paneflow-go/paneflow/workspace"
)

func TestPath(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		goos string
		env  map[string]string
		want string
	}{
		{"linux", map[string]string{"XDG_STATE_HOME": "/s", "HOME": "/h"}, filepath.FromSlash("/s/paneflow/session.json")},
		{"linux", map[string]string{"XDG_STATE_HOME": "rel", "HOME": "/h"}, filepath.FromSlash("/h/.local/state/paneflow/session.json")},
		{"freebsd", map[string]string{"HOME": "/h"}, filepath.FromSlash("/h/.local/state/paneflow/session.json")},
		{"darwin", map[string]string{"HOME": "/h", "XDG_STATE_HOME": "/s"}, filepath.FromSlash("/h/Library/Application Support/paneflow/session.json")},
		{"windows", map[string]string{"LOCALAPPDATA": `C:\Users\u\AppData\Local`}, filepath.Join(`C:\Users\u\AppData\Local`, "paneflow", "session.json")},
	}
	for _, tt := range tests {
		got, err := Path(env(tt.env), tt.goos)
		if err != nil || got != tt.want {
			t.Errorf("Path(%v, %s) = %q, %v; want %q", tt.env, tt.goos, got, err, tt.want)
		}
	}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		if p, err := Path(env(nil), goos); err == nil {
			t.Errorf("Path with an empty environment on %s = %q, want an error", goos, p)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	if _, err := Load(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want ErrNotExist", err)
	}

	newer := `{"version": 99, "active": 0, "workspaces": []}`
	os.WriteFile(path, []byte(newer), 0o600)
	if _, err := Load(path); !errors.Is(err, ErrNewerVersion) {
		t.Errorf("newer format: %v, want ErrNewerVersion", err)
	}
	if b, _ := os.ReadFile(path + ".version99"); string(b) != newer {
		t.Errorf("the newer file was not kept as %s.version99", path)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the newer file is still at %s: %v", path, err)
	}

	big, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	big.Truncate(MaxFileSize + 1) // sparse: no disk used
	big.Close()
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "larger than 64 MiB") {
		t.Errorf("oversized file: %v", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("an oversized file was moved: %v", err)
	}
}

func TestLoadCorruptMovesAside(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	corrupt := []string{
		`{"version": 1, "workspaces": [`,
		`not json`,
		`{"version": 1, "workspaces": [{"title": "x", "layout": {"type": "tab"}}]}`,
		`{"active": 0}`,
		`{"version": 1} {"version": 1}`,
		`[]`,
		`{"version": "one"}`,
	}
	var asides []string
	for i, c := range corrupt {
		if err := os.WriteFile(path, []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path)
		if err == nil {
			t.Fatalf("case %d (%s): no error", i, c)
		}
		if _, statErr := os.Stat(path); !errors.Is(statErr, fs.ErrNotExist) {
			t.Fatalf("case %d: the corrupt file is still at %s", i, path)
		}
		msg := err.Error()
		j := strings.Index(msg, "moved it to ")
		if j < 0 {
			t.Fatalf("case %d: error %q does not say where the file went", i, msg)
		}
		asides = append(asides, msg[j+len("moved it to "):])
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	var want []string
	for _, a := range asides[len(asides)-keepCorrupted:] {
		if filepath.Dir(a) != dir || !strings.HasPrefix(filepath.Base(a), FileName+".corrupted-") {
			t.Errorf("moved to %s, want %s/%s.corrupted-<time>", a, dir, FileName)
		}
		want = append(want, filepath.Base(a))
	}
	if !cmp.Equal(names, want) {
		t.Errorf("directory holds %q, want the newest %d: %q", names, keepCorrupted, want)
	}
	last, _ := os.ReadFile(asides[len(asides)-1])
	if string(last) != corrupt[len(corrupt)-1] {
		t.Errorf("the moved file holds %q, want the corrupt content", last)
	}
}

func TestSaveWritesPrivateFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "paneflow")
	path := filepath.Join(dir, FileName)
	if err := Save(path, Session{}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode = %v, %v; want 0600", fi.Mode(), err)
	}
	di, err := os.Stat(dir)
	if err != nil || di.Mode().Perm() != 0o700 {
		t.Errorf("dir mode = %v, %v; want 0700", di.Mode(), err)
	}
	s, err := Load(path)
	if err != nil || s.Version != Version || s.Workspaces == nil {
		t.Errorf("Load of an empty session = %+v, %v", s, err)
	}
}

// failingFile writes half of what it is given, then fails as a full disk
// does.
type failingFile struct{ *os.File }

func (f failingFile) Write(p []byte) (int, error) {
	n, _ := f.File.Write(p[:len(p)/2])
	return n, syscall.ENOSPC
}

func TestSaveFailureKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	old := Session{Version: Version, Workspaces: []Workspace{{Title: "old", Cwd: "/", Layout: workspace.LayoutNode{Type: workspace.NodePane, Surfaces: []workspace.SurfaceDefinition{}}}}}
	if err := Save(path, old); err != nil {
		t.Fatal(err)
	}
	oldBytes, _ := os.ReadFile(path)

	newSession := Session{Workspaces: []Workspace{{Title: "new"}}}
	orig := createTemp
	t.Cleanup(func() { createTemp = orig })
	createTemp = func(dir, pattern string) (tempFile, error) {
		f, err := os.CreateTemp(dir, pattern)
		if err != nil {
			return nil, err
		}
		return failingFile{f}, nil
	}
	err := Save(path, newSession)
	if !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("Save on a full disk: %v, want ENOSPC", err)
	}
	createTemp = orig
	assertOnly(t, dir, FileName)
	if b, _ := os.ReadFile(path); string(b) != string(oldBytes) {
		t.Errorf("the old file changed:\n%s", b)
	}

	// The parent is a file: nothing can be created.
	if err := Save(filepath.Join(path, "x.json"), newSession); err == nil {
		t.Error("Save under a regular file: no error")
	}

	// A read-only directory (root ignores permissions, so only as a user).
	if runtime.GOOS == "windows" || os.Geteuid() == 0 {
		t.Log("as root (or on Windows) directory permissions do not stop writes: the failing writer above covers that case")
		return
	}
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	if err := Save(path, newSession); err == nil {
		t.Error("Save into a read-only directory: no error")
	}
	assertOnly(t, dir, FileName)
	if b, _ := os.ReadFile(path); string(b) != string(oldBytes) {
		t.Errorf("the old file changed:\n%s", b)
	}
}

// assertOnly checks that dir holds exactly the named files (no temp file
// left behind).
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if !cmp.Equal(got, names) {
		t.Errorf("%s holds %q, want %q", dir, got, names)
	}
}
