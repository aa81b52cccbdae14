package shim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/paneflow-go/paneflow/hook"
	"github.com/paneflow-go/paneflow/ipc"
)

// Agent teams (spec agent-teams.md): when Paneflow launches Claude Code
// and the user enabled agent teams, the shim registers the pane with the
// server (teams.attach) and starts Claude Code with
//
//   - <shim dir>/teams first in PATH, where `tmux` is this shim: Claude
//     Code's tmux calls become teams.tmux requests, and teammates open as
//     Paneflow panes. Only this process tree sees it: a user who types
//     `tmux` in a pane gets the real tmux;
//   - TMUX (the socket path, then ",0,0") and TMUX_PANE (the pane's %N),
//     which make Claude Code believe it runs inside tmux;
//   - CLAUDE_PANE_BACKEND_SOCKET and CLAUDE_PANE_BACKEND_SESSION_ID for
//     the CustomPaneBackend protocol;
//   - teammateMode "tmux" in its --settings, unless the user chose a mode.
//
// Run as `tmux` ([TmuxName]), the shim sends its arguments, TMUX_PANE,
// directory and environment to the server in one teams.tmux request and
// prints what the server answers. When its TMUX does not point at this
// Paneflow's socket it runs the real tmux instead.

// TmuxName is the name the shim answers to as the tmux stand-in, and
// TeamsDir the subdirectory of the shim directory that holds it.
const (
	TmuxName = "tmux"
	TeamsDir = "teams"
)

// EnvAgentTeams is Claude Code's feature gate for agent teams.
const EnvAgentTeams = "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS"

// teamsBudget bounds the attach request: Claude Code starts without
// teams rather than late.
const teamsBudget = 2 * time.Second

// teamsEnabled reports whether the user enabled agent teams: the
// variable in the environment, or in the "env" block of Claude Code's
// user or project settings. mode is the teammateMode the settings set
// ("" when none).
func teamsEnabled(getenv func(string) string, home, dir string) (enabled bool, mode string) {
	enabled = getenv(EnvAgentTeams) == "1"
	cfg := getenv("CLAUDE_CONFIG_DIR")
	if cfg == "" && home != "" {
		cfg = filepath.Join(home, ".claude")
	}
	var files []string
	if cfg != "" {
		files = append(files, filepath.Join(cfg, "settings.json"))
	}
	if dir != "" {
		files = append(files, filepath.Join(dir, ".claude", "settings.json"), filepath.Join(dir, ".claude", "settings.local.json"))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var s struct {
			Env          map[string]any `json:"env"`
			TeammateMode string         `json:"teammateMode"`
		}
		if json.Unmarshal(b, &s) != nil {
			continue
		}
		if v, ok := s.Env[EnvAgentTeams]; ok && fmt.Sprint(v) == "1" {
			enabled = true
		}
		if s.TeammateMode != "" {
			mode = s.TeammateMode
		}
	}
	return enabled, mode
}

// attachInfo is teams.attach's answer.
type attachInfo struct {
	Pane          string `json:"pane"`
	TMUX          string `json:"tmux"`
	ContextID     string `json:"context_id"`
	BackendSocket string `json:"backend_socket"`
}

// claudeTeams prepares a Claude Code launch for agent teams (see above)
// and returns its environment and arguments; when teams are off, or the
// server cannot attach the pane, they come back unchanged (the latter
// with a warning). agentOnly are the variables only the agent gets (the
// http hooks' secret): the server takes them with env as the lead's
// environment, from which its teammates' panes get theirs, so that a
// teammate's http hooks, which Claude Code copies from the lead, carry
// the secret too.
func (p Program) claudeTeams(env, agentOnly, args []string, home, dir string, injected bool) ([]string, []string, []string) {
	enabled, mode := teamsEnabled(p.getenv, home, dir)
	if !enabled || p.getenv("TMUX") != "" {
		// A TMUX already set means Claude Code runs inside a real tmux
		// (started in the pane): its teammates belong in that tmux.
		return env, args, nil
	}
	bin := p.getenv(EnvBinDir)
	teamsDir := filepath.Join(bin, TeamsDir)
	if bin == "" || !isExecFile(filepath.Join(teamsDir, exeName(TmuxName, runtime.GOOS)), runtime.GOOS) {
		return env, args, []string{"agent teams: no " + TmuxName + " in " + teamsDir + "; teammates run in-process"}
	}
	sid, err := strconv.ParseUint(p.getenv(hook.EnvSurfaceID), 10, 64)
	if err != nil {
		return env, args, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), teamsBudget)
	defer cancel()
	var info attachInfo
	err = (&ipc.Client{Path: p.getenv(hook.EnvSocketPath), Timeout: teamsBudget}).Call(ctx, "teams.attach",
		map[string]any{"surface_id": sid, "env": agentEnv(slices.Clone(env), agentOnly)}, &info)
	if err != nil {
		return env, args, []string{"agent teams: the Paneflow server did not register this pane (" + err.Error() + "); teammates run in-process"}
	}
	env = withEnv(env, "PATH", teamsDir+string(os.PathListSeparator)+Program{Environ: env}.getenv("PATH"))
	env = withEnv(env, "TMUX", info.TMUX)
	env = withEnv(env, "TMUX_PANE", info.Pane)
	if info.BackendSocket != "" {
		env = withEnv(env, "CLAUDE_PANE_BACKEND_SOCKET", info.BackendSocket)
		env = withEnv(env, "CLAUDE_PANE_BACKEND_SESSION_ID", info.ContextID)
	}
	return env, withTeammateMode(args, mode, injected), nil
}

