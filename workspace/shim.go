package workspace

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// EnvBinDir names the launch shim directory in a pane (spec conductor.md
// §6): the directory Options.ShimDir returned, which is also first in the
// pane's PATH.
const EnvBinDir = "PANEFLOW_BIN_DIR"

// withShimDir returns env with dir first in PATH (any other occurrence of
// dir removed) and PANEFLOW_BIN_DIR set to it. An empty dir leaves env as
// it is. It runs after every other variable is merged, so a PATH from the
// configuration or the pane spec still starts with the shims.
func withShimDir(env []string, dir string) []string {
	if dir == "" {
		return env
	}
	e := newEnvList(env)
	path := ""
	if i, ok := e.pos[envName("PATH")]; ok {
		_, path, _ = strings.Cut(e.kv[i], "=")
	}
	parts := slices.DeleteFunc(filepath.SplitList(path), func(p string) bool {
		return filepath.Clean(p) == filepath.Clean(dir)
	})
	e.set("PATH", strings.Join(append([]string{dir}, parts...), string(os.PathListSeparator)))
	e.set(EnvBinDir, dir)
	return e.list()
}

// shimDir asks Options.ShimDir for the directory of this pane start.
func (m *Manager) shimDir() string {
	if m.o.ShimDir == nil {
		return ""
	}
	return m.o.ShimDir()
}
