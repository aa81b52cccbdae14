package teams

import (
	"errors"
	"fmt"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/paneflow-go/paneflow/proto"
)

// TmuxRequest is one run of the tmux shim: teams.tmux's params
// ([proto.TeamsTmuxParams]).
type TmuxRequest = proto.TeamsTmuxParams

// TmuxResult is what the shim prints and exits with: teams.tmux's result
// ([proto.TeamsTmuxResult]).
type TmuxResult = proto.TeamsTmuxResult

// NeedsEnv reports whether the command in argv starts programs, so the
// shim must send its environment. Parsing errors say no: the server
// reports them.
func NeedsEnv(argv []string) bool {
	c, err := parseCommand(argv)
	if err != nil || c.verb == nil {
		return false
	}
	return c.verb.name == "split-window" || c.verb.name == "respawn-pane"
}

// call is one command being run; it lives under Registry.mu.
type call struct {
	req    *TmuxRequest
	cmd    *command
	caller *pane // nil when the caller is not a known pane
	out    strings.Builder
}

var errClosed = errors.New("teams: registry closed")

// Tmux runs one tmux command against the registry, serialized with every
// other request. Errors become stderr and exit code 1, as tmux's do.
func (r *Registry) Tmux(req TmuxRequest) TmuxResult {
	cmd, err := parseCommand(req.Argv)
	if err != nil {
		return TmuxResult{Stderr: err.Error() + "\n", Code: 1}
	}
	if cmd.version {
		return TmuxResult{Stdout: Version + "\n"}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return TmuxResult{Stderr: "paneflow is shutting down\n", Code: 1}
	}
	c := &call{req: &req, cmd: cmd}
	if n, ok := parseNum(req.Pane, '%'); ok {
		if p, _, ok := r.liveLocked(n); ok {
			c.caller = p
		}
	}
	if c.caller == nil && req.SurfaceID != 0 {
		if _, ok := r.host.Pane(req.SurfaceID); ok {
			c.caller = r.ensureLocked(req.SurfaceID)
		}
	}
	if cmd.verb.run != nil {
		err = cmd.verb.run(r, c)
	}
	res := TmuxResult{Stdout: c.out.String()}
	if err != nil {
		res.Stderr, res.Code = err.Error()+"\n", 1
	}
	return res
}

// target is a resolved -t: a pane (nil when the target names a window
// without panes) and its window.
type target struct {
	p    *pane
	info PaneInfo
	ws   uint64
}

// errNoPane is tmux's message for a target that does not resolve.
func errNoPane(t string) error { return fmt.Errorf("can't find pane: %s", t) }

