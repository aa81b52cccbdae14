package flow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Workspace is a workspace spec (paneflow.workspace.toml) as written.
type Workspace struct {
	Name     *string `toml:"name"`
	Layout   *string `toml:"layout"`
	PortBase *int64  `toml:"port_base"`
	// Budget limits the whole workspace's agents (see [Budget]).
	Budget *Budget `toml:"budget"`
	Panes  []Pane  `toml:"panes"`
}

// ParseWorkspace decodes and validates a workspace spec (spec specs.md §1
// steps 1-4). Nothing outside data is consulted.
func ParseWorkspace(data []byte) (*Workspace, error) {
	var w Workspace
	if err := decodeStrict(data, &w); err != nil {
		return nil, err
	}
	if err := checkTop(w.Layout, w.PortBase); err != nil {
		return nil, err
	}
	if len(w.Panes) == 0 {
		return nil, errors.New("workspace spec has no [[panes]]")
	}
	if len(w.Panes) > MaxPanes {
		return nil, fmt.Errorf("too many panes (%d > %d)", len(w.Panes), MaxPanes)
	}
	if err := w.Budget.check("budget"); err != nil {
		return nil, err
	}
	for i := range w.Panes {
		if err := checkPane(&w.Panes[i]); err != nil {
			return nil, fmt.Errorf("pane %d: %v", i, err)
		}
		if err := w.Panes[i].Budget.check("budget"); err != nil {
			return nil, fmt.Errorf("pane %d: %v", i, err)
		}
	}
	for i := range w.Panes {
		if err := checkEnvTokens(w.Panes[i].Env, "port_offset"); err != nil {
			return nil, fmt.Errorf("pane %d: %v", i, err)
		}
	}
	return &w, nil
}

// checkTop validates layout and port_base.
func checkTop(layout *string, portBase *int64) error {
	if layout != nil {
		ok := false
		for _, l := range layouts {
			ok = ok || *layout == l
		}
		if !ok {
			return fmt.Errorf("layout must be one of %s, got '%s'", strings.Join(layouts, ", "), *layout)
		}
	}
	if portBase != nil && (*portBase < 1 || *portBase > 65535) {
		return fmt.Errorf("port_base must be 1..65535, got %d", *portBase)
	}
	return nil
}

// Worktree is a git worktree planned for a pane, as the workspace.up
// wire's managed_worktree carries it.
type Worktree struct {
	Path      string `json:"path"`
	RepoRoot  string `json:"repo_root"`
	Branch    string `json:"branch"`
	Teardown  string `json:"teardown"`   // "auto" or "keep"
	Action    string `json:"action"`     // "create" or "reuse"
	NewBranch bool   `json:"new_branch"` // creating makes the branch
	Private   any    `json:"-"`          // the planner's own state, handed back to it
}

// Worktrees is what up and flow need of a worktree manager (the CLI adapts
// package worktree). Its methods are called from one goroutine at a time.
type Worktrees interface {
	// Plan decides, without changing anything, where branch's worktree
	// for a pane in the absolute directory cwd goes and whether it is
	// created or reused; the error says why not (no "pane i:" prefix).
	Plan(ctx context.Context, cwd, branch string) (Worktree, error)
	// Create makes a planned worktree (nothing for a reuse).
	Create(ctx context.Context, w Worktree) error
	// CopyEnv copies the repository's ignored .env* files into a created
	// worktree, never overwriting; it returns the names copied.
	CopyEnv(ctx context.Context, w Worktree) ([]string, error)
	// Setup runs a setup command in the worktree, killing it (and its
	// children) after timeout.
	Setup(ctx context.Context, w Worktree, script string, timeout time.Duration) error
	// Rollback undoes Create.
	Rollback(ctx context.Context, w Worktree) error
}

// Caller calls a JSON-RPC method of the instance and decodes its result
// into result. It is used from one goroutine at a time.
type Caller interface {
	Call(ctx context.Context, method string, params, result any) error
}

