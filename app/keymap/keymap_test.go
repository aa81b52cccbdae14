package keymap

import (
	"runtime"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"github.com/google/go-cmp/cmp"
)

const (
	shift = fyne.KeyModifierShift
	ctrl  = fyne.KeyModifierControl
	alt   = fyne.KeyModifierAlt
	super = fyne.KeyModifierSuper
)

func TestParseBinding(t *testing.T) {
	tests := []struct {
		in   string
		goos string
		want Binding
	}{
		{"ctrl+shift+d", "linux", Binding{fyne.KeyD, ctrl | shift}},
		{"Ctrl-Shift-D", "linux", Binding{fyne.KeyD, ctrl | shift}},
		{"secondary-shift-d", "linux", Binding{fyne.KeyD, ctrl | shift}},
		{"secondary-shift-d", "windows", Binding{fyne.KeyD, ctrl | shift}},
		{"secondary-shift-d", "darwin", Binding{fyne.KeyD, super | shift}},
		{"cmd+=", "linux", Binding{fyne.KeyEqual, super}},
		{"command+equal", "darwin", Binding{fyne.KeyEqual, super}},
		{"ctrl+-", "linux", Binding{fyne.KeyMinus, ctrl}},
		{"ctrl--", "linux", Binding{fyne.KeyMinus, ctrl}},
		{"ctrl++", "linux", Binding{fyne.KeyPlus, ctrl}},
		{"ctrl+plus", "linux", Binding{fyne.KeyPlus, ctrl}},
		{"alt+left", "linux", Binding{fyne.KeyLeft, alt}},
		{"option+Right", "darwin", Binding{fyne.KeyRight, alt}},
		{"shift+pageup", "linux", Binding{fyne.KeyPageUp, shift}},
		{"shift+PgDn", "linux", Binding{fyne.KeyPageDown, shift}},
		{"shift+page-up", "linux", Binding{fyne.KeyPageUp, shift}},
		{"shift+page_down", "linux", Binding{fyne.KeyPageDown, shift}},
		{"f5", "linux", Binding{fyne.KeyF5, 0}},
		{"F12", "linux", Binding{fyne.KeyF12, 0}},
		{"super+tab", "linux", Binding{fyne.KeyTab, super}},
		{"win+enter", "windows", Binding{fyne.KeyReturn, super}},
		{" ctrl + alt + 3 ", "linux", Binding{fyne.Key3, ctrl | alt}},
		{"ctrl+[", "linux", Binding{fyne.KeyLeftBracket, ctrl}},
		{"ctrl+backslash", "linux", Binding{fyne.KeyBackslash, ctrl}},
		{"ctrl+`", "linux", Binding{fyne.KeyBackTick, ctrl}},
		{"escape", "linux", Binding{fyne.KeyEscape, 0}},
		{"-", "linux", Binding{fyne.KeyMinus, 0}},
		{"ctrl+kp_enter", "linux", Binding{fyne.KeyEnter, ctrl}},
	}
	for _, tt := range tests {
		got, err := parseFor(tt.in, tt.goos)
		if err != nil || got != tt.want {
			t.Errorf("parseFor(%q, %s) = %+v, %v; want %+v", tt.in, tt.goos, got, err, tt.want)
		}
	}
}

func TestParseBindingErrors(t *testing.T) {
	for _, in := range []string{"", "  ", "ctrl+", "ctrl+shift", "hyper+d", "ctrl+ctrl+d", "ctrl+secondary+d", "f13", "f0", "ctrl+foo", "a+b", "shift+f01"} {
		if b, err := parseFor(in, "linux"); err == nil {
			t.Errorf("parseFor(%q) = %+v, want an error", in, b)
		}
	}
}

func TestParseBindingUsesThisSystem(t *testing.T) {
	b, err := ParseBinding("secondary+k")
	if err != nil {
		t.Fatal(err)
	}
	if want := secondaryFor(runtime.GOOS); b.Mods != want {
		t.Errorf("secondary = %v on %s, want %v", b.Mods, runtime.GOOS, want)
	}
}

