package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/paneflow-go/paneflow/internal/userdir"
)

// FileName is the configuration file's name inside [Dir].
const FileName = "paneflow.toml"

// Config is Paneflow's configuration. The zero value is not the default:
// use [Default] or [Load]. Each field's comment names its TOML key, its
// default and what it accepts; a value outside that keeps the default
// with a warning.
type Config struct {
	// DefaultShell (default_shell) is the shell new panes run ("" =
	// $SHELL, else /bin/sh).
	DefaultShell string
	// SubmitPasteDelay (submit_paste_delay_ms, 10–5000, default 70) is
	// how long send_text waits after a bracketed paste before sending the
	// separate carriage return.
	SubmitPasteDelay time.Duration
	// ShellIntegration (shell_integration, default true) starts bash, zsh
	// and fish panes with Paneflow's startup hook: it keeps the agent
	// launch shim first in PATH at every prompt (login profiles often reset
	// PATH) and reports the directory with OSC 7. Applies to new panes.
	ShellIntegration bool
	// AIUnrestricted (ai_unrestricted, default false) opens
	// surface.send_text without PANEFLOW_IPC_SCRIPTING=1 (send_keystroke
	// stays gated).
	AIUnrestricted bool
	// AIInjectionFence (ai_injection_fence, default true) is the default
	// for fencing surface.read output as untrusted.
	AIInjectionFence bool
	// AgentStallThreshold (agent_stall_threshold_secs, 30–86400, default
	// 60) is when a silent agent counts as stalled.
	AgentStallThreshold time.Duration

	// FontFamily (font_family, default "") is the terminal font family,
	// matched case-insensitively against the installed fonts' family
	// names; "" (or ".PaneflowMono") means the monospace font bundled
	// with the app. A family that is not installed falls back to the
	// bundled font with a message (the app decides; this package cannot
	// know what is installed).
	FontFamily string
	// FontSize (font_size, 8–32, default 13) is the terminal font size in
	// points. Integers and decimals are both accepted.
	FontSize float64
	// LineHeight (line_height, 1.0–2.5, default 1.2) multiplies the
	// font's natural line height.
	LineHeight float64
	// Theme (theme, default "dark") is "dark" or "light", matched
	// case-insensitively; the original app's names "One Dark" and
	// "PaneFlow Light" are accepted and stored as "dark" and "light".
	Theme string
	// Shortcuts ([shortcuts] table, default empty) maps keystrokes to
	// action names, as in "ctrl+shift+d" = "split_horizontally". It is
	// kept as written: keystrokes and action names are checked by the
	// keymap that applies them (whose warnings the app shows); here
	// only entries whose value is not a string are dropped with a
	// warning. The value "none" (or "") unbinds the keystroke.
	Shortcuts map[string]string
	// NotifyWhenAgentWaiting (notify_when_agent_waiting, default
	// "PrimaryScreen") says whether desktop notifications are shown when
	// an agent needs attention: "PrimaryScreen", "AllScreens" or "Never"
	// (matched case-insensitively, stored in this spelling). See
	// [Config.Notify].
	NotifyWhenAgentWaiting string
	// NotifyWithoutWindow (notify_without_window, default true) lets the
	// server show those notifications itself while no window is attached
	// (after the window was closed, the agents running on). Off when false
	// or when NotifyWhenAgentWaiting is "Never".
	NotifyWithoutWindow bool
	// QuitAction (quit_action, default "ask") is what the quit action
	// does in a window attached to a server: "ask" shows "Detach (agents
	// keep running)" and "Stop everything", "detach" closes the window
	// and leaves the server and its agents running, "stop" ends the
	// server too (system.shutdown: its session is saved first). Matched
	// case-insensitively. Closing the window always detaches; a window
	// hosting the panes itself (--embedded) ends them with it.
	QuitAction string
	// Hosts (an array of [[hosts]] tables with address = "ssh://…", or
	// of plain address strings; default none) are the other machines
	// whose Paneflow servers the window shows beside its own, each under
	// its own header in the sidebar (issue 30). Each address is
	// ssh://[user@]host[:port] or an alias of the user's ssh config, kept
	// as written (the window checks it, and says when it cannot use one);
	// duplicates are dropped with a warning. The window's "Add host…"
	// appends a [[hosts]] table.
	Hosts []string

	Terminal Terminal
	Usage    Usage
	Web      Web
}

