package keymap

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"

	"fyne.io/fyne/v2"
)

// Action names something the app can do from a keystroke. Its value is
// the name used in the [shortcuts] table of paneflow.toml (spec gui.md §2).
type Action string

// The actions the desktop app implements.
const (
	SplitHorizontally    Action = "split_horizontally" // new pane below the focused one
	SplitVertically      Action = "split_vertically"   // new pane to the right
	ClosePane            Action = "close_pane"
	NewWorkspace         Action = "new_workspace"
	CloseWorkspace       Action = "close_workspace"
	NextWorkspace        Action = "next_workspace"
	PrevWorkspace        Action = "prev_workspace"
	FocusLeft            Action = "focus_left"
	FocusRight           Action = "focus_right"
	FocusUp              Action = "focus_up"
	FocusDown            Action = "focus_down"
	SelectWorkspace1     Action = "select_workspace_1"
	SelectWorkspace2     Action = "select_workspace_2"
	SelectWorkspace3     Action = "select_workspace_3"
	SelectWorkspace4     Action = "select_workspace_4"
	SelectWorkspace5     Action = "select_workspace_5"
	SelectWorkspace6     Action = "select_workspace_6"
	SelectWorkspace7     Action = "select_workspace_7"
	SelectWorkspace8     Action = "select_workspace_8"
	SelectWorkspace9     Action = "select_workspace_9"
	ToggleZoom           Action = "toggle_zoom"
	LayoutEvenHorizontal Action = "layout_even_horizontal"
	LayoutEvenVertical   Action = "layout_even_vertical"
	LayoutMainVertical   Action = "layout_main_vertical"
	LayoutTiled          Action = "layout_tiled"
	SplitEqualize        Action = "split_equalize"
	TerminalCopy         Action = "terminal_copy"
	TerminalPaste        Action = "terminal_paste"
	ScrollPageUp         Action = "scroll_page_up"
	ScrollPageDown       Action = "scroll_page_down"
	ToggleSearch         Action = "toggle_search"
	ClearScrollHistory   Action = "clear_scroll_history"
	ResetTerminal        Action = "reset_terminal"
	FontSizeIncrease     Action = "font_size_increase"
	FontSizeDecrease     Action = "font_size_decrease"
	FontSizeReset        Action = "font_size_reset"
	JumpNextWaiting      Action = "jump_next_waiting"
	RenamePane           Action = "rename_pane"
	// The workspace tabs: move the active one a place left or right
	// (as GNOME Terminal's and Firefox's Ctrl+Shift+PageUp/PageDown),
	// rename it.
	MoveWorkspaceLeft  Action = "move_workspace_left"
	MoveWorkspaceRight Action = "move_workspace_right"
	RenameWorkspace    Action = "rename_workspace"
	Quit               Action = "quit"
	CommandPalette     Action = "command_palette"  // every action, fuzzy matched
	OpenAgentsView     Action = "open_agents_view" // every agent of every workspace
	OpenComposer       Action = "open_composer"    // a prompt for the focused pane's agent
	OpenDiffView       Action = "open_diff_view"   // the focused pane's repository against its branch point
	// ToggleBroadcastMember puts the focused pane in a named broadcast
	// group (asking for the name) or takes it out.
	ToggleBroadcastMember Action = "toggle_broadcast_member"
	// The launch pad: workspace and flow specs to launch, a quick launch
	// of one agent in a new worktree, a spec written from a template.
	OpenLaunchPad   Action = "open_launch_pad"
	QuickLaunch     Action = "quick_launch"
	NewFromTemplate Action = "new_workspace_from_template"
	// OpenMCPInstall shows whether each agent CLI has Paneflow's MCP
	// entry, and installs or removes it (`paneflow mcp`).
	OpenMCPInstall Action = "open_mcp_install"
	// AddHost asks for another machine (ssh) whose Paneflow server's
	// workspaces the sidebar then shows, and saves it in the config.
	AddHost Action = "add_host"
	// RemoveHost stops showing another host (nothing there stops) and
	// takes it out of the config.
	RemoveHost Action = "remove_host"
	// SearchAllPanes searches every pane's scrollback, screen and
	// full-screen history (surface.search_all) and jumps to a match.
	SearchAllPanes Action = "search_all_panes"
	// OpenPaneHistory shows the focused pane's agent turns (ai.history)
	// and steps through the screens its full-screen programs showed.
	OpenPaneHistory Action = "open_pane_history"
	// OpenWebAccess pairs a browser with the server's web client (a
	// link and its QR code) and lists the paired ones to revoke
	// (`paneflow web`).
	OpenWebAccess Action = "open_web_access"
	// ToggleSidebar collapses the sidebar to a thin strip, or expands it.
	ToggleSidebar Action = "toggle_sidebar"
	// CopyMode starts the focused pane's keyboard copy mode (vi keys,
	// search, select and yank, as tmux's).
	CopyMode Action = "copy_mode"
	// OpenSettings shows the settings view, which writes paneflow.toml.
	OpenSettings Action = "open_settings"
	// ShowShortcuts shows every action's keystrokes (these defaults with
	// the user's [shortcuts]), searchable.
	ShowShortcuts Action = "show_shortcuts"
	// ReopenClosed brings back the pane or workspace closed last, its
	// programs still running, within the server's undo window (a minute).
	ReopenClosed Action = "reopen_closed"

	// The Diff view's keys (scope [DiffView]): they act only while the
	// Diff view is open and no field of it has the keyboard, so they can
	// be plain letters a pane's program never loses.

	// DiffNextHunk and DiffPrevHunk choose the next or previous hunk
	// shown, for the hunk actions; its @@ row is marked and scrolled to.
	DiffNextHunk Action = "diff_next_hunk"
	DiffPrevHunk Action = "diff_prev_hunk"
	// DiffStageHunk stages the chosen hunk (Unstaged) or unstages it
	// (Staged), as the Stage/Unstage hunk button.
	DiffStageHunk Action = "diff_stage_hunk"
	// DiffRevertHunk reverts the chosen hunk in the work tree (Unstaged;
	// kept for undo), as the Revert hunk button.
	DiffRevertHunk Action = "diff_revert_hunk"
	// DiffUndoRevert puts back the hunk reverted last.
	DiffUndoRevert Action = "diff_undo_revert"
	// DiffNextScope compares the next way: Branch, Unstaged, Staged.
	DiffNextScope Action = "diff_next_scope"
)

