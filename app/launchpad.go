package app

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/paneflow-go/paneflow/app/keymap"
	"github.com/paneflow-go/paneflow/flow"
	"github.com/paneflow-go/paneflow/internal/flowgit"
	"github.com/paneflow-go/paneflow/internal/specfind"
	"github.com/paneflow-go/paneflow/internal/spectrust"
	"github.com/paneflow-go/paneflow/internal/vis"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// launcher is what the launch views (the launch pad, quick launch, the
// template view, the sidebar's agent buttons) share and keep between
// openings: the flow launched last, the recent specs, the agents found on
// PATH and the home directory specs resolve against. It is used holding
// the shell's lock.
type launcher struct {
	run    *flowRun // the flow launched last (running or ended), nil before any
	recent []string // recently used spec files, newest first
	// recentLoaded says recent was read from recentFile.
	recentLoaded bool
	// recentFile remembers the recent specs, beside the session file; ""
	// keeps them in memory only.
	recentFile string
	// agents are the agents found on PATH (once, at start: findAgentLaunchers).
	agents      []installedAgent
	agentsFound bool
	// home is the user's home directory, which specs' paths resolve
	// against (specfind.Resolve).
	home string
	// pad is the launch pad built last, shown or not (shownPad).
	pad *launchPad
}

// newLauncher is the launcher of a window whose session file is
// sessionPath ("": none).
func newLauncher(home, sessionPath string) *launcher {
	l := &launcher{home: home}
	if sessionPath != "" {
		l.recentFile = filepath.Join(filepath.Dir(sessionPath), "recent-specs.json")
	}
	return l
}

// recentSpecs returns the recently used spec files, newest first,
// reading them from their file the first time.
func (l *launcher) recentSpecs() []string {
	if !l.recentLoaded {
		l.recentLoaded = true
		if l.recentFile != "" {
			l.recent = specfind.LoadRecent(l.recentFile)
		}
	}
	return l.recent
}

// noteRecent puts path first among the recently used specs and saves the
// list (atomically); the error is the save's.
func (l *launcher) noteRecent(path string) error {
	l.recent = specfind.NoteRecent(l.recentSpecs(), path)
	if l.recentFile == "" {
		return nil
	}
	if err := specfind.SaveRecent(l.recentFile, l.recent); err != nil {
		return errors.New("launch pad: cannot save the recent specs: " + err.Error())
	}
	return nil
}

// installed is the installed agents as found at start
// (findAgentLaunchers), or looked up now if that has not finished.
func (l *launcher) installed() []installedAgent {
	if !l.agentsFound {
		l.agents, l.agentsFound = installedAgents(exec.LookPath), true
	}
	return l.agents
}

// shownPad is the launch pad when it is the open panel, else nil.
func (l *launcher) shownPad(h launchHost) *launchPad {
	if l.pad != nil && h.shown(l.pad) {
		return l.pad
	}
	return nil
}

// stopFlow stops the running flow's orchestration; its panes stay.
func (l *launcher) stopFlow() {
	if r := l.run; r != nil && !r.done {
		r.cancel()
	}
}

// Colours of the launch pad's spec text.
var (
	errLineBG = color.NRGBA{R: 0x8b, G: 0x1a, B: 0x1a, A: 0xff}
	errText   = color.NRGBA{R: 0xff, G: 0x6b, B: 0x6b, A: 0xff}
	lineNoFG  = color.NRGBA{R: 0x80, G: 0x80, B: 0x80, A: 0xff}
)

// textRows makes text grid rows of text in colour fg (nil: the theme's).
func textRows(text string, fg color.Color) []widget.TextGridRow {
	var rows []widget.TextGridRow
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		rows = append(rows, gridRow(l, fg, nil))
	}
	return rows
}

