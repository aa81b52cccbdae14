//go:build client

package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSearchNeedsServer: the client hands `search --all` to the server
// binary only without a host and with a configuration that mentions hosts.
func TestSearchNeedsServer(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"XDG_CONFIG_HOME": dir, "HOME": dir}
	getenv := func(k string) string { return env[k] }
	if searchNeedsServer([]string{"--all", "x"}, getenv) {
		t.Error("no configuration: handed over")
	}
	if err := os.MkdirAll(filepath.Join(dir, "paneflow"), 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "paneflow", configFile)
	if err := os.WriteFile(file, []byte("theme = \"dark\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if searchNeedsServer([]string{"--all", "x"}, getenv) {
		t.Error("a configuration without hosts: handed over")
	}
	if err := os.WriteFile(file, []byte("[[hosts]]\naddress = \"ssh://h\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !searchNeedsServer([]string{"x", "--all"}, getenv) {
		t.Error("a configuration with hosts: not handed over")
	}
	if searchNeedsServer([]string{"1", "x"}, getenv) {
		t.Error("a search of one pane: handed over")
	}
	env["PANEFLOW_HOST"] = "ssh://h"
	if searchNeedsServer([]string{"--all", "x"}, getenv) {
		t.Error("with a host: handed over")
	}
}
