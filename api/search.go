package api

import (
	"context"
	"encoding/json"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/terminal"
)

// surface.search_all limits.
const (
	searchAllDefaultMatches = 200
	searchAllMaxMatches     = 1000
	// searchAllMaxBytes bounds the result's text, so that it fits a frame
	// (ipc.MaxFrame) with its JSON around it; past it the result is
	// truncated.
	searchAllMaxBytes = 128 << 10
)

// surfaceSearchAll searches every pane of every workspace: scrollback,
// screen, the alternate screen and the screens full-screen programs
// showed earlier (terminal.ScreenHistory), one pane at a time.
func (s *server) surfaceSearchAll(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.SearchAllParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := checkPattern(p.Pattern); err != nil {
		return nil, err
	}
	mode := terminal.CaseSmart
	if p.Case != nil {
		switch *p.Case {
		case proto.CaseSmart:
		case proto.CaseSensitive:
			mode = terminal.CaseSensitive
		case proto.CaseInsensitive:
			mode = terminal.CaseInsensitive
		default:
			return nil, ipc.InvalidParams("case must be %q, %q or %q, got %q", proto.CaseSmart, proto.CaseSensitive, proto.CaseInsensitive, *p.Case)
		}
	}
	q, err := terminal.NewQuery(p.Pattern, p.Regex != nil && *p.Regex, mode)
	if err != nil {
		return nil, ipc.InvalidParams("pattern: %v", err)
	}
	limit := searchAllDefaultMatches
	if p.MaxMatches != nil {
		limit = min(max(*p.MaxMatches, 1), searchAllMaxMatches)
	}
	res := proto.SearchAllResult{Panes: []proto.SearchAllPane{}, CaseSensitive: !q.Folded()}
	size := 0
	for _, info := range s.m.Surfaces() {
		sf, ok := s.m.Surface(info.ID)
		if !ok {
			continue // closed since the list was taken
		}
		res.PanesSearched++
		found, more := sf.Terminal().Emulator().Find(q, limit-res.MatchCount)
		for i, f := range found {
			size += len(f.Text) + 64 // the match's members, its spans
			if size > searchAllMaxBytes {
				found, more = found[:i], true
				break
			}
		}
		if len(found) > 0 {
			pane := proto.SearchAllPane{
				SurfaceID: info.ID, Name: info.Name, Workspace: info.Workspace, WorkspaceID: info.WorkspaceID,
				Matches: make([]proto.SearchAllMatch, len(found)),
			}
			for i, f := range found {
				pane.Matches[i] = searchAllMatch(f)
			}
			res.Panes = append(res.Panes, pane)
			res.MatchCount += len(found)
		}
		if more {
			res.Truncated = true
			break
		}
	}
	return res, nil
}

// searchAllMatch is f on the wire.
func searchAllMatch(f terminal.Found) proto.SearchAllMatch {
	m := proto.SearchAllMatch{Source: f.Source.String(), Line: f.Line, Text: f.Text, Spans: make([][2]int, len(f.Spans))}
	for i, sp := range f.Spans {
		m.Spans[i] = [2]int{sp.Start, sp.End}
	}
	if f.Source == terminal.FoundHistory {
		seq, at := f.Screen, f.Shown.UTC().Format(time.RFC3339Nano)
		m.Screen, m.ShownAt = &seq, &at
	}
	return m
}