func TestBindingStringRoundTrip(t *testing.T) {
	for _, in := range []string{"ctrl+shift+d", "alt+left", "shift+pageup", "shift+pagedown", "super+=", "ctrl+-", "f5", "ctrl+alt+shift+super+x", "escape", "ctrl+enter", "ctrl+kp_enter", "ctrl+backspace"} {
		b, err := parseFor(in, "linux")
		if err != nil {
			t.Fatalf("parseFor(%q): %v", in, err)
		}
		if got := b.String(); got != in {
			t.Errorf("String() of %q = %q", in, got)
		}
		back, err := parseFor(b.String(), "linux")
		if err != nil || back != b {
			t.Errorf("parse(String()) of %q = %+v, %v; want %+v", in, back, err, b)
		}
	}
}

func TestDefaults(t *testing.T) {
	tests := []struct {
		goos string
		key  fyne.KeyName
		mods fyne.KeyModifier
		want Action // "" = unbound
	}{
		{"linux", fyne.KeyD, ctrl | shift, SplitHorizontally},
		{"linux", fyne.KeyE, ctrl | shift, SplitVertically},
		{"linux", fyne.KeyW, ctrl | shift, ClosePane},
		{"linux", fyne.KeyN, ctrl | shift, NewWorkspace},
		{"linux", fyne.KeyQ, ctrl | shift, Quit}, // as in GNOME Terminal and Konsole
		{"windows", fyne.KeyQ, ctrl | shift, Quit},
		{"linux", fyne.KeyX, ctrl | shift, CloseWorkspace},
		{"linux", fyne.KeyTab, ctrl, NextWorkspace},
		{"linux", fyne.KeyTab, ctrl | shift, PrevWorkspace},
		{"linux", fyne.KeyLeft, alt, FocusLeft},
		{"linux", fyne.KeyDown, alt, FocusDown},
		{"linux", fyne.Key1, ctrl, SelectWorkspace1},
		{"linux", fyne.Key9, ctrl, SelectWorkspace9},
		{"linux", fyne.Key1, ctrl | alt, LayoutEvenHorizontal},
		{"linux", fyne.Key4, ctrl | alt, LayoutTiled},
		{"linux", fyne.KeyEqual, ctrl | shift, SplitEqualize},
		{"linux", fyne.KeyEqual, ctrl, FontSizeIncrease},
		{"linux", fyne.KeyMinus, ctrl, FontSizeDecrease},
		{"linux", fyne.Key0, ctrl, FontSizeReset},
		{"linux", fyne.KeyC, ctrl | shift, TerminalCopy},
		{"linux", fyne.KeyV, ctrl | shift, TerminalPaste},
		{"windows", fyne.KeyC, ctrl | shift, TerminalCopy},
		{"linux", fyne.KeyC, ctrl, ""}, // Ctrl+C reaches the program
		{"linux", fyne.KeyV, ctrl, ""},
		{"windows", fyne.KeyC, ctrl, ""},
		{"linux", fyne.KeyPageUp, shift, ScrollPageUp},
		{"linux", fyne.KeyPageDown, shift, ScrollPageDown},
		{"linux", fyne.KeyF, ctrl | shift, ToggleSearch},
		{"linux", fyne.KeyZ, ctrl | shift, ToggleZoom},
		{"linux", fyne.KeyJ, ctrl | shift, JumpNextWaiting},
		{"linux", fyne.KeyR, ctrl | shift, RenamePane},
		{"linux", fyne.KeyComma, ctrl, OpenSettings},
		{"darwin", fyne.KeyComma, super, OpenSettings},
		{"linux", fyne.KeySlash, ctrl | shift, ShowShortcuts},
		{"linux", fyne.KeyQ, super, ""},
		{"darwin", fyne.KeyD, super | shift, SplitHorizontally},
		{"darwin", fyne.KeyD, ctrl | shift, ""},
		{"darwin", fyne.KeyC, super, TerminalCopy},
		{"darwin", fyne.KeyV, super, TerminalPaste},
		{"darwin", fyne.KeyC, ctrl, ""},
		{"darwin", fyne.KeyC, ctrl | shift, ""},
		{"darwin", fyne.KeyQ, super, Quit},
		{"darwin", fyne.KeyQ, super | shift, ""}, // macOS's Log Out
		{"darwin", fyne.KeyX, super | shift, CloseWorkspace},
		{"darwin", fyne.KeyEqual, super, FontSizeIncrease},
		{"darwin", fyne.Key3, super, SelectWorkspace3},
		{"darwin", fyne.KeyLeft, alt, FocusLeft},
		{"darwin", fyne.KeyF, ctrl | shift, ToggleSearch},
	}
	for _, tt := range tests {
		got, ok := Default(tt.goos).Lookup(tt.key, tt.mods)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("%s: Lookup(%s, %v) = %q, %v; want %q", tt.goos, tt.key, tt.mods, got, ok, tt.want)
		}
	}
}

