package api

import (
	"context"
	"encoding/json"
	"runtime"
	"sync"
	"sync/atomic"
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
// showed earlier (terminal.ScreenHistory), panes in parallel (as many at
// a time as GOMAXPROCS), each for at most the whole limit; the results
// are then taken in pane order up to the limit.
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
	infos := s.m.Surfaces()
	hits := searchPanes(len(infos), func(i int) (found []terminal.Found, more, ok bool) {
		sf, ok := s.m.Surface(infos[i].ID)
		if !ok {
			return nil, false, false // closed since the list was taken
		}
		found, more = sf.Terminal().Emulator().Find(q, limit)
		return found, more, true
	})
	size := 0
	for i, h := range hits {
		if !h.ok {
			continue
		}
		res.PanesSearched++
		found, more := h.found, h.more
		if n := limit - res.MatchCount; len(found) > n {
			found, more = found[:n], true
		}
		for j, f := range found {
			size += len(f.Text) + 64 // the match's members, its spans
			if size > searchAllMaxBytes {
				found, more = found[:j], true
				break
			}
		}
		if len(found) > 0 {
			info := infos[i]
			pane := proto.SearchAllPane{
				SurfaceID: info.ID, Name: info.Name, Workspace: info.Workspace, WorkspaceID: info.WorkspaceID,
				Matches: make([]proto.SearchAllMatch, len(found)),
			}
			for j, f := range found {
				pane.Matches[j] = searchAllMatch(f)
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

// paneHits is what searchPanes found in one pane.
type paneHits struct {
	found    []terminal.Found
	more, ok bool
}

// searchPanes runs find for panes 0..n-1 on up to GOMAXPROCS goroutines,
// each taking the next pane not yet taken, and returns their results in
// pane order.
func searchPanes(n int, find func(i int) (found []terminal.Found, more, ok bool)) []paneHits {
	out := make([]paneHits, n)
	workers := min(n, runtime.GOMAXPROCS(0))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				h := &out[i]
				h.found, h.more, h.ok = find(i)
			}
		})
	}
	wg.Wait()
	return out
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
