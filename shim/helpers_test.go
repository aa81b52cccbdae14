package shim

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/paneflow-go/paneflow/internal/exefile"
)

// writeExec writes an executable script at dir/name and returns its path.
func writeExec(t *testing.T, dir, name, body string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := exefile.Write(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// readFile returns the content of p, failing the test if it cannot.
func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// writeFile writes content to p, creating its directory.
func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// exists reports whether p exists (without following a final symlink).
func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
