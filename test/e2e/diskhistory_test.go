//go:build linux

package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestHistoryOnDiskSurvivesRestart (issue 34): with
// terminal.screen_history_disk_kib set, a line only a full-screen
// program's earlier screen showed is found by `search --all` after the
// server restarted (the restored pane reads its journal again, kept 0600
// in a 0700 directory under the state dir), and replay shows that
// screen; closing the pane for good deletes its journal.
func TestHistoryOnDiskSurvivesRestart(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	sock := filepath.Join(dir, "pf.sock")
	conf := filepath.Join(dir, "config", "paneflow")
	if err := os.MkdirAll(conf, 0o700); err != nil {
		t.Fatal(err)
	}
	// A memory bound this small holds few screens: the journal holds the rest.
	toml := "[terminal]\nscreen_history_kib = 16\nscreen_history_disk_kib = 1024\n"
	if err := os.WriteFile(filepath.Join(conf, "paneflow.toml"), []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServerAt(t, dir, sock, "PANEFLOW_IPC_SCRIPTING=1", "PANEFLOW_UNDO_WINDOW=0")
	id := s.ls().Surfaces[0].ID
	s.mustCLI(nil, "rename", strconv.FormatUint(id, 10), "fs")
	s.waitOutput("fs", `[$#] *$`)
	// The typed line holds NEE%sHIST: only what printf prints matches.
	s.mustCLI(nil, "send", "fs", `printf '\033[?1049h\033[HNEE%sHIST on screen one\n' DLE; read a; printf '\033[2J\033[Hscreen two\n'; read b; printf '\033[?1049lleft-full-screen\n'`, "--submit")
	s.eventually("the first screen held", func() (bool, string) {
		r := s.cli("replay", "fs")
		return r.code == 0, r.String()
	})
	s.mustCLI(nil, "send", "fs", "", "--submit")
	s.eventually("the second screen held", func() (bool, string) {
		r := s.cli("replay", "fs")
		return strings.Count(r.stdout, "\n") >= 2, r.String()
	})
	s.mustCLI(nil, "send", "fs", "", "--submit")
	s.waitOutput("fs", "left-full-screen")
	s.eventually("the session file to name the pane's history", func() (bool, string) {
		files, _ := filepath.Glob(filepath.Join(dir, "state", "paneflow", "session*.json"))
		if len(files) != 1 {
			return false, "no session file"
		}
		b, _ := os.ReadFile(files[0])
		return strings.Contains(string(b), `"history": "`), string(b)
	})
	if err := s.terminate(); err != nil {
		t.Fatalf("SIGTERM: %v", err)
	}
	hdirs, _ := filepath.Glob(filepath.Join(dir, "state", "paneflow", "history*"))
	if len(hdirs) != 1 {
		t.Fatalf("history directories %q, want one", hdirs)
	}
	if st, err := os.Stat(hdirs[0]); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("history directory: %v, mode %v; want 0700", err, st.Mode().Perm())
	}
	journals, _ := filepath.Glob(filepath.Join(hdirs[0], "*.0"))
	if len(journals) == 0 {
		t.Fatal("no journal after the server stopped")
	}
	for _, j := range journals {
		if st, err := os.Stat(j); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, mode %v; want 0600", j, err, st.Mode().Perm())
		}
	}

	s = startServerAt(t, dir, sock, "PANEFLOW_IPC_SCRIPTING=1", "PANEFLOW_UNDO_WINDOW=0")
	r := s.mustCLI(nil, "search", "--all", "NEEDLEHIST")
	if !strings.Contains(r.stdout, "history screen 1 row 0") || !strings.Contains(r.stdout, ": NEEDLEHIST on screen one") {
		t.Fatalf("after the restart, search --all does not find the history line:\n%s", r)
	}
	pane := strings.Fields(strings.SplitN(r.stdout, "(surface ", 2)[1])[0]
	pane = strings.TrimSuffix(pane, ",")
	if r := s.mustCLI(nil, "replay", pane, "--screen", "1"); !strings.Contains(r.stdout, "NEEDLEHIST on screen one") {
		t.Errorf("replay of screen 1 after the restart:\n%s", r)
	}
	s.mustCLI(nil, "close", pane)
	s.eventually("the closed pane's journal deleted", func() (bool, string) {
		left, _ := filepath.Glob(filepath.Join(hdirs[0], "*.0"))
		return len(left) == 0, strings.Join(left, " ")
	})
}
