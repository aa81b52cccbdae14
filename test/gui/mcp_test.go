//go:build linux

package gui

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestMCPInstallAction drives the MCP view with the keyboard: its
// keystroke opens it and reads the agents' status; Down and Enter run
// `paneflow mcp install --orchestrate`, which writes Claude Code's entry;
// the last row removes it again, giving the file its bytes back.
func TestMCPInstallAction(t *testing.T) {
	x := display(t)
	bridge := filepath.Join(tempDir(t), "paneflow-mcp")
	if out, err := exec.Command("go", "build", "-o", bridge, "github.com/paneflow-go/paneflow/cmd/paneflow-mcp").CombinedOutput(); err != nil {
		t.Fatalf("building paneflow-mcp: %v\n%s", err, out)
	}
	a := startApp(t, x, "PANEFLOW_MCP_BIN="+bridge)
	claude := filepath.Join(a.dir, ".claude.json")
	orig := "{\n  \"numStartups\": 1\n}\n"
	if err := os.WriteFile(claude, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	wait := func(re string) string {
		t.Helper()
		l, err := a.waitLine(regexp.MustCompile(re), 0, pollTimeout)
		if err != nil {
			t.Fatalf("the app did not log /%s/: %v\n%s", re, err, a.log.String())
		}
		return l.text
	}
	a.xdo("windowfocus", "--sync", a.win)
	a.xdo("key", "ctrl+shift+m")
	wait(`^paneflow: mcp status \(exit 0\)`)
	if log := a.log.String(); !strings.Contains(log, "Claude Code") || !strings.Contains(log, "detected but not installed") {
		t.Errorf("the view's status:\n%s", log)
	}
	a.xdo("key", "Down")
	a.xdo("key", "Return")
	wait(`^paneflow: mcp install --orchestrate \(exit 0\)`)
	data, _ := os.ReadFile(claude)
	installed := filepath.Join(a.dir, "data", "paneflow", "bin", "paneflow-mcp")
	if !strings.Contains(string(data), `"command": "`+installed+`"`) || !strings.Contains(string(data), `"--orchestrate"`) {
		t.Errorf("~/.claude.json after install --orchestrate from the view:\n%s", data)
	}
	a.xdo("key", "Down")
	a.xdo("key", "Return")
	wait(`^paneflow: mcp uninstall \(exit 0\)`)
	if data, _ := os.ReadFile(claude); string(data) != orig {
		t.Errorf("~/.claude.json after uninstall from the view:\n%s\nwant:\n%s", data, orig)
	}
	a.xdo("key", "Escape")
}
