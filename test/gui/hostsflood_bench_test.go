//go:build linux

package gui

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/test/internal/keyecho"
	"github.com/paneflow-go/paneflow/test/internal/proctest"
	"github.com/paneflow-go/paneflow/test/internal/sshdtest"
)

// hostFloodKeys is how many keys each half of BenchmarkHostFloodEcho
// types.
const hostFloodKeys = 80

// hostFloodRounds is how many times the benchmark alternates between
// host B idle and host B flooding.
const hostFloodRounds = 4

// targetHostFloodRatio is issue 30's "a flood on one host does not delay
// echo on another", as a ratio: the echo median in host A's pane while
// host B floods, against the same without the flood.
const targetHostFloodRatio = 1.2

// BenchmarkHostFloodEcho measures the key echo of a pane of one host (A)
// in a window showing two hosts (two `paneflow serve`, each behind its
// own port of one real sshd on loopback): keys typed by XTest into the
// window, their echo seen as a DAMAGE of its pane (package keyecho), with
// host B idle, then while a pane of host B prints without pause (its
// frames cross the other ssh into the same window), alternating in
// hostFloodRounds rounds. Host B runs on a CPU of its own (see
// pinHostApart; BENCH_HOSTB_PIN=none shares them); BENCH_HOSTFLOOD_KEYS
// changes the number of keys; BENCH_HOSTB_FLOOD=unlinked floods a server
// the window is not connected to instead (a control: host B's CPU without
// its link).
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
		// Host B stands for another machine: unless BENCH_HOSTB_PIN=none,
		// its processes (server, shell, flood, the sshd session that
		// serves the window's link) run on the last CPU and everything
		// else of this benchmark (window, its ssh clients, Xvfb, host A)
		// on the others, so the flood's own CPU does not compete with
		// the window's; what the flood costs the window (its link's
		// frames) stays on the window's side.
		split := os.Getenv("BENCH_HOSTB_PIN") != "none" && runtime.NumCPU() > 1
		if split {
			pinHostApart(b, hostB.sock)
		}
		keys := hostFloodKeys
		if n, err := strconv.Atoi(os.Getenv("BENCH_HOSTFLOOD_KEYS")); err == nil {
			keys = n
		}
		g := mustGeometry(b, c, win)
		t := &echoTerm{name: "host A", pid: w.pid(), win: win, roi: image.Rect(sidebarPx+8, 48, g.Dx()-8, g.Dy()-8)}
		// BENCH_HOSTB_FLOOD=unlinked: the same flood in a server the
		// window is not connected to (a control: its CPU without its link).
		flooder, fID := hostB, bID
		if os.Getenv("BENCH_HOSTB_FLOOD") == "unlinked" {
			flooder = startServe(b, "100x30")
			fID = strconv.FormatUint(flooder.ls().Surfaces[0].ID, 10)
			flooder.waitOutput(fID, promptRe)
			if split {
				pinHostApart(b, flooder.sock)
			}
		}
		// The halves alternate in rounds, so a change of the machine's
		// load during the run falls on both.
		var idle, flood []keyecho.Sample
		var idleCPU, floodCPU, idleGL, floodGL, bCPU, floodFor time.Duration
		for r := range hostFloodRounds {
			n := keys / hostFloodRounds
			if r < keys%hostFloodRounds {
				n++
			}
			gl := glCPU(w.pid())
			idle = append(idle, echoKeys(b, c, t, n)...)
			idleGL += glCPU(w.pid()) - gl
			idleCPU += t.echoCPU
			t.echoCPU = 0
			flooder.mustCLI(nil, "send", fID, "while :; do seq 1 5000; done", "--submit")
			time.Sleep(time.Second)
			bProcs := hostProcs(b, flooder.sock)
			b0, t0 := treeCPU(bProcs), time.Now()
			gl = glCPU(w.pid())
			flood = append(flood, echoKeys(b, c, t, n)...)
			floodGL += glCPU(w.pid()) - gl
			bCPU += treeCPU(bProcs) - b0
			floodFor += time.Since(t0)
			floodCPU += t.echoCPU
			t.echoCPU = 0
			flooder.mustCLI(nil, "key", fID, "ctrl-c")
			time.Sleep(time.Second) // its output drains
		}
		bShare := float64(bCPU) / float64(floodFor)

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
		where := "host B on CPUs of its own"
		if !split {
			where = "host B sharing the window's CPUs"
		}
		fmt.Printf("\nHostFloodEcho (%d keys into host A's pane, host B idle, then printing without pause, in %d rounds; both over one loopback sshd, %s; target median ratio ≤ %.1f)\n",
			keys, hostFloodRounds, where, targetHostFloodRatio)
		// The window's CPU while the keys were typed says whether host B's
		// output reached it (its screen stream's frames).
		fmt.Printf("  %-18s %10s %10s %16s %10s\n", "host B", "median-ms", "p99-ms", "window-cpu-ms", "of it GL")
		fmt.Printf("  %-18s %10.1f %10.1f %16.0f %10.0f\n", "idle", ms(si.Median), ms(si.P99), ms(idleCPU), ms(idleGL))
		fmt.Printf("  %-18s %10.1f %10.1f %16.0f %10.0f\n", "flooding", ms(sf.Median), ms(sf.P99), ms(floodCPU), ms(floodGL))
		fmt.Printf("  ratio %.2f; host B's processes used %.2f CPUs while it flooded\n", ratio, bShare)
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
