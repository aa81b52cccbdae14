//go:build linux

package web

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/paneflow-go/paneflow/test/internal/webtest"
)

// agentPanes opens n-1 more panes (one per workspace), each running a
// fake hooked agent: the pane's shell reports a Claude Code session start
// and a prompt through the real paneflow-ai-hook, with its own pid as the
// session's, then sleeps. It waits until fleet.list lists n agents and
// returns them by surface id (their pids).
func (s *webServer) agentPanes(n int) map[uint64]int {
	s.t.Helper()
	hook := filepath.Join(filepath.Dir(bin), "paneflow-ai-hook")
	payload := func(ev string) string {
		return fmt.Sprintf(`printf '%%s' '{"session_id":"s$$","hook_event_name":"%s","cwd":"/tmp","prompt":"work"}' | PANEFLOW_AI_PID=$$ PANEFLOW_AI_TOOL=claude %s %s`, ev, hook, ev)
	}
	cmd := payload("SessionStart") + "; " + payload("UserPromptSubmit") + "; exec sleep 100000"
	// Up to 20 panes a workspace, each split off the one before (a
	// server has at most 20 workspaces).
	last := s.firstPane()
	s.cli("send", strconv.FormatUint(last, 10), "--submit", cmd)
	for i := 1; i < n; i++ {
		if i%20 == 0 {
			s.cli("new", "--command", cmd)
			last = s.lastPane()
			continue
		}
		var res struct {
			SurfaceID uint64 `json:"surface_id"`
		}
		out := s.cli("split", []string{"h", "v"}[i%2], "--target", strconv.FormatUint(last, 10), "--command", cmd)
		if err := json.Unmarshal([]byte(out), &res); err != nil || res.SurfaceID == 0 {
			s.t.Fatalf("split: %v: %s", err, out)
		}
		last = res.SurfaceID
	}
	deadline := time.Now().Add(3 * webtest.PollTimeout)
	for {
		var fleet struct {
			Agents []struct {
				PID       *int    `json:"pid"`
				SurfaceID *uint64 `json:"surface_id"`
				State     string  `json:"state"`
			} `json:"agents"`
		}
		out := s.cli("ps", "--json")
		if err := json.Unmarshal([]byte(out), &fleet); err != nil {
			s.t.Fatalf("ps --json: %v\n%s", err, out)
		}
		got := make(map[uint64]int)
		for _, a := range fleet.Agents {
			if a.PID != nil && a.SurfaceID != nil && a.State == "thinking" {
				got[*a.SurfaceID] = *a.PID
			}
		}
		if len(got) == n {
			return got
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%d of %d fake agents are thinking:\n%s", len(got), n, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// BenchmarkOverviewFirstPaint measures how long a paired browser takes
// from navigating to the page to painting the overview of 100 agents
// (performance.now() at the first animation frame after the overview
// arrived): the page, its script, /session, the WebSocket, and the
// server's surface.list and fleet.list. Target: ≤ 500 ms.
func BenchmarkOverviewFirstPaint(b *testing.B) {
	ctx := webtest.Browser(b)
	s := startWeb(b, "80x24")
	s.agentPanes(100)
	link := s.pairLink(false)
	webtest.Pair(b, ctx, link)
	base := webtest.Base(link)
	webtest.Do(b, ctx, "100 cards", webtest.Poll(`document.querySelectorAll('#panes .card .st-thinking').length === 100`))
	webtest.Shot(b, ctx, "overview-100.png")
	var paints []float64
	b.ResetTimer()
	for range b.N {
		webtest.Do(b, ctx, "reload",
			chromedp.Navigate(base),
			chromedp.WaitReady(chromedp.CSS("#panes")),
			webtest.Poll(`window.paneflowFirstOverview && document.querySelectorAll('#panes .card').length === 100`),
		)
		paints = append(paints, webtest.Get(b, ctx, "first paint", chromedp.Evaluate[float64](`window.paneflowFirstOverview`)))
	}
	b.StopTimer()
	slices.Sort(paints)
	b.ReportMetric(paints[len(paints)/2], "paint-p50-ms")
	b.ReportMetric(paints[len(paints)-1], "paint-max-ms")
}

// BenchmarkStateToBrowser measures how long an agent's state change takes
// from the start of its hook process (`paneflow-ai-hook Stop`, then
// `UserPromptSubmit`, as Claude Code runs them) until the page has the
// overview that shows it (the page's clock and the test's are the same
// machine's). Target: ≤ 100 ms on loopback.
func BenchmarkStateToBrowser(b *testing.B) {
	ctx := webtest.Browser(b)
	s := startWeb(b, "80x24")
	agents := s.agentPanes(1)
	var id uint64
	var pid int
	for k, v := range agents {
		id, pid = k, v
	}
	webtest.Pair(b, ctx, s.pairLink(false))
	webtest.Do(b, ctx, "the agent", webtest.Poll(fmt.Sprintf(`(window.paneflowStates()[%d] || {}).state === 'thinking'`, id)))
	hook := filepath.Join(filepath.Dir(bin), "paneflow-ai-hook")
	fire := func(ev, want string) float64 {
		cmd := exec.Command(hook, ev)
		cmd.Env = append(append([]string(nil), s.env...), "PANEFLOW_SURFACE_ID="+strconv.FormatUint(id, 10),
			"PANEFLOW_AI_PID="+strconv.Itoa(pid), "PANEFLOW_AI_TOOL=claude")
		cmd.Stdin = strings.NewReader(`{"session_id":"s","hook_event_name":"` + ev + `","cwd":"/tmp","prompt":"go","last_assistant_message":"done"}`)
		start := float64(time.Now().UnixNano()) / 1e6
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("paneflow-ai-hook %s: %v\n%s", ev, err, out)
		}
		at := webtest.Get(b, ctx, "the state "+want, chromedp.Poll[float64](fmt.Sprintf(`(s => s && s.state === %q && s.at)(window.paneflowStates()[%d])`, want, id), chromedp.WithPollingTimeout(webtest.PollTimeout)))
		return at - start
	}
	var lat []float64
	b.ResetTimer()
	for range b.N {
		lat = append(lat, fire("Stop", "finished"), fire("UserPromptSubmit", "thinking"))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(lat[len(lat)/2], "state-p50-ms")
	b.ReportMetric(lat[len(lat)*99/100], "state-p99-ms")
	b.ReportMetric(lat[len(lat)-1], "state-max-ms")
}

// BenchmarkFloodToBrowser measures what a pane printing as fast as it can
// costs the browser that shows it: the WebSocket's bytes and screen frames
// a second (the server sends at most 30 frames a second, each only the
// rows that changed, so the rate is bounded by the screen's size × 30
// whatever the flood's), and whether the page stays responsive (the round
// trip of a trivial script through the DevTools protocol while it draws).
func BenchmarkFloodToBrowser(b *testing.B) {
	ctx := webtest.Browser(b)
	s := startWeb(b, "80x24")
	id := s.firstPane()
	link := s.pairLink(false)
	webtest.Pair(b, ctx, link)
	webtest.Do(b, ctx, "the pane", chromedp.Navigate(webtest.Base(link)+fmt.Sprintf("#pane/%d", id)),
		webtest.Poll(`document.querySelectorAll('#scr .r').length === 24`))
	s.cli("send", strconv.FormatUint(id, 10), "--submit", "seq 1 1000000000")
	webtest.Do(b, ctx, "the flood", webtest.Poll(`window.paneflowRows().some(r => /^[0-9]{5,}$/.test(r))`))
	type stats struct {
		Bytes, Frames, Drawn float64
	}
	read := func() stats {
		return webtest.Get(b, ctx, "the page's counters", chromedp.Evaluate[stats](`window.paneflowStats()`))
	}
	var rtts []float64
	b.ResetTimer()
	start, t0 := read(), time.Now()
	for time.Since(t0) < time.Duration(b.N)*3*time.Second {
		at := time.Now()
		webtest.Get(b, ctx, "a round trip", chromedp.Evaluate[int](`1`))
		rtts = append(rtts, float64(time.Since(at).Microseconds())/1000)
	}
	end, secs := read(), time.Since(t0).Seconds()
	b.StopTimer()
	s.cli("key", strconv.FormatUint(id, 10), "ctrl-c")
	slices.Sort(rtts)
	b.ReportMetric((end.Bytes-start.Bytes)/secs/1024, "KiB/s")
	b.ReportMetric((end.Frames-start.Frames)/secs, "frames/s")
	b.ReportMetric((end.Drawn-start.Drawn)/secs, "paints/s")
	b.ReportMetric(rtts[len(rtts)/2], "rtt-p50-ms")
	b.ReportMetric(rtts[len(rtts)-1], "rtt-max-ms")
}
