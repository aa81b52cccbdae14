//go:build linux

package gui

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/test/internal/proctest"
	"github.com/paneflow-go/paneflow/test/internal/sshdtest"
)

// Issue 30's targets for hosts in the window.
const (
	// hostsAgentRounds is how many agent state changes
	// BenchmarkHostAgentLatency times.
	hostsAgentRounds = 12
	// hostsOneWay is the delayed host's one-way delay (a 50 ms round trip).
	hostsOneWay = 25 * time.Millisecond
	// targetHostAgentExtra is what a remote agent's state change may take
	// to reach the window's sidebar beyond one round trip.
	targetHostAgentExtra = 20 * time.Millisecond
	// idleHosts × idleHostPanes is BenchmarkIdleHosts' fleet.
	idleHosts, idleHostPanes = 10, 50
)

// startAppConfig is startApp with the configuration file config written
// first (the window reads it at start).
func startAppConfig(t testing.TB, x *xserver, config string, extra ...string) *app {
	t.Helper()
	dir := freshDir(t)
	if err := os.MkdirAll(filepath.Join(dir, "config", "paneflow"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config", "paneflow", "paneflow.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := launchIn(t, x, guiBin, []string{"serve", "--socket"}, extra, dir, "")
	srv.waitPing()
	a := windowReady(launchIn(t, x, guiBin, []string{"--socket"}, extra, dir, srv.sock))
	a.server = srv
	return a
}

// hostsConfig lists urls as [[hosts]] tables.
func hostsConfig(urls []string) string {
	var b strings.Builder
	for _, u := range urls {
		fmt.Fprintf(&b, "[[hosts]]\naddress = %q\n", u)
	}
	return b.String()
}

// BenchmarkHostAgentLatency measures how long a remote agent's state
// change (an ai.notification or ai.prompt_submit call on the host's
// server, which its conductor turns into an agent state) takes to reach
// the window's sidebar (the probe line the window writes when it applies
// it; the paint follows at the next frame), for one host reached straight
// over a loopback sshd and, in the same window and for the same change,
// the same server reached through a proxy adding 50 ms per round trip
// (sshdtest.Delayed). Target: ≤ 1 round trip + 20 ms.
func BenchmarkHostAgentLatency(b *testing.B) {
	need(b)
	x := benchX(b)
	for range b.N {
		srv, sshd, _ := remoteHost(b)
		slow := sshd.Delayed(b, 0, hostsOneWay)
		w := startAppConfig(b, x, hostsConfig([]string{sshd.URL(0), slow}),
			"PANEFLOW_SSH="+sshd.SSHCommand(), "PANEFLOW_UI_PROBE=1")
		if _, err := w.waitLine(regexp.MustCompile(`^ui-probe sidebar hosts=\[\S+=connected \S+=connected\] cards=\[[^@]+@0/1 [^@]+@1/1 [^@]+@2/1\]`), 0, appStartTimeout); err != nil {
			b.Fatalf("the hosts never connected: %v\n%s", err, proctest.Indent(w.log.String()))
		}
		sid := srv.ls().Surfaces[0].ID
		lid := w.server.ls().Surfaces[0].ID
		srv.rpc(nil, "ai.session_start", map[string]any{"surface_id": sid, "tool": "claude"})
		w.server.rpc(nil, "ai.session_start", map[string]any{"surface_id": lid, "tool": "claude"})
		var local, direct, delayed []time.Duration
		for i := range 2 * hostsAgentRounds {
			method, glyph := "ai.prompt_submit", "◐"
			if i%4 >= 2 {
				method, glyph = "ai.notification", "●"
			}
			// Even rounds: the window's own server (the baseline); odd:
			// the host's.
			on, id, want := srv, sid, map[int]*[]time.Duration{1: &direct, 2: &delayed}
			if i%2 == 0 {
				on, id, want = w.server, lid, map[int]*[]time.Duration{0: &local}
			}
			params := map[string]any{"surface_id": id, "tool": "claude"}
			if glyph == "●" {
				params["message"] = "Allow Bash to run the tests?"
			}
			from := w.log.count()
			start := time.Now()
			on.rpc(nil, method, params)
			// The host's card shows the glyph: slot 1 straight, slot 2
			// delayed; each line is the sidebar as applied.
			for slot, out := range want {
				re := regexp.MustCompile(fmt.Sprintf(`^ui-probe sidebar .* [^@ ]+@%d/1:%s[ \]]`, slot, glyph))
				l, err := w.waitLine(re, from, pollTimeout)
				if err != nil {
					b.Fatalf("round %d: host %d never showed %s: %v\n%s", i, slot, glyph, err, proctest.Indent(w.log.String()))
				}
				*out = append(*out, l.at.Sub(start))
			}
		}
		med := func(d []time.Duration) time.Duration { s := slices.Clone(d); slices.Sort(s); return s[len(s)/2] }
		worst := func(d []time.Duration) time.Duration { return slices.Max(d) }
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		rtt := 2 * hostsOneWay
		fmt.Printf("\nHostAgentLatency (%d agent state changes on the host's server → the window's sidebar; target ≤ 1 round trip + %v)\n",
			hostsAgentRounds, targetHostAgentExtra)
		fmt.Printf("  %-22s %10s %10s %10s\n", "host", "median-ms", "max-ms", "target-ms")
		fmt.Printf("  %-22s %10.1f %10.1f %10s\n", "this machine's server", ms(med(local)), ms(worst(local)), "-")
		fmt.Printf("  %-22s %10.1f %10.1f %10.1f\n", "loopback", ms(med(direct)), ms(worst(direct)), ms(targetHostAgentExtra))
		fmt.Printf("  %-22s %10.1f %10.1f %10.1f\n", "50 ms round trip", ms(med(delayed)), ms(worst(delayed)), ms(rtt+targetHostAgentExtra))
		var extra []time.Duration // per round: what the round trip added
		for i := range delayed {
			extra = append(extra, delayed[i]-direct[i])
		}
		fmt.Printf("  %-22s %10.1f %10.1f %10.1f\n", "delayed − loopback", ms(med(extra)), ms(worst(extra)), ms(rtt+targetHostAgentExtra))
		b.ReportMetric(ms(med(extra)), "agent-ms-rtt50-extra")
		b.ReportMetric(ms(med(local)), "agent-ms-local")
		b.ReportMetric(ms(med(direct)), "agent-ms-loopback")
		b.ReportMetric(ms(med(delayed)), "agent-ms-rtt50")
		w.stop()
		w.server.stop()
	}
}

// BenchmarkIdleHosts measures what an idle window costs with 10 hosts of
// 50 panes each (10 `paneflow serve`, each behind its own port of one
// real sshd on loopback, each with one workspace of 50 panes running
// sleep): the window's CPU per idleFor, over idleFleetFor, thread by
// thread (target ≤ 50 ms per 5 s, issue 30).
func BenchmarkIdleHosts(b *testing.B) {
	need(b)
	x := benchX(b)
	for range b.N {
		dir := tempDir(b)
		var ports []sshdtest.Port
		var servers []*app
		for range idleHosts {
			srv := startServe(b, "100x30")
			var panes []map[string]any
			for range idleHostPanes {
				panes = append(panes, map[string]any{"command": "exec sleep 100000"})
			}
			srv.rpc(nil, "workspace.up", map[string]any{"name": "fleet", "layout": "tiled", "panes": panes})
			servers = append(servers, srv)
			ports = append(ports, sshdtest.Port{Env: []string{
				"PATH=" + filepath.Dir(cliBin) + ":/usr/bin:/bin", "HOME=" + dir, "LANG=C.UTF-8", "PANEFLOW_SOCKET_PATH=" + srv.sock,
			}})
		}
		sshd := sshdtest.Start(b, sshdtest.Config{Dir: dir, Ports: ports})
		var urls []string
		for i := range idleHosts {
			urls = append(urls, sshd.URL(i))
		}
		w := startAppConfig(b, x, hostsConfig(urls), "PANEFLOW_SSH="+sshd.SSHCommand(), "PANEFLOW_UI_PROBE=1")
		connected := `^ui-probe sidebar hosts=\[` + strings.Repeat(`\S+=connected ?`, idleHosts) + `\]`
		if _, err := w.waitLine(regexp.MustCompile(connected), 0, appStartTimeout); err != nil {
			b.Fatalf("the hosts never all connected: %v\n%s", err, proctest.Indent(w.log.String()))
		}
		time.Sleep(3 * time.Second) // the first descriptions and frames settle
		w0 := schedCPU(b, w.pid())
		time.Sleep(idleFleetFor)
		w1 := schedCPU(b, w.pid())
		per := (w1 - w0) / time.Duration(idleFleetFor/idleFor)
		ms := float64(per.Microseconds()) / 1000
		fmt.Printf("\nIdleHosts (%d hosts × %d panes over ssh, one local pane shown; the window's CPU per %v idle over %v, target ≤ %v)\n",
			idleHosts, idleHostPanes, idleFor, idleFleetFor, targetIdleCPU)
		fmt.Printf("  window-ms %.1f\n", ms)
		b.ReportMetric(ms, "idle-cpu-ms-window")
		w.stop()
		w.server.stop()
		for _, s := range servers {
			s.stop()
		}
	}
}