// Scope is where an action's keystrokes act. The zero value, [Window],
// is the whole window.
type Scope int

const (
	// Window actions act wherever the keyboard is, a pane included.
	Window Scope = iota
	// DiffView actions act only while the Diff view is open and has the
	// keyboard; their keystrokes may also be bound to Window actions.
	DiffView
)

// Scope returns where a's keystrokes act.
func (a Action) Scope() Scope {
	switch a {
	case DiffNextHunk, DiffPrevHunk, DiffStageHunk, DiffRevertHunk, DiffUndoRevert, DiffNextScope:
		return DiffView
	}
	return Window
}

// actions lists every action, in the order of the spec's table.
var actions = []Action{
	SplitHorizontally, SplitVertically, ClosePane, NewWorkspace, CloseWorkspace,
	NextWorkspace, PrevWorkspace, FocusLeft, FocusRight, FocusUp, FocusDown,
	JumpNextWaiting,
	SelectWorkspace1, SelectWorkspace2, SelectWorkspace3, SelectWorkspace4, SelectWorkspace5,
	SelectWorkspace6, SelectWorkspace7, SelectWorkspace8, SelectWorkspace9,
	TerminalCopy, TerminalPaste, ScrollPageUp, ScrollPageDown, ToggleZoom,
	LayoutEvenHorizontal, LayoutEvenVertical, LayoutMainVertical, LayoutTiled,
	SplitEqualize, ToggleSearch, FontSizeIncrease, FontSizeDecrease, FontSizeReset,
	RenamePane, Quit,
	// Not in the spec's table.
	ClearScrollHistory, ResetTerminal,
	CommandPalette, OpenAgentsView, OpenComposer, OpenDiffView, ToggleBroadcastMember,
	OpenLaunchPad, QuickLaunch, NewFromTemplate,
	OpenMCPInstall, AddHost, RemoveHost,
	SearchAllPanes, OpenPaneHistory,
	OpenWebAccess, ToggleSidebar, CopyMode,
	OpenSettings, ShowShortcuts, ReopenClosed,
	MoveWorkspaceLeft, MoveWorkspaceRight, RenameWorkspace,
	DiffNextHunk, DiffPrevHunk, DiffStageHunk, DiffRevertHunk, DiffUndoRevert, DiffNextScope,
}

