//go:build !client

package cli

import (
	"path/filepath"

	"github.com/paneflow-go/paneflow/config"
)

// searchHosts lists the hosts `search --all` asks besides this machine's
// server: the configuration's [[hosts]], the ones the window shows. None
// with --host (the session reaches that host only) or when there is no
// configuration to read; the configuration's warnings are the window's
// to show.
func (s *session) searchHosts() []string {
	if s.host != nil {
		return nil
	}
	dir, err := config.Dir(s.getenv, s.goos)
	if err != nil {
		return nil
	}
	cfg, _ := config.Load(filepath.Join(dir, config.FileName))
	return cfg.Hosts
}

// searchInServer is nil in this build: it reads the configuration itself.
var searchInServer func(args []string, getenv func(string) string) bool
