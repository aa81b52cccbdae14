package app

import (
	"image/color"
	"slices"
	"strings"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/paneflow-go/paneflow/app/keymap"
)

// actionTitles are the command palette's names of the app actions.
// Every keymap action has one (TestActionTitles).
var actionTitles = map[keymap.Action]string{
	keymap.SplitHorizontally:     "Split pane down",
	keymap.SplitVertically:       "Split pane right",
	keymap.ClosePane:             "Close pane",
	keymap.NewWorkspace:          "New workspace…",
	keymap.CloseWorkspace:        "Close workspace",
	keymap.NextWorkspace:         "Next workspace",
	keymap.PrevWorkspace:         "Previous workspace",
	keymap.FocusLeft:             "Focus pane left",
	keymap.FocusRight:            "Focus pane right",
	keymap.FocusUp:               "Focus pane above",
	keymap.FocusDown:             "Focus pane below",
	keymap.JumpNextWaiting:       "Jump to next waiting agent",
	keymap.SelectWorkspace1:      "Select workspace 1",
	keymap.SelectWorkspace2:      "Select workspace 2",
	keymap.SelectWorkspace3:      "Select workspace 3",
	keymap.SelectWorkspace4:      "Select workspace 4",
	keymap.SelectWorkspace5:      "Select workspace 5",
	keymap.SelectWorkspace6:      "Select workspace 6",
	keymap.SelectWorkspace7:      "Select workspace 7",
	keymap.SelectWorkspace8:      "Select workspace 8",
	keymap.SelectWorkspace9:      "Select workspace 9",
	keymap.TerminalCopy:          "Copy selection",
	keymap.TerminalPaste:         "Paste",
	keymap.ScrollPageUp:          "Scroll page up",
	keymap.ScrollPageDown:        "Scroll page down",
	keymap.ToggleZoom:            "Toggle zoom",
	keymap.ToggleSidebar:         "Sidebar: collapse or expand",
	keymap.LayoutEvenHorizontal:  "Layout: even horizontal",
	keymap.LayoutEvenVertical:    "Layout: even vertical",
	keymap.LayoutMainVertical:    "Layout: main vertical",
	keymap.LayoutTiled:           "Layout: tiled",
	keymap.SplitEqualize:         "Equalize panes",
	keymap.ToggleSearch:          "Find in pane",
	keymap.CopyMode:              "Copy mode: vi keys, search, select, yank",
	keymap.ReopenClosed:          "Undo close: reopen the pane or workspace closed last",
	keymap.FontSizeIncrease:      "Font size: increase",
	keymap.FontSizeDecrease:      "Font size: decrease",
	keymap.FontSizeReset:         "Font size: reset",
	keymap.RenamePane:            "Rename pane…",
	keymap.MoveWorkspaceLeft:     "Move workspace left (its tab)",
	keymap.MoveWorkspaceRight:    "Move workspace right (its tab)",
	keymap.RenameWorkspace:       "Rename workspace…",
	keymap.Quit:                  "Quit Paneflow",
	keymap.ClearScrollHistory:    "Clear scroll history",
	keymap.ResetTerminal:         "Reset terminal",
	keymap.CommandPalette:        "Command palette",
	keymap.OpenAgentsView:        "Agents overview",
	keymap.OpenComposer:          "Prompt composer",
	keymap.OpenDiffView:          "Diff view of the focused pane's repository",
	keymap.ToggleBroadcastMember: "Broadcast group: add or remove the focused pane",
	keymap.OpenLaunchPad:         "Launch pad: workspace and flow specs",
	keymap.QuickLaunch:           "Quick launch: an agent in a new worktree…",
	keymap.NewFromTemplate:       "New workspace from template…",
	keymap.OpenMCPInstall:        "MCP: agents' paneflow entry (status, install, remove)…",
	keymap.AddHost:               "Add host… (another machine's agents, over ssh)",
	keymap.RemoveHost:            "Remove host… (stop showing it; nothing there stops)",
	keymap.SearchAllPanes:        "Search every pane (scrollback and full-screen history)…",
	keymap.OpenPaneHistory:       "Agent timeline and screen replay of the focused pane",
	keymap.OpenWebAccess:         "Web access: pair a browser or phone, revoke one…",
	keymap.OpenSettings:          "Settings…",
	keymap.ShowShortcuts:         "Keyboard shortcuts",
	keymap.DiffNextHunk:          "Diff view: next hunk",
	keymap.DiffPrevHunk:          "Diff view: previous hunk",
	keymap.DiffStageHunk:         "Diff view: stage (or unstage) the hunk",
	keymap.DiffRevertHunk:        "Diff view: revert the hunk (kept for undo)",
	keymap.DiffUndoRevert:        "Diff view: undo the last revert",
	keymap.DiffNextScope:         "Diff view: compare Branch, Unstaged, Staged",
}

