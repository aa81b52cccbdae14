// Package userdir resolves the per-user base directories Paneflow keeps
// files in (configuration, data, state, cache) for any operating system,
// through a getenv function, so that one rule serves config, the session
// file, the launch shim's binaries and the MCP bridge, and tests can ask
// for another system's answer. It is a leaf: standard library only.
package userdir

import (
	"fmt"
	"path/filepath"
)

// Kind is one of the base directories. The zero value is Config.
type Kind int

const (
	Config Kind = iota // settings the user edits
	Data               // files Paneflow installs for the user (the MCP bridge)
	State              // what Paneflow remembers between runs (the session)
	Cache              // what can be rebuilt at any time (the launch shim)
)

// xdg are the XDG variables and their defaults below $HOME, per kind.
var xdg = [...]struct{ env, def string }{
	Config: {"XDG_CONFIG_HOME", ".config"},
	Data:   {"XDG_DATA_HOME", filepath.Join(".local", "share")},
	State:  {"XDG_STATE_HOME", filepath.Join(".local", "state")},
	Cache:  {"XDG_CACHE_HOME", ".cache"},
}

// Base returns the base directory of kind on goos, reading the environment
// through getenv:
//
//   - Linux and other Unix systems: $XDG_CONFIG_HOME, $XDG_DATA_HOME,
//     $XDG_STATE_HOME or $XDG_CACHE_HOME when it is absolute (the XDG spec
//     ignores a relative one), else ~/.config, ~/.local/share,
//     ~/.local/state or ~/.cache.
//   - macOS (and iOS): ~/Library/Caches for Cache, else
//     ~/Library/Application Support.
//   - Windows: %APPDATA% (roaming) for Config, else %LOCALAPPDATA%.
//
// The error names the variable that is missing.
func Base(kind Kind, getenv func(string) string, goos string) (string, error) {
	if kind < Config || kind > Cache {
		return "", fmt.Errorf("userdir: unknown kind %d", kind)
	}
	switch goos {
	case "windows":
		v := "LOCALAPPDATA"
		if kind == Config {
			v = "APPDATA"
		}
		if d := getenv(v); d != "" {
			return d, nil
		}
		return "", fmt.Errorf("%%%s%% is not set", v)
	case "darwin", "ios":
		h := getenv("HOME")
		if h == "" {
			return "", fmt.Errorf("$HOME is not set")
		}
		if kind == Cache {
			return filepath.Join(h, "Library", "Caches"), nil
		}
		return filepath.Join(h, "Library", "Application Support"), nil
	}
	x := xdg[kind]
	if d := getenv(x.env); filepath.IsAbs(d) {
		return d, nil
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, x.def), nil
	}
	return "", fmt.Errorf("neither $%s nor $HOME is set", x.env)
}
