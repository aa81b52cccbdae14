package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/BurntSushi/toml"

	"github.com/paneflow-go/paneflow/flow"
	"github.com/paneflow-go/paneflow/internal/atomicfile"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/workspace"
)

// installedAgent is a recognised agent whose program is on PATH.
type installedAgent struct {
	Tag     string // the spec's agent name ("claude_code")
	Name    string // its display name ("Claude Code")
	Command string // the command line that starts it
}

// installedAgents lists the recognised agents found on PATH, in flow's
// order. It stats PATH's directories: the shell calls it once, off the UI
// goroutine, at start (findAgentLaunchers), and the views use that list.
func installedAgents(lookPath func(string) (string, error)) []installedAgent {
	var out []installedAgent
	for _, a := range flow.Agents() {
		if _, err := lookPath(a.Argv[0]); err != nil {
			continue
		}
		cmd, _ := flow.AgentCommand(a.Tag)
		name := a.Tag
		if p, ok := proto.AgentByName(a.Tag); ok {
			name = p.Name // by its tag: agentName takes the binary ("claude")
		}
		out = append(out, installedAgent{Tag: a.Tag, Name: name, Command: cmd})
	}
	return out
}

// quickSplit are the surface.split params quick launch and the agent
// buttons send (the socket's, as `paneflow split` would).
type quickSplit struct {
	SurfaceID       uint64         `json:"surface_id,omitempty"`
	Direction       string         `json:"direction"`
	Cwd             string         `json:"cwd,omitempty"`
	Command         string         `json:"command,omitempty"`
	Prompt          string         `json:"prompt,omitempty"`
	Name            string         `json:"name,omitempty"`
	ManagedWorktree *flow.Worktree `json:"managed_worktree,omitempty"`
}

// worktreeCallWait bounds quick launch's calls: git's own limits in the
// core's worktree.create (2 min for `worktree add`) plus its queries.
const worktreeCallWait = 3 * time.Minute

// gitMessage is a worktree.create error as git said it: the whole
// standard error the reply's data carries (git.stderr) when a git command
// failed, else the error's message.
func gitMessage(err error) string {
	var e *ipc.Error
	if errors.As(err, &e) && e.Data != nil {
		var d struct {
			Git struct {
				Stderr string `json:"stderr"`
			} `json:"git"`
		}
		if b, merr := json.Marshal(e.Data); merr == nil && json.Unmarshal(b, &d) == nil && strings.TrimSpace(d.Git.Stderr) != "" {
			return strings.TrimSpace(d.Git.Stderr)
		}
	}
	return err.Error()
}

// quickLaunchAgent is quick launch's work, off the UI goroutine: the
// core makes a worktree for a new branch beside the repository holding
// dir (worktree.create: created, with the repository's ignored .env*
// files copied, and entered in the core's registry at once, so an orphan
// is pruned at the next start), then a pane split off pane `beside` (0:
// the active workspace's first) in direction ("vertical" or
// "horizontal") runs the agent there with prompt prefilled once the agent
// reads its input, never submitted. The worktree goes to the core as managed
// (torn down with its last pane when clean). On any failure nothing is
// left: no pane, and the core rolls back a worktree it created
// (worktree.rollback). The app runs no git: it is a client of its core,
// as the MCP bridge's spawn_agent is. The error is git's message as git
// printed it. c must allow worktreeCallWait per call.
func quickLaunchAgent(ctx context.Context, c flow.Caller, dir string, a installedAgent, branch, prompt string, beside uint64, direction string) (uint64, error) {
	// worktree.create's result has managed_worktree's fields.
	w := &flow.Worktree{}
	if err := c.Call(ctx, "worktree.create", map[string]any{"cwd": dir, "branch": branch}, w); err != nil {
		return 0, errors.New(gitMessage(err))
	}
	var res struct {
		SurfaceID uint64 `json:"surface_id"`
	}
	err := c.Call(ctx, "surface.split", quickSplit{SurfaceID: beside, Direction: direction, Cwd: w.Path,
		Command: a.Command, Prompt: prompt, Name: a.Name + " " + branch, ManagedWorktree: w}, &res)
	if err != nil {
		if w.Action == "create" {
			if rerr := c.Call(context.WithoutCancel(ctx), "worktree.rollback", map[string]any{"path": w.Path}, nil); rerr != nil {
				return 0, fmt.Errorf("%v (and removing the worktree failed: %v)", err, rerr)
			}
		}
		return 0, err
	}
	return res.SurfaceID, nil
}

// quickLaunch is the quick launch view, a panel: an agent in a new
// worktree of the focused pane's directory, beside the focused pane. Its
// widgets are used holding the shell's lock (host.guard, host.do); the
// worktree and the pane are made on a goroutine of its own.
type quickLaunch struct {
	widget.BaseWidget
	host   launchHost
	dir    string
	agents []installedAgent
	agent  *widget.Select
	branch *keyEntry
	prompt *keyEntry
	status *widget.Label
	launch *widget.Button
	busy   bool
	body   fyne.CanvasObject
}