// TestDefaultsDistinct: no default keystroke is listed for two actions
// (the later would silently take it from the earlier).
func TestDefaultsDistinct(t *testing.T) {
	for _, goos := range []string{"linux", "darwin", "windows"} {
		seen := map[Binding]Action{}
		lists := [][]struct {
			keys   string
			action Action
		}{defaults, othersOnly}
		if goos == "darwin" {
			lists[1] = darwinOnly
		}
		for _, l := range lists {
			for _, d := range l {
				b, err := parseFor(d.keys, goos)
				if err != nil {
					t.Fatal(err)
				}
				if prev, dup := seen[b]; dup {
					t.Errorf("%s: %q is the default of both %s and %s", goos, d.keys, prev, d.action)
				}
				seen[b] = d.action
			}
		}
	}
}

func TestDefaultsCoverEveryAction(t *testing.T) {
	for _, goos := range []string{"linux", "darwin", "windows"} {
		m := Default(goos)
		for _, a := range Actions() {
			if m.Label(a) == "" {
				t.Errorf("%s: action %s has no default keystroke", goos, a)
			}
		}
		for b, a := range m.keys {
			if b.Key == fyne.KeyC && b.Mods == ctrl {
				t.Errorf("%s: plain Ctrl+C is bound to %s", goos, a)
			}
			if !a.Valid() {
				t.Errorf("%s: %v bound to unknown action %q", goos, b, a)
			}
		}
	}
}

func TestLookupNormalization(t *testing.T) {
	m := Default("linux")
	m.Override(map[string]string{"ctrl+alt++": "toggle_zoom"})
	tests := []struct {
		key  fyne.KeyName
		mods fyne.KeyModifier
		want Action
	}{
		// Keypad "+" with Ctrl: the "=" key's binding (font size up).
		{fyne.KeyPlus, ctrl, FontSizeIncrease},
		// Shift+"=" types "+": a binding written with "+" matches.
		{fyne.KeyEqual, ctrl | alt | shift, ToggleZoom},
		{fyne.KeyPlus, ctrl | alt, ToggleZoom},
		// An exact binding wins over the normalization.
		{fyne.KeyEqual, ctrl | shift, SplitEqualize},
		// Extra modifier bits from a driver are ignored.
		{fyne.KeyD, ctrl | shift | 1<<8, SplitHorizontally},
	}
	for _, tt := range tests {
		if got, ok := m.Lookup(tt.key, tt.mods); got != tt.want || !ok {
			t.Errorf("Lookup(%s, %v) = %q, %v; want %q", tt.key, tt.mods, got, ok, tt.want)
		}
	}
	m.Override(map[string]string{"ctrl+enter": "toggle_search"})
	if got, _ := m.Lookup(fyne.KeyEnter, ctrl); got != ToggleSearch {
		t.Errorf("keypad Enter: got %q, want the Return key's binding", got)
	}
}