// Web is the [web] table: the browser client the server serves when
// `paneflow serve` is given no --web (package web). The zero value serves
// none.
type Web struct {
	// Listen (web.listen, HOST:PORT) is where the web client listens;
	// an address other than loopback needs TLSCert and TLSKey. The
	// desktop app's "Turn web access on" writes 127.0.0.1:8714.
	Listen string
	// TLSCert and TLSKey (web.tls_cert, web.tls_key) are a certificate
	// and its key, PEM files, both or neither.
	TLSCert, TLSKey string
}

// Usage is the [usage] table: what the agents' tokens cost and the day's
// budget.
type Usage struct {
	// DailyTokens (usage.daily_budget.tokens, a positive integer, default
	// none) and DailyCostUSD (usage.daily_budget.cost, dollars, positive,
	// default none) are the day's budget: a warning at 80 %, and at 100 %
	// the working agents are paused unless DailyPause
	// (usage.daily_budget.pause, default true) is false.
	DailyTokens  int64
	DailyCostUSD float64
	DailyPause   bool
	// Prices ([usage.prices."<model>"] tables) override the built-in
	// price of a model, in dollars per million tokens: input, output,
	// cache_read, cache_write, cache_write_1h, and a long-context tier
	// (long_above prompt tokens, long_input, long_output,
	// long_cache_read, long_cache_write). A key not given keeps the
	// built-in price; a negative or non-numeric one is dropped with a
	// warning.
	Prices map[string]Price
}

// Price is one [usage.prices."<model>"] table; nil fields were not given.
type Price struct {
	Input, Output, CacheRead, CacheWrite, CacheWrite1h   *float64
	LongAbove                                            *int64
	LongInput, LongOutput, LongCacheRead, LongCacheWrite *float64
}

// Values of [Config.NotifyWhenAgentWaiting].
const (
	NotifyPrimaryScreen = "PrimaryScreen"
	NotifyAllScreens    = "AllScreens"
	NotifyNever         = "Never"
)

// Values of [Config.QuitAction].
const (
	QuitAsk    = "ask"
	QuitDetach = "detach"
	QuitStop   = "stop"
)

// Values of [Config.Theme].
const (
	ThemeDark  = "dark"
	ThemeLight = "light"
)

// Values of [Terminal.CursorShape].
const (
	CursorBlock     = "block"
	CursorBeam      = "beam"
	CursorUnderline = "underline"
)

// Values of [Terminal.CursorBlink].
const (
	BlinkOn                 = "on"
	BlinkOff                = "off"
	BlinkTerminalControlled = "terminal_controlled"
)

// Notify reports whether desktop notifications are wanted at all
// (NotifyWhenAgentWaiting is not "Never").
func (c Config) Notify() bool { return c.NotifyWhenAgentWaiting != NotifyNever }

// Terminal is the [terminal] table.
type Terminal struct {
	// ScrollbackLines (terminal.scrollback_lines, 100–100000, default
	// 10000) is the scrollback kept per pane; it applies to panes created
	// afterwards.
	ScrollbackLines int
	// ScreenHistoryKiB (terminal.screen_history_kib, 0–65536, default
	// 1024; 0 keeps none) bounds, per pane, the screens full-screen
	// programs showed that search --all finds; it applies to panes
	// created afterwards.
	ScreenHistoryKiB int
	// ScreenHistoryDiskKiB (terminal.screen_history_disk_kib,
	// 0–1048576, default 0: off; less than 64 counts as 64) keeps each pane's screen history on
	// disk as well, compressed, bounded to this many KiB per pane, under
	// the user's state directory: screens dropped from memory stay
	// searchable, and a pane restored after the server restarts finds
	// its screens again. It applies from the server's next start.
	ScreenHistoryDiskKiB int
	// Env (terminal.env, a table of strings) is added to every pane's
	// environment (protected variables such as TERM and PANEFLOW_* cannot
	// be overridden).
	Env map[string]string
	// CursorShape (terminal.cursor_shape, default "block") is the cursor
	// drawn when the program has not chosen one: "block", "beam" (also
	// accepted: "bar") or "underline".
	CursorShape string
	// CursorBlink (terminal.cursor_blink, default "terminal_controlled")
	// is "on", "off" or "terminal_controlled" (the program's choice,
	// made with DECSCUSR; steady when it made none). true and false are
	// accepted for "on" and "off".
	CursorBlink string
	// ScrollMultiplier (terminal.scroll_multiplier, 0.1–10, default 1)
	// scales mouse-wheel scrolling.
	ScrollMultiplier float64
}