// Actions returns every action the app implements, in the order of the
// spec's table (a new slice each time).
func Actions() []Action { return slices.Clone(actions) }

// Valid reports whether a is one of [Actions].
func (a Action) Valid() bool { return slices.Contains(actions, a) }

// unbind is the action name that removes a keystroke's binding.
const unbind = "none"

// Binding is one keystroke: a key and the modifiers held with it. Key is
// Fyne's name of the physical key (letters upper case, as fyne.KeyD);
// Mods has only the Shift, Control, Alt and Super bits. The zero value
// binds nothing.
type Binding struct {
	Key  fyne.KeyName
	Mods fyne.KeyModifier
}

// scoped is a keystroke in one scope: the same keystroke may act in the
// window and, differently, in a view.
type scoped struct {
	scope Scope
	Binding
}

// allMods are the modifier bits a Binding may carry.
const allMods = fyne.KeyModifierShift | fyne.KeyModifierControl | fyne.KeyModifierAlt | fyne.KeyModifierSuper

// Map is a keymap: keystrokes bound to actions, each action possibly
// bound to several keystrokes. Build one with [Default]; the zero value
// has no bindings and labels for Linux. See the package doc for its
// concurrency rules.
type Map struct {
	goos string
	keys map[scoped]Action
	// order lists each action's keystrokes, the one to show first.
	order map[Action][]Binding
}

// secondaryFor is the "secondary" modifier on goos: Super (Cmd) on
// macOS, Control elsewhere.
func secondaryFor(goos string) fyne.KeyModifier {
	if goos == "darwin" {
		return fyne.KeyModifierSuper
	}
	return fyne.KeyModifierControl
}