// paletteItem is one row of the command palette.
type paletteItem struct {
	Action   keymap.Action
	Title    string
	Shortcut string // the current keystroke's label, "" when unbound
}

// paletteItems lists every window action (but the palette itself) with its
// current keystroke in keys, in the keymap's order.
func paletteItems(keys *keymap.Map) []paletteItem {
	var items []paletteItem
	for _, a := range keymap.Actions() {
		if a == keymap.CommandPalette || a.Scope() != keymap.Window {
			continue // the Diff view's keys act in the Diff view only
		}
		title := actionTitles[a]
		if title == "" {
			title = string(a)
		}
		items = append(items, paletteItem{Action: a, Title: title, Shortcut: keys.Label(a)})
	}
	return items
}

// fuzzyScore matches query against text as a case-insensitive
// subsequence and scores the match (higher is better): letters that
// follow each other and letters at the start of a word count more, a
// match nearer the start counts more. ok is false when query is not a
// subsequence of text. Spaces in query are ignored. An empty query
// matches everything with score 0.
func fuzzyScore(query, text string) (score int, ok bool) {
	q := []rune(strings.ToLower(strings.ReplaceAll(query, " ", "")))
	if len(q) == 0 {
		return 0, true
	}
	t := []rune(text)
	qi, prev := 0, -2
	for i := 0; i < len(t) && qi < len(q); i++ {
		if unicode.ToLower(t[i]) != q[qi] {
			continue
		}
		s := 1
		if i == prev+1 {
			s += 5
		}
		if i == 0 || !unicode.IsLetter(t[i-1]) && !unicode.IsDigit(t[i-1]) {
			s += 8
		}
		if i < 8 {
			s += 8 - i
		}
		score += s
		prev = i
		qi++
	}
	return score, qi == len(q)
}

// filterPalette returns the items matching query, best first; ties keep
// their order.
func filterPalette(items []paletteItem, query string) []paletteItem {
	type scored struct {
		it    paletteItem
		score int
	}
	var out []scored
	for _, it := range items {
		sc, ok := fuzzyScore(query, it.Title)
		if sc2, ok2 := fuzzyScore(query, string(it.Action)); ok2 && (!ok || sc2 > sc) {
			sc, ok = sc2, true
		}
		if ok {
			out = append(out, scored{it, sc})
		}
	}
	slices.SortStableFunc(out, func(a, b scored) int { return b.score - a.score })
	res := make([]paletteItem, len(out))
	for i, s := range out {
		res[i] = s.it
	}
	return res
}

// popup is a modal overlay holding one of the shell's views (palette,
// agents overview); closing it gives the keyboard back to the focused
// pane.
type popup struct {
	pop *widget.PopUp
	// holder holds the content; Fyne keeps it (a themed container) after
	// the popup is gone, so closing empties it.
	holder *fyne.Container
}