// Default returns the built-in configuration.
func Default() Config {
	return Config{
		SubmitPasteDelay:       70 * time.Millisecond,
		AIInjectionFence:       true,
		ShellIntegration:       true,
		AgentStallThreshold:    60 * time.Second,
		FontSize:               13,
		LineHeight:             1.2,
		Theme:                  ThemeDark,
		Shortcuts:              map[string]string{},
		NotifyWhenAgentWaiting: NotifyPrimaryScreen,
		QuitAction:             QuitAsk,
		NotifyWithoutWindow:    true,
		Terminal: Terminal{
			ScrollbackLines:  10000,
			ScreenHistoryKiB: 1024,
			Env:              map[string]string{},
			CursorShape:      CursorBlock,
			CursorBlink:      BlinkTerminalControlled,
			ScrollMultiplier: 1,
		},
		Usage: Usage{DailyPause: true, Prices: map[string]Price{}},
	}
}

// Dir returns the directory holding the configuration for goos:
// $XDG_CONFIG_HOME/paneflow (else ~/.config/paneflow), ~/Library/Application
// Support/paneflow on macOS, %APPDATA%\paneflow on Windows.
func Dir(getenv func(string) string, goos string) (string, error) {
	base, err := userdir.Base(userdir.Config, getenv, goos)
	if err != nil {
		return "", fmt.Errorf("config: %w", err)
	}
	return filepath.Join(base, "paneflow"), nil
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
		case "shell_integration":
			if b, ok := v.(bool); ok {
				c.ShellIntegration = b
			} else {
				warn("shell_integration: want true or false, got %v; using true", v)
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
		case "font_family":
			if str, ok := v.(string); ok {
				c.FontFamily = strings.TrimSpace(str)
				if strings.EqualFold(c.FontFamily, ".PaneflowMono") {
					c.FontFamily = ""
				}
			} else {
				warn("font_family: want a string, got %s; using the bundled font", typeName(v))
			}
		case "font_size":
			if f, ok := floatIn(v, 8, 32); ok {
				c.FontSize = f
			} else {
				warn("font_size: want a number from 8 to 32, got %v; using 13", v)
			}
		case "line_height":
			if f, ok := floatIn(v, 1, 2.5); ok {
				c.LineHeight = f
			} else {
				warn("line_height: want a number from 1.0 to 2.5, got %v; using 1.2", v)
			}
		case "theme":
			if th, ok := themeName(v); ok {
				c.Theme = th
			} else {
				warn("theme: want \"dark\" or \"light\", got %v; using dark", v)
			}
		case "notify_when_agent_waiting":
			if n, ok := oneOf(v, NotifyPrimaryScreen, NotifyAllScreens, NotifyNever); ok {
				c.NotifyWhenAgentWaiting = n
			} else {
				warn("notify_when_agent_waiting: want \"PrimaryScreen\", \"AllScreens\" or \"Never\", got %v; using PrimaryScreen", v)
			}
		case "notify_without_window":
			if b, ok := v.(bool); ok {
				c.NotifyWithoutWindow = b
			} else {
				warn("notify_without_window: want true or false, got %v; using true", v)
			}
		case "quit_action":
			if q, ok := oneOf(v, QuitAsk, QuitDetach, QuitStop); ok {
				c.QuitAction = q
			} else {
				warn("quit_action: want \"ask\", \"detach\" or \"stop\", got %v; using ask", v)
			}
		case "hosts":
			c.Hosts = parseHosts(v, warn)
		case "web":
			c.Web = parseWeb(v, warn)
		case "shortcuts":
			m, ok := v.(map[string]any)
			if !ok {
				warn("shortcuts: want a table of \"keys\" = \"action\", got %s; ignored", typeName(v))
				continue
			}
			for _, k := range sortedKeys(m) {
				if a, ok := m[k].(string); ok {
					c.Shortcuts[k] = strings.TrimSpace(a)
				} else {
					warn("shortcuts.%q: want an action name, got %s; ignored", k, typeName(m[k]))
				}
			}
		case "terminal":
			t, ok := v.(map[string]any)
			if !ok {
				warn("terminal: want a table, got %s; using defaults", typeName(v))
				continue
			}
			parseTerminal(&c.Terminal, t, warn)
		case "usage":
			t, ok := v.(map[string]any)
			if !ok {
				warn("usage: want a table, got %s; using defaults", typeName(v))
				continue
			}
			parseUsage(&c.Usage, t, warn)
		default:
			warn("unknown key %q (ignored)", key)
		}
	}
	return c, warns
}