// defaults lists the default keystrokes per action, in the syntax of
// ParseBinding, for every platform; darwinOnly and othersOnly add the
// platform-specific ones.
var defaults = []struct {
	keys   string
	action Action
}{
	{"secondary+shift+d", SplitHorizontally},
	{"secondary+shift+e", SplitVertically},
	{"secondary+shift+w", ClosePane},
	{"secondary+shift+n", NewWorkspace},
	// Not Ctrl+Shift+Q, which quits GNOME Terminal and Konsole (and is
	// macOS's Log Out with Cmd): X as in closing.
	{"secondary+shift+x", CloseWorkspace},
	{"secondary+tab", NextWorkspace},
	{"secondary+shift+tab", PrevWorkspace},
	{"alt+left", FocusLeft},
	{"alt+right", FocusRight},
	{"alt+up", FocusUp},
	{"alt+down", FocusDown},
	{"secondary+shift+j", JumpNextWaiting},
	{"secondary+1", SelectWorkspace1},
	{"secondary+2", SelectWorkspace2},
	{"secondary+3", SelectWorkspace3},
	{"secondary+4", SelectWorkspace4},
	{"secondary+5", SelectWorkspace5},
	{"secondary+6", SelectWorkspace6},
	{"secondary+7", SelectWorkspace7},
	{"secondary+8", SelectWorkspace8},
	{"secondary+9", SelectWorkspace9},
	{"shift+pageup", ScrollPageUp},
	{"shift+pagedown", ScrollPageDown},
	{"secondary+shift+z", ToggleZoom},
	{"secondary+alt+1", LayoutEvenHorizontal},
	{"secondary+alt+2", LayoutEvenVertical},
	{"secondary+alt+3", LayoutMainVertical},
	{"secondary+alt+4", LayoutTiled},
	{"secondary+shift+=", SplitEqualize},
	{"ctrl+shift+f", ToggleSearch},
	{"secondary+=", FontSizeIncrease},
	{"secondary+-", FontSizeDecrease},
	{"secondary+0", FontSizeReset},
	// Not in the original's table: a free keystroke for renaming the
	// focused pane (the sidebar's double-click does it too).
	{"secondary+shift+r", RenamePane},
	{"secondary+shift+pageup", MoveWorkspaceLeft},
	{"secondary+shift+pagedown", MoveWorkspaceRight},
	{"secondary+alt+shift+r", RenameWorkspace}, // Rename pane's, with Alt
	// The agent cockpit (spec gui.md §2, §9); the palette's keystroke is
	// the one editors use.
	{"secondary+shift+p", CommandPalette},
	{"secondary+shift+a", OpenAgentsView},
	{"secondary+shift+space", OpenComposer},
	{"secondary+shift+g", OpenDiffView},
	{"secondary+shift+b", ToggleBroadcastMember},
	{"secondary+shift+o", OpenLaunchPad},
	{"secondary+shift+l", QuickLaunch}, // the original's Launch Pad key
	// As browsers reopen a closed tab; the template dialog, which the
	// launch pad also opens, moved to I.
	{"secondary+shift+t", ReopenClosed},
	{"secondary+shift+i", NewFromTemplate},
	{"secondary+shift+m", OpenMCPInstall},
	// Find in pane is Ctrl+Shift+F; S for search everywhere, H for
	// history.
	{"secondary+shift+s", SearchAllPanes},
	{"secondary+shift+h", OpenPaneHistory},
	{"secondary+shift+k", AddHost},
	{"secondary+alt+shift+k", RemoveHost}, // Add host's, with Alt
	{"secondary+shift+u", OpenWebAccess},
	// As the sidebar toggles of editors, which take Ctrl+B (a shell's
	// and tmux's key here).
	{"secondary+shift+backslash", ToggleSidebar},
	// Y as in yank: tmux's prefix+[ has no free chord here, and
	// Ctrl+Shift+Space (Alacritty's) is the composer's.
	{"secondary+shift+y", CopyMode},
	// As the settings of macOS apps (Cmd+,), Windows Terminal and VS
	// Code; Ctrl+? (Shift+/) for the shortcuts, as help sheets of web
	// apps take "?".
	{"secondary+comma", OpenSettings},
	{"secondary+shift+slash", ShowShortcuts},
	// The Diff view's own keys: n/p as in less and mutt, j/k as in vi,
	// s for stage, r for revert, u for undo, c for compare.
	{"n", DiffNextHunk},
	{"j", DiffNextHunk},
	{"p", DiffPrevHunk},
	{"k", DiffPrevHunk},
	{"s", DiffStageHunk},
	{"r", DiffRevertHunk},
	{"u", DiffUndoRevert},
	{"c", DiffNextScope},
}

var darwinOnly = []struct {
	keys   string
	action Action
}{
	{"cmd+c", TerminalCopy},
	{"cmd+v", TerminalPaste},
	{"cmd+q", Quit},
	// As in macOS's Terminal.
	{"cmd+k", ClearScrollHistory},
	{"cmd+alt+r", ResetTerminal},
}

// othersOnly are for Linux and Windows: Ctrl+C and Ctrl+V belong to the
// program in the pane, so copy and paste take Shift too.
var othersOnly = []struct {
	keys   string
	action Action
}{
	{"ctrl+shift+c", TerminalCopy},
	{"ctrl+shift+v", TerminalPaste},
	// As in kitty; Ctrl+Shift+K is the original's attention queue.
	{"ctrl+shift+backspace", ClearScrollHistory},
	{"ctrl+shift+delete", ResetTerminal},
	// As in GNOME Terminal and Konsole (macOS has Cmd+Q).
	{"ctrl+shift+q", Quit},
}

// Default returns the default keymap for goos (a runtime.GOOS value; ""
// means this system's) (spec gui.md §2). It returns a new Map each time.
func Default(goos string) *Map {
	if goos == "" {
		goos = runtime.GOOS
	}
	m := &Map{goos: goos}
	add := func(list []struct {
		keys   string
		action Action
	}) {
		for _, d := range list {
			b, err := parseFor(d.keys, goos)
			if err != nil {
				panic(fmt.Sprintf("keymap: bad default %q: %v", d.keys, err))
			}
			m.bind(b, d.action, false)
		}
	}
	add(defaults)
	if goos == "darwin" {
		add(darwinOnly)
	} else {
		add(othersOnly)
	}
	return m
}

