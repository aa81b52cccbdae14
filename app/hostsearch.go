package app

import (
	"context"
	"errors"
	"sync"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// The limits of the search view's merged answer: surface.search_all's
// own (its default match count, and its 128 KiB of text counted the way
// the server counts it), so that a window with hosts cuts its list where
// one server would.
const (
	searchMergeMatches = 200
	searchMergeBytes   = 128 << 10
)

// searchTarget is one server the search view asks: the window's own
// (slot 0, host "") or a remote host's. offline, when not nil, says why
// the host cannot be asked now.
type searchTarget struct {
	slot    int
	host    string
	cl      proto.Client
	offline error
}

// hostSearch is one server's answer to the search view's query. base is
// the window-side index of the host's first workspace.
type hostSearch struct {
	searchTarget
	base int
	res  proto.SearchAllResult
	err  error
}

// searchTargetsLocked lists the servers a search asks: the window's own,
// then every host the window was given, in the order they were added
// (one not connected is listed with why).
func (s *shell) searchTargetsLocked() []searchTarget {
	out := []searchTarget{{cl: s.historyClient()}}
	if s.hosts() == nil {
		return out
	}
	for _, st := range s.hosts().hostStatuses() {
		t := searchTarget{slot: st.Slot, host: st.Address, cl: proto.Client{Caller: s.hosts().callerAt(st.Slot, historyCallTimeout)}}
		if st.State != hostConnected {
			why := st.State
			if st.Err != "" {
				why += ": " + st.Err
			}
			t.offline = errors.New(why)
		}
		out = append(out, t)
	}
	return out
}

// searchAllLocked gives the search of every server the window shows (the
// targets now, see searchTargetsLocked): a function asking each for p at
// once and returning their answers in the targets' order, each remote one
// with its workspace offset. That function is called off the UI
// goroutine: it may wait for every server.
func (s *shell) searchAllLocked() func(context.Context, proto.SearchAllParams) []hostSearch {
	targets := s.searchTargetsLocked()
	return func(ctx context.Context, p proto.SearchAllParams) []hostSearch { return s.searchAll(ctx, targets, p) }
}

// searchAll asks every target for p at once and returns their answers in
// the targets' order, each remote one with its workspace offset (off the
// UI goroutine: it may wait for every server).
func (s *shell) searchAll(ctx context.Context, targets []searchTarget, p proto.SearchAllParams) []hostSearch {
	out := make([]hostSearch, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		out[i].searchTarget = t
		if t.offline != nil {
			out[i].err = t.offline
			continue
		}
		wg.Go(func() {
			out[i].res, out[i].err = t.cl.SurfaceSearchAll(ctx, p)
		})
	}
	wg.Wait()
	if s.hosts() != nil {
		for i := range out {
			if out[i].slot != 0 && out[i].err == nil {
				out[i].base = s.hosts().offset(out[i].slot)
			}
		}
	}
	return out
}

// searchMerged is the search view's answer over every server asked.
type searchMerged struct {
	// res holds the panes of every server, the window's own first, with
	// window-side ids and workspace indexes, cut as one server's answer
	// would be (searchMergeMatches, searchMergeBytes).
	res proto.SearchAllResult
	// hosts is, for each pane of res, its host's address ("" for the
	// window's own server).
	hosts []string
	// failed names the hosts not searched and why, "address: why".
	failed []string
}

// mergeSearches merges the answers of the servers searched (the window's
// own first). Its error is the window's own server's, which speaks for
// the query (a bad pattern fails everywhere alike); a host that failed is
// named in failed.
func mergeSearches(parts []hostSearch) (searchMerged, error) {
	m := searchMerged{res: proto.SearchAllResult{Panes: []proto.SearchAllPane{}}}
	cut := false
	size := 0
	first := true
	for _, hs := range parts {
		if hs.err != nil {
			if hs.slot == 0 {
				return searchMerged{}, hs.err
			}
			m.failed = append(m.failed, hs.host+": "+searchErrorText(hs.err))
			continue
		}
		if first {
			m.res.CaseSensitive, first = hs.res.CaseSensitive, false
		}
		m.res.PanesSearched += hs.res.PanesSearched
		for _, p := range hs.res.Panes {
			if cut {
				break
			}
			found := p.Matches
			if n := searchMergeMatches - m.res.MatchCount; len(found) > n {
				found, cut = found[:n], true
			}
			for j, f := range found {
				size += len(f.Text) + 64 // as surface.search_all counts
				if size > searchMergeBytes {
					found, cut = found[:j], true
					break
				}
			}
			if len(found) == 0 {
				continue
			}
			p.Matches = found
			p.SurfaceID, p.WorkspaceID = globalID(hs.slot, p.SurfaceID), globalID(hs.slot, p.WorkspaceID)
			p.Workspace += hs.base
			m.res.Panes = append(m.res.Panes, p)
			m.hosts = append(m.hosts, hs.host)
			m.res.MatchCount += len(found)
		}
		// Past a server's cut, a later server's matches would not be the
		// next ones in order.
		cut = cut || hs.res.Truncated
	}
	m.res.Truncated = cut
	return m, nil
}

// searchErrorText is a failed search's message as the view shows it: a
// server's error without its code.
func searchErrorText(err error) string {
	var ie *ipc.Error
	if errors.As(err, &ie) {
		return ie.Message
	}
	return err.Error()
}