// resolveLocked resolves a target: "" is the caller's pane; %N a pane;
// @N a window (its first pane); session:window[.pane] and :window with
// window an @N, an index or a name, pane a %N or an index.
func (r *Registry) resolveLocked(c *call, t string) (target, error) {
	if t == "" {
		if c.caller == nil {
			return target{}, errors.New("no current pane (TMUX_PANE is not a Paneflow pane)")
		}
		p, info, ok := r.liveLocked(c.caller.n)
		if !ok {
			return target{}, errNoPane(paneID(c.caller.n))
		}
		return target{p: p, info: info, ws: info.Workspace}, nil
	}
	if n, ok := parseNum(t, '%'); ok {
		p, info, ok := r.liveLocked(n)
		if !ok {
			return target{}, errNoPane(t)
		}
		return target{p: p, info: info, ws: info.Workspace}, nil
	}
	win, paneSpec := t, ""
	if s, w, ok := strings.Cut(t, ":"); ok {
		if s != "" && s != SessionName && s != "$0" {
			return target{}, fmt.Errorf("can't find session: %s", s)
		}
		win = w
	} else if !strings.HasPrefix(t, "@") {
		// A bare word is a session name (tmux tries sessions first).
		if t != SessionName && t != "$0" {
			return target{}, fmt.Errorf("can't find session: %s", t)
		}
		win = ""
	}
	if w, p, ok := strings.Cut(win, "."); ok {
		win, paneSpec = w, p
	}
	var w Window
	switch {
	case win == "":
		cur, err := r.resolveLocked(c, "")
		if err != nil {
			return target{}, err
		}
		w, _ = r.host.Window(cur.ws)
	case strings.HasPrefix(win, "@"):
		n, ok := parseNum(win, '@')
		ws, found := r.workspaceOfLocked(n)
		if ok && found {
			w, found = r.host.Window(ws)
		}
		if !ok || !found {
			return target{}, fmt.Errorf("can't find window: %s", win)
		}
	default:
		found := false
		for _, x := range r.host.Windows() {
			if strconv.Itoa(x.Index) == win || x.Title == win {
				w, found = x, true
				break
			}
		}
		if !found {
			return target{}, fmt.Errorf("can't find window: %s", win)
		}
	}
	if len(w.Panes) == 0 {
		return target{ws: w.ID}, nil
	}
	sid := w.Panes[0]
	if c.caller != nil && paneSpec == "" {
		for _, id := range w.Panes {
			if id == c.caller.surface {
				sid = id
			}
		}
	}
	if paneSpec != "" {
		if n, ok := parseNum(paneSpec, '%'); ok {
			p, info, ok := r.liveLocked(n)
			if !ok || info.Workspace != w.ID {
				return target{}, errNoPane(t)
			}
			return target{p: p, info: info, ws: w.ID}, nil
		}
		i, err := strconv.Atoi(paneSpec)
		if err != nil || i < 0 || i >= len(w.Panes) {
			return target{}, errNoPane(t)
		}
		sid = w.Panes[i]
	}
	info, ok := r.host.Pane(sid)
	if !ok {
		return target{}, errNoPane(t)
	}
	return target{p: r.ensureLocked(sid), info: info, ws: w.ID}, nil
}

// paneTarget resolves -t and insists on a pane.
func (r *Registry) paneTarget(c *call) (target, error) {
	t, err := r.resolveLocked(c, c.cmd.value('t'))
	if err == nil && t.p == nil {
		err = errNoPane(c.cmd.value('t'))
	}
	return t, err
}

