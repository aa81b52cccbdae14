//go:build !windows

package app

import (
	"context"
	"image/color"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/paneflow-go/paneflow/app/keymap"
	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/internal/gittest"
	"github.com/paneflow-go/paneflow/workspace"
)

const ctrlShift = fyne.KeyModifierControl | fyne.KeyModifierShift

func TestActionTitles(t *testing.T) {
	for _, a := range keymap.Actions() {
		if actionTitles[a] == "" {
			t.Errorf("action %q has no palette title", a)
		}
	}
	items := paletteItems(keymap.Default("linux"))
	for _, it := range items {
		if it.Action == keymap.CommandPalette {
			t.Error("the palette lists itself")
		}
		if it.Action == keymap.SplitVertically && it.Shortcut != "Ctrl+Shift+E" {
			t.Errorf("split right's shortcut = %q", it.Shortcut)
		}
	}
	// A user's override shows in the palette.
	k := keymap.Default("linux")
	if w := k.Override(map[string]string{"ctrl+alt+x": "split_vertically"}); len(w) != 0 {
		t.Fatal(w)
	}
	for _, it := range paletteItems(k) {
		if it.Action == keymap.SplitVertically && it.Shortcut != "Ctrl+Alt+X" {
			t.Errorf("overridden shortcut = %q", it.Shortcut)
		}
	}
}

func TestFuzzyPalette(t *testing.T) {
	for _, c := range []struct {
		q, text string
		ok      bool
	}{
		{"", "anything", true},
		{"spr", "Split pane right", true},
		{"SPLIT right", "Split pane right", true},
		{"xyz", "Split pane right", false},
		{"ag", "Agents overview", true},
		{"rtghi", "right", false},
	} {
		if _, ok := fuzzyScore(c.q, c.text); ok != c.ok {
			t.Errorf("fuzzyScore(%q, %q) ok = %v, want %v", c.q, c.text, ok, c.ok)
		}
	}
	items := paletteItems(keymap.Default("linux"))
	got := filterPalette(items, "agents")
	if len(got) == 0 || got[0].Action != keymap.OpenAgentsView {
		t.Fatalf("agents → %v, want the agents overview first", got)
	}
	got = filterPalette(items, "split right")
	if len(got) == 0 || got[0].Action != keymap.SplitVertically {
		t.Fatalf("split right → %v", got)
	}
	// Word starts beat scattered letters: "cp" is Close pane before
	// aCtion names that merely contain c…p.
	got = filterPalette(items, "cp")
	if len(got) == 0 || got[0].Action != keymap.ClosePane {
		t.Fatalf("cp → %v", got)
	}
	if n := len(filterPalette(items, "")); n != len(items) {
		t.Fatalf("empty query lists %d of %d", n, len(items))
	}
}

// typeInto types text into a focused entry as the keyboard does; the
// caller does not hold the shell's lock.
//
// In the app, keystrokes and the work the shell posts (fyne.Do) both run on
// the UI goroutine, one at a time. Fyne's test driver runs posted work on
// the poster's goroutine instead (a timer's, the event reader's), so each
// rune changes the entry under the shell's lock, as that work holds it;
// the entry's OnChanged, which takes the lock itself, runs right after.
func typeInto(h *harness, e *keyEntry, text string) {
	for _, r := range text {
		var changed func(string)
		var now string
		h.s.guard(func() {
			changed, e.OnChanged = e.OnChanged, nil
			e.TypedRune(r)
			e.OnChanged, now = changed, e.Text
		})
		if changed != nil {
			changed(now)
		}
	}
}

// choose selects option v of a radio group as a click does, changing it
// under the shell's lock for the reason typeInto gives; its OnChanged runs
// right after.
func choose(h *harness, g *widget.RadioGroup, v string) {
	var changed func(string)
	h.s.guard(func() {
		changed, g.OnChanged = g.OnChanged, nil
		g.SetSelected(v)
		g.OnChanged = changed
	})
	if changed != nil {
		changed(v)
	}
}

