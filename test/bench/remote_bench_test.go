//go:build linux

package bench

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/test/internal/sshdtest"
)

// remoteLsSamples is how many `ls` of each kind BenchmarkRemoteLs times.
const remoteLsSamples = 40

// BenchmarkRemoteLs (issue 30's target): `paneflow --host … ls` once the
// host's link holds its ssh, against `paneflow ls` on the host itself,
// interleaved, a process start each; the "host" is this machine through a
// real sshd on loopback (test/internal/sshdtest) whose sessions reach the
// same `paneflow serve`, so the difference is the transport alone.
// Metrics: local-ls-ms, remote-ls-ms (medians), rtt-ms (a TCP connect to
// sshd: one round trip), remote-budget-ms (remote − (local + rtt + 5 ms):
// the target is ≤ 0), first-ls-ms (the call that starts the link: ssh's
// handshake) and cm-ls-ms (no link, PANEFLOW_HOST_PERSIST=0: one ssh per
// call over an ssh ControlMaster connection, as a user's config might
// have). The same again through a proxy that delays each direction by
// 25 ms (a 50 ms round trip; sshdtest.Delayed): delay-remote-ls-ms,
// delay-budget-ms (remote − (local + 50 + 5 ms), target ≤ 0) and
// delay-cm-ls-ms. Paneflow only.
func BenchmarkRemoteLs(b *testing.B) {
	pf := startPaneflow(b)
	dir, err := os.MkdirTemp("", "pfrb-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		b.Fatal(err)
	}
	sshd := sshdtest.Start(b, sshdtest.Config{Dir: dir, ControlMaster: true, Ports: []sshdtest.Port{{Env: []string{
		"PATH=" + filepath.Dir(pf.bin) + ":/usr/bin:/bin", "HOME=" + home, "LANG=C.UTF-8", "PANEFLOW_SOCKET_PATH=" + pf.sock,
	}}}})
	const oneWay = 25 * time.Millisecond
	delayed := sshd.Delayed(b, 0, oneWay)
	remote := append(append([]string(nil), pf.env...), "PANEFLOW_SSH="+sshd.SSHCommand(), "PANEFLOW_HOST="+sshd.URL(0))
	remoteDelayed := append(append([]string(nil), pf.env...), "PANEFLOW_SSH="+sshd.SSHCommand(), "PANEFLOW_HOST="+delayed)
	ls := func(env []string) (float64, error) {
		cmd := pf.cli("ls")
		cmd.Env = env
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			return 0, fmt.Errorf("paneflow ls: %v\n%s", err, out)
		}
		return ms(time.Since(start)), nil
	}
	b.Cleanup(func() {
		for _, env := range [][]string{remote, remoteDelayed} {
			cmd := pf.cli("host", "close")
			cmd.Env = env
			cmd.Run()
		}
	})
	for range b.N {
		first, err := ls(remote)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ls(remoteDelayed); err != nil {
			b.Fatal(err)
		}
		var local, rem, rtt, cm, drem, dcm []float64
		noLink := append(append([]string(nil), remote...), "PANEFLOW_HOST_PERSIST=0")
		noLinkDelayed := append(append([]string(nil), remoteDelayed...), "PANEFLOW_HOST_PERSIST=0")
		for range remoteLsSamples {
			for _, s := range []struct {
				env []string
				out *[]float64
			}{{pf.env, &local}, {remote, &rem}, {noLink, &cm}, {remoteDelayed, &drem}, {noLinkDelayed, &dcm}} {
				d, err := ls(s.env)
				if err != nil {
					b.Fatal(err)
				}
				*s.out = append(*s.out, d)
			}
			start := time.Now()
			c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", sshd.Ports[0]))
			if err != nil {
				b.Fatal(err)
			}
			rtt = append(rtt, ms(time.Since(start)))
			c.Close()
		}
		l, r, t := percentile(local, 50), percentile(rem, 50), percentile(rtt, 50)
		b.ReportMetric(l, "local-ls-ms")
		b.ReportMetric(r, "remote-ls-ms")
		b.ReportMetric(t, "rtt-ms")
		b.ReportMetric(r-(l+t+5), "remote-budget-ms")
		b.ReportMetric(first, "first-ls-ms")
		b.ReportMetric(percentile(cm, 50), "cm-ls-ms")
		d := percentile(drem, 50)
		b.ReportMetric(d, "delay-remote-ls-ms")
		b.ReportMetric(d-(l+ms(2*oneWay)+5), "delay-budget-ms")
		b.ReportMetric(percentile(dcm, 50), "delay-cm-ls-ms")
	}
}
