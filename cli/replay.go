package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/paneflow-go/paneflow/internal/vis"
	"github.com/paneflow-go/paneflow/proto"
)

// replayVerb is `paneflow replay <target> [--screen N | --all] [--json]`:
// the screens full-screen programs showed in a pane (surface.screens),
// listed, read one at a time, or all in the order they were shown.
func replayVerb() verb {
	return verb{
		name: "replay", synopsis: "<target> [--screen N | --all] [--json]",
		summary: "list or show the screens a full-screen program showed in a pane",
		params:  []string{"<target>"},
		flags: []flagSpec{
			{name: "screen", kind: valueFlag, value: "N", usage: "show screen N (the number `search --all` gives for a history match)"},
			{name: "all", kind: boolFlag, usage: "show every held screen, oldest first"},
			{name: "json", kind: boolFlag, usage: "print surface.screens' result as JSON"},
		},
		details: "A pane keeps the screens a full-screen program (an agent's TUI, an editor, a pager)\n" +
			"settled on, which no scrollback holds: each distinct screen once, bounded in bytes per\n" +
			"pane (terminal.screen_history_kib; more on disk with terminal.screen_history_disk_kib),\n" +
			"oldest dropped first. Without a flag, one line per\n" +
			"held screen: its number, when it was first shown, how many times it was shown, the\n" +
			"agent turn it was shown in or after (from the agent's hooks, when there were any) and its\n" +
			"first line. --screen N shows that screen (a `search --all` match in \"history screen N\"\n" +
			"opens there); --all shows them all in order, each under a header, to step through what\n" +
			"an agent showed while you were away. Screen text is terminal output: control\n" +
			"characters are shown as escapes. Exit 1 when the pane holds no screens.\n\n" + targetHelp,
		run: runReplay,
	}
}

func runReplay(ctx context.Context, s *session, in *input) error {
	p := proto.SurfaceScreensParams{}
	one, all := false, in.bool("all")
	if v, ok := in.str("screen"); ok {
		n, err := parseCount(in.verb, "--screen", v)
		if err != nil {
			return err
		}
		if n == 0 {
			return in.verb.usageErrorf("--screen counts from 1, got '0'")
		}
		p.Screen, one = &n, true
	}
	if one && all {
		return in.verb.usageErrorf("--screen and --all cannot be used together")
	}
	text := true // the list shows each screen's first line
	p.Text = &text
	c, err := s.connect()
	if err != nil {
		return err
	}
	t, err := s.target(ctx, c, in)
	if err != nil {
		return err
	}
	id := t.ID
	p.SurfaceID = &id
	var res proto.SurfaceScreensResult
	raw, err := callInto(ctx, c, proto.MethodSurfaceScreens, p, &res)
	if err != nil {
		return err
	}
	if in.bool("json") {
		if err := s.printRaw(raw); err != nil {
			return err
		}
	} else {
		// The turns are a label only: a server without the conductor's
		// history still replays.
		var hist proto.AIHistoryResult
		if _, err := callInto(ctx, c, proto.MethodAIHistory, proto.AIHistoryParams{SurfaceID: t.ID}, &hist); err != nil {
			hist = proto.AIHistoryResult{}
		}
		var lines []string
		if one || all {
			lines = replayScreens(res, hist.Turns)
		} else {
			lines = replayList(res, hist.Turns)
		}
		if err := writeLines(s.stdout, lines); err != nil {
			return err
		}
	}
	if len(res.Screens) == 0 {
		return &exitError{Code: ExitFailure}
	}
	return nil
}

// replayList is the one-line-per-screen form of res.
func replayList(res proto.SurfaceScreensResult, turns []proto.AITurn) []string {
	if len(res.Screens) == 0 {
		return []string{fmt.Sprintf("surface %d holds no screens of full-screen programs", res.SurfaceID)}
	}
	lines := make([]string, 0, len(res.Screens)+1)
	for _, hs := range res.Screens {
		first := ""
		if hs.Text != nil {
			first = firstLine(*hs.Text, 60)
		}
		lines = append(lines, strings.TrimRight(fmt.Sprintf("screen %d  %s  shown %d×%s  %s", hs.Screen, hs.FirstShown, hs.Seen, turnLabel(hs, turns), first), " "))
	}
	tail := fmt.Sprintf("%d screens held, %d dropped, %d of %d KiB", res.Held, res.Dropped, (res.Bytes+1023)/1024, res.Limit/1024)
	if res.Truncated {
		tail += " (first lines of the newest screens left out: see --screen N)"
	}
	return append(lines, tail)
}

// replayScreens is each screen of res under a header.
func replayScreens(res proto.SurfaceScreensResult, turns []proto.AITurn) []string {
	var lines []string
	for i, hs := range res.Screens {
		if i > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, fmt.Sprintf("── screen %d of surface %d, first shown %s, last shown %s, shown %d×%s", hs.Screen, res.SurfaceID, hs.FirstShown, hs.LastShown, hs.Seen, turnLabel(hs, turns)))
		if hs.Text == nil {
			lines = append(lines, fmt.Sprintf("(text left out: the result passed %d KiB; see --screen %d)", proto.ScreensMaxBytes/1024, hs.Screen))
			continue
		}
		for _, row := range strings.Split(*hs.Text, "\n") {
			lines = append(lines, vis.String(row))
		}
	}
	return lines
}

// turnLabel names the agent turn hs was first shown in or after
// (proto.TurnShownIn) as "  turn N", or "" when it was shown before every
// turn listed.
func turnLabel(hs proto.HeldScreen, turns []proto.AITurn) string {
	if t, ok := proto.TurnShownIn(hs.FirstShown, turns); ok {
		return fmt.Sprintf("  turn %d", t.Turn)
	}
	return ""
}

// firstLine is text's first non-blank line, escaped and cut to max
// runes.
func firstLine(text string, max int) string {
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if r := []rune(l); len(r) > max {
				l = string(r[:max-1]) + "…"
			}
			return vis.String(l)
		}
	}
	return ""
}
