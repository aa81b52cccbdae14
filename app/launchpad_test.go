//go:build !windows

package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/paneflow-go/paneflow/app/keymap"
	"github.com/paneflow-go/paneflow/flow"
	"github.com/paneflow-go/paneflow/internal/specfind"
	"github.com/paneflow-go/paneflow/internal/spectrust"
	"github.com/paneflow-go/paneflow/workspace"
	"github.com/paneflow-go/paneflow/worktree"
)

// writeFile writes text to p, making its directory.
func writeFile(t testing.TB, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// libraryDir is the spec library of the harness's config dir.
func libraryDir(t *testing.T) string {
	d := specfind.LibraryDir(os.Getenv, goos)
	if d == "" || !strings.HasPrefix(d, os.Getenv("XDG_CONFIG_HOME")) {
		t.Fatalf("spec library %q is not under XDG_CONFIG_HOME", d)
	}
	return d
}

// openPad opens the launch pad with its key and returns it.
func openPad(t *testing.T, h *harness) *launchPad {
	t.Helper()
	var lp *launchPad
	h.s.guard(func() {
		if !h.key(fyne.KeyO, ctrlShift) {
			t.Fatal("Ctrl+Shift+O is not bound")
		}
		lp = shownPanelAs[*launchPad](h.s)
		if lp == nil || h.s.w.Canvas().Overlays().Top() == nil {
			t.Fatal("the launch pad did not open")
		}
	})
	return lp
}

// selectSpec clicks the row of the spec named base and waits for its
// plan or errors.
func selectSpec(t *testing.T, h *harness, lp *launchPad, base string) *specfind.Resolved {
	t.Helper()
	row := -1
	h.s.guard(func() {
		for i, e := range lp.shown {
			if filepath.Base(e.Path) == base {
				row = i
			}
		}
	})
	if row < 0 {
		t.Fatalf("%s is not listed", base)
	}
	lp.rows.Select(row) // as a click does
	var r *specfind.Resolved
	h.waitFor(base+" resolved", func() bool {
		r = lp.sel
		return r != nil && filepath.Base(r.Entry.Path) == base
	})
	return r
}

func TestLaunchPadShowsPlanErrorsAndLaunches(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir()) // the spec trust store: the library's specs need none
	h := newHarness(t, nil)
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	lib := libraryDir(t)
	work := t.TempDir()
	writeFile(t, filepath.Join(lib, "demo.workspace.toml"), `name = "demo"
layout = "even_v"

[[panes]]
name = "left"
command = "echo left-side; exec sh"
cwd = "`+work+`"

[[panes]]
name = "right"
command = "echo right-side; exec sh"
env = { PORT = "${port_offset}" }
`)
	writeFile(t, filepath.Join(lib, "broken.workspace.toml"), `name = "broken"

[[panes]]
command = "sh"

[[panes]]
name = "agent"
agent = "no-such-agent"
`)
	writeFile(t, filepath.Join(lib, "typo.workspace.toml"), "[[panes]]\ncomand = \"sh\"\n")
	lp := openPad(t, h)
	h.s.guard(func() {
		if len(lp.entries) != 3 || lp.rows.Length() != 3 {
			t.Fatalf("%d specs listed, want 3: %v", len(lp.entries), lp.entries)
		}
		if h.s.w.Canvas().Focused() != lp.query {
			t.Fatal("the filter field has no focus")
		}
	})

	// A spec that resolves to an unknown agent: the error at its line.
	r := selectSpec(t, h, lp, "broken.workspace.toml")
	h.s.guard(func() {
		if r.Err == nil || r.Loc.Line != 8 || r.Loc.Field != "agent" {
			t.Fatalf("broken: err %v at %+v, want line 8, agent", r.Err, r.Loc)
		}
		if !strings.Contains(lp.status.Text, "line 8") || !lp.launch.Disabled() {
			t.Fatalf("status %q, launch disabled %v", lp.status.Text, lp.launch.Disabled())
		}
		at := -1
		for i := range lp.grid.Rows {
			if strings.Contains(lp.grid.RowText(i), "▶") {
				at = i
			}
		}
		if at < 0 || !strings.Contains(lp.grid.RowText(at), `agent = "no-such-agent"`) ||
			!strings.Contains(lp.grid.RowText(at+1), "unknown agent") || lp.grid.Rows[at].Style.BackgroundColor() != errLineBG {
			t.Fatalf("the error is not under its line:\n%s", lp.grid.Text())
		}
	})
	// An unknown key: the parser's line.
	r = selectSpec(t, h, lp, "typo.workspace.toml")
	if r.Loc.Line != 2 || r.Loc.Field != "comand" {
		t.Fatalf("typo: %v at %+v", r.Err, r.Loc)
	}

	// A good spec: its plan (panes, commands, cwd, the port), then Launch.
	r = selectSpec(t, h, lp, "demo.workspace.toml")
	h.s.guard(func() {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		plan := lp.grid.Text()
		for _, want := range []string{`workspace "demo": 2 panes, layout even_v`, "echo left-side", work, "PORT="} {
			if !strings.Contains(plan, want) {
				t.Fatalf("the plan lacks %q:\n%s", want, plan)
			}
		}
		if lp.launch.Disabled() {
			t.Fatal("Launch is disabled for a good spec")
		}
	})
	press(t, h, lp.launch)
	var ws workspace.WorkspaceInfo
	h.waitFor("the demo workspace", func() bool {
		for _, w := range h.c.Workspaces.Workspaces() {
			if w.Title == "demo" {
				ws = w
				return true
			}
		}
		return false
	})
	var ids []uint64
	h.waitFor("its two panes on screen", func() bool {
		ids = ids[:0]
		for _, in := range h.c.Workspaces.Surfaces() {
			if in.WorkspaceID == ws.ID {
				ids = append(ids, in.ID)
			}
		}
		return len(ids) == 2 && shownPanelAs[*launchPad](h.s) == nil && h.s.panes.views[ids[0]] != nil && h.s.panes.views[ids[1]] != nil
	})
	h.waitFor("both programs", func() bool {
		return strings.Contains(h.screen(ids[0]), "left-side") && strings.Contains(h.screen(ids[1]), "right-side")
	})
	h.s.guard(func() {
		if rec := h.s.views.launch.recent; len(rec) != 1 || filepath.Base(rec[0]) != "demo.workspace.toml" {
			t.Fatalf("recent = %v", rec)
		}
	})
	// Reopened, the launched spec is listed first, as recent.
	lp = openPad(t, h)
	h.s.guard(func() {
		if lp.entries[0].Origin != specfind.OriginRecent || filepath.Base(lp.entries[0].Path) != "demo.workspace.toml" {
			t.Fatalf("entries %v", lp.entries)
		}
	})
	// Typing filters; Escape closes.
	typeInto(h, lp.query, "typo")
	h.s.guard(func() {
		if len(lp.shown) != 1 || lp.rows.Length() != 1 {
			t.Fatalf("filter shows %v", lp.shown)
		}
	})
	// Down selects the row (its errors show); Escape closes.
	lp.query.TypedKey(&fyne.KeyEvent{Name: fyne.KeyDown})
	h.waitFor("typo selected by key", func() bool {
		return lp.sel != nil && filepath.Base(lp.sel.Entry.Path) == "typo.workspace.toml"
	})
	lp.query.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	h.s.guard(func() {
		if shownPanelAs[*launchPad](h.s) != nil {
			t.Fatal("Escape did not close the launch pad")
		}
	})
}

