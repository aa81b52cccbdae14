package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteReplacesAndSetsMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, strings.NewReader("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "new" {
		t.Fatalf("content = %q, %v; want new", got, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the file", len(entries))
	}
}

func TestWriteFailureLeavesTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	full := errors.New("no space left on device")
	w := Writer{Copy: func(dst *os.File, src io.Reader) (int64, error) {
		dst.Write([]byte("partial"))
		return 7, full
	}}
	if err := w.Write(path, strings.NewReader("new"), 0o644); !errors.Is(err, full) {
		t.Fatalf("Write = %v, want the copy error", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("content = %q after a failed write, want old", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %d entries, want the temporary file removed", len(entries))
	}
	w = Writer{CreateTemp: func(string, string) (*os.File, error) { return nil, full }}
	if err := w.Write(path, strings.NewReader("new"), 0o644); !errors.Is(err, full) {
		t.Errorf("Write = %v, want the create error", err)
	}
}

func TestReadCurrent(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.json")
	if c, err := ReadCurrent(missing); err != nil || c.Exists || c.Target != missing || c.Mode != 0o600 {
		t.Errorf("missing file: %+v, %v", c, err)
	}
	real := filepath.Join(dir, "real.json")
	if err := os.WriteFile(real, []byte("{}"), 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	c, err := ReadCurrent(link)
	if err != nil || !c.Exists || c.Target != real || string(c.Data) != "{}" || c.Mode != 0o640 {
		t.Errorf("symlink: %+v, %v; want the target's bytes and mode", c, err)
	}
	if _, err := ReadCurrent(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory: err %v, want it refused", err)
	}
}