// parseHosts reads the hosts key: [[hosts]] tables with an address, or
// address strings.
// parseWeb reads the [web] table; a key of the wrong type or an unknown
// one is warned about and ignored.
func parseWeb(v any, warn func(string, ...any)) Web {
	m, ok := v.(map[string]any)
	if !ok {
		warn("web: want a table with listen = \"HOST:PORT\", got %s; ignored", typeName(v))
		return Web{}
	}
	var w Web
	for _, k := range sortedKeys(m) {
		s, ok := m[k].(string)
		var dst *string
		switch k {
		case "listen":
			dst = &w.Listen
		case "tls_cert":
			dst = &w.TLSCert
		case "tls_key":
			dst = &w.TLSKey
		default:
			warn("web: unknown key %q (ignored)", k)
			continue
		}
		if !ok {
			warn("web.%s: want a string, got %s; ignored", k, typeName(m[k]))
			continue
		}
		*dst = strings.TrimSpace(s)
	}
	if (w.TLSCert == "") != (w.TLSKey == "") {
		warn("web: tls_cert and tls_key go together; serving without TLS")
		w.TLSCert, w.TLSKey = "", ""
	}
	return w
}

func parseHosts(v any, warn func(string, ...any)) []string {
	var list []any
	switch l := v.(type) {
	case []any:
		list = l
	case []map[string]any:
		for _, m := range l {
			list = append(list, m)
		}
	default:
		warn("hosts: want [[hosts]] tables with an address, got %s; ignored", typeName(v))
		return nil
	}
	var out []string
	for i, e := range list {
		addr, ok := e.(string)
		if m, isTable := e.(map[string]any); isTable {
			addr, ok = m["address"].(string)
			for _, k := range sortedKeys(m) {
				if k != "address" {
					warn("hosts[%d]: unknown key %q (ignored)", i, k)
				}
			}
		}
		addr = strings.TrimSpace(addr)
		switch {
		case !ok || addr == "":
			warn("hosts[%d]: want address = \"ssh://[user@]host[:port]\"; ignored", i)
		case slices.Contains(out, addr):
			warn("hosts[%d]: %q is listed twice; ignored", i, addr)
		default:
			out = append(out, addr)
		}
	}
	return out
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
		case "screen_history_kib":
			if n, ok := intIn(v, 0, 65536); ok {
				t.ScreenHistoryKiB = int(n)
			} else {
				warn("terminal.screen_history_kib: want an integer from 0 to 65536, got %v; using 1024", v)
			}
		case "screen_history_disk_kib":
			if n, ok := intIn(v, 0, 1<<20); ok {
				t.ScreenHistoryDiskKiB = int(n)
			} else {
				warn("terminal.screen_history_disk_kib: want an integer from 0 (off) to 1048576, got %v; using 0", v)
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
		case "cursor_shape":
			if sh, ok := cursorShape(v); ok {
				t.CursorShape = sh
			} else {
				warn("terminal.cursor_shape: want \"block\", \"beam\" or \"underline\", got %v; using block", v)
			}
		case "cursor_blink":
			if b, ok := cursorBlink(v); ok {
				t.CursorBlink = b
			} else {
				warn("terminal.cursor_blink: want \"on\", \"off\" or \"terminal_controlled\", got %v; using terminal_controlled", v)
			}
		case "scroll_multiplier":
			if f, ok := floatIn(v, 0.1, 10); ok {
				t.ScrollMultiplier = f
			} else {
				warn("terminal.scroll_multiplier: want a number from 0.1 to 10, got %v; using 1.0", v)
			}
		default:
			warn("unknown key \"terminal.%s\" (ignored)", key)
		}
	}
}

