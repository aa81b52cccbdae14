package workspace

import (
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSanitizeName(t *testing.T) {
	long := strings.Repeat("é", 70)
	tests := []struct {
		in, want string
	}{
		{"", ""},
		{"  api  ", "api"},
		{"a\x1b[31mb\x07c", "a[31mbc"},
		{"tab\there", "tabhere"},
		{"c1\u0085x", "c1x"},
		{" \x00 ", ""},
		{long, strings.Repeat("é", 64)},
		{strings.Repeat("a", 63) + " b", strings.Repeat("a", 63)},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := SanitizeName(tt.in); got != tt.want {
				t.Errorf("SanitizeName(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSlugify(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Claude-bypassPermissions", "claude-bypasspermissions"},
		{"--foo  bar--", "foo-bar"},
		{"server.py", "server.py"},
		{"a_b.c", "a_b.c"},
		{"日本語", ""},
		{"x日y", "x-y"},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := Slugify(tt.in); got != tt.want {
				t.Errorf("Slugify(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestCommandName(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{nil, ""},
		{[]string{"bash"}, "shell"},
		{[]string{"-zsh"}, "shell"},
		{[]string{"/usr/bin/fish", "-l"}, "shell"},
		{[]string{`C:\Windows\System32\cmd.exe`}, "shell"},
		{[]string{"claude", "--permission-mode", "bypassPermissions"}, "claude-bypasspermissions"},
		{[]string{"/usr/bin/python3", "/srv/app/server.py"}, "python3-server.py"},
		{[]string{"sleep", "30"}, "sleep-30"},
		{[]string{"vim"}, "vim"},
		{[]string{"top", "-d", "1"}, "top-1"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.argv, " "), func(t *testing.T) {
			if got := commandName(tt.argv); got != tt.want {
				t.Errorf("commandName(%q) = %q, want %q", tt.argv, got, tt.want)
			}
		})
	}
}

func TestTitleName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"vim /etc/hosts", "vim"},
		{"/usr/bin/htop", "htop"},
		{"user@host: ~", "user-host"},
	}
	for _, tt := range tests {
		if got := titleName(tt.in); got != tt.want {
			t.Errorf("titleName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"sleep 30", []string{"sleep", "30"}},
		{`echo "a b" 'c d' e\ f`, []string{"echo", "a b", "c d", "e f"}},
		{"make test && echo done", []string{"make", "test"}},
		{"ls | wc", []string{"ls"}},
		{`printf "x\"y"`, []string{"printf", `x"y`}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, splitCommand(tt.in)); diff != "" {
				t.Errorf("splitCommand(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestResolveNames(t *testing.T) {
	tests := []struct {
		name    string
		entries []nameEntry
		want    []string
	}{
		{"single", []nameEntry{{base: "shell"}}, []string{"shell"}},
		{
			"autos collide, cwd known",
			[]nameEntry{{base: "shell", cwd: "/home/u/api"}, {base: "shell", cwd: "/home/u/Web App"}},
			[]string{"shell@api", "shell@web-app"},
		},
		{
			"same cwd then numbered",
			[]nameEntry{{base: "shell", cwd: "/x/api"}, {base: "shell", cwd: "/x/api"}, {base: "shell"}},
			[]string{"shell@api", "shell@api-2", "shell"},
		},
		{
			"custom claims first",
			[]nameEntry{{base: "vim"}, {custom: "vim"}},
			[]string{"vim-2", "vim"},
		},
		{
			"custom duplicates",
			[]nameEntry{{custom: "a"}, {custom: "a"}, {custom: "a"}},
			[]string{"a", "a-2", "a-3"},
		},
		{
			"numbered past a custom name that took a number",
			[]nameEntry{{base: "sh"}, {base: "sh"}, {custom: "sh-3"}, {base: "sh"}, {base: "sh"}, {custom: "sh-2"}},
			[]string{"sh", "sh-4", "sh-3", "sh-5", "sh-6", "sh-2"},
		},
		{
			"auto does not collide with custom for @",
			[]nameEntry{{custom: "shell"}, {base: "shell", cwd: "/x/y"}},
			[]string{"shell", "shell-2"},
		},
		{
			"root cwd has no basename",
			[]nameEntry{{base: "shell", cwd: "/"}, {base: "shell", cwd: "/"}},
			[]string{"shell", "shell-2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, resolveNames(tt.entries)); diff != "" {
				t.Errorf("resolveNames mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUniqueLabels(t *testing.T) {
	long := strings.Repeat("x", 64)
	got := uniqueLabels([]string{"a", "", "a", "b", "a", long, long})
	want := []string{"a", "", "a-2", "b", "a-3", long, strings.Repeat("x", 62) + "-2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("uniqueLabels mismatch (-want +got):\n%s", diff)
	}
}

func TestPaneEnv(t *testing.T) {
	base := []string{"PATH=/bin", "HOME=/h", "PANEFLOW_SOCKET_PATH=/parent.sock", "LD_PRELOAD=/keep/app.so", "TERM=dumb",
		"TMUX=/tmp/tmux-0/default,1,0", "TMUX_PANE=%3"}
	fixed := map[string]string{"TERM": "xterm-256color", EnvSurfaceID: "7"}
	global := []string{"FOO=global", "TERM=vt100", "BAD", "LD_LIBRARY_PATH=/x", "=x"}
	pane := map[string]string{"FOO": "pane", EnvSurfaceID: "9", "DYLD_INSERT_LIBRARIES": "x", "A=B": "c", "": "e", "PATH": "/p"}
	env := paneEnv(base, global, pane, fixed)
	get := func(k string) (string, bool) {
		for _, kv := range env {
			if kk, v, _ := strings.Cut(kv, "="); kk == k {
				return v, true
			}
		}
		return "", false
	}
	tests := []struct {
		key  string
		want string
		ok   bool
	}{
		{"TERM", "xterm-256color", true},
		{EnvSurfaceID, "7", true},
		{"FOO", "pane", true},
		{"PATH", "/p", true},
		{"HOME", "/h", true},
		{"LD_PRELOAD", "/keep/app.so", true}, // inherited, not user-supplied
		{"LD_LIBRARY_PATH", "", false},
		{"DYLD_INSERT_LIBRARIES", "", false},
		{EnvSocketPath, "", false}, // the parent's socket must not leak
		{"TMUX", "", false},        // nor the tmux Paneflow was started from
		{"TMUX_PANE", "", false},
	}
	for _, tt := range tests {
		v, ok := get(tt.key)
		if ok != tt.ok || v != tt.want {
			t.Errorf("env %s = %q (set %v), want %q (set %v)", tt.key, v, ok, tt.want, tt.ok)
		}
	}
	seen := map[string]bool{}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if seen[envName(k)] {
			t.Errorf("env has %s twice: %q", k, env)
		}
		seen[envName(k)] = true
	}
	if runtime.GOOS != "windows" && !slices.Contains(env, "FOO=pane") {
		t.Errorf("env %q lacks FOO=pane", env)
	}
}
