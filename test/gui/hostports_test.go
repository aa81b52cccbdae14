//go:build linux

package gui

import (
	"fmt"
	"image"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/test/internal/proctest"
)

// envHTTPFile makes this test binary (TestMain) a remote pane's program:
// an HTTP server on an ephemeral port of 127.0.0.1 answering "served
// PATH", which writes its port to the file the variable names.
const envHTTPFile = "PANEFLOW_GUI_TEST_HTTP"

func serveHTTP(file string) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return 1
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	if os.WriteFile(file+".tmp", []byte(port), 0o600) != nil || os.Rename(file+".tmp", file) != nil {
		return 1
	}
	fmt.Println("serving on", port)
	http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "served %s", r.URL.Path)
	}))
	return 1
}

// TestHostPortChip (issue 30): an HTTP server in a pane of another host
// (behind a real sshd on loopback) shows as a port chip in the window's
// sidebar; a click on it forwards the port over the window's ssh and
// opens the browser (here a script that notes the URL) on this machine's
// 127.0.0.1 at another port, where the remote server answers.
func TestHostPortChip(t *testing.T) {
	x := display(t)
	srv, sshd, dir := remoteHost(t)
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o700); err != nil {
		t.Fatal(err)
	}
	opened := filepath.Join(dir, "opened")
	if err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte("#!/bin/sh\nprintf '%s\\n' \"$1\" >> "+opened+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	portFile := filepath.Join(dir, "http.port")
	var split struct {
		ID uint64 `json:"surface_id"`
	}
	srv.mustCLI(&split, "split", "h", "--target", "1", "--name", "web", "--command", envHTTPFile+"="+portFile+" exec "+self)
	var port string
	srv.eventually("the remote pane's HTTP server", func() (bool, string) {
		b, err := os.ReadFile(portFile)
		port = string(b)
		return err == nil, fmt.Sprint(err)
	})

	w := startAppConfig(t, x, hostsConfig([]string{sshd.URL(0)}), "PANEFLOW_SSH="+sshd.SSHCommand(), "PANEFLOW_UI_PROBE=1",
		"PATH="+bin+":"+os.Getenv("PATH"))
	gid := uint64(1)<<48 | split.ID
	l, err := w.waitLine(regexp.MustCompile(fmt.Sprintf(`^ui-probe chip pane=%d port=%s x=\d+ y=\d+$`, gid, port)), 0, appStartTimeout)
	if err != nil {
		t.Fatalf("no chip :%s for the remote pane: %v\nstderr:\n%s", port, err, proctest.Indent(w.log.String()))
	}
	var cx, cy int
	if _, err := fmt.Sscanf(l.text[strings.LastIndex(l.text, " x="):], " x=%d y=%d", &cx, &cy); err != nil {
		t.Fatalf("%q: %v", l.text, err)
	}
	w.stable("host-chip", image.Rect(0, 0, sidebarPx, 800))
	w.click(cx, cy)

	var u string
	w.eventually("the browser opened on the forward", func() (bool, string) {
		b, _ := os.ReadFile(opened)
		u = strings.TrimSpace(string(b))
		return strings.HasPrefix(u, "http://127.0.0.1:"), u
	})
	if u == "http://127.0.0.1:"+port {
		t.Fatalf("the browser was sent to the remote port itself (%s), not a forward", u)
	}
	cl := &http.Client{Timeout: 30 * time.Second}
	for _, path := range []string{"/", "/app.js"} {
		resp, err := cl.Get(u + path)
		if err != nil {
			t.Fatalf("GET %s%s: %v\nstderr:\n%s", u, path, err, proctest.Indent(w.log.String()))
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != "served "+path {
			t.Fatalf("GET %s%s = %q, want the remote pane's answer", u, path, body)
		}
	}
	w.stable("host-chip-forwarded", image.Rect(0, 0, sidebarPx, 800))
	srv.mustCLI(nil, "close", strconv.FormatUint(split.ID, 10))
}
