package cli

import (
	"context"
	"fmt"

	"github.com/paneflow-go/paneflow/internal/vis"
	"github.com/paneflow-go/paneflow/proto"
)

// searchAllFlags are search's flags for --all.
var searchAllFlags = []flagSpec{
	{name: "all", kind: boolFlag, usage: "search every pane, past full-screen screens too"},
	{name: "regex", kind: boolFlag, usage: "with --all: the pattern is a regular expression (RE2)"},
	{name: "case", kind: valueFlag, value: "MODE", usage: "with --all: smart (default), sensitive or insensitive"},
	{name: "json", kind: boolFlag, usage: "with --all: print surface.search_all's result as JSON"},
}

const searchAllHelp = "With --all the one argument is the pattern, and the search covers every pane of every\n" +
	"workspace: its scrollback, its screen, and the screens full-screen programs (agents' TUIs,\n" +
	"editors, pagers) showed, which no scrollback holds. A match never spans lines. It prints\n" +
	"the matching lines grouped by pane: \"<source> <line>: <text>\", source being scrollback\n" +
	"(line < 0), screen, alt_screen (showing now) or \"history screen N\" (a past screen, N\n" +
	"counting from 1 per pane, with when it was first shown: `paneflow replay <surface>\n" +
	"--screen N` shows it); control characters are shown as escapes. Smart case (--case\n" +
	"smart) ignores case unless the pattern has an upper-case letter. --max caps the lines\n" +
	"(server default 200, at most 1000, per server). Exit 1 when nothing matched.\n\n" +
	"Every host of the configuration's [[hosts]] (the hosts the window shows) is searched too,\n" +
	"at once: each host's panes follow this machine's under an \"on ADDRESS\" line (their\n" +
	"surface numbers are the host's: `paneflow --host ADDRESS replay <surface> --screen N`).\n" +
	"A server that cannot be searched (a host unreachable, no server on this machine) is\n" +
	"named on stderr with why, and the others' matches still print; only when no server\n" +
	"answered is it an error. With --json each pane carries its \"host\" (\"\" for this\n" +
	"machine) and \"servers\" lists every server asked with its counts or its error. With\n" +
	"--host (PANEFLOW_HOST) only that host is searched.\n"

// runSearchAll is `paneflow search --all <pattern>`.
func runSearchAll(ctx context.Context, s *session, in *input) error {
	p := proto.SearchAllParams{Pattern: in.args[0]}
	if in.bool("regex") {
		t := true
		p.Regex = &t
	}
	if v, ok := in.str("case"); ok {
		if v != proto.CaseSmart && v != proto.CaseSensitive && v != proto.CaseInsensitive {
			return in.verb.usageErrorf("--case must be smart, sensitive or insensitive, got '%s'", v)
		}
		p.Case = &v
	}
	if v, ok := in.str("max"); ok {
		n, err := parseCount(in.verb, "--max", v)
		if err != nil {
			return err
		}
		m := int(min(n, 1<<20))
		p.MaxMatches = &m
	}
	hosts := s.searchHosts()
	if len(hosts) == 0 {
		return s.searchOne(ctx, p, in.bool("json"))
	}
	return s.searchEvery(ctx, p, hosts, in.bool("json"))
}

// searchOne is search --all against the one server the session reaches.
func (s *session) searchOne(ctx context.Context, p proto.SearchAllParams, asJSON bool) error {
	c, err := s.connect()
	if err != nil {
		return err
	}
	var res proto.SearchAllResult
	raw, err := callInto(ctx, c, proto.MethodSurfaceSearchAll, p, &res)
	if err != nil {
		return err
	}
	if asJSON {
		if err := s.printRaw(raw); err != nil {
			return err
		}
	} else if err := writeLines(s.stdout, searchAllLines(res)); err != nil {
		return err
	}
	if res.MatchCount == 0 {
		return &exitError{Code: ExitFailure} // like grep: nothing matched, nothing to say
	}
	return nil
}

// searchAllLines is the text form of a surface.search_all result.
func searchAllLines(res proto.SearchAllResult) []string {
	var lines []string
	for i, p := range res.Panes {
		if i > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, fmt.Sprintf("%s (surface %d, workspace %d)", vis.String(p.Name), p.SurfaceID, p.Workspace))
		for _, m := range p.Matches {
			where := fmt.Sprintf("%s %d", m.Source, m.Line)
			if m.Source == proto.SourceHistory && m.Screen != nil {
				where = fmt.Sprintf("history screen %d row %d", *m.Screen, m.Line)
				if m.ShownAt != nil {
					where += " (" + *m.ShownAt + ")"
				}
			}
			lines = append(lines, "  "+where+": "+vis.String(m.Text))
		}
	}
	noun := "lines"
	if res.MatchCount == 1 {
		noun = "line"
	}
	tail := fmt.Sprintf("%d %s in %d of %d panes", res.MatchCount, noun, len(res.Panes), res.PanesSearched)
	if res.Truncated {
		tail += " (more matched: raise --max)"
	}
	if len(lines) > 0 {
		lines = append(lines, "")
	}
	return append(lines, tail)
}