func TestPaletteRunsAction(t *testing.T) {
	h := newHarness(t, nil)
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	var p *palette
	h.s.guard(func() {
		if !h.key(fyne.KeyP, ctrlShift) {
			t.Fatal("Ctrl+Shift+P is not bound")
		}
		p = shownPanelAs[*palette](h.s)
		if p == nil || h.s.w.Canvas().Overlays().Top() == nil {
			t.Fatal("the palette did not open")
		}
		if h.s.w.Canvas().Focused() != p.list.query {
			t.Fatal("the palette's query field has no focus")
		}
		if len(p.shown) != len(p.items) || len(p.list.boxes) != len(p.items) {
			t.Fatalf("an empty query shows %d rows of %d", len(p.shown), len(p.items))
		}
	})
	// Escape closes it and the pane gets the keyboard back.
	p.list.query.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	h.s.guard(func() {
		if shownPanelAs[*palette](h.s) != nil || h.s.w.Canvas().Overlays().Top() != nil {
			t.Fatal("Escape did not close the palette")
		}
		if h.s.w.Canvas().Focused() != h.s.panes.views[h.s.pos.focus] {
			t.Fatal("the pane did not get the focus back")
		}
		h.key(fyne.KeyP, ctrlShift)
		p = shownPanelAs[*palette](h.s)
	})
	typeInto(h, p.list.query, "split")
	h.s.guard(func() {
		if len(p.shown) < 2 || p.shown[0].Action != keymap.SplitHorizontally || p.shown[1].Action != keymap.SplitVertically {
			t.Fatalf("split → %v", p.shown)
		}
	})
	// Down moves to "Split pane right", Enter runs it.
	p.list.query.TypedKey(&fyne.KeyEvent{Name: fyne.KeyDown})
	h.s.guard(func() {
		if p.list.cursor != 1 {
			t.Fatalf("cursor = %d after Down", p.list.cursor)
		}
	})
	p.list.query.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.waitFor("the split", func() bool { return h.shape() == "V[p p]" && shownPanelAs[*palette](h.s) == nil })
	// A click on a row runs it too.
	h.s.guard(func() { h.key(fyne.KeyP, ctrlShift); p = shownPanelAs[*palette](h.s) })
	typeInto(h, p.list.query, "equalize")
	h.s.guard(func() {
		if len(p.shown) == 0 || p.shown[0].Action != keymap.SplitEqualize {
			t.Fatalf("equalize → %v", p.shown)
		}
	})
	h.tap(p.list.boxes[0])
	h.waitFor("the palette closed by the click", func() bool { return shownPanelAs[*palette](h.s) == nil })
}