func TestOverride(t *testing.T) {
	m := Default("linux")
	warns := m.Override(map[string]string{
		"ctrl+t":       "new_workspace",      // new keystroke for an action
		"ctrl+shift+d": "none",               // unbind a default
		"ctrl+shift+e": "",                   // unbind too
		"alt+left":     "focus_right",        // rebind a keystroke
		"ctrl+y":       "make_coffee",        // unknown action
		"hyper+x":      "quit",               // bad keystroke
		"Ctrl-U":       "rename_pane",        // same keystroke as below
		"ctrl+u":       "toggle_search",      // sorted after "Ctrl-U": wins
		"ctrl+k":       " Split_Vertically ", // names are case-insensitive
	})
	wantWarns := []string{
		`shortcuts: "Ctrl-U" and "ctrl+u" are the same keystroke; "ctrl+u" wins`,
		`shortcuts: "ctrl+y": unknown action "make_coffee"; ignored`,
		`shortcuts: "hyper+x": unknown modifier "hyper"; ignored`,
	}
	if diff := cmp.Diff(wantWarns, warns); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	tests := []struct {
		key  fyne.KeyName
		mods fyne.KeyModifier
		want Action
	}{
		{fyne.KeyT, ctrl, NewWorkspace},
		{fyne.KeyN, ctrl | shift, NewWorkspace}, // the default stays
		{fyne.KeyD, ctrl | shift, ""},
		{fyne.KeyE, ctrl | shift, ""},
		{fyne.KeyLeft, alt, FocusRight},
		{fyne.KeyRight, alt, FocusRight},
		{fyne.KeyY, ctrl, ""},
		{fyne.KeyU, ctrl, ToggleSearch},
		{fyne.KeyK, ctrl, SplitVertically},
	}
	for _, tt := range tests {
		got, ok := m.Lookup(tt.key, tt.mods)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("Lookup(%s, %v) = %q, %v; want %q", tt.key, tt.mods, got, ok, tt.want)
		}
	}
	labels := map[Action]string{
		NewWorkspace:      "Ctrl+T", // the user's keystroke shows first
		SplitHorizontally: "",       // unbound
		FocusLeft:         "",       // its only keystroke went to focus_right
		FocusRight:        "Alt+Left",
		RenamePane:        "Ctrl+Shift+R",
		SplitVertically:   "Ctrl+K",
	}
	for a, want := range labels {
		if got := m.Label(a); got != want {
			t.Errorf("Label(%s) = %q, want %q", a, got, want)
		}
	}
	if got := m.Bindings(NewWorkspace); !cmp.Equal(got, []Binding{{fyne.KeyT, ctrl}, {fyne.KeyN, ctrl | shift}}) {
		t.Errorf("Bindings(new_workspace) = %v", got)
	}
}

func TestOverrideIsLayeredOnTheMapsPlatform(t *testing.T) {
	m := Default("darwin")
	if w := m.Override(map[string]string{"secondary+t": "new_workspace"}); w != nil {
		t.Fatal(w)
	}
	if got, _ := m.Lookup(fyne.KeyT, super); got != NewWorkspace {
		t.Errorf("secondary on a macOS map: Cmd+T = %q, want new_workspace", got)
	}
}

func TestLabel(t *testing.T) {
	tests := []struct {
		goos string
		a    Action
		want string
	}{
		{"linux", SplitHorizontally, "Ctrl+Shift+D"},
		{"windows", SplitHorizontally, "Ctrl+Shift+D"},
		{"darwin", SplitHorizontally, "Shift+Cmd+D"},
		{"linux", LayoutTiled, "Ctrl+Alt+4"},
		{"darwin", LayoutTiled, "Option+Cmd+4"},
		{"linux", ScrollPageUp, "Shift+PageUp"},
		{"linux", FontSizeIncrease, "Ctrl+="},
		{"linux", FocusLeft, "Alt+Left"},
		{"darwin", Quit, "Cmd+Q"},
		{"linux", Quit, "Ctrl+Shift+Q"},
		{"linux", Action("nope"), ""},
	}
	for _, tt := range tests {
		if got := Default(tt.goos).Label(tt.a); got != tt.want {
			t.Errorf("%s: Label(%s) = %q, want %q", tt.goos, tt.a, got, tt.want)
		}
	}
}

func TestClone(t *testing.T) {
	m := Default("linux")
	c := m.Clone()
	c.Override(map[string]string{"ctrl+shift+d": "none", "ctrl+t": "quit"})
	if got, _ := m.Lookup(fyne.KeyD, ctrl|shift); got != SplitHorizontally {
		t.Errorf("the original changed with its clone: %q", got)
	}
	if _, ok := m.Lookup(fyne.KeyT, ctrl); ok {
		t.Error("the original got the clone's binding")
	}
	if got, _ := c.Lookup(fyne.KeyT, ctrl); got != Quit {
		t.Errorf("clone: ctrl+t = %q", got)
	}
	if l := m.Label(Quit); l != "Ctrl+Shift+Q" {
		t.Errorf("original's quit label = %q", l)
	}
	var zero Map
	if _, ok := zero.Clone().Lookup(fyne.KeyD, ctrl); ok {
		t.Error("a zero map's clone has bindings")
	}
	if w := zero.Override(map[string]string{"ctrl+d": "quit"}); w != nil || zero.Label(Quit) != "Ctrl+D" {
		t.Errorf("zero map override: %q, label %q", w, zero.Label(Quit))
	}
}

