package hook

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/internal/exefile"
)

// cmdEnv is a fake machine for the hooks verb: a home directory, a
// directory holding the paneflow executable and maybe the hook program,
// and the programs "on PATH".
type cmdEnv struct {
	home   string
	exeDir string
	onPath map[string]string // program name → path
}

func newCmdEnv(t *testing.T, withHook, withClaudeDir bool, onPath ...string) *cmdEnv {
	t.Helper()
	e := &cmdEnv{home: t.TempDir(), exeDir: t.TempDir(), onPath: map[string]string{}}
	if withHook {
		if err := exefile.Write(filepath.Join(e.exeDir, HookBinary), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if withClaudeDir {
		os.MkdirAll(filepath.Join(e.home, ".claude"), 0o700)
	}
	for _, p := range onPath {
		e.onPath[p] = "/usr/bin/" + p
	}
	return e
}

func (e *cmdEnv) settings() string { return filepath.Join(e.home, ".claude", "settings.json") }

func (e *cmdEnv) run(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	c := &command{
		stdout: &out, stderr: &errb, goos: "linux",
		getenv: func(k string) string {
			if k == "HOME" {
				return e.home
			}
			return ""
		},
		executable: func() (string, error) { return filepath.Join(e.exeDir, "paneflow"), nil },
		lookPath: func(name string) (string, error) {
			if p, ok := e.onPath[name]; ok {
				return p, nil
			}
			return "", errors.New("not found")
		},
	}
	code = c.run(args)
	return code, out.String(), errb.String()
}

func TestRunCommandUsage(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string // substring
		wantStderr string // substring
	}{
		{"help", []string{"--help"}, exitOK, "usage: paneflow hooks <setup|status|uninstall>", ""},
		{"help after a subcommand", []string{"setup", "-h"}, exitOK, "usage: paneflow hooks", ""},
		{"missing subcommand", nil, exitUsage, "", "paneflow: hooks: missing subcommand\nusage:"},
		{"unknown subcommand", []string{"install"}, exitUsage, "", `unknown subcommand "install"`},
		{"extra argument", []string{"status", "now"}, exitUsage, "", `unexpected argument "now"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newCmdEnv(t, true, true)
			code, stdout, stderr := e.run(tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d", code, tt.wantCode)
			}
			if !strings.Contains(stdout, tt.wantStdout) || (tt.wantStdout == "" && stdout != "") {
				t.Errorf("stdout = %q, want it to contain %q", stdout, tt.wantStdout)
			}
			if !strings.Contains(stderr, tt.wantStderr) || (tt.wantStderr == "" && stderr != "") {
				t.Errorf("stderr = %q, want it to contain %q", stderr, tt.wantStderr)
			}
		})
	}
}

func TestRunCommandLifecycle(t *testing.T) {
	e := newCmdEnv(t, true, false, "claude", "codex")
	hookPath := filepath.Join(e.exeDir, HookBinary)
	otherLines := "codex: per-launch via the Paneflow shim (panes started by Paneflow) (-c hook overrides, trusted for that run only)\n"
	allOthers := otherLines +
		"gemini: per-launch via the Paneflow shim (panes started by Paneflow) (./.gemini/settings.json)\n" +
		"opencode: per-launch via the Paneflow shim (panes started by Paneflow) (plugin in ./.opencode/plugins/)\n" +
		"pi, hermes, grok, amp, cursor-agent, kiro-cli, agy, copilot, codebuddy, droid, qodercli, openclaw: process scan only\n"
	steps := []struct {
		args       []string
		wantStdout string
	}{
		{[]string{"status"}, "claude-code: not installed\n" + allOthers},
		{[]string{"setup"}, "claude-code: hooks installed (" + e.settings() + ")\n" + otherLines},
		{[]string{"setup"}, "claude-code: hooks already current (" + e.settings() + ")\n" + otherLines},
		{[]string{"status"}, "claude-code: installed (" + hookPath + ")\n" + allOthers},
		{[]string{"uninstall"}, "claude-code: hooks removed (" + e.settings() + ")\n"},
		{[]string{"uninstall"}, "claude-code: no Paneflow hooks present\n"},
		{[]string{"status"}, "claude-code: not installed\n" + allOthers},
	}
	for _, s := range steps {
		code, stdout, stderr := e.run(s.args...)
		if code != exitOK || stdout != s.wantStdout || stderr != "" {
			t.Errorf("hooks %s = %d, stdout %q, stderr %q; want 0, %q, no stderr", s.args, code, stdout, stderr, s.wantStdout)
		}
	}
}

func TestRunCommandStale(t *testing.T) {
	e := newCmdEnv(t, true, true)
	old := &Installer{SettingsPath: e.settings(), HookPath: "/old/paneflow-ai-hook", GOOS: "linux"}
	if _, err := old.Setup(); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := e.run("status")
	want := "claude-code: stale (found /old/paneflow-ai-hook, expected " + filepath.Join(e.exeDir, HookBinary) +
		"; not current: UserPromptSubmit, Notification, Stop, PreToolUse, PostToolUse) - run `paneflow hooks setup`\n"
	if code != exitOK || !strings.HasPrefix(stdout, want) {
		t.Errorf("status = %d, %q; want 0, %q", code, stdout, want)
	}
	code, stdout, _ = e.run("setup")
	if code != exitOK || !strings.HasPrefix(stdout, "claude-code: hooks updated (") {
		t.Errorf("setup over stale hooks = %d, %q; want updated", code, stdout)
	}
}

func TestRunCommandFailures(t *testing.T) {
	t.Run("claude not detected", func(t *testing.T) {
		e := newCmdEnv(t, true, false)
		code, stdout, _ := e.run("setup")
		if code != exitOK || stdout != "claude-code: not detected (skipped)\n" {
			t.Errorf("setup = %d, %q; want 0 and skipped", code, stdout)
		}
		if _, err := os.Stat(e.settings()); err == nil {
			t.Errorf("setup wrote %s for an absent Claude Code", e.settings())
		}
		if _, stdout, _ := e.run("status"); !strings.HasPrefix(stdout, "claude-code: not installed (Claude Code not detected)\n") {
			t.Errorf("status = %q", stdout)
		}
	})
	t.Run("hook program missing", func(t *testing.T) {
		e := newCmdEnv(t, false, true)
		code, stdout, stderr := e.run("setup")
		if code != exitFailure || stdout != "" || !strings.Contains(stderr, "claude-code: error: cannot find paneflow-ai-hook next to paneflow") {
			t.Errorf("setup = %d, %q, %q; want 1 and the error", code, stdout, stderr)
		}
		if _, err := os.Stat(e.settings()); err == nil {
			t.Errorf("setup wrote settings without a hook program")
		}
	})
	t.Run("hook program on PATH", func(t *testing.T) {
		e := newCmdEnv(t, false, true, HookBinary)
		code, stdout, _ := e.run("setup")
		if code != exitOK || !strings.HasPrefix(stdout, "claude-code: hooks installed") {
			t.Errorf("setup = %d, %q; want installed", code, stdout)
		}
		if got := readFile(t, e.settings()); !strings.Contains(got, "/usr/bin/paneflow-ai-hook Stop") {
			t.Errorf("settings do not run the hook found on PATH:\n%s", got)
		}
	})
	t.Run("unparseable settings", func(t *testing.T) {
		e := newCmdEnv(t, true, true)
		const broken = "{\"model\": \"opus\",,}\n"
		os.WriteFile(e.settings(), []byte(broken), 0o644)
		for _, sub := range []string{"setup", "status", "uninstall"} {
			code, _, stderr := e.run(sub)
			if code != exitFailure || !strings.HasPrefix(stderr, "claude-code: error: "+e.settings()) {
				t.Errorf("%s = %d, stderr %q; want 1 and an error naming the file", sub, code, stderr)
			}
		}
		if got := readFile(t, e.settings()); got != broken {
			t.Errorf("settings changed to %q", got)
		}
	})
	t.Run("no home", func(t *testing.T) {
		e := newCmdEnv(t, true, true)
		e.home = ""
		if code, _, stderr := e.run("status"); code != exitFailure || !strings.Contains(stderr, "HOME") {
			t.Errorf("status without HOME = %d, %q; want 1", code, stderr)
		}
	})
}

func TestHookPathBesideSymlinkedExecutable(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks")
	}
	e := newCmdEnv(t, true, true)
	linkDir := t.TempDir()
	link := filepath.Join(linkDir, "paneflow")
	if err := os.Symlink(filepath.Join(e.exeDir, "paneflow"), link); err != nil {
		t.Skip(err)
	}
	exefile.Write(filepath.Join(e.exeDir, "paneflow"), []byte("x"), 0o755)
	c := &command{goos: "linux", executable: func() (string, error) { return link, nil },
		lookPath: func(string) (string, error) { return "", errors.New("none") }}
	got, err := c.hookPath()
	want, _ := filepath.EvalSymlinks(filepath.Join(e.exeDir, HookBinary))
	if real, _ := filepath.EvalSymlinks(got); err != nil || real != want {
		t.Errorf("hookPath = %q, %v; want %q", got, err, want)
	}
}