// bind binds b to a, replacing b's previous action in a's scope. With
// first, b becomes the keystroke a's label shows.
func (m *Map) bind(b Binding, a Action, first bool) {
	m.unbindIn(a.Scope(), b)
	if m.keys == nil {
		m.keys = map[scoped]Action{}
		m.order = map[Action][]Binding{}
	}
	m.keys[scoped{a.Scope(), b}] = a
	if first {
		m.order[a] = append([]Binding{b}, m.order[a]...)
	} else {
		m.order[a] = append(m.order[a], b)
	}
}

// unbind removes b's bindings in every scope.
func (m *Map) unbind(b Binding) {
	m.unbindIn(Window, b)
	m.unbindIn(DiffView, b)
}

// unbindIn removes b's binding in scope, if any.
func (m *Map) unbindIn(scope Scope, b Binding) {
	old, ok := m.keys[scoped{scope, b}]
	if !ok {
		return
	}
	delete(m.keys, scoped{scope, b})
	m.order[old] = slices.DeleteFunc(m.order[old], func(x Binding) bool { return x == b })
	if len(m.order[old]) == 0 {
		delete(m.order, old)
	}
}

// Override layers the user's shortcuts (keystroke → action name, the
// [shortcuts] table) over m: each keystroke is bound to its action,
// replacing what that keystroke did before; the action keeps its other
// keystrokes, and its label shows the user's keystroke. The action "none"
// (or "") unbinds the keystroke, in the window and in the views alike; a
// view's action (see [Action.Scope]) replaces only what the keystroke
// did in that view. Entries are applied in sorted order of
// their keystroke text, so when two spellings name the same keystroke
// ("ctrl+t" and "Ctrl-T") the later one wins, with a warning. An unknown
// action or a keystroke that does not parse is skipped with a warning;
// Override never fails.
func (m *Map) Override(shortcuts map[string]string) (warnings []string) {
	keys := make([]string, 0, len(shortcuts))
	for k := range shortcuts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	seen := map[scoped]string{}
	for _, k := range keys {
		name := strings.TrimSpace(shortcuts[k])
		b, err := parseFor(k, m.goos)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("shortcuts: %q: %v; ignored", k, err))
			continue
		}
		a := Action(strings.ToLower(name))
		if name != "" && a != unbind && !a.Valid() {
			warnings = append(warnings, fmt.Sprintf("shortcuts: %q: unknown action %q; ignored", k, name))
			continue
		}
		if prev, dup := seen[scoped{a.Scope(), b}]; dup {
			warnings = append(warnings, fmt.Sprintf("shortcuts: %q and %q are the same keystroke; %q wins", prev, k, k))
		}
		seen[scoped{a.Scope(), b}] = k
		if name == "" || a == unbind {
			m.unbind(b)
			continue
		}
		m.bind(b, a, true)
	}
	return warnings
}

// Lookup returns the action bound to key pressed with mods (extra bits
// beyond Shift, Control, Alt and Super are ignored).
//
// Fyne names physical keys, unshifted: Shift+"=" arrives as
// (fyne.KeyEqual, Shift), not as "+"; letters always arrive upper case
// with the Shift bit telling case; the keypad's digits arrive as the
// digits and its Enter as fyne.KeyEnter, while its "+" arrives as
// fyne.KeyPlus (as does a "+" key of its own on layouts that have one).
// So after an exact match Lookup tries: (KeyEqual with Shift) as
// (KeyPlus without Shift), so "ctrl++" works as written on a US layout;
// KeyPlus as KeyEqual, so Secondary with the keypad's "+" increases the
// font size like Secondary+"="; the keypad's Enter as Return.
func (m *Map) Lookup(key fyne.KeyName, mods fyne.KeyModifier) (Action, bool) {
	return m.LookupIn(Window, key, mods)
}