var _ panel = (*quickLaunch)(nil)

// newQuickLaunch builds quick launch over h for directory dir ("" when
// not known; shown as where, its short form) and the agents found.
func newQuickLaunch(h launchHost, dir, where string, agents []installedAgent) *quickLaunch {
	q := &quickLaunch{host: h, dir: dir, agents: agents}
	q.ExtendBaseWidget(q)
	var names []string
	for _, a := range q.agents {
		names = append(names, a.Name)
	}
	q.agent = widget.NewSelect(names, nil)
	if len(names) > 0 {
		q.agent.SetSelectedIndex(0)
	}
	q.branch = newKeyEntry(false)
	q.branch.SetPlaceHolder("new branch name, e.g. feat/login")
	q.prompt = newKeyEntry(true)
	q.prompt.SetPlaceHolder("optional prompt: typed into the agent, not submitted")
	q.prompt.SetMinRowsVisible(4)
	q.status = widget.NewLabel("in " + where)
	q.status.Wrapping = fyne.TextWrapWord
	if dir == "" {
		q.status.SetText("The focused pane's directory is not known.")
	}
	if len(names) == 0 {
		q.status.SetText("No coding agent found on PATH (claude, codex, gemini, opencode, …).")
	}
	q.launch = widget.NewButtonWithIcon("Launch", theme.MediaPlayIcon(), func() { h.guard(q.submit) })
	q.launch.Importance = widget.HighImportance
	if len(names) == 0 {
		q.agent.PlaceHolder = "no agent found"
		q.agent.Disable()
		q.launch.Disable() // nothing it could launch
	}
	keys := func(ev *fyne.KeyEvent) bool {
		switch ev.Name {
		case fyne.KeyEscape:
			h.closePanel(q)
			return true
		case fyne.KeyReturn, fyne.KeyEnter:
			h.guard(q.submit)
			return true
		}
		return false
	}
	q.branch.onKey = keys
	q.prompt.onKey = func(ev *fyne.KeyEvent) bool {
		if ev.Name == fyne.KeyEscape {
			return keys(ev)
		}
		return false
	}
	cancel := widget.NewButton("Cancel", func() { h.closePanel(q) })
	form := widget.NewForm(widget.NewFormItem("Agent", q.agent), widget.NewFormItem("Branch", q.branch), widget.NewFormItem("Prompt", q.prompt))
	head := widget.NewLabelWithStyle("Quick launch: an agent in a new worktree", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	q.body = container.NewBorder(head, container.NewVBox(q.status, container.NewHBox(layoutSpacer(), cancel, q.launch)), nil, nil, form)
	return q
}

// CreateRenderer draws the view.
func (q *quickLaunch) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(q.body) }

// focusTarget is the branch field.
func (q *quickLaunch) focusTarget() fyne.Focusable { return q.branch }

// layoutSpacer pushes the buttons after it to the right of an HBox.
func layoutSpacer() fyne.CanvasObject { return widget.NewLabel("") }

// fitScroll makes sc at least as tall as its content, up to most: a
// scroll's own minimum height is one row, and in a box or a form (which
// give their rows only their minimum) it showed one of several choices.
// Call it again when the content changes.
func fitScroll(sc *container.Scroll, most float32) {
	sc.SetMinSize(fyne.NewSize(0, min(sc.Content.MinSize().Height, most)))
}

// submit starts quick launch's work; the view shows git's error or
// closes once the pane is there. It cannot be submitted again while it
// runs. The caller holds the shell's lock.
func (q *quickLaunch) submit() {
	h := q.host
	if q.busy || !h.shown(q) {
		return
	}
	i := q.agent.SelectedIndex()
	branch := strings.TrimSpace(q.branch.Text)
	switch {
	case i < 0 || i >= len(q.agents):
		q.status.SetText("Pick an agent.")
		return
	case branch == "":
		q.status.SetText("Type a new branch name.")
		return
	case q.dir == "":
		q.status.SetText("The focused pane's directory is not known.")
		return
	}
	q.busy = true
	q.launch.Disable()
	q.status.SetText("creating the worktree for " + branch + "…")
	a, prompt, dir := q.agents[i], q.prompt.Text, q.dir
	beside, direction := h.agentPlace()
	go func() {
		id, err := quickLaunchAgent(context.Background(), rpcCaller{c: h.caller(worktreeCallWait)}, dir, a, branch, prompt, beside, direction)
		h.do(func() {
			if !h.shown(q) {
				if err != nil {
					h.notice("quick launch: " + err.Error())
				}
				return
			}
			q.busy = false
			if err != nil {
				q.launch.Enable()
				q.status.SetText(err.Error())
				q.status.Importance = widget.DangerImportance
				q.status.Refresh()
				return
			}
			h.logf("paneflow: quick launch: %s in pane %d on branch %s", a.Name, id, branch)
			h.focusPane(id)
		})
	}()
}

