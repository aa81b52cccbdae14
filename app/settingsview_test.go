//go:build !windows

package app

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/paneflow-go/paneflow/app/keymap"
	"github.com/paneflow-go/paneflow/config"
)

// openPanel presses key with mods as a pane reports it and returns the
// panel it opened, which must be a P.
func openPanel[P panel](h *harness, key fyne.KeyName, mods fyne.KeyModifier) P {
	h.t.Helper()
	var p P
	var ok bool
	h.s.guard(func() {
		if !h.key(key, mods) {
			h.t.Fatalf("%s with %v is not an app shortcut", key, mods)
		}
		if sp := h.s.views.top; sp != nil {
			p, ok = sp.p.(P)
		}
	})
	if !ok {
		h.t.Fatalf("%s with %v did not open the panel", key, mods)
	}
	return p
}

// settingsStatus is the settings view's status line.
func settingsStatus(h *harness, p *settingsPanel) (text string) {
	h.s.guard(func() { text = p.status.Text })
	return text
}

const handWritten = `# my Paneflow settings
theme = "dark"   # the dark one, for now

# bigger on the laptop
font_size = 13

[terminal]
# a block is easiest to find
cursor_shape = "block"
`

// TestSettingsViewSavesInPlace: Ctrl+, opens the settings view; a changed
// font size, theme and scrollback are written into the user's file with
// its comments and layout kept (a backup beside it), and the window
// applies them.
func TestSettingsViewSavesInPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), config.FileName)
	if err := os.WriteFile(path, []byte(handWritten), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _ := config.Load(path)
	cfg.DefaultShell = "/bin/sh"
	h := newHarness(t, func(o *Options) { o.ConfigPath, o.Config = path, cfg })
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })

	p := openPanel[*settingsPanel](h, fyne.KeyComma, fyne.KeyModifierControl)
	h.s.guard(func() {
		if f := h.s.w.Canvas().Focused(); f != p.row("font_family").entry {
			t.Errorf("focused %T, want the first text field (font family)", f)
		}
		p.row("font_size").entry.SetText("16")
		p.row("theme").choice.SetSelected(config.ThemeLight)
		p.row("terminal.scrollback_lines").entry.SetText("20000")
	})
	h.s.guard(func() { test.Tap(p.save) }) // under the lock: a tap lays the canvas out
	h.waitFor("the save", func() bool { return strings.HasPrefix(p.status.Text, "Saved") })

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer(`theme = "dark"`, `theme = "light"`, "font_size = 13", "font_size = 16",
		`cursor_shape = "block"`+"\n", `cursor_shape = "block"`+"\nscrollback_lines = 20000\n").Replace(handWritten)
	if string(data) != want {
		t.Errorf("file after Save:\n%s\nwant:\n%s", data, want)
	}
	if bak, _ := os.ReadFile(path + config.BackupSuffix); string(bak) != handWritten {
		t.Errorf("backup %q, want the file as it was", bak)
	}
	got, warns := config.Parse(data)
	if got.FontSize != 16 || got.Theme != config.ThemeLight || got.Terminal.ScrollbackLines != 20000 || len(warns) > 0 {
		t.Errorf("the saved file reads as font %v, theme %q, scrollback %d, warnings %q", got.FontSize, got.Theme, got.Terminal.ScrollbackLines, warns)
	}
	h.waitFor("the window to apply the saved file", func() bool {
		th, ok := h.a.Settings().Theme().(variantTheme)
		return h.s.conf.cfg.FontSize == 16 && h.s.conf.look.size == 16 && ok && !th.dark
	})

	// Saving again with nothing changed writes nothing.
	h.s.guard(func() { test.Tap(p.save) }) // under the lock: a tap lays the canvas out
	if s := settingsStatus(h, p); s != "Nothing changed." {
		t.Errorf("status after a second Save: %q", s)
	}
	// Escape in a field closes the view, giving the keyboard back.
	p.row("font_size").entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	h.s.guard(func() {
		if h.s.views.top != nil {
			t.Error("Escape left the settings view open")
		}
		if f := h.s.w.Canvas().Focused(); f != h.s.panes.views[h.s.pos.focus] {
			t.Errorf("focused %T after closing, want the pane", f)
		}
	})
}

// TestSettingsViewRefuses: a value out of range, or a file that does not
// parse, is not written; the view says why.
func TestSettingsViewRefuses(t *testing.T) {
	path := filepath.Join(t.TempDir(), config.FileName)
	const broken = "theme = \"dark\nfont_size = 13\n"
	if err := os.WriteFile(path, []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, func(o *Options) { o.ConfigPath = path })
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	p := openPanel[*settingsPanel](h, fyne.KeyComma, fyne.KeyModifierControl)

	h.s.guard(func() { p.row("font_size").entry.SetText("99") })
	h.s.guard(func() { test.Tap(p.save) }) // under the lock: a tap lays the canvas out
	if s := settingsStatus(h, p); !strings.Contains(s, "Font size: want a number from 8 to 32") {
		t.Errorf("status %q, want the font size's range", s)
	}
	h.s.guard(func() { p.row("font_size").entry.SetText("15") })
	h.s.guard(func() { test.Tap(p.save) }) // under the lock: a tap lays the canvas out
	h.waitFor("the refusal", func() bool { return strings.HasPrefix(p.status.Text, "Not saved") })
	if s := settingsStatus(h, p); !strings.Contains(s, "cannot be parsed") {
		t.Errorf("status %q, want the parse error", s)
	}
	if data, _ := os.ReadFile(path); string(data) != broken {
		t.Errorf("a file that does not parse was rewritten: %q", data)
	}
}

