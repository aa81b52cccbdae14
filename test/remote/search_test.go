//go:build linux

package remote

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSearchAllHosts (issue 34): the local CLI's `search --all`, with no
// --host, searches every host of the configuration's [[hosts]] through
// the user's ssh: a line only a full-screen screen of a pane on the host
// ever showed (gone from its screen and in no scrollback) is found in
// that pane's history under the host's address. A host with no server
// and this machine's missing server are named on stderr, and the match
// still prints; --json gives the pane its host.
func TestSearchAllHosts(t *testing.T) {
	w := newWorld(t)
	w.host(portMain, "new", "--name", "fs-ws", "--cwd", w.remote)
	var id uint64
	for _, p := range w.lsPanes(portMain) {
		id = max(id, p.ID)
	}
	w.host(portMain, "rename", strconv.FormatUint(id, 10), "fs")
	w.host(portMain, "wait", "--match", "fs", "--pattern", `[$#] *$`, "--from-start", "--timeout", "60s")
	// The typed line holds NEE%sHIST: only what printf prints matches.
	w.host(portMain, "send", "fs", `printf '\033[?1049h\033[HNEE%sHIST on screen one\n' DLE; read a; printf '\033[2J\033[Hscreen two\n'; read b; printf '\033[?1049lleft-full-screen\n'`, "--submit")
	// until polls the host's search --all --json for pattern until a
	// match of source comes back.
	until := func(pattern, source string) {
		t.Helper()
		deadline := time.Now().Add(pollTimeout)
		for {
			r := w.cli(nil, "--host", w.url(portMain), "search", "--all", pattern, "--json")
			if strings.Contains(r.stdout, `"source": "`+source+`"`) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("no %s match of %q on the host:\n%s", source, pattern, r)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	// The first screen is held once it settled (nothing drawn for
	// 300 ms): only then may the program move on.
	deadline := time.Now().Add(pollTimeout)
	for r := w.cli(nil, "--host", w.url(portMain), "replay", "fs"); r.code != 0; r = w.cli(nil, "--host", w.url(portMain), "replay", "fs") {
		if time.Now().After(deadline) {
			t.Fatalf("the first screen was never held:\n%s", r)
		}
		time.Sleep(200 * time.Millisecond)
	}
	w.host(portMain, "send", "fs", "", "--submit")
	until("NEEDLEHIST", "history")
	w.host(portMain, "send", "fs", "", "--submit")
	w.host(portMain, "wait", "--match", "fs", "--pattern", "left-full-screen", "--from-start", "--timeout", "60s")

	conf := filepath.Join(w.dir, "l", "config", "paneflow")
	if err := os.MkdirAll(conf, 0o700); err != nil {
		t.Fatal(err)
	}
	toml := "[[hosts]]\naddress = \"" + w.url(portMain) + "\"\n\n[[hosts]]\naddress = \"" + w.url(portNoServer) + "\"\n"
	if err := os.WriteFile(filepath.Join(conf, "paneflow.toml"), []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}

	r := w.cli(nil, "search", "--all", "NEEDLEHIST")
	if r.code != 0 {
		t.Fatalf("search --all over the hosts:\n%s", r)
	}
	at := strings.Index(r.stdout, "on "+w.url(portMain)+"\nfs (surface ")
	hit := strings.Index(r.stdout, "  history screen 1 row 0")
	if at < 0 || hit < at || !strings.Contains(r.stdout[hit:], ": NEEDLEHIST on screen one\n") {
		t.Errorf("the host's history match is not listed under its address:\n%s", r)
	}
	if strings.Contains(r.stdout, "on "+w.url(portNoServer)) || !strings.Contains(r.stdout, "1 line in 1 of ") || !strings.Contains(r.stdout, "on 1 servers (2 not searched)") {
		t.Errorf("summary:\n%s", r)
	}
	for _, who := range []string{"this machine's server", w.url(portNoServer)} {
		if !strings.Contains(r.stderr, "paneflow: "+who+" not searched: ") {
			t.Errorf("stderr does not name %s:\n%s", who, r)
		}
	}

	r = w.cli(nil, "search", "--all", "NEEDLEHIST", "--json")
	var res struct {
		Panes []struct {
			Host    string `json:"host"`
			Name    string `json:"name"`
			Matches []struct {
				Source string `json:"source"`
				Text   string `json:"text"`
			} `json:"matches"`
		} `json:"panes"`
		Servers []struct {
			Host  string `json:"host"`
			Error string `json:"error"`
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 0 {
		t.Fatalf("search --all --json: %v\n%s", err, r)
	}
	if len(res.Panes) != 1 || res.Panes[0].Host != w.url(portMain) || res.Panes[0].Name != "fs" ||
		len(res.Panes[0].Matches) != 1 || res.Panes[0].Matches[0].Source != "history" {
		t.Errorf("--json panes: %+v", res.Panes)
	}
	if len(res.Servers) != 3 || res.Servers[0].Error == "" || res.Servers[1].Error != "" || res.Servers[2].Host != w.url(portNoServer) || res.Servers[2].Error == "" {
		t.Errorf("--json servers: %+v", res.Servers)
	}
}