func TestLaunchPadRunsAndStopsFlow(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir()) // the spec trust store
	h := newHarness(t, nil)
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	dir := t.TempDir()
	// Found walking up from the focused pane's directory.
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "pipe.flow.toml"), `name = "pipe"
[defaults]
timeout_secs = 60

[[step]]
id = "build"
pane = { command = "echo 'BUILD OK'; exec sleep 1000" }
ready = { pattern = "^BUILD OK$" }

[[step]]
id = "wait"
needs = ["build"]
pane = { command = "exec sleep 1000" }
ready = { pattern = "^NEVER$", timeout_secs = 600 }

[[step]]
id = "after"
needs = ["wait"]
pane = { command = "echo after" }
`)
	if _, err := h.c.Workspaces.CreateWorkspace("proj", filepath.Join(dir, "sub"), nil, true); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the pane in the project", func() bool { return h.s.focusedCwdLocked() == filepath.Join(dir, "sub") })
	lp := openPad(t, h)
	r := selectSpec(t, h, lp, "pipe.flow.toml")
	h.s.guard(func() {
		if r.Err != nil || r.Entry.Kind != specfind.KindFlow || r.Entry.Origin != specfind.OriginProject {
			t.Fatalf("pipe: %v %+v", r.Err, r.Entry)
		}
		if !strings.Contains(lp.grid.Text(), "build") || !strings.Contains(lp.grid.Text(), "needs") {
			t.Fatalf("flow plan:\n%s", lp.grid.Text())
		}
	})
	press(t, h, lp.launch)
	// A project's spec: asked about first (see TestLaunchPadAsksTrust).
	h.waitFor("the trust question", func() bool { return lp.trust != nil })
	press(t, h, lp.trustYes)
	h.waitFor("build READY, wait RUNNING", func() bool {
		run := h.s.views.launch.run
		return run != nil && run.status["build"] == flow.StatusReady && run.status["wait"] == flow.StatusRunning
	})
	h.s.guard(func() {
		if !lp.stop.Visible() || !strings.Contains(lp.runHead.Text, `"pipe": running`) {
			t.Fatalf("stop visible %v, head %q", lp.stop.Visible(), lp.runHead.Text)
		}
		if len(lp.runBox.Objects) != 3 {
			t.Fatalf("%d step rows", len(lp.runBox.Objects))
		}
	})
	// A second flow is refused while one runs.
	press(t, h, lp.launch)
	h.s.guard(func() {
		if !strings.Contains(lp.status.Text, "a flow is running") {
			t.Fatalf("status %q", lp.status.Text)
		}
	})
	panes := func() int {
		n := 0
		for _, w := range h.c.Workspaces.Workspaces() {
			if w.Title != "pipe" {
				continue
			}
			for _, in := range h.c.Workspaces.Surfaces() {
				if in.WorkspaceID == w.ID {
					n++
				}
			}
		}
		return n
	}
	h.waitFor("two flow panes", func() bool { return panes() == 2 })
	press(t, h, lp.stop)
	h.waitFor("the flow stopped", func() bool { run := h.s.views.launch.run; return run.done })
	h.s.guard(func() {
		run := h.s.views.launch.run
		if !strings.HasPrefix(run.result, "stopped: interrupted") || run.status["after"] != flow.StatusPending {
			t.Fatalf("result %q, after %s; steps %v, messages %q", run.result, run.status["after"], run.status, run.msg)
		}
		if lp.stop.Visible() || !strings.Contains(lp.runHead.Text, "stopped") {
			t.Fatalf("after stop: stop visible %v, head %q", lp.stop.Visible(), lp.runHead.Text)
		}
	})
	if n := panes(); n != 2 {
		t.Fatalf("%d panes after stop, want the 2 left running", n)
	}
}

