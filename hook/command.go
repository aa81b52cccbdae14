package hook

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Usage is the help text of `paneflow hooks`.
const Usage = `usage: paneflow hooks <setup|status|uninstall>

Manage Paneflow's persistent hooks for Claude Code, in its user settings
(~/.claude/settings.json, or $CLAUDE_CONFIG_DIR/settings.json). With them,
Claude Code in any Paneflow pane reports thinking, waiting for input and
finished to Paneflow. No running Paneflow is needed.

  setup       add or refresh the hooks; idempotent. A changed file is backed
              up to settings.json.bak first and replaced atomically.
  status      report installed, stale or not installed, and what other
              agents support
  uninstall   remove Paneflow's hooks and nothing else

The hooks run paneflow-ai-hook, found next to the paneflow executable or on
PATH. Our entries are marked "_paneflow_managed": true; your own hooks are
kept as they are. A settings file that is not valid JSON is reported and
left untouched.

Codex, Gemini CLI and opencode have no persistent install: in panes
started by Paneflow, the launch shim gives each run its hooks (Codex:
-c overrides that declare the hooks and trust just them, no file written; Gemini CLI:
./.gemini/settings.json; opencode: a plugin in ./.opencode/plugins/) and
removes them when the agent exits. Without user-scope hooks, Claude Code
gets its hooks from the shim too, on its command line (--settings). Other
agents are found by a scan of the pane's processes only.
`

// Exit codes of RunCommand, the same as the paneflow binary's.
const (
	exitOK      = 0 // done, or --help
	exitFailure = 1 // an agent's config could not be read or written, or the hook program is missing
	exitUsage   = 2 // missing or unknown subcommand
)

// otherAgents are the agents reported after Claude Code, with what they
// support today.
var otherAgents = []struct{ name, binary, line string }{
	{"codex", "codex", shimLine + " (-c hook overrides, trusted for that run only)"},
	{"gemini", "gemini", shimLine + " (./.gemini/settings.json)"},
	{"opencode", "opencode", shimLine + " (plugin in ./.opencode/plugins/)"},
}

// shimLine is what the agents with per-launch hooks support.
const shimLine = "per-launch via the Paneflow shim (panes started by Paneflow)"

// scanOnly lists the agents without hooks, which status reports last.
const scanOnly = "pi, hermes, grok, amp, cursor-agent, kiro-cli, agy, copilot, codebuddy, droid, qodercli, openclaw"

// command is one run of `paneflow hooks`, with what it consults.
type command struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	goos           string
	executable     func() (string, error)       // os.Executable
	lookPath       func(string) (string, error) // exec.LookPath
}

// RunCommand runs `paneflow hooks` with the arguments after "hooks",
// printing results to stdout and problems to stderr, and returns the exit
// code: 0 done (or --help), 1 failure, 2 usage error. getenv supplies HOME
// (USERPROFILE on Windows) and CLAUDE_CONFIG_DIR; programs are looked up on
// the process's PATH.
func RunCommand(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	c := &command{stdout: stdout, stderr: stderr, getenv: getenv, goos: runtime.GOOS,
		executable: os.Executable, lookPath: exec.LookPath}
	return c.run(args)
}

func (c *command) run(args []string) int {
	for _, a := range args {
		if a == "-h" || a == "--help" {
			io.WriteString(c.stdout, Usage)
			return exitOK
		}
	}
	if len(args) == 0 {
		fmt.Fprintf(c.stderr, "paneflow: hooks: missing subcommand\n%s", Usage)
		return exitUsage
	}
	if len(args) > 1 {
		fmt.Fprintf(c.stderr, "paneflow: hooks %s: unexpected argument %q\n%s", args[0], args[1], Usage)
		return exitUsage
	}
	switch args[0] {
	case "setup":
		return c.setup()
	case "status":
		return c.status()
	case "uninstall":
		return c.uninstall()
	}
	fmt.Fprintf(c.stderr, "paneflow: hooks: unknown subcommand %q\n%s", args[0], Usage)
	return exitUsage
}

func (c *command) setup() int {
	in, err := c.installer()
	if err != nil {
		return c.fail(err)
	}
	if !c.claudeDetected(in.SettingsPath) {
		fmt.Fprintln(c.stdout, "claude-code: not detected (skipped)")
	} else {
		if in.HookPath, err = c.hookPath(); err != nil {
			return c.fail(err)
		}
		res, err := in.Setup()
		if err != nil {
			return c.fail(err)
		}
		for _, ev := range res.Skipped {
			fmt.Fprintf(c.stderr, "claude-code: warning: hooks.%s in %s is not an array; left as it is, without a Paneflow hook\n", ev, in.SettingsPath)
		}
		if res.Outcome == AlreadyCurrent {
			fmt.Fprintf(c.stdout, "claude-code: hooks already current (%s)\n", in.SettingsPath)
		} else {
			fmt.Fprintf(c.stdout, "claude-code: hooks %s (%s)\n", res.Outcome, in.SettingsPath)
		}
	}
	c.otherAgents(true)
	return exitOK
}

