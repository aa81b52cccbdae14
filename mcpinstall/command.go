package mcpinstall

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
)

// Usage is the help text of `paneflow mcp`.
const Usage = `usage: paneflow mcp <install [--orchestrate]|status|uninstall>

Registers Paneflow's MCP bridge (paneflow-mcp) with the agent CLIs found on
this machine, as an MCP server named "paneflow": Claude Code (~/.claude.json),
Codex (~/.codex/config.toml), Gemini CLI (~/.gemini/settings.json) and
opencode ($XDG_CONFIG_HOME/opencode/opencode.json or .jsonc). Agents then get
Paneflow's panes as tools (list_panes, read_pane, search_pane, agent_status,
list_agents, wait_for) and resources (pane://<name>/content).

  install    copy the bridge to its stable path and add or refresh the entries;
             --orchestrate also offers the tools that drive other panes
             (spawn_agent, send_to_agent, read_from_agent, wait_for_idle,
             kill_agent), which appear only while Paneflow itself runs with
             PANEFLOW_IPC_SCRIPTING=1
  status     show each agent's entry, and whether it has orchestration on
  uninstall  remove the entries (a file install changed and nothing else did
             gets its backup's bytes back)

Only our entry changes; a changed file is first copied to <file>.bak and
replaced atomically; a file that cannot be parsed, or is read-only, is left
untouched. Exit status: 0 done or nothing to do, 1 an agent's file could not
be changed (or the bridge is missing), 2 usage.
`

// Env is what the command reads from its process.
type Env struct {
	Getenv func(string) string
	GOOS   string
	Exe    string // the running paneflow, to find paneflow-mcp next to it
	// Install says, in status's advice, how the user runs install; ""
	// means "run `paneflow mcp install`" (the desktop app names its own
	// button instead).
	Install string
}

// RunCommand runs `paneflow mcp <args>` and returns the exit status.
func RunCommand(args []string, stdout, stderr io.Writer, env Env) int {
	if env.GOOS == "" {
		env.GOOS = runtime.GOOS
	}
	if env.Exe == "" {
		env.Exe, _ = os.Executable()
	}
	if len(args) == 0 {
		fmt.Fprintf(stderr, "paneflow: mcp: missing subcommand\n%s", Usage)
		return 2
	}
	switch args[0] {
	case "-h", "--help", "help":
		io.WriteString(stdout, Usage)
		return 0
	case "install", "status", "uninstall":
	default:
		fmt.Fprintf(stderr, "paneflow: mcp: unknown subcommand %q\n%s", args[0], Usage)
		return 2
	}
	var entryArgs []string
	for _, a := range args[1:] {
		if a == "--orchestrate" && args[0] == "install" && entryArgs == nil {
			entryArgs = []string{"--orchestrate"}
			continue
		}
		fmt.Fprintf(stderr, "paneflow: mcp %s: unexpected argument %q\n%s", args[0], a, Usage)
		return 2
	}
	home := env.Getenv("HOME")
	if env.GOOS == "windows" && home == "" {
		home = env.Getenv("USERPROFILE")
	}
	if home == "" {
		fmt.Fprintln(stderr, "paneflow: mcp: $HOME is not set")
		return 1
	}
	configDir := env.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(configDir) {
		configDir = filepath.Join(home, ".config")
	}
	bridge, err := BridgePath(env.Getenv, env.GOOS)
	if err != nil {
		fmt.Fprintf(stderr, "paneflow: mcp: cannot place the bridge: %v\n", err)
		return 1
	}
	agents := Agents(home, configDir)
	lookPath := func(name string) (string, error) { return lookPathIn(env.Getenv("PATH"), name, env.GOOS) }
	failed := false
	report := func(a *Agent, msg string) { fmt.Fprintf(stdout, "%-12s %s: %s\n", a.Name, a.Path, msg) }
	fail := func(a *Agent, err error) {
		failed = true
		fmt.Fprintf(stderr, "paneflow: mcp %s: %s: %v\n", args[0], a.Name, err)
	}

	switch args[0] {
	case "install":
		var present []*Agent
		for _, a := range agents {
			if a.Present(lookPath) {
				present = append(present, a)
			} else {
				report(a, string(Skipped))
			}
		}
		if len(present) == 0 {
			fmt.Fprintln(stdout, "no agent CLI detected; nothing to do")
			return 0
		}
		if src := FindBridge(env.Exe, env.Getenv, env.GOOS); src != "" && src != bridge {
			if wrote, err := EnsureBridge(src, bridge); err != nil {
				fmt.Fprintf(stderr, "paneflow: mcp install: %v. Nothing was written.\n", err)
				return 1
			} else if wrote {
				fmt.Fprintf(stdout, "bridge       %s: installed from %s\n", bridge, src)
			}
		}
		if _, err := os.Stat(bridge); err != nil {
			fmt.Fprintf(stderr, "paneflow: mcp install: MCP bridge binary is missing at %s - install paneflow-mcp next to paneflow (or set $PANEFLOW_MCP_BIN), then retry. Nothing was written.\n", bridge)
			return 1
		}
		for _, a := range present {
			o, err := a.Install(bridge, entryArgs)
			if err != nil {
				fail(a, err)
				continue
			}
			report(a, string(o))
		}
	case "status":
		for _, a := range agents {
			if !a.Present(lookPath) {
				report(a, "not detected")
				continue
			}
			st, err := a.Status(bridge)
			switch {
			case err != nil:
				fail(a, err)
			case !st.Installed:
				report(a, "detected but not installed")
			case st.Current:
				report(a, "installed ("+st.Command+")"+orchestration(st))
			default:
				report(a, fmt.Sprintf("stale path (config points at %s, expected %s)", st.Command, bridge)+orchestration(st))
			}
		}
		if _, err := os.Stat(bridge); err != nil {
			how := env.Install
			if how == "" {
				how = "run `paneflow mcp install`"
			}
			fmt.Fprintf(stdout, "bridge       %s: missing (%s)\n", bridge, how)
		}
	case "uninstall":
		for _, a := range agents {
			if !a.Present(lookPath) {
				report(a, "not detected")
				continue
			}
			o, err := a.Uninstall()
			if err != nil {
				fail(a, err)
				continue
			}
			report(a, string(o))
		}
	}
	if failed {
		return 1
	}
	return 0
}

// orchestration is status's note on whether an entry offers the
// orchestration tools.
func orchestration(st State) string {
	if st.Orchestrate {
		return "; orchestration on (--orchestrate)"
	}
	return "; orchestration off"
}

// lookPathIn finds an executable called name in the directories of path.
func lookPathIn(path, name, goos string) (string, error) {
	names := []string{name}
	if goos == "windows" {
		names = []string{name + ".exe", name + ".cmd", name + ".bat"}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		for _, n := range names {
			p := filepath.Join(dir, n)
			fi, err := os.Stat(p)
			if err == nil && fi.Mode().IsRegular() && (goos == "windows" || fi.Mode().Perm()&0o111 != 0) {
				return p, nil
			}
		}
	}
	return "", errors.New(name + " not found on PATH")
}