// TestShortcutsSheet: Ctrl+Shift+/ shows every action with its keys from
// the live keymap (the user's [shortcuts] first), grouped; typing filters;
// Enter runs the first match; the palette offers both new views.
func TestShortcutsSheet(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.Config.Shortcuts = map[string]string{"ctrl+shift+y": "toggle_zoom"}
	})
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	p := openPanel[*shortcutsPanel](h, fyne.KeySlash, fyne.KeyModifierControl|fyne.KeyModifierShift)
	h.s.guard(func() {
		if len(p.shown) != len(keymap.Actions()) {
			t.Errorf("%d rows shown, want every action (%d)", len(p.shown), len(keymap.Actions()))
		}
		i := slices.IndexFunc(p.shown, func(r shortcutRow) bool { return r.action == keymap.ToggleZoom })
		if i < 0 || p.shown[i].keys != "Ctrl+Shift+Y, Ctrl+Shift+Z" || p.shown[i].group != "Panes" {
			t.Errorf("toggle_zoom's row %+v, want the user's key then the default, under Panes", p.shown[i])
		}
		if f := h.s.w.Canvas().Focused(); f != p.query {
			t.Errorf("focused %T, want the search field", f)
		}
	})
	typeInto(h, p.query, "settings")
	h.s.guard(func() {
		if len(p.shown) == 0 || p.shown[0].action != keymap.OpenSettings || p.shown[0].keys != "Ctrl+," {
			t.Errorf("rows for \"settings\": %+v, want Settings… with Ctrl+, first", p.shown)
		}
	})
	p.query.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.s.guard(func() {
		if sp := h.s.views.top; sp == nil {
			t.Errorf("Enter opened %T, want the settings view", h.s.views.top)
		} else if _, ok := sp.p.(*settingsPanel); !ok {
			t.Errorf("Enter opened %T, want the settings view", h.s.views.top)
		}
	})

	items := paletteItems(h.s.conf.keys)
	for _, title := range []string{"Settings…", "Keyboard shortcuts"} {
		if !slices.ContainsFunc(items, func(it paletteItem) bool { return it.Title == title }) {
			t.Errorf("the palette has no %q", title)
		}
	}
}

func TestShortcutGroupsCoverEveryAction(t *testing.T) {
	seen := map[keymap.Action]string{}
	for _, g := range shortcutGroups {
		for _, a := range g.actions {
			if prev, dup := seen[a]; dup {
				t.Errorf("%s is in both %s and %s", a, prev, g.title)
			}
			seen[a] = g.title
		}
	}
	for _, a := range keymap.Actions() {
		if seen[a] == "" {
			t.Errorf("%s is in no group of the shortcuts sheet", a)
		}
	}
}

// TestConfigWarningGoneWhenFixedBeforeWatch: the file was fixed between
// the window's first reading (its Options) and its watcher's start; the
// old warning must not stay (the watcher's first reading used to be taken
// as already applied).
func TestConfigWarningGoneWhenFixedBeforeWatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), config.FileName)
	if err := os.WriteFile(path, []byte("font_size = 12\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	warning := path + `: unknown key "fontsize" (ignored)`
	h := newHarness(t, func(o *Options) { o.ConfigPath, o.ConfigWarnings = path, []string{warning} })
	h.waitFor("the warning gone and the file applied", func() bool {
		return !strings.Contains(h.s.chrome.banner.text.Text, "fontsize") && h.s.conf.cfg.FontSize == 12
	})
}

// TestFontWarningAfterZoomClearedWhenFixed: a font family problem shown
// again by a zoom goes, as the reading's own, when the file is fixed.
func TestFontWarningAfterZoomClearedWhenFixed(t *testing.T) {
	path := filepath.Join(t.TempDir(), config.FileName)
	h := newHarness(t, func(o *Options) { o.ConfigPath = path })
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	h.rewriteConfig(path, "the font warning", "font_family = \"No Such Font Paneflow\"\n", func() bool {
		return strings.Contains(h.s.chrome.banner.text.Text, "No Such Font Paneflow")
	})
	h.s.guard(func() {
		h.s.chrome.banner.dismiss()
		h.key(fyne.KeyEqual, fyne.KeyModifierControl) // the zoom builds the fonts again
		if !strings.Contains(h.s.chrome.banner.text.Text, "No Such Font Paneflow") {
			t.Fatalf("banner %q after the zoom, want the font problem", h.s.chrome.banner.text.Text)
		}
	})
	h.rewriteConfig(path, "the font warning gone", "font_family = \"\"\n", func() bool {
		return !strings.Contains(h.s.chrome.banner.text.Text, "No Such Font Paneflow")
	})
}