// gridRow is one text grid row in colours fg and bg (nil: the theme's).
func gridRow(text string, fg, bg color.Color) widget.TextGridRow {
	cells := make([]widget.TextGridCell, 0, len(text))
	for _, r := range strings.ReplaceAll(text, "\t", "    ") {
		cells = append(cells, widget.TextGridCell{Rune: r})
	}
	var st widget.TextGridStyle
	if fg != nil || bg != nil {
		st = &widget.CustomTextGridStyle{FGColor: fg, BGColor: bg}
	}
	return widget.TextGridRow{Cells: cells, Style: st}
}

// errorRows shows a spec's text with line numbers and err inline: under
// the offending line (highlighted), or above the text when no line is
// known.
func errorRows(data []byte, err error, loc flow.Location) []widget.TextGridRow {
	msg := err.Error()
	if loc.Field != "" && !strings.Contains(msg, loc.Field) {
		msg = loc.Field + ": " + msg
	}
	var rows []widget.TextGridRow
	if loc.Line <= 0 {
		rows = append(rows, gridRow("✗ "+msg, errText, nil), gridRow("", nil, nil))
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	for i, l := range lines {
		n := i + 1
		if n == loc.Line {
			rows = append(rows, gridRow(fmt.Sprintf("%4d ▶ %s", n, l), color.White, errLineBG))
			rows = append(rows, gridRow("       ✗ "+msg, errText, nil))
			continue
		}
		rows = append(rows, gridRow(fmt.Sprintf("%4d   %s", n, l), lineNoFG, nil))
	}
	if loc.Line > len(lines) {
		rows = append(rows, gridRow(fmt.Sprintf("%4d ▶", loc.Line), color.White, errLineBG), gridRow("       ✗ "+msg, errText, nil))
	}
	return rows
}

// launchPad is the launch pad, a panel: the specs found on the left, the
// selected one's plan or errors on the right, Launch, and the steps of
// the flow launched last (its launcher's). Its widgets are used holding
// the shell's lock (host.guard, host.do); specs resolve, and launches
// run, on goroutines of their own.
type launchPad struct {
	widget.BaseWidget
	host    launchHost
	l       *launcher
	query   *keyEntry
	rows    *keyList
	cursor  int                                     // the selected row, -1 for none
	items   map[widget.ListItemID]fyne.CanvasObject // the rows built last, for the probe
	entries []specfind.Entry                        // every spec found
	shown   []specfind.Entry                        // those matching the query
	title   *widget.Label
	status  *widget.Label
	grid    *widget.TextGrid
	launch  *widget.Button
	stop    *widget.Button
	runBox  *fyne.Container // the flow's steps
	runHead *widget.Label
	sel     *specfind.Resolved // the selected spec once resolved
	pending *specfind.Entry    // the selected spec while it resolves
	busy    bool               // a launch is under way
	cancel  context.CancelFunc
	body    fyne.CanvasObject
	// trust is the open "Trust this spec?" dialog (nil when none), with
	// its plan and buttons.
	trust     dialog.Dialog
	trustPlan *widget.TextGrid
	trustYes  *widget.Button
	trustNo   *widget.Button
}

var _ panel = (*launchPad)(nil)

// launchPadSize is the launch pad's size on a window of size win.
func launchPadSize(win fyne.Size) fyne.Size {
	return fyne.NewSize(min(win.Width-40, 1100), win.Height-40)
}

// newLaunchPad builds the launch pad over h, listing the specs found
// from directory dir (the focused pane's; "" for none), the library and
// the launcher's recent ones; short shortens a directory for its rows,
// keys names the keystrokes of its empty state. It becomes its
// launcher's pad. The caller holds the shell's lock.
func newLaunchPad(h launchHost, dir string, short func(string) string, keys *keymap.Map) *launchPad {
	l := h.launcher()
	lp := &launchPad{host: h, l: l, query: newKeyEntry(false), cursor: -1, items: map[widget.ListItemID]fyne.CanvasObject{}}
	lp.ExtendBaseWidget(lp)
	l.pad = lp
	lp.query.SetPlaceHolder("Filter specs by path…")
	lp.entries = specfind.Discover(dir, specfind.LibraryDir(os.Getenv, goos), l.recentSpecs())
	lp.shown = lp.entries
	fg := theme.Color(theme.ColorNameForeground)
	muted := theme.Color(theme.ColorNamePlaceHolder)
	// A virtualised list: only the rows on screen are built, so opening
	// costs the same with 20 specs or 2,000.
	lp.rows = newKeyList(
		func() int { return len(lp.shown) },
		func() fyne.CanvasObject {
			name := canvas.NewText("", fg)
			name.TextSize = nameSize + 1
			return container.NewVBox(name, captionText("", muted))
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id >= len(lp.shown) {
				return
			}
			e := lp.shown[id]
			box := o.(*fyne.Container)
			name, caption := box.Objects[0].(*canvas.Text), box.Objects[1].(*canvas.Text)
			name.Text = filepath.Base(e.Path)
			line := captionText(e.Kind+" · "+e.Origin+" · "+short(filepath.Dir(e.Path)), muted)
			caption.Text = line.Text
			box.Refresh()
			lp.items[id] = o
		})
	lp.rows.OnSelected = func(id widget.ListItemID) {
		h.guard(func() {
			if h.shown(lp) && id < len(lp.shown) && id != lp.cursor {
				lp.cursor = id
				lp.selectSpec(lp.shown[id])
			}
		})
	}
	lp.query.onKey = func(ev *fyne.KeyEvent) bool {
		move := 0
		switch ev.Name {
		case fyne.KeyDown:
			move = 1
		case fyne.KeyUp:
			move = -1
		case fyne.KeyPageDown:
			move = 10
		case fyne.KeyPageUp:
			move = -10
		case fyne.KeyReturn, fyne.KeyEnter:
			h.guard(func() {
				if h.shown(lp) && lp.sel != nil && lp.cursor >= 0 {
					lp.launchSelected()
				}
			})
			return true
		case fyne.KeyEscape:
			h.closePanel(lp)
			return true
		default:
			return false
		}
		to := -1
		h.guard(func() {
			if n := len(lp.shown); n > 0 {
				to = min(max(lp.cursor+move, 0), n-1)
			}
		})
		if to >= 0 {
			lp.rows.Select(to) // OnSelected takes the lock
			lp.rows.ScrollTo(to)
		}
		return true
	}
	lp.rows.onKey = lp.query.onKey // after a click on a row the list has the keyboard
	lp.query.OnChanged = func(q string) {
		h.guard(func() {
			if !h.shown(lp) {
				return
			}
			q = strings.ToLower(strings.TrimSpace(q))
			lp.shown = nil
			for _, e := range lp.entries {
				if q == "" || strings.Contains(strings.ToLower(e.Path), q) {
					lp.shown = append(lp.shown, e)
				}
			}
			lp.relist()
		})
	}

	lp.title = widget.NewLabelWithStyle("Select a spec to see its plan", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	lp.title.Truncation = fyne.TextTruncateEllipsis
	lp.status = widget.NewLabel(count(len(lp.entries), "spec", "specs") + " found")
	if len(lp.entries) == 0 {
		lp.status.SetText(launchPadEmptyText(keys))
	}
	lp.status.Wrapping = fyne.TextWrapWord
	lp.grid = widget.NewTextGrid()
	lp.launch = widget.NewButtonWithIcon("Launch", theme.MediaPlayIcon(), func() { h.guard(lp.launchSelected) })
	lp.launch.Importance = widget.HighImportance
	lp.launch.Disable()
	lp.stop = widget.NewButtonWithIcon("Stop flow", theme.MediaStopIcon(), func() { h.guard(l.stopFlow) })
	lp.runHead = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	lp.runBox = container.NewVBox()
	open := widget.NewButtonWithIcon("Open…", theme.FolderOpenIcon(), lp.openSpecFile)
	quick := widget.NewButton("Quick launch…", func() { h.runAction(lp, keymap.QuickLaunch) })
	tmpl := widget.NewButton("New from template…", func() { h.runAction(lp, keymap.NewFromTemplate) })
	closeBtn := widget.NewButtonWithIcon("", theme.CancelIcon(), func() { h.closePanel(lp) })
	closeBtn.Importance = widget.LowImportance
	header := widget.NewLabelWithStyle("Launch pad", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	top := container.NewBorder(nil, nil, header, container.NewHBox(open, quick, tmpl, closeBtn))
	left := container.NewBorder(lp.query, nil, nil, nil, lp.rows)
	run := container.NewBorder(nil, nil, nil, lp.stop, lp.runHead)
	bottom := container.NewVBox(container.NewBorder(nil, nil, nil, lp.launch, lp.status), run, lp.runBox)
	right := container.NewBorder(lp.title, bottom, nil, nil, container.NewScroll(lp.grid))
	split := container.NewHSplit(left, right)
	split.Offset = 0.34
	lp.body = container.NewBorder(top, nil, nil, nil, split)
	lp.showRun()
	lp.probe()
	return lp
}

// CreateRenderer draws the pad.
func (lp *launchPad) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(lp.body) }

// focusTarget is the filter field.
func (lp *launchPad) focusTarget() fyne.Focusable { return lp.query }

// cancelCalls answers the pad's trust question "no" and stops resolving
// (the pad is dismissed). The caller holds the shell's lock.
func (lp *launchPad) cancelCalls() {
	lp.cancelResolve()
	if lp.trust != nil {
		lp.trust.Hide()
		lp.trust, lp.trustYes, lp.trustNo = nil, nil, nil
	}
}

// relist shows lp.shown afresh, nothing selected. The list's selection
// callback does not run (it would take the shell's lock, which the
// caller holds).
func (lp *launchPad) relist() {
	cb := lp.rows.OnSelected
	lp.rows.OnSelected = nil
	lp.rows.UnselectAll()
	lp.rows.OnSelected = cb
	lp.cursor = -1
	clear(lp.items)
	lp.rows.Refresh()
}

// selectQuiet highlights row i without the selection callback. The
// caller holds the shell's lock.
func (lp *launchPad) selectQuiet(i int) {
	cb := lp.rows.OnSelected
	lp.rows.OnSelected = nil
	lp.rows.Select(i)
	lp.rows.OnSelected = cb
	lp.cursor = i
}

// cancelResolve stops a resolution in flight.
func (lp *launchPad) cancelResolve() {
	if lp.cancel != nil {
		lp.cancel()
		lp.cancel = nil
	}
}

// selectSpec shows e's plan once resolved off the UI goroutine. The
// caller holds the shell's lock.
func (lp *launchPad) selectSpec(e specfind.Entry) {
	h := lp.host
	lp.cancelResolve()
	ctx, cancel := context.WithCancel(context.Background())
	lp.cancel = cancel
	lp.sel, lp.pending = nil, &e
	lp.title.SetText(e.Path)
	lp.status.SetText("resolving…")
	lp.grid.Rows = nil
	lp.grid.Refresh()
	lp.launch.Disable()
	home := lp.l.home
	go func() {
		r := specfind.Resolve(ctx, e, home)
		h.do(func() {
			if !h.shown(lp) || ctx.Err() != nil {
				return
			}
			lp.pending, lp.sel = nil, r
			lp.showResolved()
		})
	}()
}

// showResolved shows the selected spec's plan, or its text with the
// error at its line. The caller holds the shell's lock.
func (lp *launchPad) showResolved() {
	r := lp.sel
	if r.Err != nil {
		where := ""
		if r.Loc.Line > 0 {
			where = fmt.Sprintf("line %d: ", r.Loc.Line)
		}
		if strings.HasPrefix(r.Err.Error(), "line ") {
			where = ""
		}
		lp.status.SetText("✗ " + where + r.Err.Error())
		lp.status.Importance = widget.DangerImportance
		lp.grid.Rows = errorRows(r.Data, r.Err, r.Loc)
		lp.launch.Disable()
	} else {
		n := 0
		if r.WS != nil {
			n = len(r.WS.Panes)
		} else {
			n = len(r.Flow.Units)
		}
		units := count(n, "pane", "panes")
		if r.Entry.Kind == specfind.KindFlow {
			units = count(n, "unit", "units")
		}
		lp.status.SetText(fmt.Sprintf("✓ %s spec, %s: ready to launch", r.Entry.Kind, units))
		lp.status.Importance = widget.SuccessImportance
		lp.grid.Rows = textRows(r.PlanText(), nil)
		if !lp.busy {
			lp.launch.Enable()
		}
	}
	lp.status.Refresh()
	lp.grid.Refresh()
	lp.probe()
}

// openSpecFile picks any spec file with the file dialog and selects it
// (the Open… button, on the UI goroutine).
func (lp *launchPad) openSpecFile() {
	h := lp.host
	dialog.ShowFileOpen(func(f fyne.URIReadCloser, err error) {
		if err != nil || f == nil {
			if err != nil {
				h.guard(func() { h.notice("open spec: " + err.Error()) })
			}
			return
		}
		p := f.URI().Path()
		f.Close()
		h.guard(func() { lp.add(p) })
	}, h.window())
}

// add lists the spec at path first (as opened) and selects it. The
// caller holds the shell's lock.
func (lp *launchPad) add(path string) {
	if !lp.host.shown(lp) {
		return
	}
	e := specfind.Entry{Path: path, Kind: specfind.Kind(path), Origin: specfind.OriginOpened}
	lp.entries = append([]specfind.Entry{e}, slices.DeleteFunc(lp.entries, func(x specfind.Entry) bool { return x.Path == path })...)
	lp.query.Text = "" // set quietly: OnChanged would take the lock
	lp.query.Refresh()
	lp.shown = lp.entries
	lp.relist()
	lp.selectQuiet(0)
	lp.selectSpec(e)
}

// launchSelected launches the selected spec: it is read and resolved
// again (the plan shown may be stale) and carried out as `paneflow up`
// or `paneflow flow run` would. The caller holds the shell's lock.
func (lp *launchPad) launchSelected() {
	if lp.sel == nil || lp.sel.Err != nil || lp.busy {
		return
	}
	h := lp.host
	e := lp.sel.Entry
	if e.Kind == specfind.KindFlow && lp.l.run != nil && !lp.l.run.done {
		lp.status.SetText("✗ a flow is running: stop it first")
		lp.status.Importance = widget.DangerImportance
		lp.status.Refresh()
		return
	}
	lp.busy = true
	lp.launch.Disable()
	lp.status.SetText("launching…")
	lp.status.Importance = widget.MediumImportance
	lp.status.Refresh()
	home := lp.l.home
	go func() {
		// Read, resolved and checked once: what the trust question shows
		// and what is trusted are the bytes that run.
		r := specfind.Resolve(context.Background(), e, home)
		st, trustErr := spectrust.Status(0), error(nil)
		if r.Err == nil {
			st, trustErr = specTrust(h.logf).Check(e.Path, r.Data)
		}
		h.do(func() {
			switch {
			case r.Err == nil && trustErr != nil:
				r.Err = trustErr
			case r.Err == nil && !st.OK():
				if h.shown(lp) {
					lp.askTrust(r, st)
					return
				}
				r.Err = errors.New("not trusted: open the launch pad to review it")
			}
			lp.carryOut(r)
		})
	}()
}

// specTrust is the user's spec trust store (package spectrust), in this
// process's state directory; logf gets why it is not there.
func specTrust(logf func(string, ...any)) spectrust.Store {
	st, err := spectrust.Default(os.Getenv, goos)
	if err != nil {
		logf("paneflow: %v", err)
	}
	return st // the zero Store trusts nothing and cannot record trust
}

// carryOut launches the resolved spec r (its error, if any, is shown
// instead): a flow runs as `paneflow flow run` does, a workspace opens as
// `paneflow up` does. The caller holds the shell's lock.
func (lp *launchPad) carryOut(r *specfind.Resolved) {
	h := lp.host
	e := r.Entry
	if r.Err == nil {
		if err := lp.l.noteRecent(e.Path); err != nil {
			h.notice(err.Error())
		}
	}
	if e.Kind == specfind.KindFlow {
		go lp.l.runFlow(h, r)
		return
	}
	go func() {
		var res *flow.UpResult
		var warns []string
		err := r.Err
		if err == nil {
			res, err = flow.Up(context.Background(), r.WS, flowgit.Worktrees{}, rpcCaller{c: h.caller(0)}, func(m string) { warns = append(warns, m) })
		}
		h.do(func() {
			if len(warns) > 0 {
				h.notice("launch: " + strings.Join(warns, "; "))
			}
			if !h.shown(lp) {
				if err != nil {
					h.notice("launch " + filepath.Base(e.Path) + ": " + err.Error())
				}
				return
			}
			lp.busy = false
			if err != nil {
				lp.sel = r
				if r.Err == nil {
					r.Err = err // the launch's own failure, shown as it is
				}
				lp.showResolved()
				return
			}
			h.logf("paneflow: launched %s: workspace %q, %s", e.Path, res.Title, count(res.Panes, "pane", "panes"))
			h.closeShown(lp)
		})
	}()
}

// askTrust asks whether to run the untrusted spec r: a dialog shows where
// it comes from and its plan (control characters written as \xNN), "Run
// and trust" records trust in r's bytes and launches r, "Cancel" runs
// nothing. The caller holds the shell's lock.
func (lp *launchPad) askTrust(r *specfind.Resolved, st spectrust.Status) {
	h := lp.host
	why := "It comes from outside your config directory, and it runs commands. Nothing runs unless you trust it."
	if st == spectrust.Changed {
		why = "It changed since you trusted it. Nothing runs unless you trust its new content."
	}
	head := widget.NewLabel(vis.String(r.Entry.Path) + "\n" + why + "\nIt will run (control characters shown as \\xNN):")
	head.Wrapping = fyne.TextWrapWord
	plan := widget.NewTextGrid()
	plan.Rows = textRows(r.PlanText(), nil)
	var d dialog.Dialog
	finish := func(ok bool) {
		h.guard(func() {
			if lp.trust == nil {
				return // answered already
			}
			lp.trust, lp.trustYes, lp.trustNo = nil, nil, nil
			d.Hide()
			if !ok {
				lp.busy = false
				lp.status.SetText("✗ not trusted: nothing ran")
				lp.status.Importance = widget.DangerImportance
				lp.status.Refresh()
				if h.shown(lp) && lp.sel != nil && lp.sel.Err == nil {
					lp.launch.Enable()
				}
				return
			}
			if _, err := specTrust(h.logf).Trust(r.Entry.Path, r.Data); err != nil {
				r.Err = err
			}
			lp.carryOut(r)
		})
	}
	lp.trustYes = widget.NewButton("Run and trust", func() { finish(true) })
	lp.trustYes.Importance = widget.WarningImportance
	lp.trustNo = widget.NewButton("Cancel", func() { finish(false) })
	content := container.NewBorder(head, container.NewHBox(layout.NewSpacer(), lp.trustNo, lp.trustYes), nil, nil, container.NewScroll(plan))
	d = dialog.NewCustomWithoutButtons("Trust this spec?", content, h.window())
	d.Resize(fyne.NewSize(760, 520))
	lp.trust, lp.trustPlan = d, plan
	// Escape answers no; trusting takes the button, never a stray Enter.
	h.showDialog(d, nil, func() { finish(false) })
}

// caller is the route to the server's methods that `paneflow up`/`flow
// run` take (the backend's), with the CLI's error codes. timeout 0 is the
// default per call.
func (s *shell) caller(timeout time.Duration) flow.Caller {
	return rpcCaller{c: s.b.Caller(timeout)}
}

// rpcCaller adapts the backend's caller to flow.Caller, JSON-RPC errors
// carrying their code (flow.CodedError) so that flow can tell a refusal
// from a lost connection.
type rpcCaller struct{ c proto.Caller }

func (r rpcCaller) Call(ctx context.Context, method string, params, result any) error {
	err := r.c.Call(ctx, method, params, result)
	var e *ipc.Error
	if errors.As(err, &e) {
		return codedError{e}
	}
	return err
}

// codedError is a JSON-RPC error reply as flow.CodedError.
type codedError struct{ e *ipc.Error }

func (c codedError) Error() string { return c.e.Error() }
func (c codedError) RPCCode() int  { return c.e.Code }
func (c codedError) Unwrap() error { return c.e }

// flowRun is a flow launched from the launch pad: its units' live
// statuses, in plan order. Its fields are used under the shell's lock.
type flowRun struct {
	name   string
	path   string
	ids    []string // unit ids, in plan order
	status map[string]string
	msg    map[string]string
	cancel context.CancelFunc
	done   bool
	result string // how it ended, once done
	// usage is what the run's agents had used when it ended, as the
	// server had read it (flow.Report.Usage); nil while it runs, or
	// unknown.
	usage *proto.Usage
}

// runFlow runs the resolved flow r, as `paneflow flow run` does,
// reporting each unit's transitions to the launch pad when it is open.
// It runs on its own goroutine until the flow ends or is stopped.
func (l *launcher) runFlow(h launchHost, r *specfind.Resolved) {
	e := r.Entry
	err := r.Err
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err == nil && r.Flow.Submits() {
		err = flow.CheckGate(ctx, rpcCaller{c: h.caller(0)})
	}
	if err != nil {
		h.do(func() {
			lp := l.shownPad(h)
			if lp == nil {
				h.notice("launch " + filepath.Base(e.Path) + ": " + err.Error())
				return
			}
			lp.busy = false
			if r.Err == nil {
				r.Err = err
			}
			lp.sel = r
			lp.showResolved()
		})
		return
	}
	run := &flowRun{name: r.Flow.Name, path: e.Path, status: map[string]string{}, msg: map[string]string{}, cancel: cancel}
	longest := int64(0)
	for _, u := range r.Flow.Units {
		run.ids = append(run.ids, u.ID)
		run.status[u.ID] = flow.StatusPending
		if u.Ready != nil {
			longest = max(longest, u.Ready.TimeoutSecs)
		}
	}
	// showRun shows the run in the open pad, if any.
	showRun := func() {
		if lp := l.shownPad(h); lp != nil {
			lp.showRun()
		}
	}
	h.do(func() {
		l.run = run
		if lp := l.shownPad(h); lp != nil {
			lp.busy = false
			if lp.sel != nil && lp.sel.Err == nil {
				lp.launch.Enable()
			}
			lp.status.SetText("flow started")
			lp.status.Importance = widget.SuccessImportance
			lp.status.Refresh()
		}
		showRun()
	})
	rep, err := flow.Run(ctx, r.Flow, flow.RunOptions{
		Calls:     rpcCaller{c: h.caller(0)},
		Waits:     rpcCaller{c: h.caller(time.Duration(longest)*time.Second + time.Minute)},
		Worktrees: flowgit.Worktrees{},
		Resolve:   h.resolveTarget,
		Warn:      func(m string) { h.do(func() { h.notice("flow: " + m) }) },
		OnStatus: func(id, status, msg string) {
			h.do(func() {
				run.status[id], run.msg[id] = status, msg
				if l.run == run {
					showRun()
				}
			})
		},
	})
	h.do(func() {
		run.done = true
		switch {
		case err != nil:
			run.result = "failed to start: " + err.Error()
		case rep.Aborted != nil:
			run.result = "stopped: " + *rep.Aborted
		default:
			run.result = rep.Status
		}
		if err == nil {
			run.usage = rep.Usage
		}
		if l.run == run {
			showRun()
		}
	})
}

// resolveTarget finds a pane for a flow's send target that names no pane
// of the flow: a surface id or a pane name.
func (s *shell) resolveTarget(_ context.Context, t string) (uint64, error) {
	if id, err := strconv.ParseUint(t, 10, 64); err == nil {
		return s.b.ResolveTarget(id, "")
	}
	return s.b.ResolveTarget(0, t)
}

// Colours of flow unit statuses.
var flowStatusColors = map[string]color.Color{
	flow.StatusPending: color.NRGBA{R: 0x90, G: 0x90, B: 0x90, A: 0xff},
	flow.StatusRunning: color.NRGBA{R: 0x4a, G: 0x9e, B: 0xff, A: 0xff},
	flow.StatusReady:   color.NRGBA{R: 0x3f, G: 0xb9, B: 0x50, A: 0xff},
	flow.StatusFailed:  color.NRGBA{R: 0xf8, G: 0x51, B: 0x49, A: 0xff},
	flow.StatusSkipped: color.NRGBA{R: 0xd2, G: 0x99, B: 0x22, A: 0xff},
}

// showRun shows the launcher's last flow's units. The caller holds the
// shell's lock.
func (lp *launchPad) showRun() {
	run := lp.l.run
	if run == nil {
		lp.runHead.SetText("")
		lp.stop.Hide()
		lp.runBox.Objects = nil
		lp.runBox.Refresh()
		return
	}
	head := "Flow " + strconv.Quote(run.name) + ": running"
	if run.done {
		head = "Flow " + strconv.Quote(run.name) + ": " + run.result
		if run.usage != nil && run.usage.Total > 0 {
			head += " · its agents used " + usageText(*run.usage)
		}
		lp.stop.Hide()
	} else {
		lp.stop.Show()
	}
	lp.runHead.SetText(head)
	objs := make([]fyne.CanvasObject, 0, len(run.ids))
	for _, id := range run.ids {
		st := run.status[id]
		line := fmt.Sprintf("%-8s %s", st, id)
		if m := run.msg[id]; m != "" {
			line += " — " + m
		}
		t := canvas.NewText(line, flowStatusColors[st])
		t.TextStyle.Monospace = true
		t.TextSize = captionSize + 1
		objs = append(objs, t)
	}
	lp.runBox.Objects = objs
	lp.runBox.Refresh()
}

// probe writes where the launch pad's rows and Launch button are on the
// window, in pixels, when PANEFLOW_UI_PROBE=1 (the GUI tests click them
// with xdotool), once each has been drawn (host.probe). The caller holds
// the shell's lock.
func (lp *launchPad) probe() {
	if os.Getenv("PANEFLOW_UI_PROBE") != "1" {
		return
	}
	h := lp.host
	h.probe(func() (bool, []string) {
		if !h.shown(lp) {
			return true, nil
		}
		var lines []string
		ok := len(lp.items) > 0 || len(lp.shown) == 0
		for i, o := range lp.items {
			if i < len(lp.shown) && o.Visible() {
				l, found := h.probeLine("launchpad-row "+filepath.Base(lp.shown[i].Path), o)
				ok = ok && found
				lines = append(lines, l)
			}
		}
		if !lp.launch.Disabled() {
			l, found := h.probeLine("launchpad-launch", lp.launch)
			ok = ok && found
			lines = append(lines, l)
		}
		return ok, lines
	})
}

// probeLater runs probe on the UI goroutine holding the lock until it
// reports that every widget it looks at has been placed (or tries runs
// out), then writes its lines to stderr.
func (s *shell) probeLater(probe func() (bool, []string), tries int) {
	s.post(func() {
		s.guard(func() {
			ok, lines := probe()
			if !ok && tries > 1 {
				s.probeLater(probe, tries-1)
				return
			}
			for _, l := range lines {
				fmt.Fprintln(os.Stderr, l)
			}
		})
	})
}

// probeLineLocked is one "ui-probe" line: what, then the centre of o in
// window pixels; found is false while o has not been drawn yet.
func (s *shell) probeLineLocked(what string, o fyne.CanvasObject) (line string, found bool) {
	if s.a.Driver().CanvasForObject(o) == nil {
		return "", false
	}
	pos := s.a.Driver().AbsolutePositionForObject(o)
	size := o.Size()
	sc := s.w.Canvas().Scale()
	return fmt.Sprintf("ui-probe %s x=%d y=%d", what, int((pos.X+size.Width/2)*sc), int((pos.Y+size.Height/2)*sc)), true
}
