package core

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/paneflow-go/paneflow/internal/exefile"
)

func TestRefreshBridge(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		t.Skip("the test lays out Linux's data directory")
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "bin", "paneflow")
	src := filepath.Join(dir, "bin", "paneflow-mcp")
	dst := filepath.Join(dir, "data", "paneflow", "bin", "paneflow-mcp")
	env := map[string]string{"HOME": dir, "XDG_DATA_HOME": filepath.Join(dir, "data")}
	getenv := func(k string) string { return env[k] }
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := exefile.Write(p, []byte(s), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(src, "bridge v2")
	if refreshBridge(exe, getenv, t.Logf) {
		t.Fatal("created a bridge that `paneflow mcp install` never installed")
	}
	if _, err := os.Stat(dst); err == nil {
		t.Fatal("the stable copy exists")
	}
	write(dst, "bridge v1")
	if !refreshBridge(exe, getenv, t.Logf) {
		t.Fatal("an old installed bridge was not replaced")
	}
	if b, _ := os.ReadFile(dst); string(b) != "bridge v2" {
		t.Fatalf("stable copy %q", b)
	}
	if refreshBridge(exe, getenv, t.Logf) {
		t.Fatal("a current bridge was written again")
	}
}
