//go:build linux

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSearchAllFullScreen: text a real full-screen program (less) showed
// only on its alternate screen is gone from the pane once it quits, and
// `paneflow search --all` still finds it, as a past screen of that pane;
// text in another pane's scrollback is found by the same search.
func TestSearchAllFullScreen(t *testing.T) {
	t.Parallel()
	s := startServer(t, "PANEFLOW_IPC_SCRIPTING=1")
	// The file's name does not contain the marker, so only less's screen does.
	var text strings.Builder
	for i := range 40 {
		text.WriteString("filler line\n")
		if i == 3 {
			text.WriteString("the marker: Quokka-on-the-full-screen-7319\n")
		}
	}
	file := filepath.Join(s.dir, "pager-input.txt")
	if err := os.WriteFile(file, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	other := s.command(`printf 'elsewhere quokka-on-the-full-screen-7319 in scrollback\n'; exec sleep 1000`)
	pager := s.command(`LESS= less ` + file + `; echo pager-done; exec sleep 1000`)
	s.waitOutput(id(pager), `Quokka-on-the-full-screen-7319`)
	s.mustCLI(nil, "send", id(pager), "q")
	s.waitOutput(id(pager), `pager-done`)
	if strings.Contains(s.readRaw(id(pager)), "Quokka") {
		t.Fatalf("the marker is still in the pane after less quit (less did not use the alternate screen?):\n%s", s.readRaw(id(pager)))
	}
	s.waitOutput(id(other), `elsewhere`)

	type match struct {
		Source string   `json:"source"`
		Line   int      `json:"line"`
		Screen *uint64  `json:"screen"`
		Text   string   `json:"text"`
		Spans  [][2]int `json:"spans"`
	}
	var res struct {
		Panes []struct {
			SurfaceID uint64  `json:"surface_id"`
			Matches   []match `json:"matches"`
		} `json:"panes"`
		MatchCount    int  `json:"match_count"`
		CaseSensitive bool `json:"case_sensitive"`
	}
	r := s.mustCLI(&res, "search", "--all", "quokka-on-the-full", "--json")
	found := map[uint64][]match{}
	for _, p := range res.Panes {
		found[p.SurfaceID] = p.Matches
	}
	if res.CaseSensitive || len(found[other]) != 1 || found[other][0].Source != "scrollback" && found[other][0].Source != "screen" {
		t.Errorf("the other pane's line was not found as scrollback/screen text:\n%s", r)
	}
	pm := found[pager]
	if len(pm) == 0 || pm[0].Source != "history" || pm[0].Screen == nil || pm[0].Text != "the marker: Quokka-on-the-full-screen-7319" || pm[0].Spans[0] != [2]int{12, 30} {
		t.Fatalf("less's screen was not found in the pager pane's history:\n%s", r)
	}

	// Smart case: an upper-case letter makes the search exact.
	s.mustCLI(&res, "search", "--all", "Quokka", "--json")
	if res.MatchCount < 1 || len(res.Panes) != 1 || res.Panes[0].SurfaceID != pager || !res.CaseSensitive {
		t.Errorf("search --all Quokka: want only the pager pane, case-sensitive; got %+v", res)
	}
	human := s.mustCLI(nil, "search", "--all", `quokka-on-the-full-screen-\d+`, "--regex").stdout
	if !strings.Contains(human, "history screen ") || !strings.Contains(human, ": the marker: Quokka-on-the-full-screen-7319\n") {
		t.Errorf("search --all --regex (text): got\n%s", human)
	}
	if r := s.cli("search", "--all", "no-such-text-anywhere"); r.code != 1 || !strings.Contains(r.stdout, "0 lines in 0 of") {
		t.Errorf("a search that finds nothing: want exit 1 and a count:\n%s", r)
	}
	s.wantCode(2, []string{"--regex goes with --all"}, "search", id(pager), "x", "--regex")
}
