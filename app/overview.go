package app

import (
	"bytes"
	"context"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/paneflow-go/paneflow/app/keymap"
	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/notify"
	"github.com/paneflow-go/paneflow/proto"
)

// agentRow is one agent in the agents overview.
type agentRow struct {
	Surface   uint64
	Workspace string // the workspace's title
	Pane      string // the pane's name
	Tool      string // the agent's display name
	State     string // wire state
	Since     time.Time
	Question  string // what a waiting agent asks
	Result    string // the last turn's result
	Tool2     string // the tool a thinking agent runs ("Bash")
	Cwd       string
	Branch    string // the git branch of Cwd, "" when unknown
	Worktree  bool   // Cwd is in a linked git worktree
	// Checks is the checks badge of the worktree Cwd is in (checksBadge),
	// "" when its checks did not run since the server started.
	Checks string
	// Usage is what the agent's session and its current or last turn
	// used ("12.4k tok · $0.18 (turn …)"), "" until its records were read.
	Usage string
}

// Filters of the agents overview.
const (
	filterAll      = "All"
	filterWaiting  = "Waiting"
	filterWorking  = "Working"
	filterDone     = "Done"
	filterProblems = "Problems"
)

var overviewFilters = []string{filterAll, filterWaiting, filterWorking, filterDone, filterProblems}

// overviewOrder ranks states in the overview: agents waiting for the user
// first, then problems, then work in progress, then the rest.
func overviewOrder(state string) int {
	switch state {
	case stateWaiting:
		return 0
	case stateErrored:
		return 1
	case stateStalled:
		return 2
	case stateThinking:
		return 3
	case stateFinished:
		return 4
	}
	return 5
}

// matchesFilter reports whether state belongs under filter.
func matchesFilter(state, filter string) bool {
	switch filter {
	case filterWaiting:
		return state == stateWaiting
	case filterWorking:
		return state == stateThinking || state == stateRunning
	case filterDone:
		return state == stateFinished
	case filterProblems:
		return state == stateErrored || state == stateStalled
	}
	return true
}

// overviewRows lists every agent of every open pane in snap, filtered
// and searched (case-insensitive substring of any shown text), waiting
// agents first, then by the longest time in state. branch gives the git
// branch of a directory (it may be nil); the checks badges are b's.
func overviewRows(snap *snapshot, b *agentBoard, filter, search string, branch func(dir string) (string, bool)) []agentRow {
	if snap == nil {
		return nil
	}
	titles := map[uint64]string{}
	for _, w := range snap.Workspaces {
		titles[w.ID] = w.Title
	}
	search = strings.ToLower(strings.TrimSpace(search))
	var rows []agentRow
	for _, in := range snap.Surfaces {
		if _, open := snap.Open[in.ID]; !open {
			continue
		}
		for k, ev := range b.panes[in.ID] {
			if !matchesFilter(ev.State, filter) {
				continue
			}
			r := agentRow{
				Surface: in.ID, Workspace: titles[in.WorkspaceID], Pane: in.Name, Tool: notify.AgentName(ev.Tool),
				State: ev.State, Since: b.since[in.ID][k], Question: notify.FirstLine(ev.Message, 200),
				Result: notify.FirstLine(ev.LastResult, 200), Tool2: ev.ActiveToolName,
				Checks: paneChecks(snap, b.checks, in.ID),
			}
			if u, ok := snap.Usage[in.ID]; ok && strings.EqualFold(u.Tool, ev.Tool) {
				r.Usage = usageText(u.Session) + " (turn " + usageText(u.LastTurn) + ")"
			}
			if in.Cwd != nil {
				r.Cwd = *in.Cwd
				if branch != nil && hostSlot(in.ID) == 0 { // another host's directory is not on this disk
					r.Branch, r.Worktree = branch(r.Cwd)
				}
			}
			if search != "" && !strings.Contains(strings.ToLower(strings.Join([]string{
				r.Tool, ev.Tool, r.Workspace, r.Pane, r.State, r.Question, r.Result, r.Cwd, r.Branch,
			}, "\x00")), search) {
				continue
			}
			rows = append(rows, r)
		}
	}
	slices.SortFunc(rows, func(a, b agentRow) int {
		if d := overviewOrder(a.State) - overviewOrder(b.State); d != 0 {
			return d
		}
		if c := a.Since.Compare(b.Since); c != 0 {
			return c // longer in state first
		}
		if a.Surface != b.Surface {
			if a.Surface < b.Surface {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Tool, b.Tool)
	})
	return rows
}

// shortDuration formats d as the attention queue does: "42s", "7m",
// "1h 12m".
func shortDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(int(d/time.Second), 0))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	}
	return fmt.Sprintf("%dh %dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
}