func TestOverviewRows(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	b := &agentBoard{now: func() time.Time { return now }}
	cwd := "/src/api"
	snap := &snapshot{
		Workspaces: []workspace.WorkspaceInfo{{ID: 1, Title: "web"}, {ID: 2, Title: "api"}},
		Surfaces: []workspace.SurfaceInfo{
			{ID: 10, WorkspaceID: 1, Name: "one"}, {ID: 11, WorkspaceID: 1, Name: "two"},
			{ID: 20, WorkspaceID: 2, Name: "three", Cwd: &cwd}, {ID: 30, WorkspaceID: 2, Name: "closed"},
		},
		Open: map[uint64]uint64{10: 1, 11: 1, 20: 2},
	}
	b.apply(bus.AgentState{SurfaceID: 10, Tool: "codex", PID: 1, State: stateThinking, Hooked: true, ActiveToolName: "Bash"})
	now = now.Add(time.Minute)
	b.apply(bus.AgentState{SurfaceID: 11, Tool: "claude", PID: 2, State: stateWaiting, Hooked: true, Message: "Allow Bash?\nmore"})
	b.apply(bus.AgentState{SurfaceID: 20, Tool: "claude", PID: 3, State: stateFinished, Hooked: true, LastResult: "All tests pass"})
	b.apply(bus.AgentState{SurfaceID: 30, Tool: "gemini", PID: 4, State: stateWaiting, Hooked: true})
	now = now.Add(30 * time.Second)
	// The same state again keeps its time.
	b.apply(bus.AgentState{SurfaceID: 10, Tool: "codex", PID: 1, State: stateThinking, Hooked: true})
	branch := func(dir string) (string, bool) { return "feat-x", dir == cwd }

	rows := overviewRows(snap, b, filterAll, "", branch)
	var got []uint64
	for _, r := range rows {
		got = append(got, r.Surface)
	}
	if len(got) != 3 || got[0] != 11 || got[1] != 10 || got[2] != 20 {
		t.Fatalf("order = %v, want waiting 11, thinking 10, finished 20 (closed pane 30 dropped)", got)
	}
	if r := rows[0]; r.Question != "Allow Bash?" || r.Workspace != "web" || r.Tool != "Claude Code" || now.Sub(r.Since) != 30*time.Second {
		t.Fatalf("waiting row = %+v", r)
	}
	if r := rows[1]; now.Sub(r.Since) != 90*time.Second || stateText(r) != "thinking" {
		t.Fatalf("thinking row = %+v (%s)", r, stateText(r))
	}
	if r := rows[2]; r.Result != "All tests pass" || r.Branch != "feat-x" || !r.Worktree {
		t.Fatalf("finished row = %+v", r)
	}
	for filter, want := range map[string]int{filterWaiting: 1, filterWorking: 1, filterDone: 1, filterProblems: 0, filterAll: 3} {
		if n := len(overviewRows(snap, b, filter, "", branch)); n != want {
			t.Errorf("filter %s: %d rows, want %d", filter, n, want)
		}
	}
	for search, want := range map[string]int{"allow": 1, "FEAT-X": 1, "api": 1, "codex": 1, "nothing like it": 0} {
		if n := len(overviewRows(snap, b, filterAll, search, branch)); n != want {
			t.Errorf("search %q: %d rows, want %d", search, n, want)
		}
	}
	for d, want := range map[time.Duration]string{42 * time.Second: "42s", 7 * time.Minute: "7m", 72 * time.Minute: "1h 12m"} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestGitBranch(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	sub := filepath.Join(repo, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(repo, ".git", "worktrees", "wt"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	if b, wt := gitBranch(sub); b != "main" || wt {
		t.Fatalf("repo: %q %v", b, wt)
	}
	wt := filepath.Join(root, "wt")
	if err := os.MkdirAll(wt, 0o755); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(wt, ".git"), "gitdir: "+filepath.Join(repo, ".git", "worktrees", "wt")+"\n")
	write(filepath.Join(repo, ".git", "worktrees", "wt", "HEAD"), "0123456789abcdef0123456789abcdef01234567\n")
	if b, w := gitBranch(wt); b != "01234567" || !w {
		t.Fatalf("detached worktree: %q %v", b, w)
	}
	if b, _ := gitBranch(root); b != "" {
		t.Fatalf("no repository: %q", b)
	}
}

func TestAgentsOverviewJumps(t *testing.T) {
	h := newHarness(t, nil)
	_, second := h.twoPanes()
	// A second workspace, with a waiting agent.
	ws, err := h.c.Workspaces.CreateWorkspace("api", t.TempDir(), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	var third uint64
	h.waitFor("the second workspace's pane", func() bool {
		for _, in := range h.s.pos.snap.Surfaces {
			if in.WorkspaceID == ws.ID {
				third = in.ID
			}
		}
		return third != 0 && h.s.pos.snap.Open[second] != 0
	})
	h.c.Bus.Publish(bus.AgentState{SurfaceID: second, Tool: "codex", PID: 7, State: stateThinking, Hooked: true})
	h.c.Bus.Publish(bus.AgentState{SurfaceID: third, Tool: "claude", PID: 8, State: stateWaiting, Hooked: true, Message: "Run the migration?"})
	h.waitFor("the badge", func() bool {
		return h.s.chrome.side.agents.Text == "Agents (2)  ● 1 waiting" && h.s.w.Title() == "Paneflow — 1 waiting"
	})
	var ov *overview
	h.s.guard(func() {
		if !h.key(fyne.KeyA, ctrlShift) {
			t.Fatal("Ctrl+Shift+A is not bound")
		}
		ov = h.s.chrome.ov
		if ov == nil || len(ov.rows) != 2 || ov.rows[0].Surface != third || ov.rows[1].Surface != second {
			t.Fatalf("rows = %+v, want the waiting agent first", ov)
		}
		if ov.header.Text != "Agents — 2 listed, 1 waiting" {
			t.Fatalf("header = %q", ov.header.Text)
		}
	})
	// Updates arrive while it is open.
	h.c.Bus.Publish(bus.AgentState{SurfaceID: second, Tool: "codex", PID: 7, State: stateWaiting, Previous: stateThinking, Hooked: true, Message: "Apply patch?"})
	h.waitFor("the live update", func() bool { return strings.HasSuffix(ov.header.Text, "2 waiting") })
	// Search, then Enter jumps to the pane in the other workspace.
	typeInto(h, ov.list.query, "migration")
	h.s.guard(func() {
		if len(ov.rows) != 1 || ov.rows[0].Surface != third {
			t.Fatalf("search rows = %+v", ov.rows)
		}
	})
	ov.list.query.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.waitFor("the jump", func() bool { return h.s.chrome.ov == nil && h.s.pos.wsID == ws.ID && h.s.pos.focus == third })
	// The filter: only the working agents.
	h.s.guard(func() { h.key(fyne.KeyA, ctrlShift); ov = h.s.chrome.ov })
	choose(h, ov.filter, filterWorking)
	h.s.guard(func() {
		if len(ov.rows) != 0 {
			t.Fatalf("working rows = %+v", ov.rows)
		}
	})
	choose(h, ov.filter, filterWaiting)
	h.s.guard(func() {
		if len(ov.rows) != 2 {
			t.Fatalf("waiting rows = %+v", ov.rows)
		}
	})
	// The sidebar's entry opens and closes it too.
	h.tap(h.s.chrome.side.agents)
	h.s.guard(func() {
		if h.s.chrome.ov != nil {
			t.Fatal("the sidebar's Agents entry did not close the open overview")
		}
	})
	h.tap(h.s.chrome.side.agents)
	h.s.guard(func() {
		if h.s.chrome.ov == nil {
			t.Fatal("the sidebar's Agents entry did not open the overview")
		}
	})
}

// screen is pane id's screen as text.
func (h *harness) screen(id uint64) string {
	sf, ok := h.c.Workspaces.Surface(id)
	if !ok {
		return ""
	}
	return strings.Join(sf.Terminal().Emulator().Lines(0, 24), "\n")
}

func TestComposerDeliversAndQueues(t *testing.T) {
	h := newHarness(t, nil)
	var id uint64
	h.waitFor("the first pane", func() bool { id = h.s.pos.focus; return id != 0 })
	submitKey := &desktop.CustomShortcut{KeyName: fyne.KeyReturn, Modifier: fyne.KeyModifierShortcutDefault}
	var c *composer
	h.s.guard(func() {
		if !h.key(fyne.KeySpace, ctrlShift) {
			t.Fatal("Ctrl+Shift+Space is not bound")
		}
		c = h.s.chrome.comp
		if c.pane != id || !c.Visible() || h.s.w.Canvas().Focused() != c.entry {
			t.Fatal("the composer did not open on the focused pane")
		}
	})
	typeInto(h, c.entry, "echo composed-one")
	c.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn}) // a new line in the prompt, not a submit
	h.s.guard(func() {
		if c.pane == 0 || c.entry.Text != "echo composed-one\n" {
			t.Fatalf("entry = %q, open = %v", c.entry.Text, c.pane != 0)
		}
		c.entry.SetText("echo composed-one")
	})
	c.entry.TypedShortcut(submitKey)
	h.waitFor("the prompt run in the pane", func() bool {
		return strings.Count(h.screen(id), "composed-one") >= 2 && c.pane == 0 && !c.Visible()
	})
	// Prefill (Alt+Enter) types without Enter.
	h.s.guard(func() { h.key(fyne.KeySpace, ctrlShift) })
	typeInto(h, c.entry, "echo prefilled-two")
	c.entry.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyReturn, Modifier: fyne.KeyModifierAlt})
	h.waitFor("the prefilled prompt", func() bool { return strings.Contains(h.screen(id), "echo prefilled-two") })
	sf, _ := h.c.Workspaces.Surface(id)
	if err := sf.Terminal().SendInput([]byte{0x15}); err != nil { // Ctrl+U drops the prefilled line
		t.Fatal(err)
	}
	// While the agent thinks, the prompt waits.
	h.c.Bus.Publish(bus.AgentState{SurfaceID: id, Tool: "claude", PID: 9, State: stateThinking, Hooked: true})
	h.waitFor("the thinking agent", func() bool { st, ok := h.s.agents.status(id); return ok && st.State == stateThinking })
	h.s.guard(func() { h.key(fyne.KeySpace, ctrlShift) })
	typeInto(h, c.entry, "echo queued-three")
	c.entry.TypedShortcut(submitKey)
	h.s.guard(func() {
		if q, ok := h.s.panes.queued[id]; !ok || q.text != "echo queued-three" || !q.submit {
			t.Fatalf("queued = %+v", h.s.panes.queued)
		}
		h.key(fyne.KeySpace, ctrlShift)
		if c.chip.Text != "1 queued" {
			t.Fatalf("chip = %q", c.chip.Text)
		}
		c.close()
	})
	h.c.Bus.Publish(bus.AgentState{SurfaceID: id, Tool: "claude", PID: 9, State: stateFinished, Previous: stateThinking, Hooked: true})
	h.waitFor("the queued prompt delivered", func() bool {
		return strings.Count(h.screen(id), "queued-three") >= 2 && len(h.s.panes.queued) == 0
	})
}