// vars returns the format variables of pane t (t.p may be nil: window
// and session variables only).
func (r *Registry) varsLocked(c *call, t target) func(string) string {
	w, _ := r.host.Window(t.ws)
	winW, winH := 0, 0
	if t.p != nil && t.info.W > 0 && t.info.H > 0 {
		winW = int(math.Round(float64(t.info.Cols) / t.info.W))
		winH = int(math.Round(float64(t.info.Rows) / t.info.H))
	}
	index := -1
	if t.p != nil {
		for i, id := range w.Panes {
			if id == t.p.surface {
				index = i
			}
		}
	}
	return func(name string) string {
		switch name {
		case "session_name":
			return SessionName
		case "session_id":
			return "$0"
		case "session_windows":
			return strconv.Itoa(len(r.host.Windows()))
		case "session_attached":
			return "1"
		case "window_id":
			return "@" + strconv.Itoa(r.windowLocked(t.ws))
		case "window_index":
			return strconv.Itoa(w.Index)
		case "window_name":
			return w.Title
		case "window_panes":
			return strconv.Itoa(len(w.Panes))
		case "window_active", "pane_active":
			return "1"
		case "window_width":
			return numOrEmpty(winW)
		case "window_height":
			return numOrEmpty(winH)
		case "client_termtype", "client_termname":
			if v := envLookup(c.req.Env, "TERM"); v != "" {
				return v
			}
			return "xterm-256color"
		case "version":
			return strings.TrimPrefix(Version, "tmux ")
		case "mouse", "status", "allow-passthrough", "remain-on-exit":
			if name == "remain-on-exit" && t.p != nil {
				return t.p.remain
			}
			return "off"
		case "extended-keys", "focus-events":
			return "on"
		}
		if t.p == nil {
			return ""
		}
		in := t.info
		switch name {
		case "pane_id":
			return paneID(t.p.n)
		case "pane_index":
			return numOrEmpty(index)
		case "pane_title":
			if t.p.title != "" {
				return t.p.title
			}
			return in.Name
		case "pane_pid":
			return numOrEmpty(in.Pid)
		case "pane_dead":
			return boolNum(in.Dead)
		case "pane_dead_status":
			if in.Dead {
				return strconv.Itoa(in.ExitCode)
			}
			return ""
		case "pane_current_command":
			cmd, _ := r.host.Command(t.p.surface)
			return cmd
		case "pane_current_path", "pane_start_path":
			_, cwd := r.host.Command(t.p.surface)
			return cwd
		case "pane_width":
			return strconv.Itoa(in.Cols)
		case "pane_height":
			return strconv.Itoa(in.Rows)
		case "pane_left":
			return strconv.Itoa(int(math.Round(in.X * float64(winW))))
		case "pane_top":
			return strconv.Itoa(int(math.Round(in.Y * float64(winH))))
		case "pane_right":
			return strconv.Itoa(int(math.Round(in.X*float64(winW))) + in.Cols - 1)
		case "pane_bottom":
			return strconv.Itoa(int(math.Round(in.Y*float64(winH))) + in.Rows - 1)
		case "pane_at_left":
			return boolNum(in.X < 1e-9)
		case "pane_at_top":
			return boolNum(in.Y < 1e-9)
		case "pane_in_mode", "pane_input_off", "pane_marked":
			return "0"
		}
		return ""
	}
}

func numOrEmpty(n int) string {
	if n < 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func boolNum(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// envLookup finds name in a "K=V" list (the last value wins).
func envLookup(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	return v
}

// EnvHookToken is the variable that holds the secret of the server's
// http-hook endpoint (hook.EnvHTTPToken): the one Paneflow variable a
// teammate's pane keeps from the lead's environment, since Claude Code
// gives its teammates the lead's http hooks, which send it.
const EnvHookToken = "PANEFLOW_HOOK_TOKEN"

// inherited reports whether a teammate's pane gets the lead's variable
// k: all but Paneflow's per-pane and per-launch ones, EnvHookToken
// excepted.
func inherited(k string) bool {
	return k != "" && (!strings.HasPrefix(k, "PANEFLOW_") || k == EnvHookToken)
}

// teamEnv is the environment of a pane a lead starts: the lead's (the
// caller's) without Paneflow's per-pane and per-launch variables (but
// EnvHookToken), with -e additions and TMUX_PANE naming the new pane.
func teamEnv(c *call, n int) (map[string]string, error) {
	env := map[string]string{}
	base := c.req.Env
	if len(base) == 0 && c.caller != nil {
		base = c.caller.env
	}
	for _, kv := range base {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !inherited(k) {
			continue
		}
		env[k] = v
	}
	for _, kv := range c.cmd.flags['e'] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%s: -e wants NAME=VALUE, got %q", c.cmd.verb.name, kv)
		}
		env[k] = v
	}
	env["TMUX_PANE"] = paneID(n)
	env[EnvBackendSession] = contextID(n)
	return env, nil
}

// shellScript is the shell command line a command's arguments run: the
// one argument (tmux runs it with sh -c), or the script of a shell's -c
// given as three arguments (Claude Code 2.1.332 started its teammates
// so, `/bin/sh -c "cd … && exec env … claude --agent-name …"`, when the
// lead's --settings held http hooks).
func shellScript(args []string) (string, bool) {
	switch {
	case len(args) == 1:
		return args[0], true
	case len(args) == 3 && args[1] == "-c" && slices.Contains([]string{"sh", "bash", "dash", "zsh"}, path.Base(args[0])):
		return args[2], true
	}
	return "", false
}

