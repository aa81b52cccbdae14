package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/cli"
	"github.com/paneflow-go/paneflow/remote"
	"github.com/paneflow-go/paneflow/version"
)

func TestRun(t *testing.T) {
	wantVersion := "paneflow " + version.String() + "\n"
	tests := []struct {
		name       string
		args       []string
		display    string // DISPLAY for this case; empty means no display
		socket     string // a file name in a temp dir for PANEFLOW_SOCKET_PATH; empty leaves it unset
		wantCode   int
		wantStdout string   // exact, when wantUsage is false
		wantUsage  bool     // stdout is the usage text
		wantStderr []string // substrings stderr must contain; nil means stderr must be empty
		notStderr  []string // substrings stderr must not contain
	}{
		{name: "version verb", args: []string{"version"}, wantCode: exitOK, wantStdout: wantVersion},
		{name: "version long flag", args: []string{"--version"}, wantCode: exitOK, wantStdout: wantVersion},
		{name: "version short flag", args: []string{"-v"}, wantCode: exitOK, wantStdout: wantVersion},
		{name: "version with an argument", args: []string{"version", "extra"}, wantCode: exitUsage,
			wantStderr: []string{"paneflow: version takes no arguments"}},
		{name: "help verb", args: []string{"help"}, wantCode: exitOK, wantUsage: true},
		{name: "help long flag", args: []string{"--help"}, wantCode: exitOK, wantUsage: true},
		{name: "help short flag", args: []string{"-h"}, wantCode: exitOK, wantUsage: true},
		{name: "help flag after an unknown flag", args: []string{"--bogus", "--help"}, wantCode: exitOK, wantUsage: true},
		{name: "help with a local verb", args: []string{"help", "version"}, wantCode: exitOK, wantUsage: true},
		{name: "help with a client verb", args: []string{"help", "read"}, wantCode: exitOK, wantStdout: cliHelp("read")},
		{name: "help with an alias", args: []string{"help", "list_panes"}, wantCode: exitOK, wantStdout: cliHelp("ls")},
		{name: "help with an unknown verb", args: []string{"help", "frob"}, wantCode: exitUsage,
			wantStderr: []string{"paneflow: unknown verb 'frob'"}},
		{name: "help with two arguments", args: []string{"help", "read", "ls"}, wantCode: exitUsage,
			wantStderr: []string{"help takes at most one verb"}},
		{name: "client verb help", args: []string{"read", "--help"}, wantCode: exitOK, wantStdout: cliHelp("read")},
		{name: "client verb help after arguments", args: []string{"send", "x", "y", "-h"}, wantCode: exitOK, wantStdout: cliHelp("send")},
		{name: "client alias help", args: []string{"search_pane", "--help"}, wantCode: exitOK, wantStdout: cliHelp("search")},
		{name: "client verb usage error", args: []string{"read"}, wantCode: exitUsage,
			wantStderr: []string{"paneflow: read: missing <target>; see `paneflow read --help`\n"},
			notStderr:  []string{"exit status"}},
		{name: "client verb unreachable", args: []string{"ls"}, socket: "none", wantCode: exitFailure,
			wantStderr: []string{"paneflow: paneflow IPC unreachable at ", "is Paneflow running?"},
			notStderr:  []string{"exit status"}},
		{name: "client verb no target", args: []string{"wait", "--match", "x", "--idle"}, socket: "none", wantCode: cli.ExitNoTarget,
			wantStderr: []string{"paneflow: wait --idle failed: paneflow IPC unreachable"}},
		{name: "unknown verb", args: []string{"frobnicate"}, wantCode: exitUsage,
			wantStderr: []string{"paneflow: unknown verb 'frobnicate'; see `paneflow --help` for the verb list"}},
		{name: "unknown verb before help flag", args: []string{"frobnicate", "--help"}, wantCode: exitOK, wantUsage: true},
		{name: "unknown flag", args: []string{"--frobnicate"}, wantCode: exitUsage,
			wantStderr: []string{"paneflow: unknown flag '--frobnicate'"}},
		// With a display a bare paneflow opens the window, which a unit test
		// cannot; gui_*_test.go and the Xvfb e2e tests cover that.
		{name: "no verb without a display", args: []string{}, wantCode: exitUsage,
			wantStderr: []string{"paneflow serve"},
			notStderr:  []string{"exit status"}},
		{name: "gui flag with an extra argument", args: []string{"--socket", "x", "extra"}, wantCode: exitUsage,
			wantStderr: []string{"unexpected argument \"extra\""}},
		{name: "gui modes exclude each other", args: []string{"--embedded", "--attach"}, wantCode: exitUsage,
			wantStderr: []string{"--attach and --embedded exclude each other"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("DISPLAY", tt.display)
			t.Setenv("WAYLAND_DISPLAY", "")
			t.Setenv("PANEFLOW_SOCKET_PATH", "")
			if tt.socket != "" {
				t.Setenv("PANEFLOW_SOCKET_PATH", filepath.Join(t.TempDir(), tt.socket))
			}
			var stdout, stderr bytes.Buffer
			got := run(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr)
			if got != tt.wantCode {
				t.Errorf("run(%q) exit code = %d, want %d (stderr: %q)", tt.args, got, tt.wantCode, stderr.String())
			}
			if tt.wantUsage {
				if want := usageText(); stdout.String() != want {
					t.Errorf("run(%q) stdout = %q, want the usage text %q", tt.args, stdout.String(), want)
				}
			} else if stdout.String() != tt.wantStdout {
				t.Errorf("run(%q) stdout = %q, want %q", tt.args, stdout.String(), tt.wantStdout)
			}
			if tt.wantStderr == nil && stderr.Len() > 0 {
				t.Errorf("run(%q) stderr = %q, want it empty", tt.args, stderr.String())
			}
			for _, s := range tt.wantStderr {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("run(%q) stderr = %q, want it to contain %q", tt.args, stderr.String(), s)
				}
			}
			for _, s := range tt.notStderr {
				if strings.Contains(stderr.String(), s) {
					t.Errorf("run(%q) stderr = %q, want it not to contain %q", tt.args, stderr.String(), s)
				}
			}
		})
	}
}

