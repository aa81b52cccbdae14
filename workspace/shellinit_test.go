//go:build !windows

package workspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/internal/exefile"
)

func TestShellKind(t *testing.T) {
	tests := []struct {
		argv  []string
		kind  string
		login bool
		ok    bool
	}{
		{[]string{"/bin/bash", "-l"}, "bash", true, true},
		{[]string{"/usr/bin/zsh"}, "zsh", false, true},
		{[]string{"fish", "--login"}, "fish", true, true},
		{[]string{"-bash"}, "bash", false, true},
		{[]string{"/bin/bash", "--norc"}, "", false, false},
		{[]string{"/bin/bash", "-l", "-x"}, "", false, false},
		{[]string{"/bin/sh", "-l"}, "", false, false},
		{[]string{"/bin/dash"}, "", false, false},
		{nil, "", false, false},
	}
	for _, tt := range tests {
		kind, login, ok := shellKind(tt.argv)
		if kind != tt.kind || login != tt.login || ok != tt.ok {
			t.Errorf("shellKind(%q) = %q, %v, %v; want %q, %v, %v", tt.argv, kind, login, ok, tt.kind, tt.login, tt.ok)
		}
	}
}

func envValue(env []string, k string) (string, bool) {
	for _, kv := range env {
		if name, v, ok := strings.Cut(kv, "="); ok && name == k {
			return v, true
		}
	}
	return "", false
}

func TestIntegrateShell(t *testing.T) {
	base := filepath.Join(t.TempDir(), "cache")
	env := []string{"PATH=/shim:/usr/bin", "ZDOTDIR=/home/u/.config/zsh", EnvBinDir + "=/shim", envBashLogin + "=stale"}

	argv, got := integrateShell([]string{"/bin/bash", "-l"}, env, base)
	dir, err := shellInitDir(base)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"/bin/bash", "--rcfile", filepath.Join(dir, "bashrc.bash"), "-i"}; !slices.Equal(argv, want) {
		t.Errorf("bash -l argv = %q; want %q", argv, want)
	}
	if v, _ := envValue(got, envBashLogin); v != "1" {
		t.Errorf("bash -l: %s = %q; want 1", envBashLogin, v)
	}
	_, got = integrateShell([]string{"/bin/bash"}, env, base)
	if v, ok := envValue(got, envBashLogin); ok {
		t.Errorf("bash: %s = %q; want it unset", envBashLogin, v)
	}

	argv, got = integrateShell([]string{"/bin/zsh", "-l"}, env, base)
	if !slices.Equal(argv, []string{"/bin/zsh", "-l"}) {
		t.Errorf("zsh argv = %q; want it unchanged", argv)
	}
	if v, _ := envValue(got, "ZDOTDIR"); v != dir {
		t.Errorf("zsh ZDOTDIR = %q; want %q", v, dir)
	}
	if v, _ := envValue(got, EnvUserZdotdir); v != "/home/u/.config/zsh" {
		t.Errorf("zsh %s = %q; want the user's ZDOTDIR", EnvUserZdotdir, v)
	}
	_, got = integrateShell([]string{"zsh"}, []string{"PATH=/usr/bin", EnvUserZdotdir + "=/stale"}, base)
	if v, ok := envValue(got, EnvUserZdotdir); ok {
		t.Errorf("zsh without ZDOTDIR: %s = %q; want it unset", EnvUserZdotdir, v)
	}

	argv, _ = integrateShell([]string{"/usr/bin/fish", "-l"}, env, base)
	if want := []string{"/usr/bin/fish", "-l", "--init-command", "source '" + filepath.Join(dir, "init.fish") + "'"}; !slices.Equal(argv, want) {
		t.Errorf("fish argv = %q; want %q", argv, want)
	}

	for _, sh := range [][]string{{"/bin/sh", "-l"}, {"/bin/bash", "-c", "x"}, {"ksh"}} {
		argv, got := integrateShell(sh, env, base)
		if !slices.Equal(argv, sh) || !slices.Equal(got, env) {
			t.Errorf("integrateShell(%q) = %q, %q; want both unchanged", sh, argv, got)
		}
	}

	// The scripts are on disk, private, and equal to the embedded ones.
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("script directory %s: %v, %v; want mode 0700", dir, fi, err)
	}
	for src, name := range shellInitFiles {
		want, _ := shellInitFS.ReadFile(src)
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != string(want) {
			t.Errorf("%s: %v; content differs from %s", name, err, src)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != len(shellInitFiles) {
		t.Errorf("script directory holds %d entries; want %d (no temporary files left)", len(ents), len(shellInitFiles))
	}
}

func TestIntegrateShellRefusesSharedDir(t *testing.T) {
	base := t.TempDir()
	if err := os.Chmod(base, 0o777); err != nil {
		t.Fatal(err)
	}
	// Pre-create the hashed directory world-writable, as an attacker on a
	// shared cache would.
	d, err := writeShellInit(base)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, 0o777); err != nil {
		t.Fatal(err)
	}
	argv, _ := integrateShell([]string{"/bin/bash", "-l"}, nil, base)
	if !slices.Equal(argv, []string{"/bin/bash", "-l"}) {
		t.Errorf("argv = %q with a world-writable script directory; want the shell unchanged", argv)
	}
}

// shellCase is a real pane running one shell with integration.
type shellCase struct {
	t         *testing.T
	home      string
	shim      string
	shellPath string // the shell's path, as $SHELL gave it
	s         *Surface
}

