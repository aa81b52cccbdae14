//go:build unix

package ipc

import (
	"fmt"
	"path/filepath"
	"runtime"
)

// defaultSocketPath walks the Unix fallback chain: $XDG_RUNTIME_DIR, then
// $TMPDIR, then the user cache dir + "/run". Relative values are ignored,
// as the XDG base directory spec asks.
func defaultSocketPath(getenv func(string) string) (string, error) {
	for _, dir := range []string{getenv("XDG_RUNTIME_DIR"), getenv("TMPDIR"), cacheRunDir(getenv)} {
		if dir != "" && filepath.IsAbs(dir) {
			return socketPathIn(dir), nil
		}
	}
	return "", ErrNoSocketPath
}

// cacheRunDir returns "<user cache dir>/run" computed from the environment
// only: $XDG_CACHE_HOME or $HOME/.cache (macOS: $HOME/Library/Caches), or ""
// when neither is usable.
func cacheRunDir(getenv func(string) string) string {
	var cache string
	switch home := getenv("HOME"); {
	case runtime.GOOS == "darwin" || runtime.GOOS == "ios":
		if home != "" {
			cache = filepath.Join(home, "Library", "Caches")
		}
	case getenv("XDG_CACHE_HOME") != "" && filepath.IsAbs(getenv("XDG_CACHE_HOME")):
		cache = getenv("XDG_CACHE_HOME")
	case home != "":
		cache = filepath.Join(home, ".cache")
	}
	if cache == "" || !filepath.IsAbs(cache) {
		return ""
	}
	return filepath.Join(cache, "run")
}

// checkSocketPathLen enforces the sun_path guard.
func checkSocketPathLen(p string) error {
	if len(p) >= MaxSocketPath {
		return fmt.Errorf("ipc: socket path %s is %d bytes, must be under %d; set %s to a shorter absolute path",
			p, len(p), MaxSocketPath, EnvSocketPath)
	}
	return nil
}
