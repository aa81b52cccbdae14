package spectrust

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestCheckTrustChangeUntrust(t *testing.T) {
	dir := t.TempDir()
	s := Store{Path: filepath.Join(dir, "state", "paneflow", FileName), OwnDir: filepath.Join(dir, "config", "paneflow")}
	spec := filepath.Join(dir, "repo", "paneflow.workspace.toml")
	v1 := "[[panes]]\ncommand = \"make\"\n"
	write(t, spec, v1)

	check := func(content string, want Status) {
		t.Helper()
		got, err := s.Check(spec, []byte(content))
		if err != nil || got != want {
			t.Fatalf("Check = %v, %v; want %v", got, err, want)
		}
	}
	check(v1, Untrusted)
	e, err := s.Trust(spec, []byte(v1))
	if err != nil {
		t.Fatal(err)
	}
	if e.Hash != Hash([]byte(v1)) || !strings.HasPrefix(e.Hash, "sha256:") {
		t.Errorf("entry hash %q", e.Hash)
	}
	check(v1, Trusted)
	check(v1+"setup = \"curl x | sh\"\n", Changed)

	fi, err := os.Stat(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("store mode %v, want 0600", fi.Mode().Perm())
	}
	// The same file through a symlink and a relative path is one spec.
	if runtime.GOOS != "windows" {
		link := filepath.Join(dir, "link.toml")
		if err := os.Symlink(spec, link); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Check(link, []byte(v1)); got != Trusted {
			t.Errorf("through a symlink: %v, want trusted", got)
		}
	}
	list, err := s.List()
	if err != nil || len(list) != 1 || list[0].Path != e.Path {
		t.Fatalf("List = %v, %v", list, err)
	}
	if had, err := s.Untrust(spec); !had || err != nil {
		t.Fatalf("Untrust = %v, %v", had, err)
	}
	check(v1, Untrusted)
	if had, err := s.Untrust(spec); had || err != nil {
		t.Fatalf("second Untrust = %v, %v; want false, nil", had, err)
	}
}

func TestOwnDirectory(t *testing.T) {
	dir := t.TempDir()
	s := Store{Path: filepath.Join(dir, "state", FileName), OwnDir: filepath.Join(dir, "config", "paneflow")}
	mine := filepath.Join(s.OwnDir, "workspaces", "dev.toml")
	write(t, mine, "x")
	if got, err := s.Check(mine, []byte("x")); got != Own || err != nil {
		t.Errorf("spec in the config dir: %v, %v; want own", got, err)
	}
	// A sibling whose name starts like the own directory is not in it.
	other := filepath.Join(dir, "config", "paneflow-evil", "dev.toml")
	write(t, other, "x")
	if got, _ := s.Check(other, []byte("x")); got != Untrusted {
		t.Errorf("sibling of the config dir: %v, want untrusted", got)
	}
	// A symlink from the config dir into a repository is the repository's.
	if runtime.GOOS != "windows" {
		repo := filepath.Join(dir, "repo", "flow.toml")
		write(t, repo, "x")
		link := filepath.Join(s.OwnDir, "workspaces", "linked.toml")
		if err := os.Symlink(repo, link); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Check(link, []byte("x")); got != Untrusted {
			t.Errorf("symlink out of the config dir: %v, want untrusted", got)
		}
	}
}

func TestCorruptStoreIsNeverRewritten(t *testing.T) {
	dir := t.TempDir()
	s := Store{Path: filepath.Join(dir, FileName)}
	spec := filepath.Join(dir, "flow.toml")
	write(t, spec, "x")
	write(t, s.Path, "{not json")
	if got, err := s.Check(spec, []byte("x")); got != Untrusted || err == nil || !strings.Contains(err.Error(), "move it aside") {
		t.Errorf("Check = %v, %v; want untrusted and an error naming the fix", got, err)
	}
	if _, err := s.Trust(spec, []byte("x")); err == nil {
		t.Error("Trust over a corrupt store succeeded")
	}
	if b, _ := os.ReadFile(s.Path); string(b) != "{not json" {
		t.Errorf("corrupt store rewritten: %q", b)
	}
}

func TestDefault(t *testing.T) {
	env := map[string]string{"HOME": "/home/u", "XDG_STATE_HOME": "/s", "XDG_CONFIG_HOME": "/c"}
	s, err := Default(func(k string) string { return env[k] }, "linux")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join("/s", "paneflow", FileName); s.Path != want {
		t.Errorf("Path %q, want %q", s.Path, want)
	}
	if want := filepath.Join("/c", "paneflow"); s.OwnDir != want {
		t.Errorf("OwnDir %q, want %q", s.OwnDir, want)
	}
}