// fakeAgents puts executables named like agents first on PATH: codex
// prints where it runs and then echoes its input.
func fakeAgents(t *testing.T) {
	bin := t.TempDir()
	// Like the real agents it turns bracketed paste on when it reads its
	// input: a start prompt waits for that.
	writeFile(t, filepath.Join(bin, "codex"), "#!/bin/sh\nprintf '\\033[?2004h'\necho \"fake codex in $(pwd)\"\nexec cat\n")
	if err := os.Chmod(filepath.Join(bin, "codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":/usr/bin:/bin")
}

func TestQuickLaunch(t *testing.T) {
	fakeAgents(t)
	h := newHarness(t, nil)
	repo := filepath.Dir(gitRepo(t)) + "/repo"
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	if _, err := h.c.Workspaces.CreateWorkspace("repo", repo, nil, true); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the pane in the repository", func() bool { return h.s.focusedCwdLocked() == repo })
	var q *quickLaunch
	h.s.guard(func() {
		if !h.key(fyne.KeyL, ctrlShift) {
			t.Fatal("Ctrl+Shift+L is not bound")
		}
		q = shownPanelAs[*quickLaunch](h.s)
		if q == nil {
			t.Fatal("quick launch did not open")
		}
		// Only installed agents are offered.
		if len(q.agents) != 1 || q.agents[0].Tag != "codex" || q.agent.Selected != q.agents[0].Name {
			t.Fatalf("agents %v, selected %q", q.agents, q.agent.Selected)
		}
	})
	before := len(h.c.Workspaces.Surfaces())

	// A branch git cannot make: main is checked out in the repository.
	typeInto(h, q.branch, "main")
	press(t, h, q.launch)
	h.waitFor("the refusal", func() bool { return !q.busy && q.status.Importance == widget.DangerImportance })
	h.s.guard(func() {
		if !strings.Contains(q.status.Text, "already checked out") || len(h.c.Workspaces.Surfaces()) != before {
			t.Fatalf("status %q, %d panes (was %d)", q.status.Text, len(h.c.Workspaces.Surfaces()), before)
		}
	})

	// git refuses feat/login (the repository has a branch feat): its
	// message as git printed it, and no pane.
	h.s.guard(func() { q.branch.SetText("feat/login") })
	press(t, h, q.launch)
	h.waitFor("git's refusal", func() bool { return !q.busy && strings.Contains(q.status.Text, "feat/login") })
	h.s.guard(func() {
		if !strings.Contains(q.status.Text, "fatal: cannot lock ref 'refs/heads/feat/login'") || len(h.c.Workspaces.Surfaces()) != before {
			t.Fatalf("status %q, %d panes (was %d)", q.status.Text, len(h.c.Workspaces.Surfaces()), before)
		}
	})
	if _, err := os.Stat(repo + ".worktrees/feat-login"); !os.IsNotExist(err) {
		t.Fatalf("a worktree was left: %v", err)
	}

	// A good one: the worktree beside the repository, the agent in it,
	// the prompt typed and not submitted.
	h.s.guard(func() { q.branch.SetText("ui/login") })
	typeInto(h, q.prompt, "add a login page")
	q.branch.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	wt := repo + ".worktrees/ui-login"
	var id uint64
	defer func() {
		if t.Failed() {
			t.Logf("quick launch status: %q", q.status.Text)
			if id != 0 {
				t.Logf("screen:\n%s", h.screen(id))
			}
			for _, in := range h.c.Workspaces.Surfaces() {
				if in.Cwd != nil {
					t.Logf("pane %d in %s", in.ID, *in.Cwd)
				}
			}
		}
	}()
	h.waitFor("the agent's pane", func() bool {
		for _, in := range h.c.Workspaces.Surfaces() {
			if in.Cwd != nil && *in.Cwd == wt {
				id = in.ID
			}
		}
		return id != 0 && shownPanelAs[*quickLaunch](h.s) == nil
	})
	h.waitFor("the agent and its prompt", func() bool {
		s := strings.ReplaceAll(h.screen(id), "\n", "") // the narrow pane wraps
		return strings.Contains(s, "fake codex in "+wt) && strings.Contains(s, "add a login page")
	})
	h.waitFor("the agent's pane focused", func() bool { return h.s.pos.focus == id })
	if s := h.screen(id); strings.Count(s, "add a login page") != 1 {
		t.Fatalf("the prompt was submitted (cat echoed it):\n%s", s)
	}
	if b, _ := runGit(context.Background(), wt, []string{"branch", "--show-current"}); strings.TrimSpace(b) != "ui/login" {
		t.Fatalf("worktree branch %q", b)
	}

	// A git failure is shown as git said it, and no pane opens: a
	// repository without commits has no HEAD to branch from.
	empty := t.TempDir()
	if _, err := runGit(context.Background(), empty, []string{"init", "-q", "-b", "main"}); err != nil {
		t.Fatal(err)
	}
	c := h.s.caller(0)
	n := len(h.c.Workspaces.Surfaces())
	_, err := quickLaunchAgent(context.Background(), c, empty, installedAgent{Tag: "codex", Name: "Codex", Command: "codex"}, "x", "", 0, "vertical")
	if err == nil || !strings.Contains(err.Error(), "\nfatal: ") {
		t.Fatalf("git's error: %v", err)
	}
	if len(h.c.Workspaces.Surfaces()) != n {
		t.Fatal("a pane opened after git failed")
	}
	if _, err := os.Stat(empty + ".worktrees/x"); !os.IsNotExist(err) {
		t.Fatalf("worktree left behind: %v", err)
	}

	// The core makes the worktree and enters it in its registry before
	// the pane exists (an orphan is pruned at the next start); a failed
	// split has the core roll it back, branch and registry entry too.
	split := &splitRefused{c: c, t: t, registry: h.worktrees, want: repo + ".worktrees/orphan"}
	if _, err := quickLaunchAgent(context.Background(), split, repo, installedAgent{Tag: "codex", Name: "Codex", Command: "codex"}, "orphan", "", 0, "vertical"); err == nil || err.Error() != "split refused" {
		t.Fatalf("quick launch with a refused split: %v", err)
	}
	if !split.recorded {
		t.Fatal("the worktree was not in the core's registry before the split")
	}
	if _, err := os.Stat(split.want); !os.IsNotExist(err) {
		t.Fatalf("worktree left behind after a refused split: %v", err)
	}
	if b, _ := runGit(context.Background(), repo, []string{"branch", "--list", "orphan"}); b != "" {
		t.Fatalf("branch left behind after a refused split: %q", b)
	}
	if recs, err := worktree.OpenRegistry(h.worktrees).Records(); err != nil || slices.ContainsFunc(recs, func(r worktree.Record) bool { return r.Path == split.want }) {
		t.Fatalf("registry after the rollback: %+v %v", recs, err)
	}
}

// splitRefused passes calls on to c but refuses surface.split, noting
// whether the worktree at want was in the registry by then.
type splitRefused struct {
	c        flow.Caller
	t        *testing.T
	registry string
	want     string
	recorded bool
}

func (s *splitRefused) Call(ctx context.Context, method string, params, result any) error {
	if method != "surface.split" {
		return s.c.Call(ctx, method, params, result)
	}
	recs, err := worktree.OpenRegistry(s.registry).Records()
	if err != nil {
		s.t.Errorf("registry: %v", err)
	}
	s.recorded = slices.ContainsFunc(recs, func(r worktree.Record) bool { return r.Path == s.want })
	return errors.New("split refused")
}

func TestAgentLaunchersAndTemplate(t *testing.T) {
	fakeAgents(t)
	h := newHarness(t, nil)
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	h.waitFor("the launcher buttons", func() bool { return len(h.s.chrome.side.launchers.Objects) == 1 })
	before := len(h.c.Workspaces.Surfaces())
	press(t, h, h.s.chrome.side.launchers.Objects[0].(*widget.Button))
	var id uint64
	h.waitFor("the agent's pane", func() bool {
		ss := h.c.Workspaces.Surfaces()
		if len(ss) != before+1 {
			return false
		}
		id = ss[len(ss)-1].ID
		return true
	})
	h.waitFor("codex running", func() bool { return strings.Contains(h.screen(id), "fake codex in") })

	// The template: the spec written, parsed, selected in the launch pad.
	dir := t.TempDir()
	var tv *templateView
	h.s.guard(func() {
		if !h.key(fyne.KeyI, ctrlShift) { // new_workspace_from_template (Ctrl+Shift+T reopens)
			t.Fatal("Ctrl+Shift+I is not bound")
		}
		tv = shownPanelAs[*templateView](h.s)
		if tv == nil || len(tv.agents) != 1 {
			t.Fatal("the template view did not open with the installed agent")
		}
		tv.checks.SetSelected([]string{tv.agents[0].Name})
		tv.folder.SetText(dir)
		s := h.s
		tv.write()
		if shownPanelAs[*templateView](s) != nil || shownPanelAs[*launchPad](s) == nil {
			t.Fatalf("after writing: %q", tv.status.Text)
		}
	})
	p := filepath.Join(dir, specFileName)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := flow.ParseWorkspace(data)
	if err != nil {
		t.Fatalf("%v:\n%s", err, data)
	}
	if len(spec.Panes) != 1 || *spec.Panes[0].Agent != "codex" || *spec.Panes[0].Cwd != dir {
		t.Fatalf("spec:\n%s", data)
	}
	lp := shownPanelAs[*launchPad](h.s)
	h.waitFor("the written spec selected", func() bool { return lp.sel != nil && lp.sel.Err == nil && lp.sel.Entry.Path == p })
	// Writing again never replaces the file.
	writeFile(t, p, "# mine\n")
	h.s.guard(func() {
		closeShownPanelLocked[*launchPad](h.s)
		h.s.runActionLocked(keymap.NewFromTemplate)
		tv = shownPanelAs[*templateView](h.s)
		tv.folder.SetText(dir)
		tv.write()
		if shownPanelAs[*templateView](h.s) == nil || !strings.Contains(tv.status.Text, "already exists") {
			t.Fatalf("status %q", tv.status.Text)
		}
	})
	if b, _ := os.ReadFile(p); string(b) != "# mine\n" {
		t.Fatalf("clobbered: %q", b)
	}
}

// press taps b as a user would, without test.Tap: test.Tap first walks
// the whole canvas to find b's position, and with Fyne's test driver
// (fyne.Do runs on the caller's goroutine) the event reader may be
// rebuilding that canvas at the same moment (a new flow pane), a data race
// the race detector caught. press checks under the shell's lock that b can
// be tapped, then runs its action, which takes the lock itself.
func press(t *testing.T, h *harness, b *widget.Button) {
	t.Helper()
	ok, name := false, ""
	h.s.guard(func() { ok, name = b.Visible() && !b.Disabled() && b.OnTapped != nil, b.Text })
	if !ok {
		t.Fatalf("button %q cannot be tapped (hidden or disabled)", name)
	}
	b.OnTapped()
}

// tap taps o as a user would, without test.Tap (see press): it checks
// under the shell's lock that o is visible, then calls its Tapped, which
// takes the lock itself where it needs it.
func (h *harness) tap(o fyne.Tappable) {
	h.t.Helper()
	visible := false
	h.s.guard(func() { visible = o.(fyne.CanvasObject).Visible() })
	if !visible {
		h.t.Fatalf("%T cannot be tapped: hidden", o)
	}
	o.Tapped(&fyne.PointEvent{Position: fyne.NewPos(1, 1)})
}

// TestLaunchPadAsksTrust: a project's spec (not the library's) runs only
// once trusted. The launch pad asks in a dialog that shows the plan with
// its control characters visible; Cancel runs nothing; "Run and trust"
// runs it and records trust, so the next launch does not ask; a changed
// spec is asked about again.
func TestLaunchPadAsksTrust(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	h := newHarness(t, nil)
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	dir := t.TempDir()
	spec := filepath.Join(dir, "paneflow.workspace.toml")
	body := "name = \"repo\"\n\n[[panes]]\nname = \"p\"\ncommand = \"echo TRUSTED-RAN; exec sh\"\nenv = { NOTE = \"x #\\r\\u001b[2K  harmless\" }\n"
	writeFile(t, spec, body)
	if _, err := h.c.Workspaces.CreateWorkspace("proj", dir, nil, true); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the pane in the project", func() bool { return h.s.focusedCwdLocked() == dir })
	repoPanes := func() int {
		n := 0
		for _, w := range h.c.Workspaces.Workspaces() {
			if w.Title == "repo" {
				for _, in := range h.c.Workspaces.Surfaces() {
					if in.WorkspaceID == w.ID {
						n++
					}
				}
			}
		}
		return n
	}
	lp := openPad(t, h)
	selectSpec(t, h, lp, "paneflow.workspace.toml")
	press(t, h, lp.launch)
	h.waitFor("the trust question", func() bool { return lp.trust != nil })
	h.s.guard(func() {
		plan := lp.trustPlan.Text()
		if !strings.Contains(plan, `NOTE=x #\x0d\x1b[2K  harmless`) || strings.ContainsAny(plan, "\r\x1b") || !strings.Contains(plan, "echo TRUSTED-RAN; exec sh") {
			t.Fatalf("the dialog does not show the plan with its controls visible:\n%q", plan)
		}
	})
	press(t, h, lp.trustNo)
	h.s.guard(func() {
		if lp.trust != nil || !strings.Contains(lp.status.Text, "not trusted") || lp.launch.Disabled() {
			t.Fatalf("after Cancel: dialog %v, status %q, launch disabled %v", lp.trust != nil, lp.status.Text, lp.launch.Disabled())
		}
	})
	if n := repoPanes(); n != 0 {
		t.Fatalf("Cancel ran the spec: %d panes", n)
	}
	if _, err := os.Stat(filepath.Join(state, "paneflow", "trusted-specs.json")); err == nil {
		t.Fatal("Cancel recorded trust")
	}

	press(t, h, lp.launch)
	h.waitFor("the trust question again", func() bool { return lp.trust != nil })
	press(t, h, lp.trustYes)
	h.waitFor("the trusted spec's pane, the pad closed", func() bool { return repoPanes() == 1 && shownPanelAs[*launchPad](h.s) == nil })
	st, err := spectrust.Store{Path: filepath.Join(state, "paneflow", spectrust.FileName)}.Check(spec, []byte(body))
	if err != nil || st != spectrust.Trusted {
		t.Fatalf("trust after Run and trust: %v, %v", st, err)
	}

	// Trusted: no question. Changed: asked again.
	lp = openPad(t, h)
	selectSpec(t, h, lp, "paneflow.workspace.toml")
	press(t, h, lp.launch)
	h.waitFor("a second workspace, no question, the pad closed", func() bool {
		if lp.trust != nil {
			t.Fatal("a trusted spec was asked about")
		}
		return repoPanes() == 2 && shownPanelAs[*launchPad](h.s) == nil
	})
	writeFile(t, spec, body+"\n[[panes]]\ncommand = \"echo CHANGED\"\n")
	lp = openPad(t, h)
	selectSpec(t, h, lp, "paneflow.workspace.toml")
	press(t, h, lp.launch)
	h.waitFor("the question for the changed spec", func() bool { return lp.trust != nil })
	h.s.guard(func() { closeShownPanelLocked[*launchPad](h.s) }) // closing the pad answers no
	if n := repoPanes(); n != 2 {
		t.Fatalf("closing the pad ran the changed spec: %d panes", n)
	}
}

// TestAgentButtonSplitsTheLargestPane: an agent button splits the pane
// with the most room, along its longer side, and focuses the agent's
// pane; it split the focused pane, however narrow (a 14-column pane).
func TestAgentButtonSplitsTheLargestPane(t *testing.T) {
	fakeAgents(t)
	h := newHarness(t, nil)
	first, second := h.twoPanes()
	third, _, err := h.c.Workspaces.Split(second, workspace.Vertical, workspace.PaneSpec{})
	if err != nil {
		t.Fatal(err)
	}
	h.s.work.mutate("focus", func() error { return h.s.b.Focus(third.ID) })
	var narrow, narrowRows int
	h.waitFor("the third pane focused and laid out", func() bool {
		v := h.s.panes.views[third.ID]
		if h.s.pos.focus != third.ID || v == nil {
			return false
		}
		narrow, narrowRows = v.Cells()
		wide, _ := h.s.panes.views[first].Cells()
		return narrow > 0 && wide > narrow
	})
	h.waitFor("the launcher buttons", func() bool { return len(h.s.chrome.side.launchers.Objects) == 1 })
	press(t, h, h.s.chrome.side.launchers.Objects[0].(*widget.Button))
	var id uint64
	defer func() {
		if t.Failed() {
			t.Logf("panes %v, focus %d, shape %s", h.c.Workspaces.Surfaces(), h.s.pos.focus, h.shape())
		}
	}()
	h.waitFor("the agent's pane, focused and laid out", func() bool {
		for _, in := range h.c.Workspaces.Surfaces() {
			if in.ID != first && in.ID != second && in.ID != third.ID {
				id = in.ID
			}
		}
		if id == 0 || h.s.pos.focus != id || h.s.panes.views[id] == nil {
			return false
		}
		c, _ := h.s.panes.views[id].Cells()
		return c > 0
	})
	h.s.guard(func() {
		if c, r := h.s.panes.views[third.ID].Cells(); c != narrow || r != narrowRows {
			t.Errorf("the focused narrow pane went from %dx%d to %dx%d: it was split", narrow, narrowRows, c, r)
		}
		if c, r := h.s.panes.views[id].Cells(); c*r < narrow*narrowRows {
			t.Errorf("the agent's pane has %dx%d cells, fewer than the narrowest pane's %dx%d", c, r, narrow, narrowRows)
		}
	})
}

func TestAgentPlace(t *testing.T) {
	tests := []struct {
		name   string
		panes  []paneBox
		focus  uint64
		target uint64
		dir    string
	}{
		{"none known", nil, 7, 7, "vertical"},
		{"wide pane", []paneBox{{1, 800, 400, 100, 24}}, 1, 1, "vertical"},
		{"tall pane", []paneBox{{1, 400, 800, 50, 48}}, 1, 1, "horizontal"},
		{"largest, not the focused", []paneBox{{1, 800, 600, 100, 36}, {2, 100, 600, 12, 36}}, 2, 1, "vertical"},
		{"the focused one on a tie", []paneBox{{1, 400, 600, 50, 36}, {2, 400, 600, 50, 36}}, 2, 2, "horizontal"},
	}
	for _, tt := range tests {
		if target, dir := agentPlace(tt.panes, tt.focus); target != tt.target || dir != tt.dir {
			t.Errorf("%s: agentPlace = %d %s, want %d %s", tt.name, target, dir, tt.target, tt.dir)
		}
	}
}
