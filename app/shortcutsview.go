package app

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/paneflow-go/paneflow/app/keymap"
)

// shortcutGroups are the keyboard shortcuts sheet's sections: every
// action is in one (TestShortcutGroupsCoverEveryAction).
var shortcutGroups = []struct {
	title   string
	actions []keymap.Action
}{
	{"Panes", []keymap.Action{
		keymap.SplitVertically, keymap.SplitHorizontally, keymap.ClosePane, keymap.ReopenClosed, keymap.RenamePane,
		keymap.FocusLeft, keymap.FocusRight, keymap.FocusUp, keymap.FocusDown, keymap.ToggleZoom,
		keymap.SplitEqualize, keymap.LayoutEvenHorizontal, keymap.LayoutEvenVertical,
		keymap.LayoutMainVertical, keymap.LayoutTiled, keymap.ToggleBroadcastMember,
	}},
	{"Workspaces", []keymap.Action{
		keymap.NewWorkspace, keymap.CloseWorkspace, keymap.NextWorkspace, keymap.PrevWorkspace,
		keymap.SelectWorkspace1, keymap.SelectWorkspace2, keymap.SelectWorkspace3,
		keymap.SelectWorkspace4, keymap.SelectWorkspace5, keymap.SelectWorkspace6,
		keymap.SelectWorkspace7, keymap.SelectWorkspace8, keymap.SelectWorkspace9,
		keymap.MoveWorkspaceLeft, keymap.MoveWorkspaceRight, keymap.RenameWorkspace,
		keymap.ToggleSidebar,
	}},
	{"Terminal", []keymap.Action{
		keymap.TerminalCopy, keymap.TerminalPaste, keymap.ScrollPageUp, keymap.ScrollPageDown,
		keymap.ToggleSearch, keymap.CopyMode, keymap.ClearScrollHistory, keymap.ResetTerminal,
		keymap.FontSizeIncrease, keymap.FontSizeDecrease, keymap.FontSizeReset,
	}},
	{"Agents", []keymap.Action{
		keymap.OpenAgentsView, keymap.JumpNextWaiting, keymap.OpenComposer, keymap.OpenLaunchPad,
		keymap.QuickLaunch, keymap.NewFromTemplate, keymap.OpenDiffView, keymap.OpenPaneHistory,
		keymap.SearchAllPanes, keymap.OpenMCPInstall,
	}},
	{"Window", []keymap.Action{
		keymap.CommandPalette, keymap.OpenSettings, keymap.ShowShortcuts, keymap.AddHost, keymap.RemoveHost,
		keymap.OpenWebAccess, keymap.Quit,
	}},
	{"Diff view", []keymap.Action{
		keymap.DiffNextHunk, keymap.DiffPrevHunk, keymap.DiffStageHunk, keymap.DiffRevertHunk,
		keymap.DiffUndoRevert, keymap.DiffNextScope,
	}},
}

// shortcutRow is one line of the sheet.
type shortcutRow struct {
	group  string
	action keymap.Action
	title  string
	keys   string // every keystroke's label, ", "-joined; "" when unbound
}

// shortcutsPanel is the keyboard shortcuts sheet: every action with its
// keystrokes in the live keymap (the defaults with the user's
// [shortcuts]), grouped, filtered by what is typed in its search field.
// Enter runs the first action shown. It is a panel: its widgets are used
// on the UI goroutine only.
type shortcutsPanel struct {
	widget.BaseWidget
	host   panelHost
	rows   []shortcutRow
	shown  []shortcutRow // the rows matching the query, in sheet order
	query  *keyEntry
	list   *fyne.Container
	scroll *container.Scroll
	body   fyne.CanvasObject
}

var _ panel = (*shortcutsPanel)(nil)

// newShortcutsPanel builds the sheet from keys.
func newShortcutsPanel(host panelHost, keys *keymap.Map) *shortcutsPanel {
	p := &shortcutsPanel{host: host, query: newKeyEntry(false), list: container.NewVBox()}
	p.ExtendBaseWidget(p)
	for _, g := range shortcutGroups {
		for _, a := range g.actions {
			title := actionTitles[a]
			if title == "" {
				title = string(a)
			}
			p.rows = append(p.rows, shortcutRow{group: g.title, action: a, title: title, keys: strings.Join(keys.Labels(a), ", ")})
		}
	}
	p.query.SetPlaceHolder("Search actions and keys…")
	p.query.OnChanged = p.filter
	p.query.onKey = func(ev *fyne.KeyEvent) bool {
		switch ev.Name {
		case fyne.KeyEscape:
			p.host.closePanel(p)
		case fyne.KeyReturn, fyne.KeyEnter:
			if len(p.shown) > 0 {
				p.host.runAction(p, p.shown[0].action)
			}
		default:
			return false
		}
		return true
	}
	p.scroll = container.NewVScroll(p.list)
	header := widget.NewLabelWithStyle("Keyboard shortcuts", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	note := widget.NewLabel("Change them in the [shortcuts] table of paneflow.toml, as \"ctrl+shift+y\" = \"toggle_zoom\" (the action names are shown when you search).")
	note.Wrapping = fyne.TextWrapWord
	p.body = container.NewBorder(container.NewVBox(header, p.query), note, nil, nil, p.scroll)
	p.filter("")
	return p
}

// matches reports whether r matches the query q (fuzzy, on its title,
// its action's name or its keystrokes).
func (r shortcutRow) matches(q string) bool {
	if strings.TrimSpace(q) == "" {
		return true
	}
	for _, t := range []string{r.title, string(r.action), r.keys, r.group} {
		if _, ok := fuzzyScore(q, t); ok {
			return true
		}
	}
	return false
}

// filter shows the rows matching q under their groups' headers.
func (p *shortcutsPanel) filter(q string) {
	p.shown = p.shown[:0]
	var objs []fyne.CanvasObject
	fg := theme.Color(theme.ColorNameForeground)
	muted := theme.Color(theme.ColorNamePlaceHolder)
	group := ""
	for _, r := range p.rows {
		if !r.matches(q) {
			continue
		}
		p.shown = append(p.shown, r)
		if r.group != group {
			group = r.group
			h := widget.NewLabelWithStyle(group, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
			objs = append(objs, h)
		}
		title := r.title
		if strings.TrimSpace(q) != "" {
			title += "  (" + string(r.action) + ")"
		}
		t := canvas.NewText(title, fg)
		t.TextSize = nameSize + 1
		keys := r.keys
		if keys == "" {
			keys = "no key"
		}
		k := canvas.NewText(keys, muted)
		k.TextSize = nameSize + 1
		k.TextStyle = fyne.TextStyle{Monospace: true}
		objs = append(objs, container.New(layout.NewCustomPaddedLayout(2, 2, 8, 8), container.NewBorder(nil, nil, nil, k, t)))
	}
	if len(objs) == 0 {
		objs = append(objs, widget.NewLabel("No action matches "+strings.TrimSpace(q)+"."))
	}
	p.list.Objects = objs
	p.list.Refresh()
	p.scroll.ScrollToTop()
}

// CreateRenderer draws the sheet.
func (p *shortcutsPanel) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(p.body)
}

// focusTarget is the search field.
func (p *shortcutsPanel) focusTarget() fyne.Focusable { return p.query }

// openShortcutsLocked opens the keyboard shortcuts sheet over the live
// keymap (or closes it when open).
func (s *shell) openShortcutsLocked() {
	togglePanelLocked(s, func(h shellHost) *shortcutsPanel { return newShortcutsPanel(h, s.conf.keys) }, fyne.NewSize(640, 620))
}
