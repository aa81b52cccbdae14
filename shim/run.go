package shim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/paneflow-go/paneflow/hook"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// Exit codes of the shim itself; otherwise it exits with the agent's code.
const (
	ExitUsage    = 2   // run under a name that is not one of Tools
	ExitCannot   = 126 // the real binary was found but could not be started
	ExitNotFound = 127 // no real binary on PATH
)

// Environment variables the shim reads besides the pane's (PANEFLOW_*
// of package hook).
const (
	// EnvBinDir is the shim directory; Paneflow sets it in every pane, and
	// the shim never looks for real binaries there.
	EnvBinDir = "PANEFLOW_BIN_DIR"
	// EnvStateDir overrides where the reference counts of injected files
	// live (default <user cache dir>/paneflow/launch).
	EnvStateDir = "PANEFLOW_SHIM_STATE_DIR"
)

// Frame budgets: one attempt, and all attempts of one frame.
const (
	frameAttempt = 500 * time.Millisecond
	frameBudget  = time.Second
	// maxStops bounds the ai.stop frames in flight after Ctrl-C; more
	// Ctrl-Cs meanwhile send nothing.
	maxStops = 8
)

// Program is one run of the shim. [Main] fills it from the process;
// tests fill it themselves.
type Program struct {
	// Args is the command line, Args[0] naming the tool.
	Args []string
	// Environ is the environment, "K=V" strings.
	Environ []string
	// Executable is the shim's own file ("" unknown).
	Executable string
	// Stdin, Stdout and Stderr are passed to the agent; Stderr also
	// gets the shim's own messages.
	Stdin, Stdout, Stderr *os.File
	// Dir is the working directory ("" means the process's).
	Dir string
}

// Main runs the shim for this process and returns its exit code.
func Main() int {
	exe, _ := os.Executable()
	return Program{
		Args: os.Args, Environ: os.Environ(), Executable: exe,
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
	}.Run()
}

// getenv looks name up in p.Environ (the last value wins).
func (p Program) getenv(name string) string {
	v := ""
	for _, kv := range p.Environ {
		if k, val, ok := strings.Cut(kv, "="); ok && envEqual(k, name) {
			v = val
		}
	}
	return v
}