// gitRepo makes a repository with a commit on main and a linked worktree
// on branch feat with one commit, one uncommitted change and one
// untracked file; it returns the worktree's directory.
func gitRepo(t *testing.T) string {
	t.Helper()
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1") // for the app's own git too
	root := t.TempDir()
	repo, wt := filepath.Join(root, "repo"), filepath.Join(root, "repo.wt")
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gittest.Repo(t, repo, map[string]string{"a.txt": "one\n"})
	gittest.Git(t, repo, "worktree", "add", "-q", "-b", "feat", wt)
	write(filepath.Join(wt, "a.txt"), "one\ntwo\n")
	gittest.Git(t, wt, "commit", "-q", "-am", "two")
	write(filepath.Join(wt, "a.txt"), "one\ntwo\nthree uncommitted\n")
	write(filepath.Join(wt, "b.txt"), "brand new\n")
	return wt
}

func TestLoadGitDiff(t *testing.T) {
	wt := gitRepo(t)
	d, err := loadGitDiff(context.Background(), filepath.Join(wt))
	if err != nil {
		t.Fatal(err)
	}
	if d.Branch != "feat" || d.BaseRef != "main" || d.Root != wt {
		t.Fatalf("diff = %+v", d)
	}
	if len(d.Files) != 2 || d.Files[0] != (diffFile{Status: "M", Path: "a.txt"}) || d.Files[1] != (diffFile{Status: "?", Path: "b.txt"}) {
		t.Fatalf("files = %+v", d.Files)
	}
	for _, want := range []string{"+two", "+three uncommitted", "+brand new", "diff --git a/a.txt b/a.txt"} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("diff lacks %q:\n%s", want, d.Text)
		}
	}
	alone, _ := diffRender{lines: parseDiff(d.Text), file: "a.txt"}.rows()
	var text strings.Builder
	for _, r := range alone {
		for _, c := range r.Cells {
			text.WriteRune(c.Rune)
		}
		text.WriteByte('\n')
	}
	if got := text.String(); strings.Contains(got, "brand new") || !strings.Contains(got, "+two") {
		t.Errorf("a.txt alone:\n%s", got)
	}
	rows, _ := diffRender{lines: parseDiff("diff --git a/x b/x\n@@ -1 +1 @@\n-old\n+new\n ctx")}.rows()
	for i, want := range []color.Color{diffHeader, diffHunk, diffDel, diffAdd, nil} {
		st := rows[i].Style
		if (st == nil) != (want == nil) || st != nil && st.TextColor() != want {
			t.Errorf("row %d style = %v, want %v", i, st, want)
		}
	}
	// No commits yet: everything is untracked against the empty tree.
	fresh := t.TempDir()
	if _, err := runGit(context.Background(), fresh, []string{"init", "-q"}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fresh, "x"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d, err := loadGitDiff(context.Background(), fresh); err != nil || d.Base != emptyTree || len(d.Files) != 1 {
		t.Fatalf("fresh repository: %+v, %v", d, err)
	}
	// Outside a repository: git's own words.
	if _, err := loadGitDiff(context.Background(), t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a git repository") {
		t.Fatalf("outside a repository: %v", err)
	}
}

