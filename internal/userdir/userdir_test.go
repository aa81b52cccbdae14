package userdir

import (
	"path/filepath"
	"testing"
)

func TestBase(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	full := env("HOME", "/h", "XDG_CONFIG_HOME", "/x/config", "XDG_DATA_HOME", "/x/data",
		"XDG_STATE_HOME", "/x/state", "XDG_CACHE_HOME", "/x/cache",
		"APPDATA", `C:\R`, "LOCALAPPDATA", `C:\L`)
	relative := env("HOME", "/h", "XDG_CONFIG_HOME", "c", "XDG_DATA_HOME", "d", "XDG_STATE_HOME", "s", "XDG_CACHE_HOME", "k")
	tests := []struct {
		kind   Kind
		getenv func(string) string
		goos   string
		want   string // "" for an error
	}{
		{Config, full, "linux", "/x/config"},
		{Data, full, "linux", "/x/data"},
		{State, full, "freebsd", "/x/state"},
		{Cache, full, "linux", "/x/cache"},
		{Config, relative, "linux", "/h/.config"},
		{Data, relative, "linux", "/h/.local/share"},
		{State, relative, "openbsd", "/h/.local/state"},
		{Cache, relative, "linux", "/h/.cache"},
		{Data, env(), "linux", ""},
		{Config, full, "darwin", "/h/Library/Application Support"},
		{Data, full, "darwin", "/h/Library/Application Support"},
		{State, full, "ios", "/h/Library/Application Support"},
		{Cache, full, "darwin", "/h/Library/Caches"},
		{Cache, env("XDG_CACHE_HOME", "/x"), "darwin", ""},
		{Config, full, "windows", `C:\R`},
		{Data, full, "windows", `C:\L`},
		{State, full, "windows", `C:\L`},
		{Cache, full, "windows", `C:\L`},
		{Config, env("LOCALAPPDATA", `C:\L`), "windows", ""},
		{Cache, env("APPDATA", `C:\R`), "windows", ""},
		{Kind(9), full, "linux", ""},
	}
	for _, tt := range tests {
		got, err := Base(tt.kind, tt.getenv, tt.goos)
		want := tt.want
		if want != "" && want[0] == '/' {
			want = filepath.FromSlash(want)
		}
		if tt.want == "" {
			if err == nil {
				t.Errorf("Base(%d, %s) = %q, want an error", tt.kind, tt.goos, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("Base(%d, %s) = %q, %v; want %q", tt.kind, tt.goos, got, err, want)
		}
	}
}
