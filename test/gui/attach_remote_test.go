//go:build linux

package gui

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/test/internal/proctest"
	"github.com/paneflow-go/paneflow/test/internal/sshdtest"
)

// TestAttachedWindowRemote (issue 30): `paneflow-gui --attach --host
// ssh://…` attaches the window to a server reached only over a real sshd
// on loopback (the window has no socket of its own to that server): typed
// keys reach the server's pane, whose program keeps its state when the
// window closes.
func TestAttachedWindowRemote(t *testing.T) {
	x := display(t)
	srv, sshd, _ := remoteHost(t)
	url := sshd.URL(0)
	w := launchOn(t, x, guiBin, []string{"--attach", "--host"}, []string{"PANEFLOW_SSH=" + sshd.SSHCommand()}, url)
	if _, err := w.waitLine(regexp.MustCompile(`^paneflow: window ready socket=`+regexp.QuoteMeta(url)+`$`), 0, appStartTimeout); err != nil {
		t.Fatalf("the window did not attach to %s: %v\nstderr:\n%s", url, err, proctest.Indent(w.log.String()))
	}
	w.waitWindow()
	w.xdo("windowfocus", "--sync", w.win)
	w.xdo("type", "--delay", "30", "remote")
	srv.eventually("the pane to echo what the window typed", func() (bool, string) {
		raw := srv.readRaw("1")
		return strings.Contains(raw, "remote"), raw
	})
	w.xdo("key", "Return")
	srv.waitOutput("1", "got 1:remote")
	if err := w.terminate(); err != nil {
		t.Fatal(err)
	}
	if raw := srv.readRaw("1"); !strings.Contains(raw, "got 1:remote") {
		t.Fatalf("after the window closed the pane shows:\n%s", raw)
	}
}

// remoteHost starts a "remote host": `paneflow serve` whose pane 1 runs a
// read loop that counts the lines it reads ("got N:line"), and a real sshd
// on loopback whose port logs in to it (paneflow on PATH, the server's
// socket). dir is the sshd's private directory.
func remoteHost(t testing.TB) (srv *app, sshd *sshdtest.Server, dir string) {
	t.Helper()
	srv = startServe(t, "100x30")
	srv.mustCLI(nil, "send", "1", `i=0; while read l; do i=$((i+1)); echo "got $i:$l"; done`, "--submit")
	dir = tempDir(t)
	sshd = sshdtest.Start(t, sshdtest.Config{Dir: dir, Ports: []sshdtest.Port{{Env: []string{
		"PATH=" + filepath.Dir(cliBin) + ":/usr/bin:/bin", "HOME=" + dir, "LANG=C.UTF-8", "PANEFLOW_SOCKET_PATH=" + srv.sock,
	}}}})
	return srv, sshd, dir
}
