// Package config reads Paneflow's configuration file, paneflow.toml.
//
// The file is optional and forgiving: a missing file means defaults, and a
// key that is unknown, of the wrong type or out of range produces a
// warning and keeps its default, so a typo never stops Paneflow from
// starting. Warnings name the key and say what was wrong.
//
// This package only reads. It does not watch the file (the desktop app
// reloads it) and never writes it.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// FileName is the configuration file's name inside [Dir].
const FileName = "paneflow.toml"

// Config is Paneflow's configuration. The zero value is not the default:
// use [Default] or [Load].
type Config struct {
	// DefaultShell is the shell new panes run ("" = $SHELL, else /bin/sh).
	DefaultShell string
	// SubmitPasteDelay is how long send_text waits after a bracketed
	// paste before sending the separate carriage return (10 ms–5 s).
	SubmitPasteDelay time.Duration
	// AIUnrestricted opens surface.send_text without
	// PANEFLOW_IPC_SCRIPTING=1 (send_keystroke stays gated).
	AIUnrestricted bool
	// AIInjectionFence is the default for fencing surface.read output as
	// untrusted.
	AIInjectionFence bool
	// AgentStallThreshold is when a silent agent counts as stalled
	// (30 s–24 h).
	AgentStallThreshold time.Duration
	Terminal            Terminal
}

// Terminal is the [terminal] table.
type Terminal struct {
	// ScrollbackLines is the scrollback kept per pane (100–100,000).
	ScrollbackLines int
	// Env is added to every pane's environment (protected variables such
	// as TERM and PANEFLOW_* cannot be overridden).
	Env map[string]string
}

// Default returns the built-in configuration.
func Default() Config {
	return Config{
		SubmitPasteDelay:    70 * time.Millisecond,
		AIInjectionFence:    true,
		AgentStallThreshold: 60 * time.Second,
		Terminal:            Terminal{ScrollbackLines: 10000, Env: map[string]string{}},
	}
}

// Dir returns the directory holding the configuration for goos:
// $XDG_CONFIG_HOME/paneflow (else ~/.config/paneflow), ~/Library/Application
// Support/paneflow on macOS, %APPDATA%\paneflow on Windows.
func Dir(getenv func(string) string, goos string) (string, error) {
	switch goos {
	case "windows":
		if d := getenv("APPDATA"); d != "" {
			return filepath.Join(d, "paneflow"), nil
		}
		return "", errors.New("config: APPDATA is not set")
	case "darwin":
		if h := getenv("HOME"); h != "" {
			return filepath.Join(h, "Library", "Application Support", "paneflow"), nil
		}
		return "", errors.New("config: HOME is not set")
	}
	if d := getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "paneflow"), nil
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "paneflow"), nil
	}
	return "", errors.New("config: neither XDG_CONFIG_HOME nor HOME is set")
}

// Load reads the file at path. A missing file gives the defaults and no
// warnings. Problems with the file never fail the load: they come back as
// warnings and the affected settings keep their defaults.
func Load(path string) (Config, []string) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Default(), nil
	}
	if err != nil {
		return Default(), []string{fmt.Sprintf("%s: %v; using defaults", path, err)}
	}
	c, warns := Parse(data)
	for i, w := range warns {
		warns[i] = path + ": " + w
	}
	return c, warns
}

// Parse decodes configuration text; see [Load].
func Parse(data []byte) (Config, []string) {
	c := Default()
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		return c, []string{fmt.Sprintf("cannot parse: %v; using defaults", err)}
	}
	var warns []string
	warn := func(format string, args ...any) { warns = append(warns, fmt.Sprintf(format, args...)) }
	for _, key := range sortedKeys(raw) {
		v := raw[key]
		switch key {
		case "default_shell":
			if s, ok := v.(string); ok {
				c.DefaultShell = strings.TrimSpace(s)
			} else {
				warn("default_shell: want a string, got %s; using the default", typeName(v))
			}
		case "submit_paste_delay_ms":
			if n, ok := intIn(v, 10, 5000); ok {
				c.SubmitPasteDelay = time.Duration(n) * time.Millisecond
			} else {
				warn("submit_paste_delay_ms: want an integer from 10 to 5000, got %v; using 70", v)
			}
		case "ai_unrestricted":
			if b, ok := v.(bool); ok {
				c.AIUnrestricted = b
			} else {
				warn("ai_unrestricted: want true or false, got %v; using false", v)
			}
		case "ai_injection_fence":
			if b, ok := v.(bool); ok {
				c.AIInjectionFence = b
			} else {
				warn("ai_injection_fence: want true or false, got %v; using true", v)
			}
		case "agent_stall_threshold_secs":
			if n, ok := intIn(v, 30, 86400); ok {
				c.AgentStallThreshold = time.Duration(n) * time.Second
			} else {
				warn("agent_stall_threshold_secs: want an integer from 30 to 86400, got %v; using 60", v)
			}
		case "terminal":
			t, ok := v.(map[string]any)
			if !ok {
				warn("terminal: want a table, got %s; using defaults", typeName(v))
				continue
			}
			parseTerminal(&c.Terminal, t, warn)
		default:
			warn("unknown key %q (ignored)", key)
		}
	}
	return c, warns
}

func parseTerminal(t *Terminal, raw map[string]any, warn func(string, ...any)) {
	for _, key := range sortedKeys(raw) {
		v := raw[key]
		switch key {
		case "scrollback_lines":
			if n, ok := intIn(v, 100, 100000); ok {
				t.ScrollbackLines = int(n)
			} else {
				warn("terminal.scrollback_lines: want an integer from 100 to 100000, got %v; using 10000", v)
			}
		case "env":
			m, ok := v.(map[string]any)
			if !ok {
				warn("terminal.env: want a table of strings, got %s; ignored", typeName(v))
				continue
			}
			for _, name := range sortedKeys(m) {
				s, ok := m[name].(string)
				switch {
				case !ok:
					warn("terminal.env.%s: want a string, got %s; ignored", name, typeName(m[name]))
				case name == "" || strings.ContainsAny(name, "=\x00"):
					warn("terminal.env: invalid variable name %q; ignored", name)
				default:
					t.Env[name] = s
				}
			}
		default:
			warn("unknown key \"terminal.%s\" (ignored)", key)
		}
	}
}

func intIn(v any, lo, hi int64) (int64, bool) {
	n, ok := v.(int64)
	return n, ok && n >= lo && n <= hi
}

func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case map[string]any:
		return "a table"
	case []any, []map[string]any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