// cliHelp is the help text of a client verb.
func cliHelp(name string) string {
	h, ok := cli.Help(name)
	if !ok {
		panic("no cli verb " + name)
	}
	return h
}

func usageText() string {
	var b strings.Builder
	writeUsage(&b)
	return b.String()
}

func TestUsageListsEveryVerb(t *testing.T) {
	usage := usageText()
	for _, c := range commands {
		if !strings.Contains(usage, "\n  "+c.name+" ") {
			t.Errorf("usage does not list verb %q:\n%s", c.name, usage)
		}
	}
	for _, v := range cli.Verbs() {
		if lookup(v.Name) == nil {
			t.Errorf("client verb %q has no row in commands", v.Name)
		}
		for _, a := range v.Aliases {
			if c := lookup(a); c == nil || c.name != v.Name {
				t.Errorf("alias %q does not run verb %q", a, v.Name)
			}
			if !strings.Contains(usage, a) {
				t.Errorf("usage does not mention alias %q:\n%s", a, usage)
			}
		}
	}
}

func TestHasDisplay(t *testing.T) {
	tests := []struct {
		name string
		goos string
		env  map[string]string
		want bool
	}{
		{"linux without display", "linux", nil, false},
		{"linux with X11", "linux", map[string]string{"DISPLAY": ":0"}, true},
		{"linux with Wayland", "linux", map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, true},
		{"freebsd without display", "freebsd", nil, false},
		{"darwin always", "darwin", nil, true},
		{"windows always", "windows", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string { return tt.env[k] }
			if got := hasDisplay(getenv, tt.goos); got != tt.want {
				t.Errorf("hasDisplay(%v, %q) = %v, want %v", tt.env, tt.goos, got, tt.want)
			}
		})
	}
}

// TestCallEnv: a call handed to another binary takes its host along,
// which may have come as --host on this command line.
func TestCallEnv(t *testing.T) {
	t.Setenv(remote.EnvHost, "")
	inv := &invocation{getenv: func(string) string { return "" }}
	if got := callEnv(inv); !slices.Equal(got, os.Environ()) {
		t.Errorf("no host: the environment changed")
	}
	withHost(inv, "ssh://h")
	got := callEnv(inv)
	var hosts []string
	for _, kv := range got {
		if strings.HasPrefix(kv, remote.EnvHost+"=") {
			hosts = append(hosts, kv)
		}
	}
	if !slices.Equal(hosts, []string{remote.EnvHost + "=ssh://h"}) {
		t.Errorf("with a host: %s entries %q, want one, ssh://h", remote.EnvHost, hosts)
	}
	if len(got) != len(os.Environ()) {
		t.Errorf("with a host: %d variables, want %d (the empty one replaced)", len(got), len(os.Environ()))
	}
}
