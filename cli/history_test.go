package cli

import (
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/proto"
)

// TestHistoryLines: a finished turn shows its duration, tools, prompt
// and result (control characters escaped: agent output), a superseded one says so, a
// running one says running.
func TestHistoryLines(t *testing.T) {
	ms := func(v int64) *int64 { return &v }
	end := "2026-12-06T03:00:03Z"
	res := proto.AIHistoryResult{SurfaceID: 4, Turns: []proto.AITurn{
		{Turn: 1, Tool: "claude", StartedAt: "2026-12-06T03:00:00Z", EndedAt: &end, DurationMS: ms(3200),
			Prompt: "run\x07 the tests", Tools: []string{"Read", "Bash"}, Result: "done\x1b[2J", End: "stop"},
		{Turn: 2, Tool: "claude", StartedAt: "2026-12-06T03:00:04Z", EndedAt: &end, DurationMS: ms(500), Tools: []string{}, End: "superseded"},
		{Turn: 3, Tool: "claude", StartedAt: "2026-12-06T03:00:05Z", Tools: []string{}},
	}}
	got := strings.Join(historyLines(res), "\n")
	want := "turn 1  claude  2026-12-06T03:00:00Z  3.2s  tools: Read, Bash\n" +
		"  > run\\x07 the tests\n" +
		"  done\\x1b[2J\n" +
		"turn 2  claude  2026-12-06T03:00:04Z  0.5s (superseded)  no tools\n" +
		"turn 3  claude  2026-12-06T03:00:05Z  running  no tools"
	if got != want {
		t.Fatalf("historyLines =\n%s\nwant\n%s", got, want)
	}
	if got := historyLines(proto.AIHistoryResult{}); len(got) != 1 || got[0] != "no turns" {
		t.Fatalf("no turns: %q", got)
	}
}
