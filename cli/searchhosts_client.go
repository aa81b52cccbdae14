//go:build client

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"

	"github.com/paneflow-go/paneflow/internal/userdir"
	"github.com/paneflow-go/paneflow/remote"
)

// configFile is the configuration's name in its directory (config.FileName;
// this build does not link package config, whose TOML parser would slow
// every CLI call's start).
const configFile = "paneflow.toml"

// searchHosts lists no host in the command-line client: it cannot read the
// configuration (TOML). A `search --all` whose configuration may list
// hosts went to the server binary instead ([searchInServer]), so one that
// reaches here has none to ask.
func (s *session) searchHosts() []string { return nil }

// searchInServer is search's [Verb.InServerFor] in this build.
var searchInServer = searchNeedsServer

// searchNeedsServer reports whether this client must hand a `search` call
// with args to the server binary: with --all, no host (--host,
// PANEFLOW_HOST), and a configuration file that mentions "hosts" at all,
// which only the server binary can read whole.
func searchNeedsServer(args []string, getenv func(string) string) bool {
	if getenv(remote.EnvHost) != "" {
		return false
	}
	all := false
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--all" || a == "--all=true" {
			all = true
		}
	}
	if !all {
		return false
	}
	base, err := userdir.Base(userdir.Config, getenv, runtime.GOOS)
	if err != nil {
		return false
	}
	data, err := os.ReadFile(filepath.Join(base, "paneflow", configFile))
	return err == nil && bytes.Contains(data, []byte("hosts"))
}