// LookupIn is [Map.Lookup] among the actions of scope only.
func (m *Map) LookupIn(scope Scope, key fyne.KeyName, mods fyne.KeyModifier) (Action, bool) {
	mods &= allMods
	if a, ok := m.keys[scoped{scope, Binding{key, mods}}]; ok {
		return a, true
	}
	switch {
	case key == fyne.KeyEqual && mods&fyne.KeyModifierShift != 0:
		a, ok := m.keys[scoped{scope, Binding{fyne.KeyPlus, mods &^ fyne.KeyModifierShift}}]
		return a, ok
	case key == fyne.KeyPlus:
		a, ok := m.keys[scoped{scope, Binding{fyne.KeyEqual, mods}}]
		return a, ok
	case key == fyne.KeyEnter:
		a, ok := m.keys[scoped{scope, Binding{fyne.KeyReturn, mods}}]
		return a, ok
	}
	return "", false
}

// Bindings returns a's keystrokes, the one its label shows first; nil
// when it has none.
func (m *Map) Bindings(a Action) []Binding {
	return slices.Clone(m.order[a])
}

// Label returns the keystroke of a for menus and tooltips, as
// "Ctrl+Shift+D" (macOS: "Cmd+Shift+D"), "" when a has no keystroke.
func (m *Map) Label(a Action) string {
	bs := m.order[a]
	if len(bs) == 0 {
		return ""
	}
	return bs[0].Label(m.goos)
}

// Labels returns the labels of all of a's keystrokes, the one [Map.Label]
// shows first; nil when it has none.
func (m *Map) Labels(a Action) []string {
	var out []string
	for _, b := range m.order[a] {
		out = append(out, b.Label(m.goos))
	}
	return out
}

// Clone returns an independent copy of m.
func (m *Map) Clone() *Map {
	c := &Map{goos: m.goos}
	if m.keys != nil {
		c.keys = make(map[scoped]Action, len(m.keys))
		for b, a := range m.keys {
			c.keys[b] = a
		}
		c.order = make(map[Action][]Binding, len(m.order))
		for a, bs := range m.order {
			c.order[a] = slices.Clone(bs)
		}
	}
	return c
}

// keyLabels are the display names of keys whose Fyne name is not what a
// person reads.
var keyLabels = map[fyne.KeyName]string{
	fyne.KeyPageUp:    "PageUp",
	fyne.KeyPageDown:  "PageDown",
	fyne.KeyReturn:    "Enter",
	fyne.KeyEnter:     "KeypadEnter",
	fyne.KeyBackspace: "Backspace",
	fyne.KeyEscape:    "Esc",
}

// Label returns the keystroke as people read it on goos: modifiers in the
// platform's order (macOS: Ctrl, Option, Shift, Cmd; others: Ctrl, Alt,
// Shift, Super) then the key, joined by "+", as "Ctrl+Shift+D".
func (b Binding) Label(goos string) string {
	var parts []string
	mac := goos == "darwin"
	if b.Mods&fyne.KeyModifierControl != 0 {
		parts = append(parts, "Ctrl")
	}
	if b.Mods&fyne.KeyModifierAlt != 0 {
		if mac {
			parts = append(parts, "Option")
		} else {
			parts = append(parts, "Alt")
		}
	}
	if b.Mods&fyne.KeyModifierShift != 0 {
		parts = append(parts, "Shift")
	}
	if b.Mods&fyne.KeyModifierSuper != 0 {
		if mac {
			parts = append(parts, "Cmd")
		} else {
			parts = append(parts, "Super")
		}
	}
	k, ok := keyLabels[b.Key]
	if !ok {
		k = string(b.Key)
	}
	return strings.Join(append(parts, k), "+")
}

// String returns the keystroke in the syntax ParseBinding reads, with
// the modifiers spelled out (never "secondary"), as "ctrl+shift+d".
func (b Binding) String() string {
	var parts []string
	for _, m := range []struct {
		bit  fyne.KeyModifier
		name string
	}{{fyne.KeyModifierControl, "ctrl"}, {fyne.KeyModifierAlt, "alt"}, {fyne.KeyModifierShift, "shift"}, {fyne.KeyModifierSuper, "super"}} {
		if b.Mods&m.bit != 0 {
			parts = append(parts, m.name)
		}
	}
	return strings.Join(append(parts, keyWord(b.Key)), "+")
}
