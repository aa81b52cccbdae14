package core

import (
	"os"
	"runtime"
	"sync"

	"github.com/paneflow-go/paneflow/shim"
	"github.com/paneflow-go/paneflow/version"
)

// shims keeps the agent launch shim directory current for the panes
// (spec conductor.md §6): it is installed when the core starts and
// re-checked, cheaply, at every pane start. A nil *shims means panes run
// without shims; agents are then found by the process scan only.
type shims struct {
	in   *shim.Installer
	logf func(format string, args ...any)

	mu     sync.Mutex
	failed bool // the last Ensure failed and was logged
}

// newShims finds paneflow-shim and paneflow-ai-hook ($PANEFLOW_SHIM_BIN,
// $PANEFLOW_HOOK_BIN, else next to this executable) and installs the
// directory. It returns nil, after logging why, when they are missing or
// PANEFLOW_NO_SHIM=1.
func newShims(getenv func(string) string, logf func(string, ...any)) *shims {
	if getenv("PANEFLOW_NO_SHIM") == "1" {
		logf("paneflow: PANEFLOW_NO_SHIM=1: panes run without the agent launch shim")
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		logf("paneflow: no agent launch shim: %v", err)
		return nil
	}
	shimBin, hookBin, err := shim.FindBinaries(exe, getenv, runtime.GOOS)
	if err != nil {
		logf("paneflow: no agent launch shim (agents are found by the process scan only): %v", err)
		return nil
	}
	dir, err := shim.DefaultDir(getenv, runtime.GOOS, version.String())
	if err != nil {
		logf("paneflow: no agent launch shim: %v", err)
		return nil
	}
	s := &shims{in: &shim.Installer{Dir: dir, ShimBin: shimBin, HookBin: hookBin}, logf: logf}
	s.dir()
	return s
}

// path returns the shim directory, installed or not, "" without a shim.
func (s *shims) path() string {
	if s == nil {
		return ""
	}
	return s.in.Dir
}

// dir makes sure the directory is current and returns it, or "" (after
// logging once per failure streak) when it cannot be installed.
func (s *shims) dir() string {
	if s == nil {
		return ""
	}
	_, err := s.in.Ensure()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if !s.failed {
			s.logf("paneflow: panes start without the agent launch shim: %v", err)
		}
		s.failed = true
		return ""
	}
	s.failed = false
	return s.in.Dir
}