func TestDiffViewFollowsFiles(t *testing.T) {
	h := newHarness(t, nil)
	wt := gitRepo(t)
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	if _, err := h.c.Workspaces.CreateWorkspace("wt", wt, nil, true); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the pane in the worktree", func() bool { return h.s.focusedCwdLocked() == wt })
	h.s.guard(func() {
		if !h.key(fyne.KeyG, ctrlShift) {
			t.Fatal("Ctrl+Shift+G is not bound")
		}
		if shownPanelAs[*diffView](h.s) == nil {
			t.Fatal("the Diff view did not open")
		}
	})
	dv := shownPanelAs[*diffView](h.s)
	gridHas := func(s string) bool { return strings.Contains(dv.grid.Text(), s) }
	h.waitFor("the diff", func() bool { return dv.loads > 0 && gridHas("+two") && gridHas("+brand new") })
	h.s.guard(func() {
		if !strings.Contains(dv.header.Text, "feat against main") || !strings.Contains(dv.header.Text, "2 files") {
			t.Fatalf("header = %q", dv.header.Text)
		}
		for i := range dv.grid.Rows {
			if strings.HasSuffix(dv.grid.RowText(i), "+two") && dv.grid.Rows[i].Style.TextColor() != diffAdd {
				t.Fatal("an added line is not green")
			}
		}
	})
	// A new file in the worktree shows without asking.
	if err := os.WriteFile(filepath.Join(wt, "c.txt"), []byte("seen\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the new file", func() bool { return gridHas("+seen") && len(dv.files.Objects) == 4 })
	// The file list shows one file alone, its row highlighted (the
	// selection showed nowhere but in the diff).
	selected := func() (rows []int) {
		for i, o := range dv.files.Objects {
			if o.(*hoverRow).bg.FillColor == theme.Color(theme.ColorNameSelection) {
				rows = append(rows, i)
			}
		}
		return rows
	}
	h.s.guard(func() {
		if got := selected(); len(got) != 1 || got[0] != 0 {
			t.Errorf("highlighted rows %v, want [0] (All files)", got)
		}
	})
	h.tap(dv.files.Objects[1].(*hoverRow))
	h.s.guard(func() {
		if gridHas("brand new") || !gridHas("+two") {
			t.Fatalf("a.txt alone shows:\n%s", dv.grid.Text())
		}
		if got := selected(); len(got) != 1 || got[0] != 1 {
			t.Errorf("highlighted rows %v, want [1] (a.txt)", got)
		}
	})
	// Escape closes it.
	h.s.w.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	h.s.guard(func() {
		if shownPanelAs[*diffView](h.s) != nil || h.s.w.Canvas().Overlays().Top() != nil {
			t.Fatal("Escape did not close the Diff view")
		}
	})
}

func TestSidebarPortChips(t *testing.T) {
	snap := &snapshot{
		Workspaces: []workspace.WorkspaceInfo{{ID: 1, Title: "web"}},
		Surfaces:   []workspace.SurfaceInfo{{ID: 10, WorkspaceID: 1, Name: "dev"}},
		Open:       map[uint64]uint64{10: 1},
		Ports:      map[uint64]string{10: "3000 5173"},
	}
	cards := sidebarModel(snap, &agentBoard{}, nil)
	if p := cards[0].Panes[0]; p.Ports != "3000 5173" {
		t.Fatalf("pane row = %+v", p)
	}
	var opened []string
	sb := newSidebar(func(int) {}, func(uint64) {}, func() {}, func() {}, "")
	sb.onPort = func(id uint64, p string) { opened = append(opened, strconv.FormatUint(id, 10)+":"+p) }
	row := sb.paneRow(cards[0].Panes[0])
	var buttons []*widget.Button
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch o := o.(type) {
		case *widget.Button:
			buttons = append(buttons, o)
		case *fyne.Container:
			for _, c := range o.Objects {
				walk(c)
			}
		case *tapBox:
			walk(o.content)
		}
	}
	walk(row)
	if len(buttons) != 2 || buttons[0].Text != ":3000" || buttons[1].Text != ":5173" {
		t.Fatalf("chips = %v", buttons)
	}
	test.Tap(buttons[1])
	if len(opened) != 1 || opened[0] != "10:5173" {
		t.Fatalf("opened = %v", opened)
	}
}

