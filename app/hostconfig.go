package app

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
	"github.com/BurntSushi/toml"

	"github.com/paneflow-go/paneflow/config"
	"github.com/paneflow-go/paneflow/internal/atomicfile"
	"github.com/paneflow-go/paneflow/internal/tomlquote"
	"github.com/paneflow-go/paneflow/remote"
)

// addHostToConfig appends a [[hosts]] table for address to the
// configuration file at path (created when missing), leaving every byte
// already in it as it was (see appendToConfig); a file whose hosts key is
// not [[hosts]] tables is not changed and the error says what to add by
// hand. An address already listed changes nothing.
func addHostToConfig(path, address string) error {
	return appendToConfig(path, "[[hosts]]\naddress = "+tomlquote.String(address)+"\n",
		func(c config.Config) bool { return slices.Contains(c.Hosts, address) },
		fmt.Sprintf("add %q to its hosts yourself", address))
}

// appendToConfig appends text (whole TOML tables) to the configuration
// file at path (created when missing), leaving every byte already in it as
// it was: the user's comments, order and spelling stay. done tells, from
// the parsed file, whether what text says is already there (then nothing
// is written) and, after the append, whether it took. The result is
// parsed before it replaces the file (atomically, a symlink followed): a
// file that does not parse, or that would not parse or not take the
// setting with text appended (a table of that name already there), is not
// changed, and the error ends with byHand, what to do instead.
func appendToConfig(path, text string, done func(config.Config) bool, byHand string) error {
	cur, err := atomicfile.ReadCurrent(path)
	if err != nil {
		return fmt.Errorf("config: %v; not changed", err)
	}
	var raw map[string]any
	if _, err := toml.Decode(string(cur.Data), &raw); err != nil {
		return fmt.Errorf("config: %s cannot be parsed (%v); not changed", path, err)
	}
	if c, _ := config.Parse(cur.Data); done(c) {
		return nil
	}
	data := slices.Clone(cur.Data)
	if len(data) > 0 {
		if data[len(data)-1] != '\n' {
			data = append(data, '\n')
		}
		data = append(data, '\n')
	}
	data = append(data, text...)
	if _, err := toml.Decode(string(data), &raw); err != nil {
		return fmt.Errorf("config: cannot append to %s (%v); not changed: %s", path, err, byHand)
	}
	if c, _ := config.Parse(data); !done(c) {
		return fmt.Errorf("config: %s would not take it as written; not changed: %s", path, byHand)
	}
	if !cur.Exists {
		if err := os.MkdirAll(filepath.Dir(cur.Target), 0o700); err != nil {
			return fmt.Errorf("config: %v", err)
		}
	}
	if err := atomicfile.Write(cur.Target, bytes.NewReader(data), cur.Mode); err != nil {
		return fmt.Errorf("config: writing %s: %v", path, err)
	}
	return nil
}

// addHostLocked asks for a host's address, then shows its workspaces in
// the sidebar and saves it in the configuration file.
func (s *shell) addHostLocked() {
	if s.hosts == nil {
		s.banner.show("This window shows only its own server: other hosts need the desktop app's default mode.")
		return
	}
	entry := newKeyEntry(false)
	entry.SetPlaceHolder("ssh://user@host:port, or an ssh alias")
	msg := widget.NewLabel("The host's Paneflow server is reached over your own ssh (keys, agent,\n" +
		"config). It needs paneflow there: `paneflow host install HOST` copies it.")
	d := dialog.NewForm("Add host", "Add", "Cancel",
		[]*widget.FormItem{widget.NewFormItem("Host", entry), widget.NewFormItem("", msg)}, func(ok bool) {
			if ok {
				s.addHostNow(entry.Text)
			}
		}, s.w)
	entry.Validator = func(t string) error {
		_, err := remote.ParseHost(strings.TrimSpace(t))
		return err
	}
	s.showDialogLocked(d, entry, d.Submit, d.Hide)
}

// addHostNow adds the host at address: it connects at once, and is
// appended to the configuration file (off the UI goroutine); a bad
// address or a file that cannot take it is said in the banner.
func (s *shell) addHostNow(address string) {
	address = strings.TrimSpace(address)
	if _, err := remote.ParseHost(address); err != nil {
		s.guard(func() { s.banner.show("Add host: " + err.Error()) })
		return
	}
	s.hosts.AddHost(address)
	if path := s.o.ConfigPath; path != "" {
		s.mutate("add host", func() error { return addHostToConfig(path, address) })
	}
}