// commandArgv turns a command's arguments into a program: none is the
// user's shell (nil), one is a shell command line run with sh -c (tmux's
// default-shell -c), several are run as they are.
func commandArgv(args []string) []string {
	switch len(args) {
	case 0:
		return nil
	case 1:
		if args[0] == "cat" {
			return []string{"cat"} // the placeholder: just hold the TTY
		}
		return []string{"/bin/sh", "-c", args[0]}
	}
	return append([]string(nil), args...)
}

// parseSize reads -l N (cells) or N% against total cells; 0 when absent.
func parseSize(s string, total int) (float64, error) {
	if s == "" {
		return 0, nil
	}
	if p, ok := strings.CutSuffix(s, "%"); ok {
		v, err := strconv.Atoi(p)
		if err != nil || v <= 0 || v >= 100 {
			return 0, fmt.Errorf("bad size: %s", s)
		}
		return float64(v) / 100, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("bad size: %s", s)
	}
	if total <= 0 {
		return 0, nil
	}
	return min(float64(v)/float64(total), 0.95), nil
}

func (r *Registry) splitWindow(c *call) error {
	t, err := r.paneTarget(c)
	if err != nil {
		return err
	}
	side := c.cmd.has('h')
	total := t.info.Rows
	if side {
		total = t.info.Cols
	}
	size := c.cmd.value('l')
	if p := c.cmd.value('p'); p != "" && size == "" {
		size = p + "%"
	}
	share, err := parseSize(size, total)
	if err != nil {
		return err
	}
	n := r.nextPane
	r.nextPane++
	env, err := teamEnv(c, n)
	if err != nil {
		return err
	}
	cwd := c.cmd.value('c')
	if cwd == "" {
		cwd = c.req.Cwd
	}
	sid, err := r.host.Split(t.p.surface, side, Spec{Cwd: cwd, Argv: commandArgv(c.cmd.args), Env: env})
	if err != nil {
		return fmt.Errorf("create pane failed: %v", err)
	}
	lead := t.p.lead
	if lead < 0 {
		lead = t.p.n
	}
	p := r.registerLocked(n, sid, lead)
	p.team = t.p.team
	if share > 0 {
		if err := r.host.SetShare(sid, side, share); err != nil {
			r.logf("teams: size of %s: %v", paneID(n), err)
		}
	}
	// Without -d the new pane becomes its window's active pane, as in
	// tmux; Claude Code passes -d, so its lead keeps the focus.
	if !c.cmd.has('d') {
		if err := r.host.Focus(sid); err != nil {
			r.logf("teams: focus %s: %v", paneID(n), err)
		}
	}
	if c.cmd.has('P') {
		format := c.cmd.value('F')
		if format == "" {
			format = "#{session_name}:#{window_index}.#{pane_index}"
		}
		info, _ := r.host.Pane(sid)
		c.out.WriteString(expand(format, r.varsLocked(c, target{p: p, info: info, ws: info.Workspace})) + "\n")
	}
	return nil
}

func (r *Registry) respawnPane(c *call) error {
	t, err := r.paneTarget(c)
	if err != nil {
		return err
	}
	if !t.p.owned {
		return fmt.Errorf("respawn pane failed: pane %s was not started by a team", paneID(t.p.n))
	}
	if !c.cmd.has('k') && !t.info.Dead {
		return fmt.Errorf("respawn pane failed: pane %s still active", paneID(t.p.n))
	}
	env, err := teamEnv(c, t.p.n)
	if err != nil {
		return err
	}
	argv := commandArgv(c.cmd.args)
	if script, ok := shellScript(c.cmd.args); ok {
		name, team, color, role := agentFlags(script)
		if name != "" {
			t.p.agent = name
		}
		if team != "" {
			t.p.team = team
		}
		if color != "" {
			t.p.color = color
		}
		if role != "" {
			t.p.role = role
		}
	}
	sid, err := r.host.Replace(t.p.surface, Spec{Name: t.p.title, Cwd: c.cmd.value('c'), Argv: argv, Env: env})
	if err != nil {
		return fmt.Errorf("respawn pane failed: %v", err)
	}
	r.registerLocked(t.p.n, sid, t.p.lead)
	return nil
}

