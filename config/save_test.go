package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// userFile is a hand-written configuration: comments, odd spacing, a
// table, an unknown key the user keeps.
const userFile = `# Paneflow, my settings
theme = "dark"        # easy on the eyes

font_size = 13 # points
fontsize = 99  # a typo the user has not fixed

# the terminal
[terminal]
cursor_shape = "beam"
`

func TestSave(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, []byte(userFile), 0o640); err != nil {
		t.Fatal(err)
	}
	err := Save(path,
		Edit{"font_size", 15.5},
		Edit{"theme", "light"},
		Edit{"terminal.scrollback_lines", 50000},
		Edit{"ai_unrestricted", true},
		Edit{"notify_when_agent_waiting", NotifyNever},
	)
	if err != nil {
		t.Fatalf("Save: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := `# Paneflow, my settings
theme = "light"        # easy on the eyes

font_size = 15.5 # points
fontsize = 99  # a typo the user has not fixed
ai_unrestricted = true
notify_when_agent_waiting = "Never"

# the terminal
[terminal]
cursor_shape = "beam"
scrollback_lines = 50000
`
	if string(data) != want {
		t.Errorf("file after Save:\n%s\nwant:\n%s", data, want)
	}
	c, warns := Parse(data)
	if c.FontSize != 15.5 || c.Theme != ThemeLight || c.Terminal.ScrollbackLines != 50000 || !c.AIUnrestricted ||
		c.NotifyWhenAgentWaiting != NotifyNever || c.Terminal.CursorShape != CursorBeam {
		t.Errorf("the saved file reads as %+v", c)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], `"fontsize"`) {
		t.Errorf("warnings %q, want only the user's own typo", warns)
	}
	bak, err := os.ReadFile(path + BackupSuffix)
	if err != nil || string(bak) != userFile {
		t.Errorf("backup = %q, %v; want the file as it was", bak, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("mode after Save: %v, %v; want 0640 kept", fi.Mode(), err)
	}
}

func TestSaveCreatesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "paneflow", FileName)
	if err := Save(path, Edit{"terminal.cursor_blink", BlinkOff}); err != nil {
		t.Fatalf("Save: %v", err)
	}
	c, warns := Load(path)
	if c.Terminal.CursorBlink != BlinkOff || len(warns) > 0 {
		t.Errorf("Load after Save: blink %q, warnings %q", c.Terminal.CursorBlink, warns)
	}
	if _, err := os.Stat(path + BackupSuffix); !os.IsNotExist(err) {
		t.Errorf("a backup of a file that did not exist: %v", err)
	}
}

func TestSaveRefuses(t *testing.T) {
	for _, tt := range []struct {
		name, file string
		mode       os.FileMode
		edit       Edit
		want       string
	}{
		{"a file that does not parse", "theme = \"dark\n", 0o600, Edit{"font_size", 14}, "cannot be parsed"},
		{"a value out of range", "", 0o600, Edit{"font_size", 99}, "font_size: want a number from 8 to 32"},
		{"a value of the wrong type", "", 0o600, Edit{"terminal.scrollback_lines", "many"}, "scrollback_lines"},
		{"a key in an inline table", "terminal = { cursor_shape = \"beam\" }\n", 0o600, Edit{"terminal.scrollback_lines", 500}, "cannot be set"},
		{"a read-only file", "theme = \"dark\"\n", 0o400, Edit{"theme", "light"}, "read-only"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), FileName)
			if err := os.WriteFile(path, []byte(tt.file), tt.mode); err != nil {
				t.Fatal(err)
			}
			err := Save(path, tt.edit)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "not changed") {
				t.Fatalf("Save = %v, want an error containing %q", err, tt.want)
			}
			if data, _ := os.ReadFile(path); string(data) != tt.file {
				t.Errorf("the file changed to %q", data)
			}
			if _, err := os.Stat(path + BackupSuffix); !os.IsNotExist(err) {
				t.Errorf("a backup was written for a refused save: %v", err)
			}
		})
	}
}

func TestSaveFollowsSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles.toml")
	if err := os.WriteFile(real, []byte("theme = \"dark\" # mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, FileName)
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symlinks:", err)
	}
	if err := Save(link, Edit{"theme", "light"}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file")
	}
	if data, _ := os.ReadFile(real); string(data) != "theme = \"light\" # mine\n" {
		t.Errorf("the link's target holds %q", data)
	}
}

func TestAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	const mine = "# mine\ntheme = \"light\" # bright\n"
	if err := os.WriteFile(path, []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	has := func(c Config) bool { return slices.Contains(c.Hosts, "ssh://a") }
	if err := Append(path, "[[hosts]]\naddress = \"ssh://a\"\n", has, "add it yourself"); err != nil {
		t.Fatal(err)
	}
	want := mine + "\n[[hosts]]\naddress = \"ssh://a\"\n"
	if data, _ := os.ReadFile(path); string(data) != want {
		t.Errorf("file after Append:\n%q\nwant\n%q", data, want)
	}
	if bak, _ := os.ReadFile(path + BackupSuffix); string(bak) != mine {
		t.Errorf("backup %q, want the file as it was", bak)
	}
	// Already there: nothing written.
	if err := os.Remove(path + BackupSuffix); err != nil {
		t.Fatal(err)
	}
	if err := Append(path, "[[hosts]]\naddress = \"ssh://a\"\n", has, "add it yourself"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + BackupSuffix); !os.IsNotExist(err) {
		t.Errorf("a second Append of the same host wrote the file (%v)", err)
	}
	// A table that cannot be appended: refused with what to do.
	err := Append(path, "theme = \"dark\"\n", func(c Config) bool { return c.Theme == ThemeDark }, "set theme yourself")
	if err == nil || !strings.Contains(err.Error(), "not changed: set theme yourself") {
		t.Errorf("Append of a key already set = %v, want a refusal ending with what to do", err)
	}
}

// TestRewrite: Rewrite writes what change makes of the file, backing up
// what it replaced; it writes nothing for a change that keeps the bytes
// (a missing file stays missing), and refuses, the file and its backup
// untouched, for change's own error, a file that does not parse and a
// read-only file.
func TestRewrite(t *testing.T) {
	cut := func(old []byte) ([]byte, error) {
		return []byte(strings.Replace(string(old), "fontsize = 99  # a typo the user has not fixed\n", "", 1)), nil
	}
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, []byte(userFile), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Rewrite(path, cut); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(userFile, "fontsize = 99  # a typo the user has not fixed\n", "", 1)
	if data, _ := os.ReadFile(path); string(data) != want {
		t.Errorf("got %q, want %q", data, want)
	}
	if data, _ := os.ReadFile(path + BackupSuffix); string(data) != userFile {
		t.Errorf("backup %q, want the old file", data)
	}

	missing := filepath.Join(t.TempDir(), FileName)
	var got []byte
	if err := Rewrite(missing, func(old []byte) ([]byte, error) { got = old; return old, nil }); err != nil || got != nil {
		t.Fatalf("a missing file: Rewrite = %v, change got %q; want nil, nil", err, got)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("an unchanged missing file was created: %v", err)
	}

	for _, tt := range []struct {
		name, file string
		mode       os.FileMode
		change     func([]byte) ([]byte, error)
		want       string
	}{
		{"change's error", userFile, 0o600, func([]byte) ([]byte, error) { return nil, errors.New("not that one; not changed") }, "not that one"},
		{"a file that does not parse", "theme = \"dark\n", 0o600, cut, "cannot be parsed"},
		{"a read-only file", userFile, 0o400, cut, "read-only"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), FileName)
			if err := os.WriteFile(path, []byte(tt.file), tt.mode); err != nil {
				t.Fatal(err)
			}
			err := Rewrite(path, tt.change)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "not changed") {
				t.Fatalf("Rewrite = %v, want an error containing %q", err, tt.want)
			}
			if data, _ := os.ReadFile(path); string(data) != tt.file {
				t.Errorf("the file changed to %q", data)
			}
			if _, err := os.Stat(path + BackupSuffix); !os.IsNotExist(err) {
				t.Errorf("a backup was written for a refused rewrite: %v", err)
			}
		})
	}
}
