//go:build linux

package gui

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// settingsFile is a hand-written configuration the settings view must
// edit without losing a comment.
const settingsFile = `# my Paneflow settings, kept in my dotfiles
theme = "dark"   # easier on the eyes

# small on the laptop
font_size = 13

[terminal]
# block cursor, always
cursor_shape = "block"
`

// TestSettingsView opens the settings view with its keystroke, changes
// the font size from the keyboard and saves: the file holds the new size
// with the user's comments and layout kept (and a backup), and the window
// applies it (the pane's terminal gets fewer columns). Then the shortcuts
// sheet opens with its keystroke, filters, and closes with Escape. The
// first start's hint is shown too (this test's state directory is new).
func TestSettingsView(t *testing.T) {
	x := display(t)
	cfg := tempDir(t)
	if err := os.Mkdir(filepath.Join(cfg, "paneflow"), 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(cfg, "paneflow", "paneflow.toml")
	if err := os.WriteFile(path, []byte(settingsFile), 0o600); err != nil {
		t.Fatal(err)
	}
	a := startApp(t, x, "XDG_CONFIG_HOME="+cfg, "XDG_STATE_HOME="+tempDir(t))
	l := a.ls()
	if len(l.Surfaces) != 1 {
		t.Fatalf("ls at start: %+v, want one pane", l)
	}
	id := strconv.FormatUint(l.Surfaces[0].ID, 10)
	a.waitOutput(id, promptRe)
	cols0 := a.ptyCols(id, 0)
	g := a.geometry()
	full := image.Rect(0, 0, g.W, g.H)
	centre := image.Rect(g.W/4, g.H/4, g.W*3/4, g.H*3/4)
	before := a.stable("first-start", full)

	a.xdo("windowfocus", "--sync", a.win)
	a.xdo("key", "ctrl+comma")
	a.waitChange("the settings view on screen", "settings", before, centre, 5000)
	// The first text field (font family) has the keyboard; the font size
	// is the next one.
	a.xdo("key", "Tab")
	a.xdo("key", "ctrl+a")
	a.xdo("type", "--delay", "40", "16")
	a.screenshot("font-size-typed")
	a.xdo("key", "Return")

	want := strings.Replace(settingsFile, "font_size = 13", "font_size = 16", 1)
	a.eventually("the file saved", func() (bool, string) {
		data, err := os.ReadFile(path)
		return err == nil && string(data) == want, string(data)
	})
	if bak, err := os.ReadFile(path + ".bak"); err != nil || string(bak) != settingsFile {
		t.Errorf("backup: %q, %v; want the file as it was", bak, err)
	}
	a.screenshot("saved")
	// 13 to 16 points: the cells are about 23 % wider. The window applies
	// the saved file when its config watcher sees it, a moment after the
	// save (CI read the width before that once): asked again until then.
	deadline := time.Now().Add(pollTimeout)
	cols1 := a.ptyCols(id, 1)
	for n := 2; cols1*100 > cols0*90 && time.Now().Before(deadline); n++ {
		time.Sleep(pollEvery)
		cols1 = a.ptyCols(id, n)
	}
	if cols1*100 > cols0*90 {
		t.Errorf("the pane has %d columns after the font size went from 13 to 16, %d before: want about 19 %% fewer", cols1, cols0)
	}
	a.xdo("key", "Escape")
	a.eventually("the settings view closed", func() (bool, string) {
		img := a.screenshot("closed")
		// The pane fills the centre again: mostly its background.
		bg := terminalBg(img)
		n := find(img, centre, func(c rgb) bool { return c == bg }).N
		return n > centre.Dx()*centre.Dy()*8/10, fmt.Sprintf("%d of %d centre pixels are the terminal's background", n, centre.Dx()*centre.Dy())
	})

	// The shortcuts sheet, filtered.
	closed := a.stable("closed", full)
	a.xdo("key", "ctrl+shift+slash")
	var sheet image.Image
	a.eventually("the shortcuts sheet on screen", func() (bool, string) {
		sheet = a.screenshot("shortcuts")
		n := changed(closed, sheet, centre, 0)
		return n > 5000, fmt.Sprintf("%d pixels changed in the centre", n)
	})
	a.xdo("type", "--delay", "40", "zoom")
	// Not a.stable: the filter field's caret blinks, so the window never
	// settles (CI: 19 pixels); the list filtered is a large change.
	a.waitChange("the shortcuts sheet filtered", "shortcuts-zoom", sheet, centre, 2000)
	a.xdo("key", "Escape")
	a.eventually("the shortcuts sheet closed", func() (bool, string) {
		n := changed(closed, a.screenshot("shortcuts-closed"), centre, 0)
		return n == 0, fmt.Sprintf("%d pixels differ from before the sheet", n)
	})
}