// startShellPane starts a pane running shell as $SHELL -l, with HOME a
// temporary directory that files populates and a launch shim directory
// holding a "codex" that prints SHIMMED.
func startShellPane(t *testing.T, shell string, files map[string]string) *shellCase {
	t.Helper()
	path, err := exec.LookPath(shell)
	if err != nil {
		t.Skipf("%s is not installed", shell)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	home, shim := t.TempDir(), t.TempDir()
	for name, body := range files {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := exefile.Write(filepath.Join(shim, "codex"), []byte("#!/bin/sh\necho SHIM''MED\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		switch k {
		case "SHELL":
			return path
		case "HOME":
			return home
		}
		return ""
	}
	m := NewManager(Options{
		Getenv:  getenv,
		ShimDir: func() string { return shim },
		Env:     []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local/share")},
	})
	t.Cleanup(m.Close)
	ws, err := m.CreateWorkspace("sh", home, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	var id uint64
	for _, in := range m.Surfaces() {
		if in.WorkspaceID == ws.ID {
			id = in.ID
		}
	}
	s, ok := m.Surface(id)
	if !ok {
		t.Fatal("no pane")
	}
	return &shellCase{t: t, home: home, shim: shim, shellPath: path, s: s}
}

// run types a command line and waits for want in the pane.
func (c *shellCase) run(line, want string) {
	c.t.Helper()
	if err := c.s.Terminal().SendInput([]byte(line + "\r")); err != nil {
		c.t.Fatal(err)
	}
	waitText(c.t, c.s, want)
}

// waitCwd waits until the pane reported dir with OSC 7.
func (c *shellCase) waitCwd(dir string) {
	c.t.Helper()
	emu := c.s.Terminal().Emulator()
	deadline := time.After(testDeadline)
	for {
		_, ch := emu.Watch()
		if emu.Cwd() == dir {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			c.t.Fatalf("pane cwd = %q; want %q", emu.Cwd(), dir)
		}
	}
}

// check runs the checks every shell shares: the shim wins over a PATH
// reset by the profile, PATH starts with the shim directory, and cd is
// reported with OSC 7 (a space and a percent sign included).
func (c *shellCase) check() {
	c.t.Helper()
	c.waitCwd(c.home)
	c.run("codex", "SHIMMED")
	c.run(`echo "P=$PATH"`, "P="+c.shim+":")
	c.run("cd /tmp", "")
	c.waitCwd("/tmp")
	odd := filepath.Join(c.home, "a b%c")
	if err := os.Mkdir(odd, 0o755); err != nil {
		c.t.Fatal(err)
	}
	c.run(`cd "`+odd+`"`, "")
	c.waitCwd(odd)
}

// checkKeysReset: kitty keyboard flags a command left on (a program
// killed before it popped them) are popped before the next prompt, so the
// shell gets legacy keys (a plain Ctrl+C) again.
func (c *shellCase) checkKeysReset() {
	c.t.Helper()
	emu := c.s.Terminal().Emulator()
	c.run(`printf '\033[>1u'; echo KIT''TY`, "KITTY")
	c.run(`echo AF''TER`, "AFTER")
	if got := emu.Modes().KittyKeys; got != 0 {
		c.t.Errorf("kitty keyboard flags at the next prompt = %d, want 0", got)
	}
}

func TestBashIntegrationProfileResetsPath(t *testing.T) {
	c := startShellPane(t, "bash", map[string]string{
		".profile": "PATH=/usr/bin:/bin\nexport PATH\n",
	})
	c.check()
}

func TestBashIntegrationKeepsUserRc(t *testing.T) {
	c := startShellPane(t, "bash", map[string]string{
		".bash_profile": "PATH=/usr/bin:/bin\n. \"$HOME/.bashrc\"\n",
		".bashrc":       "alias pfalias='echo ALIAS$((40+2))'\nPROMPT_COMMAND='pfcount=$((pfcount+1))'\n",
	})
	c.check()
	// The idle shell is shown as configured, not with the --rcfile words.
	if argv, ok := c.s.ForegroundArgv(); !ok || strings.Join(argv, " ") != c.shellPath+" -l" {
		t.Errorf("ForegroundArgv = %q, %v; want the configured %q", argv, ok, c.shellPath+" -l")
	}
	c.run("pfalias", "ALIAS42")
	c.checkKeysReset()
	c.run("echo C${pfcount:+ok}$?", "Cok0")
	// A command dropping the shim directory is undone at the next prompt.
	c.run(`PATH=/usr/bin:/bin`, "")
	c.run(`echo "Q=$PATH"`, "Q="+c.shim+":/usr/bin:/bin")
	// The exit status survives the prompt hook.
	c.run("false", "")
	c.run(`echo "S=$?"`, "S=1")
}

func TestZshIntegration(t *testing.T) {
	c := startShellPane(t, "zsh", map[string]string{
		".zprofile": "PATH=/usr/bin:/bin\n",
		".zshrc":    "alias pfalias='echo ALIAS$((40+2))'\n",
	})
	c.check()
	c.run("pfalias", "ALIAS42")
	c.run(`echo "Z=${ZDOTDIR-unset}${PANEFLOW_USER_ZDOTDIR-none}"`, "Z=unsetnone")
	c.checkKeysReset()
}

func TestFishIntegration(t *testing.T) {
	c := startShellPane(t, "fish", map[string]string{
		".config/fish/config.fish": "set -gx PATH /usr/bin /bin\nfunction pfalias; echo ALIAS(math 40+2); end\n",
	})
	c.check()
	c.run("pfalias", "ALIAS42")
}
