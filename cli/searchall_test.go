package cli

import (
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/proto"
)

func TestSearchAllLines(t *testing.T) {
	seq, at := uint64(3), "2026-12-05T20:00:00Z"
	res := proto.SearchAllResult{
		Panes: []proto.SearchAllPane{
			{SurfaceID: 1, Name: "zsh", Matches: []proto.SearchAllMatch{{Source: "scrollback", Line: -4, Text: "a needle\x1b[31m"}}},
			{SurfaceID: 7, Name: "claude\r", Workspace: 1, Matches: []proto.SearchAllMatch{{Source: "history", Line: 2, Screen: &seq, ShownAt: &at, Text: "needle"}}},
		},
		MatchCount: 2, PanesSearched: 5, Truncated: true,
	}
	want := "zsh (surface 1, workspace 0)\n" +
		`  scrollback -4: a needle\x1b[31m` + "\n\n" +
		`claude\x0d (surface 7, workspace 1)` + "\n" +
		"  history screen 3 row 2 (2026-12-05T20:00:00Z): needle\n\n" +
		"2 lines in 2 of 5 panes (more matched: raise --max)"
	if got := strings.Join(searchAllLines(res), "\n"); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := strings.Join(searchAllLines(proto.SearchAllResult{PanesSearched: 2}), "\n"); got != "0 lines in 0 of 2 panes" {
		t.Errorf("no match: %q", got)
	}
}