// stateText is how the overview names a state.
func stateText(r agentRow) string {
	switch r.State {
	case stateWaiting:
		return "needs input"
	case stateThinking:
		if r.Tool2 != "" {
			return "thinking (" + r.Tool2 + ")"
		}
		return "thinking"
	case stateFinished:
		return "done"
	case stateRunning:
		return "running (no hooks)"
	case stateIdle:
		return "idle (no prompt yet)"
	}
	return r.State
}

// gitBranch finds the git repository holding dir by walking up to its
// .git and returns the checked-out branch (a short commit id when
// detached) and whether dir is in a linked worktree (.git is a file). It
// reads two small files and runs no git; "" when dir is in no repository.
func gitBranch(dir string) (branch string, worktree bool) {
	_, branch, worktree = gitHead(dir)
	return branch, worktree
}

// gitHead is gitBranch with the root of the work tree: the directory
// holding the .git it found ("" when dir is in no repository).
func gitHead(dir string) (root, branch string, worktree bool) {
	for d := dir; ; {
		gd := filepath.Join(d, ".git")
		if fi, err := os.Stat(gd); err == nil {
			if !fi.IsDir() {
				b, err := os.ReadFile(gd)
				if err != nil {
					return "", "", false
				}
				rest, ok := bytes.CutPrefix(bytes.TrimSpace(b), []byte("gitdir:"))
				if !ok {
					return "", "", false
				}
				gd = strings.TrimSpace(string(rest))
				if !filepath.IsAbs(gd) {
					gd = filepath.Join(d, gd)
				}
				worktree = true
			}
			head, err := os.ReadFile(filepath.Join(gd, "HEAD"))
			if err != nil {
				return "", "", false
			}
			h := strings.TrimSpace(string(head))
			if ref, ok := strings.CutPrefix(h, "ref: "); ok {
				return d, strings.TrimPrefix(ref, "refs/heads/"), worktree
			}
			if len(h) > 8 {
				h = h[:8]
			}
			return d, h, worktree
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", "", false
		}
		d = parent
	}
}

// overview is the open agents overview, a view that owns its state over
// an [overviewHost]. It is rebuilt on the UI goroutine when agent states,
// usage or the model change (the shell's applyLocked calls refresh) and
// once a second while open, for the times in state; its header's line
// about the day's usage is asked for when it opens and, while usage
// changes, at most once a tick. Nothing runs while it is closed.
//
// It is shown in place of the split area (shell.center), not as a popup
// over it: the pane views it covers are hidden (hideOffscreenLocked) and
// draw nothing while it is open. Under software OpenGL a frame costs in
// proportion to the pixels shaded, and a popup over a pane that keeps
// printing had the area painted twice per frame (BenchmarkOverviewFlood,
// test/gui).
//
// Its methods run on the UI goroutine holding the shell's lock; its Fyne
// callbacks take the lock through the host.
type overview struct {
	host      overviewHost
	now       func() time.Time    // the agents' clock
	shortPath func(string) string // a directory as the sidebar shows it
	list      *pickList
	header    *widget.Label
	today     *widget.Label // the day's usage and budget; hidden until known (fetchDay)
	dayBusy   bool          // a usage.summary call is out
	dayStale  bool          // usage changed since the last one: the next tick asks again
	filter    *widget.RadioGroup
	rows      []agentRow
	branches  map[string][2]string // cwd → branch, "w" when a worktree; read once per opening
	view      fyne.CanvasObject    // what stands in the split area's place
	tick      *time.Timer
	probe     *frameProbe // PANEFLOW_RENDER_PROBE=1 only: counts the window's frames while open
	closed    bool
}