func (c *command) status() int {
	in, err := c.installer()
	if err != nil {
		return c.fail(err)
	}
	hookPath, hookErr := c.hookPath()
	in.HookPath = hookPath
	res, err := in.Status()
	if err != nil {
		return c.fail(err)
	}
	switch res.State {
	case StateInstalled:
		fmt.Fprintf(c.stdout, "claude-code: installed (%s)\n", hookPath)
	case StateStale:
		expected := hookPath
		if hookErr != nil {
			expected = "no " + HookBinary + " found"
		}
		found := strings.Join(res.Programs, ", ")
		if found == "" {
			found = "incomplete hooks"
		}
		missing := ""
		if len(res.Missing) > 0 {
			missing = "; not current: " + strings.Join(res.Missing, ", ")
		}
		fmt.Fprintf(c.stdout, "claude-code: stale (found %s, expected %s%s) - run `paneflow hooks setup`\n", found, expected, missing)
	default:
		if c.claudeDetected(in.SettingsPath) {
			fmt.Fprintln(c.stdout, "claude-code: not installed")
		} else {
			fmt.Fprintln(c.stdout, "claude-code: not installed (Claude Code not detected)")
		}
	}
	c.otherAgents(false)
	return exitOK
}

func (c *command) uninstall() int {
	in, err := c.installer()
	if err != nil {
		return c.fail(err)
	}
	out, err := in.Uninstall()
	if err != nil {
		return c.fail(err)
	}
	if out == Removed {
		fmt.Fprintf(c.stdout, "claude-code: hooks removed (%s)\n", in.SettingsPath)
	} else {
		fmt.Fprintln(c.stdout, "claude-code: no Paneflow hooks present")
	}
	return exitOK
}

// fail reports err for Claude Code and returns the failure code.
func (c *command) fail(err error) int {
	fmt.Fprintf(c.stderr, "claude-code: error: %v\n", err)
	return exitFailure
}

// otherAgents prints what the other agents support: every one for status,
// only those on PATH for setup, and for status the agents without hooks.
func (c *command) otherAgents(onlyPresent bool) {
	for _, a := range otherAgents {
		if onlyPresent {
			if _, err := c.lookPath(a.binary); err != nil {
				continue
			}
		}
		fmt.Fprintf(c.stdout, "%s: %s\n", a.name, a.line)
	}
	if !onlyPresent {
		fmt.Fprintf(c.stdout, "%s: process scan only\n", scanOnly)
	}
}

// installer returns the installer for the user's Claude settings.
func (c *command) installer() (*Installer, error) {
	dir := c.getenv("CLAUDE_CONFIG_DIR")
	if dir == "" {
		home := c.getenv("HOME")
		if c.goos == "windows" {
			home = c.getenv("USERPROFILE")
		}
		if home == "" {
			return nil, errors.New("cannot find the home directory (HOME is not set)")
		}
		dir = filepath.Join(home, ".claude")
	}
	return &Installer{SettingsPath: filepath.Join(dir, "settings.json"), GOOS: c.goos}, nil
}

// claudeDetected reports whether Claude Code is installed: `claude` on
// PATH, or its settings directory exists.
func (c *command) claudeDetected(settings string) bool {
	if _, err := c.lookPath("claude"); err == nil {
		return true
	}
	fi, err := os.Stat(filepath.Dir(settings))
	return err == nil && fi.IsDir()
}

// hookPath finds paneflow-ai-hook: next to the running executable (or the
// file it links to), else on PATH. The result is absolute.
func (c *command) hookPath() (string, error) {
	name := HookBinary
	if c.goos == "windows" {
		name += ".exe"
	}
	var tried []string
	if exe, err := c.executable(); err == nil {
		dirs := []string{filepath.Dir(exe)}
		if real, err := filepath.EvalSymlinks(exe); err == nil && filepath.Dir(real) != dirs[0] {
			dirs = append(dirs, filepath.Dir(real))
		}
		for _, d := range dirs {
			p := filepath.Join(d, name)
			tried = append(tried, d)
			if isExecutable(p, c.goos) {
				return filepath.Abs(p)
			}
		}
	}
	if p, err := c.lookPath(HookBinary); err == nil {
		return filepath.Abs(p)
	}
	return "", fmt.Errorf("cannot find %s next to paneflow (%s) or on PATH; build it with `make build` and install it beside paneflow",
		name, strings.Join(tried, ", "))
}

// isExecutable reports whether p is a regular file we can run.
func isExecutable(p, goos string) bool {
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	return goos == "windows" || fi.Mode().Perm()&0o111 != 0
}