func (r *Registry) sendKeys(c *call) error {
	t, err := r.paneTarget(c)
	if err != nil {
		return err
	}
	count := 1
	if v := c.cmd.value('N'); v != "" {
		count, err = strconv.Atoi(v)
		if err != nil || count < 1 || count > 10000 {
			return fmt.Errorf("send-keys: bad repeat count %q", v)
		}
	}
	if c.cmd.has('X') {
		return fmt.Errorf("send-keys -X (copy mode) is %w", errUnsupported)
	}
	if !t.p.owned {
		return fmt.Errorf("send-keys: pane %s was not started by a team; Paneflow types only into teammates' panes", paneID(t.p.n))
	}
	in, err := keysInput(c.cmd.args, c.cmd.has('l'), c.cmd.has('H'), count)
	if err != nil || in == "" {
		return err
	}
	return r.host.Input(t.p.surface, []byte(in))
}

// lineArg parses capture-pane's -S/-E: a line number (negative: into the
// scrollback) or "-" (the start of the scrollback / the end of the
// screen).
func lineArg(s string, dash, def int) (int, error) {
	switch s {
	case "":
		return def, nil
	case "-":
		return dash, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("capture-pane: bad line %q", s)
	}
	return v, nil
}

// maxCapture bounds the scrollback one capture reads.
const maxCapture = 100000

func (r *Registry) capturePane(c *call) error {
	t, err := r.paneTarget(c)
	if err != nil {
		return err
	}
	start, err := lineArg(c.cmd.value('S'), -maxCapture, 0)
	if err != nil {
		return err
	}
	end, err := lineArg(c.cmd.value('E'), math.MaxInt32, math.MaxInt32)
	if err != nil {
		return err
	}
	back := 0
	if start < 0 {
		back = min(-start, maxCapture)
	}
	text, ok := r.host.Text(t.p.surface, back)
	if !ok {
		return errNoPane(paneID(t.p.n))
	}
	if !c.cmd.has('p') {
		return nil // tmux would fill a paste buffer; there is none
	}
	c.out.WriteString(captureText(text, start, end, c.cmd.has('J')))
	return nil
}

