package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/paneflow-go/paneflow/proto"
)

// TestReplayLines: the list names the turn each screen was first shown in
// or after, and screen text is escaped.
func TestReplayLines(t *testing.T) {
	text1, text2 := "\n  Turn one \x1b[31mneedle\n", "row\rtwo"
	ended := "2026-12-06T10:00:05Z"
	turns := []proto.AITurn{
		{Turn: 4, StartedAt: "2026-12-06T10:00:00Z", EndedAt: &ended},
		{Turn: 5, StartedAt: "2026-12-06T10:00:10Z"},
	}
	res := proto.SurfaceScreensResult{SurfaceID: 3, Held: 3, Dropped: 1, Bytes: 2000, Limit: 1 << 20, Screens: []proto.HeldScreen{
		{Screen: 2, FirstShown: "2026-12-06T10:00:01Z", LastShown: "2026-12-06T10:00:02Z", Seen: 2, Text: &text1},
		{Screen: 3, FirstShown: "2026-12-06T10:00:07Z", LastShown: "2026-12-06T10:00:07Z", Seen: 1, Text: &text2},
		{Screen: 4, FirstShown: "2026-12-06T10:00:11Z", LastShown: "2026-12-06T10:00:11Z", Seen: 1},
	}}
	want := []string{
		`screen 2  2026-12-06T10:00:01Z  shown 2×  turn 4  Turn one \x1b[31mneedle`,
		`screen 3  2026-12-06T10:00:07Z  shown 1×  turn 4  row\x0dtwo`,
		`screen 4  2026-12-06T10:00:11Z  shown 1×  turn 5`,
		"3 screens held, 1 dropped, 2 of 1024 KiB",
	}
	if diff := cmp.Diff(want, replayList(res, turns)); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
	res.Screens = res.Screens[1:]
	want = []string{
		"── screen 3 of surface 3, first shown 2026-12-06T10:00:07Z, last shown 2026-12-06T10:00:07Z, shown 1×  turn 4",
		`row\x0dtwo`,
		"",
		"── screen 4 of surface 3, first shown 2026-12-06T10:00:11Z, last shown 2026-12-06T10:00:11Z, shown 1×  turn 5",
		"(text left out: the result passed 256 KiB; see --screen 4)",
	}
	if diff := cmp.Diff(want, replayScreens(res, turns)); diff != "" {
		t.Errorf("screens (-want +got):\n%s", diff)
	}
	if got := turnLabel(proto.HeldScreen{FirstShown: "2026-12-06T09:59:59Z"}, turns); got != "" {
		t.Errorf("a screen shown before every turn is labelled %q", got)
	}
	if got := replayList(proto.SurfaceScreensResult{SurfaceID: 9}, nil); len(got) != 1 || got[0] != "surface 9 holds no screens of full-screen programs" {
		t.Errorf("empty list %q", got)
	}
}
