package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		edit  func(*Config)
		warns []string
	}{
		{name: "empty", in: ""},
		{
			name: "all keys",
			in: `default_shell = "/bin/zsh"
submit_paste_delay_ms = 120
ai_unrestricted = true
ai_injection_fence = false
shell_integration = false
agent_stall_threshold_secs = 90
[terminal]
scrollback_lines = 500
screen_history_kib = 0
screen_history_disk_kib = 4096
env = { FOO = "bar", EDITOR = "vim" }
`,
			edit: func(c *Config) {
				c.DefaultShell = "/bin/zsh"
				c.SubmitPasteDelay = 120 * time.Millisecond
				c.AIUnrestricted, c.AIInjectionFence = true, false
				c.ShellIntegration = false
				c.AgentStallThreshold = 90 * time.Second
				c.Terminal.ScrollbackLines = 500
				c.Terminal.ScreenHistoryKiB = 0
				c.Terminal.ScreenHistoryDiskKiB = 4096
				c.Terminal.Env = map[string]string{"FOO": "bar", "EDITOR": "vim"}
			},
		},
		{
			name: "usage",
			in: `[usage.daily_budget]
tokens = 5_000_000
cost = 20.5
pause = false
[usage.prices."claude-opus-5-5"]
input = 4
output = 20.0
long_above = 200000
long_input = 8
[usage.prices.my-model]
input = 1
output = 2
`,
			edit: func(c *Config) {
				f := func(v float64) *float64 { return &v }
				above := int64(200000)
				c.Usage = Usage{DailyTokens: 5_000_000, DailyCostUSD: 20.5, DailyPause: false, Prices: map[string]Price{
					"claude-opus-5-5": {Input: f(4), Output: f(20), LongAbove: &above, LongInput: f(8)},
					"my-model":        {Input: f(1), Output: f(2)},
				}}
			},
		},
		{
			name: "bad usage values",
			in: `[usage]
budget = 3
[usage.daily_budget]
tokens = -1
cost = "lots"
pause = "no"
[usage.prices.m]
input = -2
output = 3
colour = 1
long_above = 0
`,
			edit: func(c *Config) {
				three := 3.0
				c.Usage.Prices = map[string]Price{"m": {Output: &three}}
			},
			warns: []string{
				`unknown key "usage.budget" (ignored)`,
				"usage.daily_budget.cost: want a positive number of dollars, got lots; no cost limit",
				"usage.daily_budget.pause: want true or false, got no; using true",
				"usage.daily_budget.tokens: want a positive integer, got -1; no token limit",
				`unknown key "usage.prices."m".colour" (ignored)`,
				`usage.prices."m".input: want dollars per million tokens (0 or more), got -2; ignored`,
				`usage.prices."m".long_above: want a positive number of tokens, got 0; ignored`,
			},
		},
		{
			name:  "unknown keys warn",
			in:    "font_sise = 12\n[terminal]\nshell = 'x'\n",
			warns: []string{`unknown key "font_sise" (ignored)`, `unknown key "terminal.shell" (ignored)`},
		},
		{
			name: "bad values keep defaults",
			in:   "submit_paste_delay_ms = 1\nai_unrestricted = \"yes\"\nshell_integration = 1\n[terminal]\nscrollback_lines = -5\nscreen_history_kib = 70000\nscreen_history_disk_kib = -1\nenv = { A = 1, \"B=C\" = \"x\", D = \"ok\" }\n",
			edit: func(c *Config) { c.Terminal.Env = map[string]string{"D": "ok"} },
			warns: []string{
				"ai_unrestricted: want true or false, got yes; using false",
				"shell_integration: want true or false, got 1; using true",
				"submit_paste_delay_ms: want an integer from 10 to 5000, got 1; using 70",
				"terminal.env.A: want a string, got an integer; ignored",
				"terminal.env: invalid variable name \"B=C\"; ignored",
				"terminal.screen_history_disk_kib: want an integer from 0 (off) to 1048576, got -1; using 0",
				"terminal.screen_history_kib: want an integer from 0 to 65536, got 70000; using 1024",
				"terminal.scrollback_lines: want an integer from 100 to 100000, got -5; using 10000",
			},
		},
		{
			name:  "web",
			in:    "[web]\nlisten = \" 127.0.0.1:8714 \"\nport = 1\n",
			edit:  func(c *Config) { c.Web = Web{Listen: "127.0.0.1:8714"} },
			warns: []string{`web: unknown key "port" (ignored)`},
		},
		{
			name:  "web with half of TLS",
			in:    "[web]\nlisten = \"100.64.0.1:8714\"\ntls_cert = \"c.pem\"\n",
			edit:  func(c *Config) { c.Web = Web{Listen: "100.64.0.1:8714"} },
			warns: []string{"web: tls_cert and tls_key go together; serving without TLS"},
		},
		{
			name:  "web not a table",
			in:    "web = \"127.0.0.1:1\"\n",
			warns: []string{`web: want a table with listen = "HOST:PORT", got a string; ignored`},
		},
		{
			name: "hosts as tables",
			in:   "[[hosts]]\naddress = \"ssh://me@build:2222\"\n[[hosts]]\naddress = \" gpu \"\nport = 1\n[[hosts]]\naddress = \"gpu\"\n[[hosts]]\nname = \"x\"\n",
			edit: func(c *Config) { c.Hosts = []string{"ssh://me@build:2222", "gpu"} },
			warns: []string{
				`hosts[1]: unknown key "port" (ignored)`,
				`hosts[2]: "gpu" is listed twice; ignored`,
				`hosts[3]: unknown key "name" (ignored)`,
				`hosts[3]: want address = "ssh://[user@]host[:port]"; ignored`,
			},
		},
		{
			name:  "hosts as strings",
			in:    "hosts = [\"a\", 3, \"ssh://b\"]\n",
			edit:  func(c *Config) { c.Hosts = []string{"a", "ssh://b"} },
			warns: []string{`hosts[1]: want address = "ssh://[user@]host[:port]"; ignored`},
		},
		{
			name:  "hosts of another type",
			in:    "hosts = \"a\"\n",
			warns: []string{"hosts: want [[hosts]] tables with an address, got a string; ignored"},
		},
		{
			name: "gui keys",
			in: `font_family = " JetBrains Mono "
font_size = 14
line_height = 1.5
theme = "Light"
notify_when_agent_waiting = "allscreens"
quit_action = "Detach"
[shortcuts]
"ctrl+t" = "new_workspace"
"ctrl+shift+d" = " none "
[terminal]
cursor_shape = "Beam"
cursor_blink = true
scroll_multiplier = 2.5
`,
			edit: func(c *Config) {
				c.FontFamily, c.FontSize, c.LineHeight, c.Theme = "JetBrains Mono", 14, 1.5, ThemeLight
				c.NotifyWhenAgentWaiting = NotifyAllScreens
				c.QuitAction = QuitDetach
				c.Shortcuts = map[string]string{"ctrl+t": "new_workspace", "ctrl+shift+d": "none"}
				c.Terminal.CursorShape, c.Terminal.CursorBlink, c.Terminal.ScrollMultiplier = CursorBeam, BlinkOn, 2.5
			},
		},
		{
			name: "original app spellings",
			in: `font_family = ".PaneflowMono"
font_size = 12.5
theme = "One Dark"
notify_when_agent_waiting = "Never"
notify_without_window = false
quit_action = "stop"
[terminal]
cursor_shape = "bar"
cursor_blink = "terminal_controlled"
scroll_multiplier = 1
`,
			edit: func(c *Config) {
				c.FontSize, c.NotifyWhenAgentWaiting, c.Terminal.CursorShape = 12.5, NotifyNever, CursorBeam
				c.QuitAction = QuitStop
				c.NotifyWithoutWindow = false
			},
		},
		{
			name: "light theme by its old name, blink off",
			in:   "theme = \"PaneFlow Light\"\n[terminal]\ncursor_blink = false\ncursor_shape = \"underline\"\n",
			edit: func(c *Config) {
				c.Theme, c.Terminal.CursorBlink, c.Terminal.CursorShape = ThemeLight, BlinkOff, CursorUnderline
			},
		},
		{
			name: "bad gui values keep defaults",
			in: `font_family = 3
font_size = 40
line_height = 0.5
theme = "solarized"
notify_when_agent_waiting = true
notify_without_window = "yes"
quit_action = "exit"
shortcuts = "ctrl+t"
[terminal]
cursor_shape = "hollow"
cursor_blink = "sometimes"
scroll_multiplier = 0
`,
			warns: []string{
				"font_family: want a string, got an integer; using the bundled font",
				"font_size: want a number from 8 to 32, got 40; using 13",
				"line_height: want a number from 1.0 to 2.5, got 0.5; using 1.2",
				`notify_when_agent_waiting: want "PrimaryScreen", "AllScreens" or "Never", got true; using PrimaryScreen`,
				"notify_without_window: want true or false, got yes; using true",
				`quit_action: want "ask", "detach" or "stop", got exit; using ask`,
				`shortcuts: want a table of "keys" = "action", got a string; ignored`,
				"terminal.cursor_blink: want \"on\", \"off\" or \"terminal_controlled\", got sometimes; using terminal_controlled",
				"terminal.cursor_shape: want \"block\", \"beam\" or \"underline\", got hollow; using block",
				"terminal.scroll_multiplier: want a number from 0.1 to 10, got 0; using 1.0",
				`theme: want "dark" or "light", got solarized; using dark`,
			},
		},
		{
			name:  "bad shortcut value",
			in:    "[shortcuts]\n\"ctrl+t\" = 5\n\"ctrl+y\" = \"quit\"\n",
			edit:  func(c *Config) { c.Shortcuts = map[string]string{"ctrl+y": "quit"} },
			warns: []string{`shortcuts."ctrl+t": want an action name, got an integer; ignored`},
		},
		{
			name:  "wrong table type",
			in:    "terminal = 3\n",
			warns: []string{"terminal: want a table, got an integer; using defaults"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, warns := Parse([]byte(tt.in))
			want := Default()
			if tt.edit != nil {
				tt.edit(&want)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.warns, warns); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNotify(t *testing.T) {
	for _, tt := range []struct {
		v    string
		want bool
	}{{NotifyPrimaryScreen, true}, {NotifyAllScreens, true}, {NotifyNever, false}} {
		c := Default()
		c.NotifyWhenAgentWaiting = tt.v
		if got := c.Notify(); got != tt.want {
			t.Errorf("Notify() with %q = %v, want %v", tt.v, got, tt.want)
		}
	}
}

func TestParseUnparseable(t *testing.T) {
	got, warns := Parse([]byte("this is = = not toml"))
	if !cmp.Equal(got, Default()) {
		t.Errorf("config = %+v, want defaults", got)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "cannot parse") {
		t.Errorf("warnings = %q, want one parse warning", warns)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	if c, warns := Load(filepath.Join(dir, "missing.toml")); !cmp.Equal(c, Default()) || warns != nil {
		t.Errorf("missing file: %+v %q, want defaults and no warnings", c, warns)
	}
	p := filepath.Join(dir, FileName)
	os.WriteFile(p, []byte("bogus = 1\n"), 0o600)
	if _, warns := Load(p); len(warns) != 1 || !strings.HasPrefix(warns[0], p+": ") {
		t.Errorf("warnings = %q, want one prefixed with the path", warns)
	}
	if _, warns := Load(dir); len(warns) != 1 {
		t.Errorf("reading a directory: warnings = %q, want one", warns)
	}
}

func TestDir(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		goos string
		env  map[string]string
		want string
	}{
		{"linux", map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/x/paneflow"},
		{"linux", map[string]string{"XDG_CONFIG_HOME": "rel", "HOME": "/h"}, "/h/.config/paneflow"},
		{"darwin", map[string]string{"HOME": "/h"}, "/h/Library/Application Support/paneflow"},
		{"windows", map[string]string{"APPDATA": `C:\Users\u\AppData\Roaming`}, filepath.Join(`C:\Users\u\AppData\Roaming`, "paneflow")},
	}
	for _, tt := range tests {
		got, err := Dir(env(tt.env), tt.goos)
		if err != nil || got != tt.want {
			t.Errorf("Dir(%v, %s) = %q, %v; want %q", tt.env, tt.goos, got, err, tt.want)
		}
	}
	if _, err := Dir(env(nil), "linux"); err == nil {
		t.Error("Dir with no HOME succeeded")
	}
}