func parseUsage(u *Usage, raw map[string]any, warn func(string, ...any)) {
	for _, key := range sortedKeys(raw) {
		v := raw[key]
		switch key {
		case "daily_budget":
			t, ok := v.(map[string]any)
			if !ok {
				warn("usage.daily_budget: want a table, got %s; no daily budget", typeName(v))
				continue
			}
			for _, k := range sortedKeys(t) {
				switch k {
				case "tokens":
					if n, ok := intIn(t[k], 1, 1<<53); ok {
						u.DailyTokens = n
					} else {
						warn("usage.daily_budget.tokens: want a positive integer, got %v; no token limit", t[k])
					}
				case "cost":
					if f, ok := floatIn(t[k], 1e-9, 1e9); ok {
						u.DailyCostUSD = f
					} else {
						warn("usage.daily_budget.cost: want a positive number of dollars, got %v; no cost limit", t[k])
					}
				case "pause":
					if b, ok := t[k].(bool); ok {
						u.DailyPause = b
					} else {
						warn("usage.daily_budget.pause: want true or false, got %v; using true", t[k])
					}
				default:
					warn("unknown key \"usage.daily_budget.%s\" (ignored)", k)
				}
			}
		case "prices":
			t, ok := v.(map[string]any)
			if !ok {
				warn("usage.prices: want a table of models, got %s; ignored", typeName(v))
				continue
			}
			for _, model := range sortedKeys(t) {
				m, ok := t[model].(map[string]any)
				if !ok {
					warn("usage.prices.%q: want a table of prices, got %s; ignored", model, typeName(t[model]))
					continue
				}
				u.Prices[model] = parsePrice(model, m, warn)
			}
		default:
			warn("unknown key \"usage.%s\" (ignored)", key)
		}
	}
}

// parsePrice reads one [usage.prices."<model>"] table.
func parsePrice(model string, raw map[string]any, warn func(string, ...any)) Price {
	var p Price
	fields := map[string]**float64{
		"input": &p.Input, "output": &p.Output, "cache_read": &p.CacheRead, "cache_write": &p.CacheWrite,
		"cache_write_1h": &p.CacheWrite1h, "long_input": &p.LongInput, "long_output": &p.LongOutput,
		"long_cache_read": &p.LongCacheRead, "long_cache_write": &p.LongCacheWrite,
	}
	for _, k := range sortedKeys(raw) {
		if k == "long_above" {
			if n, ok := intIn(raw[k], 1, 1<<40); ok {
				p.LongAbove = &n
			} else {
				warn("usage.prices.%q.long_above: want a positive number of tokens, got %v; ignored", model, raw[k])
			}
			continue
		}
		dst, known := fields[k]
		if !known {
			warn("unknown key \"usage.prices.%q.%s\" (ignored)", model, k)
			continue
		}
		if f, ok := floatIn(raw[k], 0, 1e6); ok {
			*dst = &f
		} else {
			warn("usage.prices.%q.%s: want dollars per million tokens (0 or more), got %v; ignored", model, k, raw[k])
		}
	}
	return p
}

func intIn(v any, lo, hi int64) (int64, bool) {
	n, ok := v.(int64)
	return n, ok && n >= lo && n <= hi
}

// floatIn accepts a TOML integer or float within [lo, hi].
func floatIn(v any, lo, hi float64) (float64, bool) {
	var f float64
	switch n := v.(type) {
	case int64:
		f = float64(n)
	case float64:
		f = n
	default:
		return 0, false
	}
	return f, f >= lo && f <= hi // false for NaN
}

// oneOf matches a string case-insensitively against the allowed values and
// returns the allowed spelling.
func oneOf(v any, allowed ...string) (string, bool) {
	s, ok := v.(string)
	if !ok {
		return "", false
	}
	s = strings.TrimSpace(s)
	for _, a := range allowed {
		if strings.EqualFold(s, a) {
			return a, true
		}
	}
	return "", false
}

func themeName(v any) (string, bool) {
	s, ok := oneOf(v, ThemeDark, ThemeLight, "One Dark", "PaneFlow Light")
	switch {
	case !ok:
		return "", false
	case s == "One Dark":
		return ThemeDark, true
	case s == "PaneFlow Light":
		return ThemeLight, true
	}
	return s, true
}

func cursorShape(v any) (string, bool) {
	s, ok := oneOf(v, CursorBlock, CursorBeam, CursorUnderline, "bar")
	if s == "bar" {
		s = CursorBeam
	}
	return s, ok
}

func cursorBlink(v any) (string, bool) {
	if b, ok := v.(bool); ok {
		if b {
			return BlinkOn, true
		}
		return BlinkOff, true
	}
	return oneOf(v, BlinkOn, BlinkOff, BlinkTerminalControlled)
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