// findAgentLaunchers looks for the installed agents (off the UI
// goroutine: it stats PATH) and gives the sidebar a button for each.
func (s *shell) findAgentLaunchers() {
	agents := installedAgents(exec.LookPath)
	s.do(func() {
		s.views.launch.agents, s.views.launch.agentsFound = agents, true
		s.chrome.side.setAgentLaunchers(agents, func(a installedAgent) { s.guard(func() { s.launchAgentPaneLocked(a) }) })
		if os.Getenv("PANEFLOW_UI_PROBE") == "1" {
			s.probeLater(func() (bool, []string) {
				l, ok := s.probeLineLocked("sidebar-launch-pad", s.chrome.side.launchPad)
				return ok, []string{l}
			}, 300)
		}
	})
}

// launchAgentPaneLocked opens agent a in a new pane in the focused pane's
// directory, where agentPlaceLocked puts it (the agent launcher buttons),
// and focuses it.
func (s *shell) launchAgentPaneLocked(a installedAgent) {
	target, dir := s.agentPlaceLocked()
	req := quickSplit{SurfaceID: target, Direction: dir, Cwd: s.focusedCwdLocked(), Command: a.Command, Name: a.Name}
	go func() {
		var res struct {
			SurfaceID uint64 `json:"surface_id"`
		}
		if err := s.caller(0).Call(context.Background(), "surface.split", req, &res); err != nil {
			s.do(func() { s.chrome.banner.show("launch " + a.Name + ": " + err.Error()) })
			return
		}
		s.work.mutate("focus", func() error { return s.b.Focus(res.SurfaceID) })
	}()
}

// paneBox is a pane of the active workspace as the window shows it: its
// size in window units and in cells.
type paneBox struct {
	id         uint64
	w, h       float32
	cols, rows int
}

// agentPlace picks where a new agent pane goes: it splits the pane with
// the most cells along its longer side on screen ("vertical": side by
// side), so that both halves stay as usable as the layout allows; the
// focused pane wins a tie. Splitting the focused pane, as the launchers
// did, left a 14-column pane beside a narrow focused one. With no pane
// known it returns (focus, "vertical").
func agentPlace(panes []paneBox, focus uint64) (target uint64, dir string) {
	best, dir := -1, "vertical"
	target = focus
	for _, p := range panes {
		cells := p.cols * p.rows
		if cells > best || cells == best && p.id == focus {
			best, target = cells, p.id
			dir = "vertical"
			if p.h > p.w {
				dir = "horizontal"
			}
		}
	}
	return target, dir
}

// agentPlaceLocked is agentPlace over the active workspace's panes.
func (s *shell) agentPlaceLocked() (target uint64, dir string) {
	var panes []paneBox
	if s.pos.snap != nil && s.pos.snap.Tree != nil && s.pos.zoom == 0 {
		s.pos.snap.Tree.EachSurface(func(d *workspace.SurfaceDefinition) {
			if v := s.panes.views[d.SurfaceID]; v != nil {
				cols, rows := v.Cells()
				sz := v.Size()
				panes = append(panes, paneBox{id: d.SurfaceID, w: sz.Width, h: sz.Height, cols: cols, rows: rows})
			}
		})
	}
	return agentPlace(panes, s.pos.focus)
}

// templatePane and templateSpec are the workspace spec the template view
// writes, as TOML.
type templatePane struct {
	Name  string `toml:"name"`
	Agent string `toml:"agent,omitempty"`
	Cwd   string `toml:"cwd"`
	Focus bool   `toml:"focus,omitempty"`
}

type templateSpec struct {
	Name   string         `toml:"name"`
	Layout string         `toml:"layout"`
	Panes  []templatePane `toml:"panes"`
}

// templateText is the workspace spec for agents (tags) in dir, one pane
// each (a shell when none), checked by the spec parser.
func templateText(dir string, agents []installedAgent) ([]byte, error) {
	spec := templateSpec{Name: filepath.Base(dir), Layout: "tiled"}
	if len(agents) <= 2 {
		spec.Layout = "even_h"
	}
	for _, a := range agents {
		spec.Panes = append(spec.Panes, templatePane{Name: a.Name, Agent: a.Tag, Cwd: dir})
	}
	if len(spec.Panes) == 0 {
		spec.Panes = append(spec.Panes, templatePane{Name: "shell", Cwd: dir})
	}
	spec.Panes[0].Focus = true
	var b bytes.Buffer
	b.WriteString("# A Paneflow workspace spec, written by the app: keep it and edit it.\n" +
		"# Launch it from the launch pad or with `paneflow up " + specFileName + "`.\n" +
		"# Each pane takes cwd, agent or command, prompt, name, env, worktree, focus.\n\n")
	if err := toml.NewEncoder(&b).Encode(spec); err != nil {
		return nil, err
	}
	if _, err := flow.ParseWorkspace(b.Bytes()); err != nil {
		return nil, fmt.Errorf("the template does not parse: %v", err)
	}
	return b.Bytes(), nil
}

