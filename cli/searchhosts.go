package cli

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/remote"
)

// dialSearchHost returns a caller for the host at address and what ends
// its connection (the session's hostLink, as --host uses).
func (s *session) dialSearchHost(ctx context.Context, address string) (caller, func(), error) {
	if s.hostDial != nil {
		return s.hostDial(ctx, address)
	}
	h, err := remote.ParseHost(address)
	if err != nil {
		return nil, nil, err
	}
	l := &hostLink{host: h, env: remote.Env{Getenv: s.getenv}, ctx: ctx}
	return ipcCaller{&ipc.Client{Path: h.String(), Dial: l.dial}}, l.close, nil
}

// searchServer is one server's answer to search --all: this machine's
// (host "") or a host's.
type searchServer struct {
	host string
	res  proto.SearchAllResult
	err  error
}

// searchEveryJSON is search --all --json's output when hosts were asked:
// surface.search_all's result over every server, each pane naming its
// host, and each server with its own counts or its error.
type searchEveryJSON struct {
	Panes         []hostSearchPane   `json:"panes"`
	MatchCount    int                `json:"match_count"`
	Truncated     bool               `json:"truncated"`
	CaseSensitive bool               `json:"case_sensitive"`
	PanesSearched int                `json:"panes_searched"`
	Servers       []searchServerJSON `json:"servers"`
}

// hostSearchPane is one pane's matches and its host ("" for this
// machine; its surface and workspace ids are that host's).
type hostSearchPane struct {
	Host string `json:"host"`
	proto.SearchAllPane
}

// searchServerJSON is one server asked: its counts, or why it was not
// searched.
type searchServerJSON struct {
	Host          string `json:"host"`
	PanesSearched int    `json:"panes_searched"`
	MatchCount    int    `json:"match_count"`
	Truncated     bool   `json:"truncated"`
	Error         string `json:"error,omitempty"`
}

// searchEvery is search --all against this machine's server and every
// host, asked at once. A server that failed is named on stderr and the
// others' matches still print; when none answered, this machine's error
// is the verb's (a bad pattern fails everywhere alike).
func (s *session) searchEvery(ctx context.Context, p proto.SearchAllParams, hosts []string, asJSON bool) error {
	servers := make([]searchServer, 1+len(hosts))
	var wg sync.WaitGroup
	for i := range servers {
		if i > 0 {
			servers[i].host = hosts[i-1]
		}
		wg.Go(func() {
			sv := &servers[i]
			var c caller
			var err error
			if i == 0 {
				c, err = s.connect()
			} else {
				var done func()
				c, done, err = s.dialSearchHost(ctx, sv.host)
				if done != nil {
					defer done()
				}
			}
			if err == nil {
				_, err = callInto(ctx, c, proto.MethodSurfaceSearchAll, p, &sv.res)
			}
			if err != nil {
				if re := remote.AsError(err); re != nil && i > 0 {
					err = re // the host's own problem, said as --host says it
				}
				sv.err = err
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	answered := 0
	var ie *ipc.Error
	for _, sv := range servers {
		if sv.err == nil {
			answered++
		}
	}
	if answered == 0 || errors.As(servers[0].err, &ie) {
		return servers[0].err
	}
	for _, sv := range servers {
		if sv.err != nil {
			fmt.Fprintf(s.stderr, "paneflow: %s not searched: %v\n", serverName(sv.host), sv.err)
		}
	}
	total := 0
	for _, sv := range servers {
		total += sv.res.MatchCount
	}
	var err error
	if asJSON {
		err = s.printJSON(searchEveryResult(servers))
	} else {
		err = writeLines(s.stdout, searchEveryLines(servers))
	}
	if err != nil {
		return err
	}
	if total == 0 {
		return &exitError{Code: ExitFailure}
	}
	return nil
}

// serverName names a server asked in messages.
func serverName(host string) string {
	if host == "" {
		return "this machine's server"
	}
	return host
}

// searchEveryResult is searchEveryJSON for the servers' answers.
func searchEveryResult(servers []searchServer) searchEveryJSON {
	out := searchEveryJSON{Panes: []hostSearchPane{}, Servers: []searchServerJSON{}}
	first := true
	for _, sv := range servers {
		js := searchServerJSON{Host: sv.host}
		if sv.err != nil {
			js.Error = sv.err.Error()
			out.Servers = append(out.Servers, js)
			continue
		}
		js.PanesSearched, js.MatchCount, js.Truncated = sv.res.PanesSearched, sv.res.MatchCount, sv.res.Truncated
		out.Servers = append(out.Servers, js)
		if first {
			out.CaseSensitive, first = sv.res.CaseSensitive, false
		}
		out.MatchCount += sv.res.MatchCount
		out.PanesSearched += sv.res.PanesSearched
		out.Truncated = out.Truncated || sv.res.Truncated
		for _, pn := range sv.res.Panes {
			out.Panes = append(out.Panes, hostSearchPane{Host: sv.host, SearchAllPane: pn})
		}
	}
	return out
}

// searchEveryLines is the text form of the servers' answers: this
// machine's panes, then each host's under an "on ADDRESS" line, then one
// summary line.
func searchEveryLines(servers []searchServer) []string {
	var lines []string
	sum := proto.SearchAllResult{}
	asked, failed, truncated := 0, 0, false
	for _, sv := range servers {
		if sv.err != nil {
			failed++
			continue
		}
		asked++
		sum.MatchCount += sv.res.MatchCount
		sum.PanesSearched += sv.res.PanesSearched
		truncated = truncated || sv.res.Truncated
		if len(sv.res.Panes) == 0 {
			continue
		}
		part := searchAllLines(proto.SearchAllResult{Panes: sv.res.Panes})
		part = part[:len(part)-2] // its own summary and the blank line before it
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		if sv.host != "" {
			lines = append(lines, "on "+sv.host)
		}
		lines = append(lines, part...)
		sum.Panes = append(sum.Panes, sv.res.Panes...)
	}
	noun := "lines"
	if sum.MatchCount == 1 {
		noun = "line"
	}
	tail := fmt.Sprintf("%d %s in %d of %d panes on %d servers", sum.MatchCount, noun, len(sum.Panes), sum.PanesSearched, asked)
	if failed > 0 {
		tail += fmt.Sprintf(" (%d not searched)", failed)
	}
	if truncated {
		tail += " (more matched: raise --max)"
	}
	if len(lines) > 0 {
		lines = append(lines, "")
	}
	return append(lines, tail)
}