// Host is what resolving a spec may consult on the client's machine. The
// zero value uses the process's directory, $HOME, PATH and a bind probe.
type Host struct {
	// Getwd returns the directory relative cwds resolve against.
	Getwd func() (string, error)
	// Home is what "~" expands to; "" means os.UserHomeDir.
	Home string
	// LookPath finds an agent's program on PATH.
	LookPath func(string) (string, error)
	// PortFree reports whether 127.0.0.1:port can be bound.
	PortFree func(port int) bool
	// Worktrees plans worktrees; nil makes a spec with `worktree` an error.
	Worktrees Worktrees
}

func (h *Host) withDefaults() Host {
	o := *h
	if o.Getwd == nil {
		o.Getwd = os.Getwd
	}
	if o.Home == "" {
		o.Home, _ = os.UserHomeDir()
	}
	if o.PortFree == nil {
		o.PortFree = portFree
	}
	return o
}

// portFree binds 127.0.0.1:port and lets it go at once.
func portFree(port int) bool {
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// PlannedPane is one pane of a [Plan], resolved.
type PlannedPane struct {
	// Cwd is the absolute directory (a worktree's root when one is
	// planned); "" leaves it to the server.
	Cwd string `json:"cwd"`
	// Agent is the agent named in the spec, "" for a command or a shell.
	Agent string `json:"agent,omitempty"`
	// Argv is the program the pane runs, split into words; nil for the
	// user's shell.
	Argv []string `json:"argv"`
	// Command is Argv as the shell command line the server runs.
	Command string `json:"command"`
	Prompt  string `json:"prompt,omitempty"`
	Focus   bool   `json:"focus"`
	// Env has ${port_offset} substituted.
	Env  map[string]string `json:"env,omitempty"`
	Name string            `json:"name,omitempty"`
	// PortOffset is the port allocated to this pane, 0 when its env does
	// not ask for one.
	PortOffset int `json:"port_offset,omitempty"`
	// Worktree is the worktree planned, nil when none.
	Worktree *Worktree `json:"managed_worktree"`
	// CopyEnv, Setup and SetupTimeout apply when Worktree is created.
	CopyEnv      bool   `json:"copy_env,omitempty"`
	Setup        string `json:"setup,omitempty"`
	SetupTimeout int64  `json:"setup_timeout_secs,omitempty"`
	// Budget is the pane's budget (a workspace spec's); nil when none.
	Budget *Budget `json:"budget,omitempty"`
}

// Plan is a workspace spec resolved: what `paneflow up` will do.
type Plan struct {
	Name     *string       `json:"name"`
	Layout   string        `json:"layout"`
	PortBase int           `json:"port_base"`
	Panes    []PlannedPane `json:"panes"`
	// Budget is the whole workspace's budget; nil when none.
	Budget *Budget `json:"budget,omitempty"`
}

// expandCwd resolves a spec cwd on the client: "~" and "~/…" against
// home, relative paths against wd; the result must be a directory.
func expandCwd(raw, wd, home string) (string, error) {
	p := raw
	switch {
	case p == "~":
		p = home
	case strings.HasPrefix(p, "~/"):
		p = filepath.Join(home, p[2:])
	case !filepath.IsAbs(p):
		p = filepath.Join(wd, p)
	}
	if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("cwd '%s' does not exist or is not a directory", raw)
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return filepath.Clean(p), nil
}

// resolvePane turns one validated pane into a PlannedPane, up to port
// allocation: cwd, worktree plan, agent argv. The errors have no prefix.
func resolvePane(ctx context.Context, h *Host, wd string, p *Pane) (PlannedPane, error) {
	pp := PlannedPane{Prompt: str(p.Prompt), Focus: p.Focus, Name: str(p.Name), Agent: str(p.Agent)}
	if len(p.Env) > 0 {
		pp.Env = make(map[string]string, len(p.Env))
		for k, v := range p.Env {
			pp.Env[k] = v
		}
	}
	if p.Cwd != nil {
		c, err := expandCwd(*p.Cwd, wd, h.Home)
		if err != nil {
			return pp, err
		}
		pp.Cwd = c
	}
	if p.Worktree != nil {
		if h.Worktrees == nil {
			return pp, errors.New("worktrees are not available here")
		}
		w, err := h.Worktrees.Plan(ctx, pp.Cwd, *p.Worktree)
		if err != nil {
			return pp, err
		}
		w.Teardown = "auto"
		if p.WorktreeTeardown != nil {
			w.Teardown = *p.WorktreeTeardown
		}
		pp.Worktree = &w
		pp.Cwd = w.Path
		pp.CopyEnv = p.CopyEnv == nil || *p.CopyEnv
		pp.Setup = str(p.Setup)
		pp.SetupTimeout = 300
		if p.SetupTimeoutSecs != nil {
			pp.SetupTimeout = *p.SetupTimeoutSecs
		}
	}
	return pp, nil
}

// resolveProgram sets the pane's argv and command line from its agent or
// command.
func resolveProgram(h *Host, p *Pane, pp *PlannedPane) error {
	switch {
	case p.Agent != nil:
		argv, ok := agentArgv(*p.Agent)
		if !ok {
			return fmt.Errorf("unknown agent '%s'", *p.Agent)
		}
		look := h.LookPath
		if look != nil {
			if _, err := look(argv[0]); err != nil {
				return fmt.Errorf("agent '%s' (%s) not found on PATH", *p.Agent, argv[0])
			}
		}
		pp.Argv = argv
		pp.Command = shellJoin(argv)
	case p.Command != nil && *p.Command != "":
		argv, err := splitWords(*p.Command)
		if err != nil {
			return err
		}
		pp.Argv = argv
		pp.Command = *p.Command
	}
	return nil
}

// allocatePorts gives each pane whose env mentions ${port_offset} its own
// port: base + 10·k for a counter k shared by the whole spec, skipping
// ports that cannot be bound (spec specs.md §2).
func allocatePorts(h *Host, base int, panes []*PlannedPane) {
	k := 0
	for _, pp := range panes {
		uses := false
		for _, v := range pp.Env {
			uses = uses || strings.Contains(v, "${port_offset}")
		}
		if !uses {
			continue
		}
		port := 65535
		for {
			c := base + 10*k
			k++
			if c >= 65535 {
				break
			}
			if h.PortFree(c) {
				port = c
				break
			}
		}
		pp.PortOffset = port
		for key, v := range pp.Env {
			pp.Env[key] = strings.ReplaceAll(v, "${port_offset}", strconv.Itoa(port))
		}
	}
}

// checkTargets refuses two panes planned into the same worktree.
func checkTargets(panes []*PlannedPane, label func(i int) string) error {
	seen := map[string]int{}
	for i, pp := range panes {
		if pp.Worktree == nil {
			continue
		}
		if j, ok := seen[pp.Worktree.Path]; ok {
			return fmt.Errorf("%s and %s both target worktree '%s' (%s) - a branch can only be checked out in one worktree",
				label(j), label(i), pp.Worktree.Branch, pp.Worktree.Path)
		}
		seen[pp.Worktree.Path] = i
	}
	return nil
}

// ResolveWorkspace plans a parsed spec without side effects (spec
// specs.md §1 steps 5-7): cwds resolved and checked, worktrees planned,
// ports allocated, agents resolved to programs on PATH.
func ResolveWorkspace(ctx context.Context, w *Workspace, h Host) (*Plan, error) {
	h = h.withDefaults()
	wd, err := h.Getwd()
	if err != nil {
		return nil, fmt.Errorf("cannot read the current directory: %v", err)
	}
	plan := &Plan{Name: w.Name, Layout: "even_h", PortBase: DefaultPortBase, Budget: w.Budget}
	if w.Layout != nil {
		plan.Layout = *w.Layout
	}
	if w.PortBase != nil {
		plan.PortBase = int(*w.PortBase)
	}
	plan.Panes = make([]PlannedPane, len(w.Panes))
	ptrs := make([]*PlannedPane, len(w.Panes))
	for i := range w.Panes {
		pp, err := resolvePane(ctx, &h, wd, &w.Panes[i])
		if err != nil {
			return nil, fmt.Errorf("pane %d: %v", i, err)
		}
		pp.Budget = w.Panes[i].Budget
		plan.Panes[i] = pp
		ptrs[i] = &plan.Panes[i]
	}
	if err := checkTargets(ptrs, func(i int) string { return "pane " + strconv.Itoa(i) }); err != nil {
		return nil, err
	}
	allocatePorts(&h, plan.PortBase, ptrs)
	for i := range w.Panes {
		if err := resolveProgram(&h, &w.Panes[i], ptrs[i]); err != nil {
			return nil, fmt.Errorf("pane %d: %v", i, err)
		}
	}
	return plan, nil
}

// wirePane is one pane of the workspace.up and surface.split params.
type wirePane struct {
	Cwd             string            `json:"cwd,omitempty"`
	Command         string            `json:"command,omitempty"`
	Prompt          string            `json:"prompt,omitempty"`
	Focus           bool              `json:"focus,omitempty"`
	Env             map[string]string `json:"env,omitempty"`
	Name            string            `json:"name,omitempty"`
	ManagedWorktree *Worktree         `json:"managed_worktree,omitempty"`
	// Profile is "agent" for an agent pane (its scrollback capped at the
	// agent profile's), "normal" otherwise.
	Profile string `json:"profile"`
}

func (pp *PlannedPane) wire() wirePane {
	profile := "normal"
	if pp.Agent != "" {
		profile = "agent"
	}
	return wirePane{Cwd: pp.Cwd, Command: pp.Command, Prompt: pp.Prompt, Focus: pp.Focus, Env: pp.Env, Name: pp.Name, ManagedWorktree: pp.Worktree, Profile: profile}
}

type upParams struct {
	Name   *string    `json:"name,omitempty"`
	Layout string     `json:"layout"`
	Panes  []wirePane `json:"panes"`
}

// UpResult is workspace.up's answer.
type UpResult struct {
	Index      int       `json:"index"`
	Title      string    `json:"title"`
	Panes      int       `json:"panes"`
	SurfaceIDs []uint64  `json:"surface_ids"`
	Labels     []*string `json:"labels"`
}

// prepareWorktrees creates the panes' planned worktrees in order, copies
// their env files and runs their setup (a failing setup only warns, and
// the pane's program then starts with the warning printed). On an error
// the worktrees created so far are rolled back. It returns the ones
// created.
func prepareWorktrees(ctx context.Context, wt Worktrees, panes []*PlannedPane, label func(i int) string, warn func(string)) ([]Worktree, error) {
	var created []Worktree
	for i, pp := range panes {
		w := pp.Worktree
		if w == nil || w.Action != "create" {
			continue
		}
		if err := wt.Create(ctx, *w); err != nil {
			rollback(wt, created, warn)
			return nil, fmt.Errorf("%s: %v", label(i), err)
		}
		created = append(created, *w)
		if pp.CopyEnv {
			names, err := wt.CopyEnv(ctx, *w)
			if err != nil {
				warn(fmt.Sprintf("%s: copy_env in %s: %v", label(i), w.Path, err))
			}
			if len(names) > 0 {
				warn(fmt.Sprintf("%s: copied %s into %s", label(i), strings.Join(names, ", "), w.Path))
			}
		}
		if pp.Setup != "" {
			if err := wt.Setup(ctx, *w, pp.Setup, time.Duration(pp.SetupTimeout)*time.Second); err != nil {
				msg := fmt.Sprintf("%s: setup failed in %s (%v) - agent started anyway", label(i), w.Path, err)
				warn(msg)
				pp.Command = warnCommand("paneflow: "+msg, pp.Command)
			}
		}
	}
	return created, nil
}

// warnCommand makes a pane print msg before running command ("" = the
// user's shell), so a failed setup shows in the pane itself. On Windows,
// whose pane shells are not POSIX, the command is left as it is (the
// warning is on the CLI's stderr only).
func warnCommand(msg, command string) string {
	if runtime.GOOS == "windows" {
		return command
	}
	q := shellJoin([]string{msg})
	if command == "" {
		return "printf '%s\\n' " + q + ` >&2; exec "${SHELL:-sh}"`
	}
	return "printf '%s\\n' " + q + " >&2; " + command
}

// rollback removes worktrees a failed up created, newest first; it is not
// cut short by a cancelled context.
func rollback(wt Worktrees, created []Worktree, warn func(string)) {
	ctx := context.Background()
	for i := len(created) - 1; i >= 0; i-- {
		if err := wt.Rollback(ctx, created[i]); err != nil {
			warn(fmt.Sprintf("rollback of %s: %v", created[i].Path, err))
		}
	}
}

// Up carries a plan out: the planned worktrees are created (with copy_env
// and setup), then one workspace.up call opens the panes. If a creation
// fails or the server refuses the call, the worktrees this call created
// are rolled back and nothing else remains; when the server does not
// answer at all (it may have opened the panes) they are kept and named
// in a warning. warn receives non-fatal diagnostics (one line each).
func Up(ctx context.Context, plan *Plan, wt Worktrees, c Caller, warn func(string)) (*UpResult, error) {
	ptrs := make([]*PlannedPane, len(plan.Panes))
	for i := range plan.Panes {
		ptrs[i] = &plan.Panes[i]
	}
	label := func(i int) string { return "pane " + strconv.Itoa(i) }
	created, err := prepareWorktrees(ctx, wt, ptrs, label, warn)
	if err != nil {
		return nil, err
	}
	params := upParams{Name: plan.Name, Layout: plan.Layout}
	for _, pp := range ptrs {
		params.Panes = append(params.Panes, pp.wire())
	}
	var res UpResult
	if err := c.Call(ctx, "workspace.up", params, &res); err != nil {
		// An error reply means the server created nothing (workspace.up
		// checks everything first). Without one (a timeout, a lost
		// connection) the panes may exist, so their worktrees stay.
		if _, refused := rpcCode(err); refused || len(created) == 0 {
			rollback(wt, created, warn)
		} else {
			var paths []string
			for _, w := range created {
				paths = append(paths, w.Path)
			}
			warn("the instance did not answer; kept the worktrees created for it: " + strings.Join(paths, ", "))
		}
		return nil, err
	}
	if len(res.SurfaceIDs) != len(plan.Panes) {
		return &res, fmt.Errorf("workspace.up returned %d surface ids for %d panes", len(res.SurfaceIDs), len(plan.Panes))
	}
	trackUp(ctx, plan, res.SurfaceIDs, c, warn)
	return &res, nil
}

// trackUp tells the server the workspace's panes and budgets
// (usage.track), when the spec has budgets: the server enforces them
// after `up` returned.
func trackUp(ctx context.Context, plan *Plan, sids []uint64, c Caller, warn func(string)) {
	budgeted := plan.Budget != nil
	for _, pp := range plan.Panes {
		budgeted = budgeted || pp.Budget != nil
	}
	if !budgeted {
		return
	}
	name := "workspace"
	if plan.Name != nil && *plan.Name != "" {
		name = *plan.Name
	}
	t := &tracker{c: c, run: newRunID(name, time.Now()), label: name, whole: plan.Budget, warn: warn}
	for i, sid := range sids {
		step := plan.Panes[i].Name
		if step == "" {
			step = "pane " + strconv.Itoa(i)
		}
		if err := t.track(ctx, sid, step, plan.Panes[i].Budget); err != nil {
			warn(fmt.Sprintf("pane %d: its budget is not enforced: %v", i, err))
		}
	}
}

// DryRunJSON is the plan as --dry-run --json prints it.
func (p *Plan) DryRunJSON() ([]byte, error) {
	return json.MarshalIndent(p, "", "  ")
}
