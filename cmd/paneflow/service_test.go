//go:build !client

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServiceVerb: `paneflow service install` writes the systemd user
// unit that runs this program's serve and prints how to start it; status
// and uninstall follow it; a user's own unit is refused with exit 1 and
// kept; bad arguments are usage errors.
func TestServiceVerb(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": "relative/ignored"}
	call := func(args ...string) (string, error) {
		var out bytes.Buffer
		inv := &invocation{stdout: &out, stderr: &out, getenv: func(k string) string { return env[k] }, goos: "linux"}
		err := dispatch(context.Background(), inv, append([]string{"service"}, args...))
		return out.String(), err
	}
	unit := filepath.Join(home, ".config", "systemd", "user", "paneflow.service")
	out, err := call("install", "--socket", "/run/pf.sock")
	if err != nil || !strings.Contains(out, "installed "+unit) || !strings.Contains(out, "systemctl --user enable --now paneflow.service") {
		t.Fatalf("install: %v\n%s", err, out)
	}
	exe, _ := os.Executable()
	if b, _ := os.ReadFile(unit); !strings.Contains(string(b), `ExecStart="`+exe+`" "serve" "--socket" "/run/pf.sock"`) {
		t.Errorf("the unit does not run this program's serve:\n%s", b)
	}
	if out, err := call("status"); err != nil || !strings.HasPrefix(out, "installed: "+unit) {
		t.Errorf("status: %v\n%s", err, out)
	}
	if out, err := call("uninstall"); err != nil || out != "removed "+unit+"\n" {
		t.Errorf("uninstall: %v\n%s", err, out)
	}
	if err := os.WriteFile(unit, []byte("[Service]\nExecStart=/mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := call("install"); err == nil || !strings.Contains(err.Error(), "not written by Paneflow") || exitCode(err) != exitFailure {
		t.Errorf("install over the user's unit: %v (exit %d), want exit 1 naming it", err, exitCode(err))
	}
	if b, _ := os.ReadFile(unit); string(b) != "[Service]\nExecStart=/mine\n" {
		t.Errorf("the user's unit changed:\n%s", b)
	}
	for _, bad := range [][]string{{}, {"start"}, {"install", "extra"}, {"status", "--socket", "/x"}} {
		if _, err := call(bad...); exitCode(err) != exitUsage {
			t.Errorf("service %q: %v, want a usage error", bad, err)
		}
	}
}

// exitCode is the code run would exit with for err.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	if ee, ok := err.(*exitError); ok {
		return ee.Code
	}
	return exitFailure
}