func TestActionsAreUniqueAndNamed(t *testing.T) {
	seen := map[Action]bool{}
	for _, a := range Actions() {
		if seen[a] {
			t.Errorf("action %s listed twice", a)
		}
		seen[a] = true
		if string(a) != strings.ToLower(string(a)) || strings.ContainsAny(string(a), " -") {
			t.Errorf("action %q is not a snake_case name", a)
		}
	}
	if Action("none").Valid() || Action("").Valid() {
		t.Error("none or empty is a valid action")
	}
}

func TestLabels(t *testing.T) {
	m := Default("linux")
	if w := m.Override(map[string]string{"ctrl+shift+y": "toggle_zoom"}); len(w) > 0 {
		t.Fatal(w)
	}
	if got := m.Labels(ToggleZoom); !slices.Equal(got, []string{"Ctrl+Shift+Y", "Ctrl+Shift+Z"}) {
		t.Errorf("Labels(toggle_zoom) = %q, want the user's keystroke first, then the default", got)
	}
	m.Override(map[string]string{"ctrl+shift+y": "none", "ctrl+shift+z": "none"})
	if got := m.Labels(ToggleZoom); got != nil {
		t.Errorf("Labels of an unbound action = %q, want nil", got)
	}
}

// TestScopes: the Diff view's plain-letter keys act only in its scope;
// the window's lookup never sees them, a keystroke can mean one thing in
// each scope, and the user's [shortcuts] rebind and unbind them.
func TestScopes(t *testing.T) {
	m := Default("linux")
	if a, ok := m.Lookup(fyne.KeyN, 0); ok {
		t.Errorf("Lookup(N) = %q in the window, want nothing: a pane's program reads n", a)
	}
	for _, tt := range []struct {
		key  fyne.KeyName
		want Action
	}{{fyne.KeyN, DiffNextHunk}, {fyne.KeyJ, DiffNextHunk}, {fyne.KeyP, DiffPrevHunk}, {fyne.KeyK, DiffPrevHunk},
		{fyne.KeyS, DiffStageHunk}, {fyne.KeyR, DiffRevertHunk}, {fyne.KeyU, DiffUndoRevert}, {fyne.KeyC, DiffNextScope}} {
		if got, ok := m.LookupIn(DiffView, tt.key, 0); got != tt.want || !ok {
			t.Errorf("LookupIn(DiffView, %s) = %q, %v; want %q", tt.key, got, ok, tt.want)
		}
	}
	if got, ok := m.LookupIn(DiffView, fyne.KeyG, ctrl|shift); ok {
		t.Errorf("LookupIn(DiffView, Ctrl+Shift+G) = %q: window keys are not the view's", got)
	}
	if w := m.Override(map[string]string{"ctrl+shift+g": "diff_stage_hunk", "r": "none", "x": "diff_revert_hunk"}); w != nil {
		t.Fatal(w)
	}
	if got, _ := m.Lookup(fyne.KeyG, ctrl|shift); got != OpenDiffView {
		t.Errorf("after binding Ctrl+Shift+G in the Diff view, the window's is %q, want %q", got, OpenDiffView)
	}
	if got, _ := m.LookupIn(DiffView, fyne.KeyG, ctrl|shift); got != DiffStageHunk {
		t.Errorf("the Diff view's Ctrl+Shift+G = %q, want %q", got, DiffStageHunk)
	}
	if got, ok := m.LookupIn(DiffView, fyne.KeyR, 0); ok {
		t.Errorf("r after \"none\": %q, want unbound", got)
	}
	if got := m.Labels(DiffRevertHunk); !slices.Equal(got, []string{"X"}) {
		t.Errorf("Labels(diff_revert_hunk) = %q, want [X]", got)
	}
	if got := m.Labels(DiffStageHunk); !slices.Equal(got, []string{"Ctrl+Shift+G", "S"}) {
		t.Errorf("Labels(diff_stage_hunk) = %q, want the user's keystroke, then S", got)
	}
	if DiffNextHunk.Scope() != DiffView || OpenDiffView.Scope() != Window {
		t.Error("Scope: diff_next_hunk is the Diff view's, open_diff_view the window's")
	}
}