func TestBroadcastGroup(t *testing.T) {
	h := newHarness(t, nil)
	first, second := h.twoPanes()
	h.s.guard(func() {
		// Not in a group: the key asks for the group's name.
		if !h.key(fyne.KeyB, ctrlShift) || h.s.w.Canvas().Overlays().Top() == nil {
			t.Fatal("Ctrl+Shift+B did not ask for a group")
		}
		h.s.w.Canvas().Overlays().Top().Hide()
		h.s.setGroupLocked(first, "api")
		h.s.setGroupLocked(second, "api")
		if got := h.s.groupMembersLocked("api"); len(got) != 2 {
			t.Fatalf("members = %v", got)
		}
	})
	h.waitFor("the first pane focused", func() bool { return h.s.pos.focus == first })
	var c *composer
	h.s.guard(func() {
		h.key(fyne.KeySpace, ctrlShift)
		c = h.s.chrome.comp
		if !c.broadcast.Visible() || !strings.Contains(c.broadcast.Text, `"api" (2 panes`) {
			t.Fatalf("broadcast check = %q visible=%v", c.broadcast.Text, c.broadcast.Visible())
		}
	})
	c.broadcast.SetChecked(true)
	typeInto(h, c.entry, "echo to-all")
	c.entry.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyReturn, Modifier: fyne.KeyModifierShortcutDefault})
	h.waitFor("the prompt in both panes", func() bool {
		return strings.Contains(h.screen(first), "echo to-all") && strings.Contains(h.screen(second), "echo to-all")
	})
	// In a group, the key takes the pane out at once.
	h.s.guard(func() {
		h.key(fyne.KeyB, ctrlShift)
		if _, ok := h.s.panes.groups[first]; ok || h.s.w.Canvas().Overlays().Top() != nil {
			t.Fatal("Ctrl+Shift+B did not take the pane out of its group")
		}
	})
}