func envEqual(a, b string) bool {
	if runtime.GOOS == "windows" {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// withEnv returns env with name set to value (earlier values removed).
func withEnv(env []string, name, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if k, _, ok := strings.Cut(kv, "="); ok && envEqual(k, name) {
			continue
		}
		out = append(out, kv)
	}
	return append(out, name+"="+value)
}

// Run runs the shim (see the package doc) and returns its exit code.
func (p Program) Run() int {
	if len(p.Args) == 0 {
		fmt.Fprintln(p.Stderr, "paneflow-shim: no arguments")
		return ExitUsage
	}
	if isTmux(p.Args[0]) {
		return p.runTmux()
	}
	tool, ok := ToolOf(p.Args[0])
	if !ok && p.Executable != "" {
		tool, ok = ToolOf(p.Executable)
	}
	if !ok {
		fmt.Fprintf(p.Stderr, "paneflow-shim: run as %q, which is not an agent this shim stands in for (%s);\n"+
			"Paneflow runs it under those names from the directory at the front of each pane's PATH\n",
			filepath.Base(p.Args[0]), strings.Join(Tools, ", "))
		return ExitUsage
	}
	skip := []string{p.getenv(EnvBinDir)}
	if p.Executable != "" {
		skip = append(skip, filepath.Dir(p.Executable))
		if real, err := filepath.EvalSymlinks(p.Executable); err == nil {
			skip = append(skip, filepath.Dir(real))
		}
	}
	if strings.ContainsAny(p.Args[0], `/\`) {
		skip = append(skip, filepath.Dir(p.Args[0]))
	}
	real, err := Finder{Path: p.getenv("PATH"), Skip: skip, Self: p.Executable}.Find(tool)
	if err != nil {
		fmt.Fprintf(p.Stderr, "paneflow-shim: %s: command not found (PATH has no %s outside Paneflow's shim directory)\n", tool, tool)
		return ExitNotFound
	}
	if !p.inPane() {
		return p.execReal(real)
	}
	return p.supervise(tool, real)
}

// inPane reports whether the shim runs in a live Paneflow pane: it has a
// surface id and a socket path, and (on Unix) the socket exists.
func (p Program) inPane() bool {
	sock := p.getenv(hook.EnvSocketPath)
	if p.getenv(hook.EnvSurfaceID) == "" || sock == "" {
		return false
	}
	if runtime.GOOS == "windows" {
		return true
	}
	_, err := os.Stat(sock)
	return err == nil
}

// supervise runs the agent as a child with its hooks in place.
func (p Program) supervise(tool, real string) int {
	pid := os.Getpid()
	env := withEnv(p.Environ, hook.EnvTool, tool)
	env = withEnv(env, hook.EnvPID, strconv.Itoa(pid))
	dir := p.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	hookPath := filepath.Join(p.getenv(EnvBinDir), exeName(HookBinary, runtime.GOOS))
	if p.getenv(EnvBinDir) == "" || !isExecFile(hookPath, runtime.GOOS) {
		if p.Executable != "" {
			hookPath = filepath.Join(filepath.Dir(p.Executable), exeName(HookBinary, runtime.GOOS))
		}
	}
	home, _ := os.UserHomeDir()
	if h := p.getenv("HOME"); h != "" {
		home = h
	}
	stateDir := p.getenv(EnvStateDir)
	if stateDir == "" {
		if d, err := DefaultDir(p.getenv, runtime.GOOS, ""); err == nil {
			stateDir = filepath.Join(filepath.Dir(filepath.Dir(d)), "launch")
		}
	}
	inj := &Injection{Args: p.Args[1:]}
	if isExecFile(hookPath, runtime.GOOS) {
		l := Launch{
			Tool: tool, Args: p.Args[1:], Dir: dir, HookPath: hookPath, Home: home,
			Getenv: p.getenv, StateDir: stateDir, PID: pid,
		}
		if tool == "claude" || tool == "opencode" {
			l.HookURL, l.HookToken = hookEndpoint(p.getenv(hook.EnvSocketPath))
		}
		inj = Inject(l)
	} else {
		inj.Warnings = append(inj.Warnings, "no "+HookBinary+" next to the shim; the agent runs without Paneflow hooks")
	}
	for _, w := range inj.Warnings {
		fmt.Fprintf(p.Stderr, "paneflow-shim: %s\n", w)
	}
	defer func() {
		for _, w := range inj.Cleanup() {
			fmt.Fprintf(p.Stderr, "paneflow-shim: %s\n", w)
		}
	}()
	if tool == "claude" {
		var warns []string
		env, inj.Args, warns = p.claudeTeams(env, inj.Env, inj.Args, home, dir, inj.Hooked && len(inj.Args) > len(p.Args)-1)
		for _, w := range warns {
			fmt.Fprintf(p.Stderr, "paneflow-shim: %s\n", w)
		}
	}
	fr := &framer{env: env, socket: p.getenv(hook.EnvSocketPath)}
	if inj.Hooked {
		fr.send("SessionStart")
	} else if inj.Reason != "" {
		// The conductor shows the agent as running without hooks, and why.
		fr.sendWith("SessionStart", nil, map[string]any{"hooked": false, "reason": inj.Reason})
	}

	cmd := &exec.Cmd{
		Path: real, Args: append([]string{p.Args[0]}, inj.Args...), Env: agentEnv(env, inj.Env), Dir: p.Dir,
		Stdin: p.Stdin, Stdout: p.Stdout, Stderr: p.Stderr,
	}
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, caughtSignals...)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(p.Stderr, "paneflow-shim: %s: %v\n", real, err)
		return ExitCannot
	}
	done := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(done)
	}()
	var stops sync.WaitGroup
	slots := make(chan struct{}, maxStops)
loop:
	for {
		select {
		case <-done:
			break loop
		case sig := <-sigs:
			if isInterrupt(sig) {
				if !inj.Hooked {
					continue
				}
				select {
				case slots <- struct{}{}:
					stops.Add(1)
					go func() {
						defer stops.Done()
						defer func() { <-slots }()
						fr.send("Stop")
					}()
				default: // enough Stops on their way
				}
				continue
			}
			forward(cmd.Process, sig)
		}
	}
	stops.Wait()
	raw := exitStatus(cmd.ProcessState, waitErr)
	fr.sendExit(raw)
	fr.send("SessionEnd")
	if raw < 0 || raw > 255 {
		return 1
	}
	return raw
}

// framer sends the shim's own ai.* frames, built by hook.Map from the
// agent's environment.
type framer struct {
	env    []string
	socket string
}

func (f *framer) getenv(extra map[string]string) func(string) string {
	return func(name string) string {
		if v, ok := extra[name]; ok {
			return v
		}
		return Program{Environ: f.env}.getenv(name)
	}
}

// send sends the frame of event (with an empty payload).
func (f *framer) send(event string) { f.sendWith(event, nil, nil) }

// sendExit sends ai.exit with code.
func (f *framer) sendExit(code int) {
	f.sendWith("Exit", map[string]string{hook.EnvExitCode: strconv.Itoa(code)}, nil)
}

// sendWith sends the frame of event with extra environment for the
// mapping and params added to the frame's own.
func (f *framer) sendWith(event string, extra map[string]string, params map[string]any) {
	var stdin []byte
	if hook.ReadsStdin(event, nil) {
		stdin = []byte("{}")
	}
	method, mapped, ok := hook.Map(event, nil, stdin, f.getenv(extra))
	if !ok {
		return
	}
	for k, v := range params {
		mapped[k] = v
	}
	deliver(f.socket, method, mapped)
}

// hookEndpoint asks the server for its http-hook endpoint (opening it),
// within frameAttempt; an older server, or none, gives "", "" and Claude
// Code gets command hooks (opencode's plugin runs the hook program).
func hookEndpoint(socket string) (url, token string) {
	if socket == "" {
		return "", ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), frameAttempt)
	defer cancel()
	var r proto.HooksEndpointResult
	if err := (&ipc.Client{Path: socket, Timeout: frameAttempt}).Call(ctx, proto.MethodHooksEndpoint, nil, &r); err != nil {
		return "", ""
	}
	if !strings.HasPrefix(r.URL, "http://127.0.0.1:") || r.Token == "" {
		return "", ""
	}
	return r.URL, r.Token
}

// deliver sends one request, retrying while the server is busy, within
// frameBudget. Failures are dropped: the agent must run whatever happens
// to Paneflow.
func deliver(socket, method string, params map[string]any) {
	deadline := time.Now().Add(frameBudget)
	for pause := 100 * time.Millisecond; ; pause *= 3 {
		timeout := min(frameAttempt, time.Until(deadline))
		if timeout <= 0 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		err := (&ipc.Client{Path: socket, Timeout: timeout}).Call(ctx, method, params, nil)
		cancel()
		var je *ipc.Error
		if err == nil || !errors.As(err, &je) || je.Code != ipc.CodeBusy || time.Until(deadline) < pause {
			return
		}
		time.Sleep(pause)
	}
}

// agentEnv is env with the "NAME=value" settings of extra applied.
func agentEnv(env, extra []string) []string {
	for _, kv := range extra {
		if name, value, ok := strings.Cut(kv, "="); ok {
			env = withEnv(env, name, value)
		}
	}
	return env
}
