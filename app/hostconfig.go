package app

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
	"github.com/BurntSushi/toml"

	"github.com/paneflow-go/paneflow/config"
	"github.com/paneflow-go/paneflow/internal/tomlquote"
	"github.com/paneflow-go/paneflow/remote"
)

// addHostToConfig appends a [[hosts]] table for address to the
// configuration file at path (created when missing), leaving every byte
// already in it as it was (config.Append); a file whose hosts key is
// not [[hosts]] tables is not changed and the error says what to add by
// hand. An address already listed changes nothing.
func addHostToConfig(path, address string) error {
	return config.Append(path, "[[hosts]]\naddress = "+tomlquote.String(address)+"\n",
		func(c config.Config) bool { return slices.Contains(c.Hosts, address) },
		fmt.Sprintf("add %q to its hosts yourself", address))
}

// addHostLocked asks for a host's address, then shows its workspaces in
// the sidebar and saves it in the configuration file.
func (s *shell) addHostLocked() {
	if s.hosts() == nil {
		s.chrome.banner.show("This window shows only its own server: other hosts need the desktop app's default mode.")
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
		s.guard(func() { s.chrome.banner.show("Add host: " + err.Error()) })
		return
	}
	s.hosts().AddHost(address)
	if path := s.o.ConfigPath; path != "" {
		s.work.mutate("add host", func() error { return addHostToConfig(path, address) })
	}
}

// removeHostFromConfig takes the [[hosts]] table of address out of the
// configuration file at path, leaving every other byte as it was (the
// user's comments, order and spelling; a blank line just above the table,
// which addHostToConfig writes, goes with it). The result must parse, list
// the same hosts but address in the same order, and hold every other
// setting unchanged, or the file is not changed: a file that does not
// parse, lists address otherwise than as a [[hosts]] table of its own
// (`hosts = [...]`), or whose table could not be cut cleanly is refused
// with what to do by hand. A missing file, or one without address,
// changes nothing. The file is backed up and replaced as config.Rewrite
// does (a read-only file is refused).
func removeHostFromConfig(path, address string) error {
	return config.Rewrite(path, func(old []byte) ([]byte, error) {
		before, _ := config.Parse(old)
		if !slices.Contains(before.Hosts, address) {
			return old, nil
		}
		byHand := fmt.Sprintf("take the [[hosts]] table of %q out of it yourself", address)
		data, ok := cutHostTable(old, address)
		if !ok {
			return nil, fmt.Errorf("config: %s does not list %q as a [[hosts]] table of its own; not changed: %s", path, address, byHand)
		}
		var raw, after map[string]any
		if _, err := toml.Decode(string(old), &raw); err != nil {
			return nil, fmt.Errorf("config: %s cannot be parsed (%v); not changed", path, err)
		}
		if _, err := toml.Decode(string(data), &after); err != nil {
			return nil, fmt.Errorf("config: %s would not parse without the table (%v); not changed: %s", path, err, byHand)
		}
		got, _ := config.Parse(data)
		want := slices.DeleteFunc(slices.Clone(before.Hosts), func(a string) bool { return a == address })
		delete(raw, "hosts")
		delete(after, "hosts")
		if !slices.Equal(got.Hosts, want) || !reflect.DeepEqual(raw, after) {
			return nil, fmt.Errorf("config: %s would change more than that host without the table; not changed: %s", path, byHand)
		}
		return data, nil
	})
}

// tableHeader matches a TOML table header line, [name] or [[name]], with
// an optional comment after it.
var tableHeader = regexp.MustCompile(`^\s*\[\[?\s*[A-Za-z0-9_.\-"' ]+\s*\]\]?\s*(#.*)?$`)

// cutHostTable returns data without the first [[hosts]] table whose
// address is address: from its header line to the next table's header,
// less the blank and comment lines just above that header (they belong
// to it), and less one blank line just above its own header. ok is false
// when there is no such table.
func cutHostTable(data []byte, address string) (out []byte, ok bool) {
	lines := strings.SplitAfter(string(data), "\n")
	isHosts := func(l string) bool {
		l = strings.TrimSpace(l)
		if c := strings.IndexByte(l, '#'); c >= 0 {
			l = strings.TrimSpace(l[:c])
		}
		return strings.ReplaceAll(l, " ", "") == "[[hosts]]"
	}
	for i, l := range lines {
		if !isHosts(l) {
			continue
		}
		end := len(lines)
		for j := i + 1; j < len(lines); j++ {
			if tableHeader.MatchString(lines[j]) {
				end = j
				break
			}
		}
		for end > i+1 {
			t := strings.TrimSpace(lines[end-1])
			if t != "" && !strings.HasPrefix(t, "#") {
				break
			}
			end--
		}
		var m map[string]any
		if _, err := toml.Decode(strings.Join(lines[i:end], ""), &m); err != nil {
			continue
		}
		hosts, _ := m["hosts"].([]map[string]any)
		if len(hosts) != 1 {
			continue
		}
		if a, _ := hosts[0]["address"].(string); strings.TrimSpace(a) != address {
			continue
		}
		start := i
		if start > 0 && strings.TrimSpace(lines[start-1]) == "" {
			start--
		}
		return []byte(strings.Join(lines[:start], "") + strings.Join(lines[end:], "")), true
	}
	return nil, false
}

// removeHostLocked asks which host to remove (preselecting address, if
// any), then removes it (removeHostNow).
func (s *shell) removeHostLocked(address string) {
	if s.hosts() == nil || len(s.hosts().hostStatuses()) == 0 {
		s.chrome.banner.show("This window shows no other host.")
		return
	}
	var addrs []string
	for _, h := range s.hosts().hostStatuses() {
		addrs = append(addrs, h.Address)
	}
	pick := widget.NewSelect(addrs, nil)
	if slices.Contains(addrs, address) {
		pick.SetSelected(address)
	} else {
		pick.SetSelectedIndex(0)
	}
	msg := widget.NewLabel("The window stops showing it and it leaves paneflow.toml.\n" +
		"Nothing there stops: its server and programs go on.")
	d := dialog.NewForm("Remove host", "Remove", "Cancel",
		[]*widget.FormItem{widget.NewFormItem("Host", pick), widget.NewFormItem("", msg)}, func(ok bool) {
			if ok && pick.Selected != "" {
				s.removeHostNow(pick.Selected)
			}
		}, s.w)
	s.showDialogLocked(d, nil, d.Submit, d.Hide)
}

// removeHostNow detaches from the host at address (its server and
// programs go on) and takes it out of the configuration file, off the UI
// goroutine; a file that cannot be changed is said in the banner.
func (s *shell) removeHostNow(address string) {
	path := s.o.ConfigPath
	s.work.mutate("remove host", func() error {
		s.hosts().RemoveHost(address)
		if path == "" {
			return nil
		}
		return removeHostFromConfig(path, address)
	})
}