// TestComposerDraftStaysWithItsPane: text left in the composer is kept for
// the pane it was written for; opened on another pane the composer is
// empty (it offered the first pane's draft, to send to the second).
func TestComposerDraftStaysWithItsPane(t *testing.T) {
	h := newHarness(t, nil)
	first, second := h.twoPanes()
	open := func(id uint64) *composer {
		var c *composer
		h.s.guard(func() {
			if c = h.s.chrome.comp; c.pane != 0 {
				c.close()
			}
		})
		if err := h.s.b.Focus(id); err != nil {
			t.Fatal(err)
		}
		h.waitFor("the pane focused", func() bool { return h.s.pos.focus == id })
		h.s.guard(func() {
			h.key(fyne.KeySpace, ctrlShift)
			if c.pane != id {
				t.Fatalf("the composer opened on pane %d, want %d", c.pane, id)
			}
		})
		return c
	}
	c := open(first)
	typeInto(h, c.entry, "for the first")
	open(second)
	h.s.guard(func() {
		if c.entry.Text != "" {
			t.Errorf("opened on the second pane, the composer holds %q", c.entry.Text)
		}
	})
	typeInto(h, c.entry, "for the second")
	open(first)
	h.s.guard(func() {
		if c.entry.Text != "for the first" {
			t.Errorf("back on the first pane, the composer holds %q, want its draft", c.entry.Text)
		}
	})
	open(second)
	h.s.guard(func() {
		if c.entry.Text != "for the second" {
			t.Errorf("back on the second pane, the composer holds %q, want its draft", c.entry.Text)
		}
	})
}