// specFileName is the name the template view writes.
const specFileName = "paneflow.workspace.toml"

// writeTemplate writes the spec for agents into dir/paneflow.workspace.toml,
// never replacing an existing file, and returns its path.
func writeTemplate(dir string, agents []installedAgent) (string, error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", dir)
	}
	data, err := templateText(dir, agents)
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, specFileName)
	if err := atomicfile.CreateNew(p, bytes.NewReader(data), 0o644); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("%s already exists: it was left as it is (open it from the launch pad)", p)
		}
		return "", err
	}
	return p, nil
}

// templateView is the "new workspace from template" view, a panel: a
// workspace spec with a pane per agent checked, written into a folder,
// then selected in the launch pad. Its widgets are used holding the
// shell's lock (host.guard).
type templateView struct {
	widget.BaseWidget
	host   launchHost
	agents []installedAgent
	checks *widget.CheckGroup
	folder *widget.Entry
	status *widget.Label
	body   fyne.CanvasObject
}

var _ panel = (*templateView)(nil)

// newTemplateView builds the template view over h for the agents found,
// the folder field filled with dir.
func newTemplateView(h launchHost, dir string, agents []installedAgent) *templateView {
	t := &templateView{host: h, agents: agents}
	t.ExtendBaseWidget(t)
	var names []string
	for _, a := range t.agents {
		names = append(names, a.Name)
	}
	t.checks = widget.NewCheckGroup(names, nil)
	t.folder = widget.NewEntry()
	t.folder.SetText(dir)
	browse := widget.NewButtonWithIcon("", theme.FolderOpenIcon(), func() {
		dialog.ShowFolderOpen(func(u fyne.ListableURI, err error) {
			if err == nil && u != nil {
				h.guard(func() { t.folder.SetText(u.Path()) })
			}
		}, h.window())
	})
	t.status = widget.NewLabel("Writes " + specFileName + " in the folder (an existing file is never replaced).")
	t.status.Wrapping = fyne.TextWrapWord
	if len(names) == 0 {
		t.status.SetText("No coding agent found on PATH: the spec will have one shell pane.")
	}
	write := widget.NewButtonWithIcon("Write spec", theme.DocumentSaveIcon(), func() { h.guard(t.write) })
	write.Importance = widget.HighImportance
	cancel := widget.NewButton("Cancel", func() { h.closePanel(t) })
	checks := container.NewVScroll(t.checks)
	fitScroll(checks, 200)
	form := widget.NewForm(widget.NewFormItem("Agents", checks),
		widget.NewFormItem("Folder", container.NewBorder(nil, nil, nil, browse, t.folder)))
	head := widget.NewLabelWithStyle("New workspace from template", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	t.body = container.NewBorder(head, container.NewVBox(t.status, container.NewHBox(layoutSpacer(), cancel, write)), nil, nil, form)
	return t
}

// CreateRenderer draws the view.
func (t *templateView) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(t.body) }

// focusTarget is the folder field.
func (t *templateView) focusTarget() fyne.Focusable { return t.folder }

// write writes the spec and opens the launch pad with it selected; an
// error stays in the view. The caller holds the shell's lock.
func (t *templateView) write() {
	var picked []installedAgent
	for _, a := range t.agents {
		for _, n := range t.checks.Selected {
			if n == a.Name {
				picked = append(picked, a)
			}
		}
	}
	dir := strings.TrimSpace(t.folder.Text)
	if !filepath.IsAbs(dir) {
		t.status.SetText("Pick a folder (an absolute path).")
		return
	}
	p, err := writeTemplate(dir, picked)
	if err != nil {
		t.status.SetText(err.Error())
		t.status.Importance = widget.DangerImportance
		t.status.Refresh()
		return
	}
	t.host.openSpec(p)
}

// openSpecLocked notes the spec at path as recently used and opens the
// launch pad (in the overlay's place) with it selected.
func (s *shell) openSpecLocked(path string) {
	if err := s.views.launch.noteRecent(path); err != nil {
		s.chrome.banner.show(err.Error())
	}
	s.closeOverlayLocked()
	lp := s.newLaunchPadLocked(shellHost{s})
	s.openPanelLocked(lp, launchPadSize(s.w.Canvas().Size()))
	lp.add(path)
}
