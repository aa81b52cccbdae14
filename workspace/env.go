package workspace

import (
	"maps"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// Environment variables Paneflow sets in every pane (spec ipc.md §15).
const (
	EnvSocketPath  = "PANEFLOW_SOCKET_PATH"
	EnvSurfaceID   = "PANEFLOW_SURFACE_ID"
	EnvWorkspace   = "PANEFLOW_WORKSPACE"
	EnvWorkspaceID = "PANEFLOW_WORKSPACE_ID"
)

// protectedEnv are the keys user-supplied environment cannot override.
var protectedEnv = []string{"TERM", "COLORTERM", EnvWorkspaceID, EnvWorkspace, EnvSurfaceID, EnvSocketPath, "PANEFLOW_BIN_DIR"}

// paneEnv builds a pane's full environment: this process's environment,
// then Paneflow's variables, then global (K=V strings) and per-pane user
// values, which win except for protected keys. User names that are empty,
// contain "=" or NUL, or start with LD_ or DYLD_ are dropped. On Windows
// names compare case-insensitively.
func paneEnv(base []string, global []string, pane map[string]string, fixed map[string]string) []string {
	env := newEnvList(base)
	if _, ok := fixed[EnvSocketPath]; !ok {
		env.unset(EnvSocketPath) // a nested Paneflow must not point at its parent
	}
	env.unset("PANEFLOW_CONTEXT_FILE")
	// A pane is not inside the tmux Paneflow may have been started from:
	// its programs must not talk to that tmux (the agent launch shim sets
	// them for Claude Code agent teams; a teammate gets them per pane).
	env.unset("TMUX")
	env.unset("TMUX_PANE")
	for _, k := range slices.Sorted(maps.Keys(fixed)) {
		env.set(k, fixed[k])
	}
	for _, kv := range global {
		k, v, ok := strings.Cut(kv, "=")
		if ok && userEnvAllowed(k) {
			env.set(k, v)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(pane)) {
		if userEnvAllowed(k) {
			env.set(k, pane[k])
		}
	}
	return env.list()
}

// envName normalizes a name for comparison.
func envName(k string) string {
	if runtime.GOOS == "windows" {
		return strings.ToUpper(k)
	}
	return k
}

// userEnvAllowed reports whether a user-supplied variable may be set.
func userEnvAllowed(k string) bool {
	if k == "" || strings.ContainsAny(k, "=\x00") {
		return false
	}
	n := envName(k)
	if strings.HasPrefix(n, "LD_") || strings.HasPrefix(n, "DYLD_") {
		return false
	}
	return !slices.Contains(protectedEnv, n)
}

// envList is an ordered environment with unique names.
type envList struct {
	kv  []string
	pos map[string]int
}

func newEnvList(base []string) *envList {
	e := &envList{pos: map[string]int{}}
	for _, kv := range base {
		k, v, ok := strings.Cut(kv, "=")
		if ok && k != "" {
			e.set(k, v)
		}
	}
	return e
}

func (e *envList) set(k, v string) {
	n := envName(k)
	if i, ok := e.pos[n]; ok {
		e.kv[i] = k + "=" + v
		return
	}
	e.pos[n] = len(e.kv)
	e.kv = append(e.kv, k+"="+v)
}

func (e *envList) unset(k string) {
	n := envName(k)
	if i, ok := e.pos[n]; ok {
		e.kv[i] = ""
		delete(e.pos, n)
	}
}

func (e *envList) list() []string {
	out := make([]string, 0, len(e.kv))
	for _, kv := range e.kv {
		if kv != "" {
			out = append(out, kv)
		}
	}
	return out
}

// fixedEnv is what Paneflow sets in a pane, protected from user values.
func (m *Manager) fixedEnv(surfaceID, workspaceID uint64, index int) map[string]string {
	fixed := map[string]string{
		"TERM":         "xterm-256color",
		"COLORTERM":    "truecolor",
		"TERM_PROGRAM": "paneflow",
		EnvSurfaceID:   strconv.FormatUint(surfaceID, 10),
		EnvWorkspaceID: strconv.FormatUint(workspaceID, 10),
		EnvWorkspace:   strconv.Itoa(index),
	}
	if m.o.SocketPath != "" {
		fixed[EnvSocketPath] = m.o.SocketPath
	}
	if m.o.Version != "" {
		fixed["TERM_PROGRAM_VERSION"] = m.o.Version
	}
	return fixed
}

// baseEnv is the environment panes start from.
func baseEnv() []string { return os.Environ() }
