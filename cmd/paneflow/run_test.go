package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/version"
)

func TestRun(t *testing.T) {
	wantVersion := "paneflow " + version.String() + "\n"
	tests := []struct {
		name       string
		args       []string
		display    string // DISPLAY for this case; empty means no display
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
		{name: "help with an argument", args: []string{"help", "version"}, wantCode: exitUsage,
			wantStderr: []string{"help takes no arguments"}},
		{name: "unknown verb", args: []string{"frobnicate"}, wantCode: exitUsage,
			wantStderr: []string{"paneflow: unknown verb 'frobnicate'; see `paneflow --help` for the verb list"}},
		{name: "unknown verb before help flag", args: []string{"frobnicate", "--help"}, wantCode: exitOK, wantUsage: true},
		{name: "unknown flag", args: []string{"--frobnicate"}, wantCode: exitUsage,
			wantStderr: []string{"paneflow: unknown flag '--frobnicate'"}},
		{name: "no verb with a display", args: nil, display: ":0", wantCode: exitFailure,
			wantStderr: []string{"no desktop window yet", "paneflow help"},
			notStderr:  []string{"no display found", "exit status"}},
		{name: "no verb without a display", args: []string{}, wantCode: exitFailure,
			wantStderr: []string{"no desktop window yet", "no display found", "paneflow serve", "paneflow help"},
			notStderr:  []string{"exit status"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("DISPLAY", tt.display)
			t.Setenv("WAYLAND_DISPLAY", "")
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
	// Verbs that do not exist yet must not be advertised.
	for _, absent := range []string{"serve", "ls", "send"} {
		if strings.Contains(usage, "\n  "+absent+" ") {
			t.Errorf("usage lists verb %q, which this build does not have:\n%s", absent, usage)
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
