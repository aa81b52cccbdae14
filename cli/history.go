package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/paneflow-go/paneflow/internal/vis"
	"github.com/paneflow-go/paneflow/proto"
)

// historyVerb is `paneflow history <target> [--json]`: the turns of the
// agent in a pane (ai.history).
func historyVerb() verb {
	return verb{
		name: "history", synopsis: "<target> [--json]",
		summary: "list the turns of the agent in a pane",
		params:  []string{"<target>"},
		flags:   []flagSpec{{name: "json", kind: boolFlag, usage: "print ai.history's result as JSON"}},
		details: "One line per turn, oldest first: its number, the agent, when it started, how long it\n" +
			"took (or \"running\"), the tools it ran, then its prompt (after \"> \", when the agent's\n" +
			"hook gave it) and its result on the next lines. Turns come\n" +
			"from the agent's hooks (a prompt submitted, a tool run, the turn's end); the server\n" +
			"keeps the last 100 per pane while the pane is open.\n\n" + targetHelp,
		run: runHistory,
	}
}

func runHistory(ctx context.Context, s *session, in *input) error {
	c, err := s.connect()
	if err != nil {
		return err
	}
	t, err := s.target(ctx, c, in)
	if err != nil {
		return err
	}
	var res proto.AIHistoryResult
	raw, err := callInto(ctx, c, proto.MethodAIHistory, proto.AIHistoryParams{SurfaceID: t.ID}, &res)
	if err != nil {
		return err
	}
	if in.bool("json") {
		return s.printRaw(raw)
	}
	return writeLines(s.stdout, historyLines(res))
}

// historyLines is ai.history's result as text; agent output (tool names,
// results) is shown with control characters escaped.
func historyLines(res proto.AIHistoryResult) []string {
	if len(res.Turns) == 0 {
		return []string{"no turns"}
	}
	var lines []string
	for _, t := range res.Turns {
		took := "running"
		if t.DurationMS != nil {
			took = fmt.Sprintf("%.1fs", float64(*t.DurationMS)/1000)
			if t.End != "stop" {
				took += " (" + t.End + ")"
			}
		}
		tools := "no tools"
		if len(t.Tools) > 0 {
			tools = "tools: " + vis.String(strings.Join(t.Tools, ", "))
		}
		lines = append(lines, fmt.Sprintf("turn %d  %s  %s  %s  %s", t.Turn, vis.String(t.Tool), t.StartedAt, took, tools))
		if t.Prompt != "" {
			lines = append(lines, "  > "+vis.String(t.Prompt))
		}
		if t.Result != "" {
			lines = append(lines, "  "+vis.String(t.Result))
		}
	}
	return lines
}