// captureText cuts lines start..end (inclusive; 0 is the screen's first
// row, negative rows are scrollback) out of text, one "\n" after each.
// join (-J) joins rows that fill the width, which is how a soft-wrapped
// line looks in plain text.
func captureText(text Text, start, end int, join bool) string {
	base := len(text.History)
	all := make([]string, 0, len(text.History)+len(text.Screen))
	all = append(all, text.History...)
	all = append(all, text.Screen...)
	from := max(base+start, 0)
	to := min(base+end, len(all)-1)
	var b strings.Builder
	for i := from; i <= to; i++ {
		b.WriteString(all[i])
		if join && text.Cols > 0 && utf8.RuneCountInString(all[i]) >= text.Cols && i < to {
			continue
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func (r *Registry) killPane(c *call) error {
	t, err := r.resolveLocked(c, c.cmd.value('t'))
	if err != nil || t.p == nil {
		return nil // killing a pane that is gone succeeds
	}
	if c.cmd.has('a') {
		w, _ := r.host.Window(t.ws)
		for _, id := range w.Panes {
			if n, ok := r.bySurface[id]; ok && id != t.p.surface && r.panes[n].owned {
				if err := r.killLocked(r.panes[n]); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return r.killLocked(t.p)
}

// windowsOf resolves list-panes' and list-windows' scope.
func (r *Registry) windowsOf(c *call, all bool) ([]Window, error) {
	if all {
		return r.host.Windows(), nil
	}
	t, err := r.resolveLocked(c, c.cmd.value('t'))
	if err != nil {
		return nil, err
	}
	w, ok := r.host.Window(t.ws)
	if !ok {
		return nil, fmt.Errorf("can't find window: %s", c.cmd.value('t'))
	}
	return []Window{w}, nil
}

func (r *Registry) listPanes(c *call) error {
	ws, err := r.windowsOf(c, c.cmd.has('a') || c.cmd.has('s'))
	if err != nil {
		return err
	}
	format := c.cmd.value('F')
	if format == "" {
		format = "#{pane_index}: [#{pane_width}x#{pane_height}] #{pane_id}"
	}
	for _, w := range ws {
		for _, id := range w.Panes {
			info, ok := r.host.Pane(id)
			if !ok {
				continue
			}
			c.out.WriteString(expand(format, r.varsLocked(c, target{p: r.ensureLocked(id), info: info, ws: w.ID})) + "\n")
		}
	}
	return nil
}

func (r *Registry) listWindows(c *call) error {
	ws, err := r.windowsOf(c, true)
	if err != nil {
		return err
	}
	format := c.cmd.value('F')
	if format == "" {
		format = "#{window_index}: #{window_name} (#{window_panes} panes) #{window_id}"
	}
	for _, w := range ws {
		t := target{ws: w.ID}
		if len(w.Panes) > 0 {
			if info, ok := r.host.Pane(w.Panes[0]); ok {
				t = target{p: r.ensureLocked(w.Panes[0]), info: info, ws: w.ID}
			}
		}
		c.out.WriteString(expand(format, r.varsLocked(c, t)) + "\n")
	}
	return nil
}

func (r *Registry) listSessions(c *call) error {
	format := c.cmd.value('F')
	if format == "" {
		format = "#{session_name}: #{session_windows} windows"
	}
	c.out.WriteString(expand(format, r.varsLocked(c, target{})) + "\n")
	return nil
}

func (r *Registry) displayMessage(c *call) error {
	t, err := r.resolveLocked(c, c.cmd.value('t'))
	if err != nil {
		return err
	}
	format := c.cmd.value('F')
	if format == "" {
		format = strings.Join(c.cmd.args, " ")
	}
	if !c.cmd.has('p') {
		return nil // tmux would show it in the status line
	}
	c.out.WriteString(expand(format, r.varsLocked(c, t)) + "\n")
	return nil
}

func (r *Registry) selectPane(c *call) error {
	t, err := r.paneTarget(c)
	if err != nil {
		return err
	}
	if c.cmd.has('T') {
		title := c.cmd.value('T')
		t.p.title = title
		if err := r.host.Rename(t.p.surface, title); err != nil {
			return fmt.Errorf("select-pane: %v", err)
		}
		return nil // as in tmux, -T only sets the title
	}
	// select-pane [-t pane] makes the pane active; -P/-g (styles) and the
	// directional and marking forms are accepted and not applied.
	for f := range c.cmd.flags {
		if f != 't' {
			return nil
		}
	}
	if err := r.host.Focus(t.p.surface); err != nil {
		return fmt.Errorf("select-pane: %v", err)
	}
	return nil
}

// optionValue is show-options' answer for an option; ok is false for
// options Paneflow does not know.
func optionValue(name string, p *pane) (string, bool) {
	switch name {
	case "mouse", "allow-passthrough", "status":
		return "off", true
	// focus-events is on: the desktop app reports focus in and out to a
	// pane's program that asks for them (DECSET 1004), as tmux does with
	// the option set. "off" made Claude Code print, in every teammate
	// pane, a tip to add `set -g focus-events on` to ~/.tmux.conf, which
	// a Paneflow user cannot act on.
	case "extended-keys", "focus-events":
		return "on", true
	case "escape-time":
		return "0", true
	case "base-index", "pane-base-index":
		return "0", true
	case "default-terminal":
		return "tmux-256color", true
	case "remain-on-exit":
		if p != nil {
			return p.remain, true
		}
		return "off", true
	}
	return "", false
}

func (r *Registry) showOptions(c *call) error {
	var p *pane
	if c.cmd.has('p') || c.cmd.has('w') || c.cmd.value('t') != "" {
		if t, err := r.resolveLocked(c, c.cmd.value('t')); err == nil {
			p = t.p
		}
	}
	if len(c.cmd.args) == 0 {
		return nil
	}
	name := c.cmd.args[0]
	v, ok := optionValue(name, p)
	if !ok {
		return nil // unknown options show nothing
	}
	if c.cmd.has('v') {
		c.out.WriteString(v + "\n")
	} else {
		c.out.WriteString(name + " " + v + "\n")
	}
	return nil
}

func (r *Registry) setOption(c *call) error {
	if len(c.cmd.args) == 0 {
		return fmt.Errorf("%s: no option given", c.cmd.verb.name)
	}
	if c.cmd.args[0] != "remain-on-exit" || c.cmd.has('g') {
		return nil // styles and everything else: accepted, not applied
	}
	t, err := r.paneTarget(c)
	if err != nil {
		return err
	}
	v := "on"
	if len(c.cmd.args) > 1 {
		v = c.cmd.args[1]
	}
	switch v {
	case "on", "off", "failed":
		t.p.remain = v
	default:
		return fmt.Errorf("bad value for remain-on-exit: %s", v)
	}
	return nil
}

func (r *Registry) hasSession(c *call) error {
	t := c.cmd.value('t')
	t, _, _ = strings.Cut(strings.TrimPrefix(t, "="), ":")
	if t == "" || t == SessionName || t == "$0" {
		return nil
	}
	return fmt.Errorf("can't find session: %s", t)
}

// selectLayout follows main-vertical's intent (the lead on the left at
// 30 %, its teammates stacked evenly on the right); other layouts are
// accepted and not applied.
func (r *Registry) selectLayout(c *call) error {
	name := ""
	if len(c.cmd.args) > 0 {
		name = c.cmd.args[0]
	}
	if name != "main-vertical" {
		return nil
	}
	t, err := r.resolveLocked(c, c.cmd.value('t'))
	if err != nil {
		return err
	}
	w, _ := r.host.Window(t.ws)
	leads := map[int]bool{}
	for _, id := range w.Panes {
		n, ok := r.bySurface[id]
		if !ok || !r.panes[n].owned {
			continue
		}
		p := r.panes[n]
		if err := r.host.EqualizeAround(id, false); err != nil {
			r.logf("teams: layout around %s: %v", paneID(n), err)
		}
		if l, ok := r.panes[p.lead]; ok && !leads[p.lead] {
			leads[p.lead] = true
			if err := r.host.SetShare(l.surface, true, 0.3); err != nil {
				r.logf("teams: layout of lead %s: %v", paneID(l.n), err)
			}
		}
	}
	return nil
}

// resizePane applies -x/-y as a share of the split around the pane
// (percentages, or cells against the window's size); other resizes are
// accepted and not applied.
func (r *Registry) resizePane(c *call) error {
	t, err := r.paneTarget(c)
	if err != nil {
		return err
	}
	for _, d := range []struct {
		flag  byte
		side  bool
		cells int
		frac  float64
	}{{'x', true, t.info.Cols, t.info.W}, {'y', false, t.info.Rows, t.info.H}} {
		v := c.cmd.value(d.flag)
		if v == "" {
			continue
		}
		total := 0
		if d.frac > 0 {
			total = int(math.Round(float64(d.cells) / d.frac))
		}
		share, err := parseSize(v, total)
		if err != nil {
			return err
		}
		if share > 0 {
			if err := r.host.SetShare(t.p.surface, d.side, share); err != nil {
				return fmt.Errorf("resize-pane: %v", err)
			}
		}
	}
	return nil
}