// withTeammateMode adds teammateMode "tmux" to Claude Code's arguments:
// into the --settings JSON the shim injected in front, else as a
// --settings of its own. Arguments that choose a mode already, or a
// settings file that does, are left alone, and so is a user's own
// --settings (Claude Code reads one).
func withTeammateMode(args []string, mode string, injected bool) []string {
	if mode != "" || hasArg(args, "--teammate-mode") {
		return args
	}
	for _, a := range args {
		if strings.Contains(a, "teammateMode") {
			return args
		}
	}
	if injected && len(args) >= 2 && args[0] == "--settings" && strings.HasPrefix(args[1], "{") {
		out := append([]string(nil), args...)
		out[1] = `{"teammateMode":"tmux",` + strings.TrimPrefix(args[1], "{")
		return out
	}
	if hasArg(args, "--settings") || (len(args) > 0 && isClaudeSubcommand(args[0])) {
		return args
	}
	return append([]string{"--settings", `{"teammateMode":"tmux"}`}, args...)
}

func isClaudeSubcommand(a string) bool {
	for _, s := range claudeSubcommands {
		if s == a {
			return true
		}
	}
	return false
}

// isTmux reports whether the shim was run under the tmux name.
func isTmux(arg0 string) bool {
	base := arg0
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	return strings.TrimSuffix(strings.ToLower(base), ".exe") == TmuxName
}

// runTmux is the shim run as `tmux`.
func (p Program) runTmux() int {
	sock := p.getenv(hook.EnvSocketPath)
	tmux := p.getenv("TMUX")
	first, _, _ := strings.Cut(tmux, ",")
	if sock == "" || first != strings.ReplaceAll(sock, ",", "_") {
		return p.realTmux()
	}
	dir := p.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	params := map[string]any{"argv": p.Args[1:], "cwd": dir, "env": p.Environ}
	if v := p.getenv("TMUX_PANE"); v != "" {
		params["pane"] = v
	}
	if id, err := strconv.ParseUint(p.getenv(hook.EnvSurfaceID), 10, 64); err == nil {
		params["surface_id"] = id
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := CallTmux(ctx, sock, params)
	if err != nil {
		fmt.Fprintf(p.Stderr, "tmux (Paneflow): %v\n", err)
		return 1
	}
	fmt.Fprint(p.Stdout, res.Stdout)
	fmt.Fprint(p.Stderr, res.Stderr)
	return res.Code
}

// TmuxResult is teams.tmux's answer.
type TmuxResult struct {
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	Code   int    `json:"exit_code"`
}

// CallTmux sends one teams.tmux request to the server at sock. A server
// that answers busy (all its connections in use: Claude Code and several
// leads spawning at once) is asked again after a pause, until ctx ends.
func CallTmux(ctx context.Context, sock string, params map[string]any) (TmuxResult, error) {
	var res TmuxResult
	pause := 5 * time.Millisecond
	for {
		err := (&ipc.Client{Path: sock}).Call(ctx, "teams.tmux", params, &res)
		var je *ipc.Error
		if err == nil || !errors.As(err, &je) || je.Code != ipc.CodeBusy {
			return res, err
		}
		select {
		case <-ctx.Done():
			return res, err
		case <-time.After(pause):
		}
		pause = min(pause*2, 200*time.Millisecond)
	}
}

// realTmux runs the first tmux on PATH that is not a Paneflow shim.
func (p Program) realTmux() int {
	skip := []string{filepath.Join(p.getenv(EnvBinDir), TeamsDir)}
	if p.Executable != "" {
		skip = append(skip, filepath.Dir(p.Executable))
		if real, err := filepath.EvalSymlinks(p.Executable); err == nil {
			skip = append(skip, filepath.Dir(real))
		}
	}
	if strings.ContainsAny(p.Args[0], `/\`) {
		skip = append(skip, filepath.Dir(p.Args[0]))
	}
	real, err := Finder{Path: p.getenv("PATH"), Skip: skip, Self: p.Executable}.Find(TmuxName)
	if err != nil {
		fmt.Fprintf(p.Stderr, "tmux: command not found (Paneflow's tmux stands in only for Claude Code agent teams)\n")
		return ExitNotFound
	}
	if runtime.GOOS != "windows" {
		return p.execReal(real)
	}
	cmd := exec.Command(real, p.Args[1:]...)
	cmd.Env, cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr = p.Environ, p.Dir, p.Stdin, p.Stdout, p.Stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		fmt.Fprintf(p.Stderr, "tmux: %v\n", err)
		return ExitCannot
	}
	return 0
}
