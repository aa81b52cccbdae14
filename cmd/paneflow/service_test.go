//go:build !client

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
	"github.com/paneflow-go/paneflow/proto"
)

// TestServiceVerb: `paneflow service install` writes the systemd user
// unit that runs this program's serve, enables it and starts it now (no
// server answers); status and uninstall follow it (uninstall disables
// before it removes); a user's own unit is refused with exit 1 and kept;
// bad arguments are usage errors.
func TestServiceVerb(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": "relative/ignored"}
	var ran []string
	call := func(args ...string) (string, error) {
		var out bytes.Buffer
		inv := &invocation{stdout: &out, stderr: &out, getenv: func(k string) string { return env[k] }, goos: "linux",
			runProgram: func(_ context.Context, name string, args ...string) ([]byte, error) {
				ran = append(ran, name+" "+strings.Join(args, " "))
				if args[1] == "is-enabled" {
					return []byte("enabled\n"), nil
				}
				return nil, nil
			}}
		err := dispatch(context.Background(), inv, append([]string{"service"}, args...))
		return out.String(), err
	}
	sock := ipctest.NewPath(t)
	unit := filepath.Join(home, ".config", "systemd", "user", "paneflow.service")
	out, err := call("install", "--socket", sock)
	if err != nil || !strings.Contains(out, "installed "+unit) || !strings.Contains(out, "was started now") {
		t.Fatalf("install: %v\n%s", err, out)
	}
	if want := "[systemctl --user daemon-reload systemctl --user enable paneflow.service systemctl --user start paneflow.service]"; fmt.Sprint(ran) != want {
		t.Errorf("install ran %q, want %s", ran, want)
	}
	exe, _ := os.Executable()
	if b, _ := os.ReadFile(unit); !strings.Contains(string(b), `ExecStart="`+exe+`" "serve" "--socket" "`+sock+`"`) {
		t.Errorf("the unit does not run this program's serve:\n%s", b)
	}
	if out, err := call("status"); err != nil || !strings.HasPrefix(out, "installed: "+unit+"\nstate: enabled\n") || !strings.Contains(out, "no server answers") {
		t.Errorf("status: %v\n%s", err, out)
	}
	ran = nil
	if out, err := call("uninstall"); err != nil || out != "removed "+unit+"\n" {
		t.Errorf("uninstall: %v\n%s", err, out)
	}
	if want := "[systemctl --user disable paneflow.service systemctl --user daemon-reload]"; fmt.Sprint(ran) != want {
		t.Errorf("uninstall ran %q, want %s", ran, want)
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
	for _, bad := range [][]string{{}, {"start"}, {"install", "extra"}, {"status", "--sock", "/x"}} {
		if _, err := call(bad...); exitCode(err) != exitUsage {
			t.Errorf("service %q: %v, want a usage error", bad, err)
		}
	}
}

// TestServiceInstallBesideServer: with a server already answering on the
// socket, install enables the unit for the next login but does not start
// a second server (it would find the socket taken), and says so; a
// failing systemctl is exit 1 quoting it.
func TestServiceInstallBesideServer(t *testing.T) {
	reg := ipc.NewRegistry()
	reg.Register(proto.MethodSystemPing, func(context.Context, json.RawMessage) (any, error) { return proto.SystemPingResult{}, nil })
	srv := ipctest.Start(t, reg)
	home := t.TempDir()
	var ran []string
	fail := false
	call := func(args ...string) (string, error) {
		var out bytes.Buffer
		inv := &invocation{stdout: &out, stderr: &out, getenv: func(k string) string { return map[string]string{"HOME": home}[k] }, goos: "linux",
			runProgram: func(_ context.Context, name string, args ...string) ([]byte, error) {
				ran = append(ran, name+" "+strings.Join(args, " "))
				if fail {
					return []byte("Failed to connect to bus: No medium found"), errors.New("exit status 1")
				}
				return nil, nil
			}}
		err := dispatch(context.Background(), inv, append([]string{"service"}, args...))
		return out.String(), err
	}
	out, err := call("install", "--socket", srv.Path)
	if err != nil || !strings.Contains(out, "a server already answers on "+srv.Path) {
		t.Fatalf("install: %v\n%s", err, out)
	}
	if want := "[systemctl --user daemon-reload systemctl --user enable paneflow.service]"; fmt.Sprint(ran) != want {
		t.Errorf("install beside a server ran %q, want %s", ran, want)
	}
	if out, err := call("status", "--socket", srv.Path); err != nil || !strings.Contains(out, "a server answers on "+srv.Path) {
		t.Errorf("status --socket: %v\n%s", err, out)
	}
	fail = true
	_, err = call("install", "--socket", srv.Path)
	if err == nil || exitCode(err) != exitFailure || !strings.Contains(err.Error(), "systemctl --user daemon-reload: exit status 1: Failed to connect to bus") {
		t.Errorf("a failing systemctl: %v (exit %d)", err, exitCode(err))
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
