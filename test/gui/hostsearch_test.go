//go:build linux

package gui

import (
	"image"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/paneflow-go/paneflow/test/internal/proctest"
	"github.com/paneflow-go/paneflow/test/internal/sshdtest"
)

// TestHostSearch (issue 34): the search view of the window binary under
// Xvfb finds a line only an earlier full-screen screen of a pane on
// another host held (a real sshd on loopback in front of that host's
// server), and Enter opens the replay of that screen read from the host,
// the match highlighted.
func TestHostSearch(t *testing.T) {
	x := display(t)
	srv := startServe(t, "100x30")
	dir := tempDir(t)
	id := strconv.FormatUint(srv.ls().Surfaces[0].ID, 10)
	srv.waitOutput(id, promptRe)
	srv.mustCLI(nil, "send", id, `printf '\033[?1049h\033[HNEE%sHIST on screen one\n' DLE; read a; printf '\033[2J\033[Hscreen two\n'; read b; printf '\033[?1049lleft-full-screen\n'`, "--submit")
	srv.waitScreens(id, 1)
	srv.mustCLI(nil, "send", id, "", "--submit")
	srv.waitScreens(id, 2)
	srv.mustCLI(nil, "send", id, "", "--submit")
	srv.waitOutput(id, "left-full-screen")
	sshd := sshdtest.Start(t, sshdtest.Config{Dir: dir, Ports: []sshdtest.Port{{Env: []string{
		"PATH=" + filepath.Dir(cliBin) + ":/usr/bin:/bin", "HOME=" + dir, "LANG=C.UTF-8", "PANEFLOW_SOCKET_PATH=" + srv.sock,
	}}}})

	w := startAppConfig(t, x, hostsConfig([]string{sshd.URL(0)}), "PANEFLOW_SSH="+sshd.SSHCommand(), "PANEFLOW_UI_PROBE=1")
	host := regexp.QuoteMeta(sshd.URL(0))
	if _, err := w.waitLine(regexp.MustCompile(`^ui-probe sidebar hosts=\[`+host+`=connected\] cards=\[[^@]+@0/1 [^@]+@1/1\]`), 0, appStartTimeout); err != nil {
		t.Fatalf("the host's workspace never showed: %v\n%s", err, proctest.Indent(w.log.String()))
	}
	g := w.geometry()
	full := image.Rect(0, 0, g.W, g.H)
	w.xdo("windowfocus", "--sync", w.win)
	w.replaySearch(w.stable("before", full), "NEEDLEHIST")
	w.xdo("key", "Escape")
}