// showPopupLocked opens content in a modal overlay of size, focusing
// focus; onClose runs (holding the shell's lock) when it closes.
//
// What the overlay draws is kept to what is seen, because under software
// OpenGL (Mesa llvmpipe: Xvfb, VMs, remote desktops) each frame costs in
// proportion to the pixels shaded, and a pane flooding under the agents
// overview makes the window paint as fast as it can
// (BenchmarkOverviewFlood, test/gui):
//   - no dimming layer over the rest of the window (popupTheme): a
//     rectangle the size of the window, blended on every frame;
//   - no background of our own: the popup's own (Fyne's, in the theme's
//     overlay colour) is under the content already; a 1 px border in
//     four thin rectangles marks the edge instead of the dimming.
func (s *shell) showPopupLocked(content fyne.CanvasObject, size fyne.Size, focus fyne.Focusable) *popup {
	edge := func() fyne.CanvasObject {
		r := canvas.NewRectangle(theme.Color(theme.ColorNameInputBorder))
		r.SetMinSize(fyne.NewSize(1, 1))
		return r
	}
	// Overriding the popup's theme reaches its renderer's underlay and
	// shadow (the ThemeOverride container itself is not shown). It is
	// applied while the popup holds nothing, so the content keeps the
	// app's theme: under popupTheme a split's divider, drawn in the shadow
	// colour, vanished and left only its handle, a stray I-beam. And Fyne
	// 2.7.1 keeps the text faces it parses for a theme override's texts
	// for good, one set per override (each a new scope: every text style
	// shown re-parses the theme's font and its 4 MB emoji font), so text
	// under an override cost 12.7 MB of heap each time the palette opened.
	holder := container.NewStack()
	pop := widget.NewModalPopUp(holder, s.w.Canvas())
	container.NewThemeOverride(pop, popupTheme{fyne.CurrentApp().Settings().Theme()})
	holder.Objects = []fyne.CanvasObject{container.NewBorder(edge(), edge(), edge(), edge(), container.NewPadded(content))}
	csize := s.w.Canvas().Size()
	size = fyne.NewSize(min(size.Width, csize.Width-40), min(size.Height, csize.Height-40))
	pop.Resize(size)
	pop.Show()
	if focus != nil {
		s.w.Canvas().Focus(focus)
	}
	return &popup{pop: pop, holder: holder}
}

// popupTheme is the app's theme with a transparent shadow colour: the
// modal popup's underlay and shadow, drawn in that colour, are then
// skipped by the GL painter (a transparent rectangle is not drawn) or
// invisible. The overlay still takes every click outside its content.
type popupTheme struct{ fyne.Theme }

// Color is the wrapped theme's colour, but transparent for the shadow.
func (t popupTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	if n == theme.ColorNameShadow {
		return color.Transparent
	}
	return t.Theme.Color(n, v)
}

// close hides the overlay.
func (p *popup) close() {
	if p != nil && p.pop != nil {
		p.pop.Hide()
		p.holder.Objects = nil
	}
}

// palette is the command palette, a panel: every action with its
// keystroke, filtered by what is typed; Enter or a click runs one. Its
// widgets are used holding the shell's lock (host.guard).
type palette struct {
	widget.BaseWidget
	host  panelHost
	list  *pickList
	items []paletteItem
	shown []paletteItem
	body  fyne.CanvasObject
}

var _ panel = (*palette)(nil)

// newPalette builds the command palette over h for the key map keys.
func newPalette(h panelHost, keys *keymap.Map) *palette {
	p := &palette{host: h, list: newPickList("Type a command…", h.guard), items: paletteItems(keys)}
	p.ExtendBaseWidget(p)
	muted := theme.Color(theme.ColorNamePlaceHolder)
	fg := theme.Color(theme.ColorNameForeground)
	p.list.build = func(i int) fyne.CanvasObject {
		it := p.shown[i]
		title := canvas.NewText(it.Title, fg)
		title.TextSize = nameSize + 1
		key := canvas.NewText(it.Shortcut, muted)
		key.TextSize = nameSize
		return container.NewBorder(nil, nil, nil, key, title)
	}
	p.list.activate = func(i int) {
		var a keymap.Action
		h.guard(func() {
			if h.shown(p) && i < len(p.shown) {
				a = p.shown[i].Action
			}
		})
		if a != "" {
			h.runAction(p, a)
		}
	}
	p.list.dismiss = func() { h.closePanel(p) }
	p.list.query.OnChanged = func(q string) {
		h.guard(func() {
			if h.shown(p) {
				p.shown = filterPalette(p.items, q)
				p.list.setRows(len(p.shown), 0)
			}
		})
	}
	p.shown = p.items
	p.list.setRows(len(p.shown), 0)
	header := widget.NewLabelWithStyle("Command palette", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	p.body = container.NewBorder(container.NewVBox(header, p.list.query), nil, nil, nil, p.list.scroll)
	return p
}

// CreateRenderer draws the palette.
func (p *palette) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(p.body) }

// focusTarget is the query field.
func (p *palette) focusTarget() fyne.Focusable { return p.list.query }

// closeOverlaysLocked closes the open overlay (see [overlay]) and the
// agents overview, without giving the keyboard back.
func (s *shell) closeOverlaysLocked() {
	s.dismissOverlayLocked()
	s.hideOverviewLocked()
}
