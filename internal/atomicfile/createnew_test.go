package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCreateNewNeverClobbers(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "spec.toml")
	if err := CreateNew(p, strings.NewReader("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "one" {
		t.Fatalf("content %q", b)
	}
	err := CreateNew(p, strings.NewReader("two"), 0o644)
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second create: %v, want ErrExist", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "one" {
		t.Fatalf("clobbered: %q", b)
	}
	// A dangling symlink is a name too: it is not followed or replaced.
	l := filepath.Join(dir, "link.toml")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), l); err != nil {
		t.Fatal(err)
	}
	if err := CreateNew(l, strings.NewReader("x"), 0o644); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("over a symlink: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "nowhere")); !os.IsNotExist(err) {
		t.Fatal("the symlink was followed")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Fatalf("left behind: %v", ents)
	}
	if err := CreateNew(filepath.Join(dir, "no", "dir.toml"), strings.NewReader("x"), 0o644); err == nil {
		t.Fatal("a missing directory was not an error")
	}
}