// overviewFeed is what the overview lists, as the shell has it now.
type overviewFeed struct {
	snap   *snapshot
	agents *agentBoard
	keys   *keymap.Map
}

// overviewHost is the shell as the agents overview sees it. guard is
// called without the shell's lock (from the overview's Fyne callbacks);
// the other methods with it held, on the UI goroutine.
type overviewHost interface {
	// guard runs f holding the shell's lock.
	guard(f func())
	// later runs f on the UI goroutine holding the shell's lock, unless
	// the window is quitting by then.
	later(f func())
	// feed is what the overview lists.
	feed() overviewFeed
	// focusPane closes the overview and moves the focus to pane id.
	focusPane(id uint64)
	// closeOverview closes the overview and gives the keyboard back to
	// the focused pane.
	closeOverview()
	// daySummary asks the server for the day's usage on the shell's
	// worker and hands the answer to done through later; false when it
	// could not be asked (no backend, or the worker is swamped).
	daySummary(done func(proto.UsageSummary, error)) bool
	// probeUsage reports line o's text to the GUI tests
	// (PANEFLOW_UI_PROBE=1; see probeUsageLocked).
	probeUsage(key string, o fyne.CanvasObject, line string)
}

// newOverview builds the agents overview over host; probe counts its
// frames (nil: not counted).
func newOverview(host overviewHost, now func() time.Time, shortPath func(string) string, probe io.Writer) *overview {
	ov := &overview{host: host, now: now, shortPath: shortPath, branches: map[string][2]string{}}
	// Virtualised: with 100 agents only the rows on screen exist, so an
	// update refills a few and a frame paints a few.
	ov.list = newVirtualPickList("Search agents, panes, questions, branches…", host.guard, overviewRowTemplate,
		func(i int, o fyne.CanvasObject) {
			if i < len(ov.rows) {
				ov.fillRow(ov.rows[i], o)
			}
		})
	ov.header = widget.NewLabelWithStyle("Agents", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	ov.today = widget.NewLabel("")
	ov.today.Hide()
	ov.filter = widget.NewRadioGroup(overviewFilters, nil)
	ov.filter.Horizontal = true
	ov.filter.Required = true
	ov.filter.SetSelected(filterAll)
	ov.filter.OnChanged = func(string) { host.guard(func() { ov.refresh(0) }) }
	ov.list.query.OnChanged = func(string) { host.guard(func() { ov.refresh(0) }) }
	ov.list.activate = func(i int) {
		host.guard(func() {
			if ov.closed || i >= len(ov.rows) {
				return
			}
			host.focusPane(ov.rows[i].Surface)
		})
	}
	ov.list.dismiss = func() { host.guard(host.closeOverview) }
	var top fyne.CanvasObject = container.NewVBox(ov.header, ov.today, ov.list.query, ov.filter)
	if probe != nil {
		ov.probe = newFrameProbe("overview", probe)
		top = container.NewStack(top, ov.probe.view())
	}
	ov.view = container.NewPadded(container.NewBorder(top, nil, nil, nil, ov.list.view()))
	ov.refresh(0)
	ov.fetchDay()
	return ov
}

// stop stops the overview's clock and frame probe; it refreshes no more.
func (ov *overview) stop() {
	ov.closed = true
	if ov.tick != nil {
		ov.tick.Stop()
	}
	if ov.probe != nil {
		ov.probe.stop()
	}
}

// refresh rebuilds the rows, keeping the cursor on the same pane when it
// is still listed (else on row cursor), and arms the one-second clock.
func (ov *overview) refresh(cursor int) {
	if ov.closed {
		return
	}
	if ov.list.cursor >= 0 && ov.list.cursor < len(ov.rows) {
		keep := ov.rows[ov.list.cursor].Surface
		defer func() {
			for i, r := range ov.rows {
				if r.Surface == keep {
					ov.list.setCursor(i)
					return
				}
			}
		}()
	}
	branch := func(dir string) (string, bool) {
		b, ok := ov.branches[dir]
		if !ok {
			name, wt := gitBranch(dir)
			b = [2]string{name, ""}
			if wt {
				b[1] = "w"
			}
			ov.branches[dir] = b
		}
		return b[0], b[1] != ""
	}
	f := ov.host.feed()
	ov.rows = overviewRows(f.snap, f.agents, ov.filter.Selected, ov.list.query.Text, branch)
	waiting := len(f.agents.waiting())
	title := fmt.Sprintf("Agents — %d listed", len(ov.rows))
	if len(ov.rows) == 0 {
		title = overviewEmptyText(f.keys, emptyFiltered(ov.filter.Selected, ov.list.query.Text))
	}
	if waiting > 0 {
		title += fmt.Sprintf(", %d waiting", waiting)
	}
	ov.header.SetText(title)
	// Only rows whose text changed are built again: with 100 agents an
	// update that moves one of them costs a few rows, not a hundred.
	keys := make([]string, len(ov.rows))
	for i, r := range ov.rows {
		h, where, extra := ov.rowText(r)
		keys[i] = r.State + "\x00" + h + "\x00" + where + "\x00" + extra
	}
	ov.list.setRowsKeyed(keys, cursor)
	if ov.tick != nil {
		ov.tick.Stop()
	}
	ov.tick = time.AfterFunc(time.Second, func() {
		ov.host.later(func() {
			if ov.closed {
				return
			}
			if ov.dayStale {
				ov.fetchDay()
			}
			ov.refresh(0)
		})
	})
}

// usageChanged has the next tick ask for the day's usage again.
func (ov *overview) usageChanged() { ov.dayStale = true }

// fetchDay asks the server for the day's usage, for the header, unless a
// request is already out (the clock asks again, at most once a second,
// while usage changes: see refresh).
func (ov *overview) fetchDay() {
	if ov.dayBusy {
		return
	}
	ov.dayBusy, ov.dayStale = true, false
	ok := ov.host.daySummary(func(sum proto.UsageSummary, err error) {
		if ov.closed {
			return
		}
		ov.dayBusy = false
		if err != nil {
			// A server without usage (or gone): no line.
			ov.today.Hide()
			return
		}
		text, imp := dayText(sum)
		if ov.today.Text != text || ov.today.Importance != imp {
			ov.today.Importance = imp
			ov.today.SetText(text) // refreshes
			ov.host.probeUsage("overview-today "+text, ov.today, fmt.Sprintf("overview-today text=%q", text))
		}
		ov.today.Show()
	})
	if !ok {
		ov.dayBusy, ov.dayStale = false, true // the clock tries again
	}
}

// rowText is what row r says: its heading (glyph, tool, state, time in
// state), where it is, and the question or last result ("" for none).
func (ov *overview) rowText(r agentRow) (head, where, extra string) {
	glyph, _ := statusLine(bus.AgentState{State: r.State, ActiveToolName: r.Tool2})
	age := ""
	if !r.Since.IsZero() {
		age = " · " + shortDuration(ov.now().Sub(r.Since))
	}
	head = fmt.Sprintf("%s %s — %s", glyph, r.Tool, stateText(r)) + age
	if r.Usage != "" {
		head += " · " + r.Usage
	}
	where = fmt.Sprintf("%s / %s", r.Workspace, r.Pane)
	if r.Branch != "" {
		kind := "branch"
		if r.Worktree {
			kind = "worktree"
		}
		where += fmt.Sprintf(" · %s %s", kind, r.Branch)
	}
	if r.Checks != "" {
		where += " · " + r.Checks
	}
	if r.Cwd != "" {
		where += " · " + ov.shortPath(r.Cwd)
	}
	switch {
	case r.State == stateWaiting && r.Question != "":
		extra = "“" + r.Question + "”"
	case r.Result != "":
		extra = "last result: " + r.Result
	}
	return head, where, extra
}

// overviewRowTemplate is an empty overview row: a heading and two
// caption lines.
func overviewRowTemplate() fyne.CanvasObject {
	head := canvas.NewText("", theme.Color(theme.ColorNameForeground))
	head.TextSize = nameSize + 1
	return container.NewVBox(head, captionText("", theme.Color(theme.ColorNamePlaceHolder)), captionText("", theme.Color(theme.ColorNameForeground)))
}

// fillRow shows r in o, made by overviewRowTemplate. It runs on the UI
// goroutine, from the list's refresh (under the shell's lock when the
// overview refreshes it).
func (ov *overview) fillRow(r agentRow, o fyne.CanvasObject) {
	box := o.(*fyne.Container)
	head, where, extra := box.Objects[0].(*canvas.Text), box.Objects[1].(*canvas.Text), box.Objects[2].(*canvas.Text)
	glyph, _ := statusLine(bus.AgentState{State: r.State, ActiveToolName: r.Tool2})
	h, w, x := ov.rowText(r)
	head.Text, head.Color = h, statusColor(paneRow{Waiting: r.State == stateWaiting, Glyph: glyph})
	head.TextStyle.Bold = r.State == stateWaiting
	where.Text = captionText(w, nil).Text
	extra.Text = captionText(x, nil).Text
	if x == "" {
		extra.Hide()
	} else {
		extra.Show()
	}
	box.Refresh()
}

// openOverviewLocked opens the agents overview (or closes it when open)
// in the split area's place.
func (s *shell) openOverviewLocked() {
	if s.chrome.ov != nil {
		s.closeOverviewLocked()
		return
	}
	s.closeOverlaysLocked()
	s.chrome.ov = newOverview(overviewShell{s}, s.agents.clock, s.chrome.side.shortPath, s.conf.look.probe)
	s.chrome.showCenter(s.chrome.ov.view)
	s.hideOffscreenLocked()
	s.w.Canvas().Focus(s.chrome.ov.list.query)
}

// closeOverviewLocked closes the agents overview and gives the keyboard
// back to the focused pane.
func (s *shell) closeOverviewLocked() {
	if s.chrome.ov == nil {
		return
	}
	s.hideOverviewLocked()
	s.focusViewLocked(s.pos.focus)
}

// hideOverviewLocked closes the agents overview: it stops its clock and
// puts the split area back, whose views draw their panes as they are now.
func (s *shell) hideOverviewLocked() {
	if s.chrome.ov == nil {
		return
	}
	s.chrome.ov.stop()
	s.chrome.ov = nil
	s.chrome.showCenter(nil)
	s.hideOffscreenLocked()
}

// refreshOverviewLocked rebuilds the open overview's rows (see
// overview.refresh).
func (s *shell) refreshOverviewLocked(cursor int) {
	if s.chrome.ov != nil {
		s.chrome.ov.refresh(cursor)
	}
}

// overviewShell is the shell's overviewHost.
type overviewShell struct{ s *shell }

var _ overviewHost = overviewShell{}

func (h overviewShell) guard(f func()) { h.s.guard(f) }

func (h overviewShell) later(f func()) {
	h.s.do(func() {
		if !h.s.life.quitting {
			f()
		}
	})
}

func (h overviewShell) feed() overviewFeed {
	s := h.s
	return overviewFeed{snap: s.pos.snap, agents: &s.agents, keys: s.conf.keys}
}

func (h overviewShell) focusPane(id uint64) {
	s := h.s
	s.closeOverviewLocked()
	s.work.mutate("focus", func() error { return s.b.Focus(id) })
}

func (h overviewShell) closeOverview() { h.s.closeOverviewLocked() }

// daySummaryTimeout bounds one usage.summary call of the overview.
const daySummaryTimeout = 10 * time.Second

func (h overviewShell) daySummary(done func(proto.UsageSummary, error)) bool {
	s := h.s
	if s.b == nil { // a test's bare shell
		return false
	}
	c := s.b.Caller(daySummaryTimeout)
	f := func() {
		var sum proto.UsageSummary
		err := c.Call(context.Background(), proto.MethodUsageSummary, proto.UsageSummaryParams{Since: "today"}, &sum)
		s.do(func() { done(sum, err) })
	}
	return s.work.try(f)
}

func (h overviewShell) probeUsage(key string, o fyne.CanvasObject, line string) {
	s := h.s
	if os.Getenv("PANEFLOW_UI_PROBE") != "1" {
		return
	}
	s.chrome.probes.usage[key] = o
	s.probeUsageLater(key, o, line, 200)
}

// captionText is one line of small text, cut to 110 runes.
func captionText(s string, c color.Color) *canvas.Text {
	if r := []rune(s); len(r) > 110 {
		s = string(r[:109]) + "…"
	}
	t := canvas.NewText(s, c)
	t.TextSize = captionSize + 1
	return t
}
