//go:build linux

package gui

import (
	"fmt"
	"image"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/test/internal/keyecho"
	"github.com/paneflow-go/paneflow/test/internal/proctest"
	"github.com/paneflow-go/paneflow/test/internal/sshdtest"
)

// hostFloodKeys is how many keys each half of BenchmarkHostFloodEcho
// types.
const hostFloodKeys = 40

// targetHostFloodRatio is issue 30's "a flood on one host does not delay
// echo on another", as a ratio: the echo median in host A's pane while
// host B floods, against the same without the flood.
const targetHostFloodRatio = 1.2

// BenchmarkHostFloodEcho measures the key echo of a pane of one host (A)
// in a window showing two hosts (two `paneflow serve`, each behind its
// own port of one real sshd on loopback): keys typed by XTest into the
// window, their echo seen as a DAMAGE of its pane (package keyecho), with
// host B idle, then while a pane of host B prints without pause (its
// frames cross the other ssh into the same window).
func BenchmarkHostFloodEcho(b *testing.B) {
	need(b)
	x := benchX(b)
	c, err := keyecho.Dial(x.display)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	for range b.N {
		dir := tempDir(b)
		var servers []*app
		var ports []sshdtest.Port
		for range 2 {
			srv := startServe(b, "100x30")
			servers = append(servers, srv)
			ports = append(ports, sshdtest.Port{Env: []string{
				"PATH=" + filepath.Dir(cliBin) + ":/usr/bin:/bin", "HOME=" + dir, "LANG=C.UTF-8", "PANEFLOW_SOCKET_PATH=" + srv.sock,
			}})
		}
		hostA, hostB := servers[0], servers[1]
		sshd := sshdtest.Start(b, sshdtest.Config{Dir: dir, Ports: ports})
		w := startAppConfig(b, x, hostsConfig([]string{sshd.URL(0), sshd.URL(1)}), "PANEFLOW_SSH="+sshd.SSHCommand(), "PANEFLOW_UI_PROBE=1")
		if _, err := w.waitLine(regexp.MustCompile(`^ui-probe sidebar hosts=\[\S+=connected \S+=connected\] cards=\[[^@]+@0/1 [^@]+@1/1 [^@]+@2/1\]`), 0, appStartTimeout); err != nil {
			b.Fatalf("the hosts never connected: %v\n%s", err, proctest.Indent(w.log.String()))
		}
		aID := strconv.FormatUint(hostA.ls().Surfaces[0].ID, 10)
		bID := strconv.FormatUint(hostB.ls().Surfaces[0].ID, 10)
		hostA.waitOutput(aID, promptRe)
		from := w.log.count()
		w.xdo("windowfocus", "--sync", w.win)
		w.xdo("key", "ctrl+2") // host A's workspace
		if _, err := w.waitLine(regexp.MustCompile(`^ui-probe sidebar .* shown=@1 focus=@1$`), from, appStartTimeout); err != nil {
			b.Fatalf("host A's workspace never shown: %v\n%s", err, proctest.Indent(w.log.String()))
		}
		win, err := c.FindWindow(w.pid(), appStartTimeout)
		if err != nil {
			b.Fatal(err)
		}
		g := mustGeometry(b, c, win)
		t := &echoTerm{name: "host A", pid: w.pid(), win: win, roi: image.Rect(sidebarPx+8, 48, g.Dx()-8, g.Dy()-8)}
		idle := echoKeys(b, c, t, hostFloodKeys)
		idleCPU := t.echoCPU
		t.echoCPU = 0
		hostB.mustCLI(nil, "send", bID, "while :; do seq 1 5000; done", "--submit")
		time.Sleep(time.Second)
		flood := echoKeys(b, c, t, hostFloodKeys)
		floodCPU := t.echoCPU
		hostB.mustCLI(nil, "key", bID, "ctrl-c")

		lat := func(ss []keyecho.Sample) keyecho.Stats {
			var d []time.Duration
			for _, s := range ss {
				d = append(d, s.Latency())
			}
			return keyecho.Summarize(d)
		}
		si, sf := lat(idle), lat(flood)
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		ratio := float64(sf.Median) / float64(si.Median)
		fmt.Printf("\nHostFloodEcho (%d keys into host A's pane, host B idle, then printing without pause; both over one loopback sshd; target median ratio ≤ %.1f)\n",
			hostFloodKeys, targetHostFloodRatio)
		// The window's CPU while the keys were typed says whether host B's
		// output reached it (its screen stream's frames).
		fmt.Printf("  %-18s %10s %10s %16s\n", "host B", "median-ms", "p99-ms", "window-cpu-ms")
		fmt.Printf("  %-18s %10.1f %10.1f %16.0f\n", "idle", ms(si.Median), ms(si.P99), ms(idleCPU))
		fmt.Printf("  %-18s %10.1f %10.1f %16.0f\n", "flooding", ms(sf.Median), ms(sf.P99), ms(floodCPU))
		fmt.Printf("  ratio %.2f\n", ratio)
		b.ReportMetric(ms(si.Median), "echo-ms-idle")
		b.ReportMetric(ms(sf.Median), "echo-ms-flood")
		b.ReportMetric(ratio, "flood/idle")
		w.stop()
		w.server.stop()
		for _, s := range servers {
			s.stop()
		}
	}
}
