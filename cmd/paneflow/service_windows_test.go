//go:build !client && windows

package main

import (
	"bytes"
	"context"
	encxml "encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/paneflow-go/paneflow/autostart"
)

// TestServiceVerbWindows: on Windows `service install` registers a logon
// task named for this user's SID (schtasks /Create /XML), working in
// %USERPROFILE%, and starts it when no server answers; the commands are
// faked, so the machine's tasks are untouched.
func TestServiceVerbWindows(t *testing.T) {
	sid, err := serviceUser()
	if err != nil || !strings.HasPrefix(sid, "S-1-") {
		t.Fatalf("serviceUser = %q, %v", sid, err)
	}
	var ran []string
	var out bytes.Buffer
	profile := t.TempDir()
	inv := &invocation{stdout: &out, stderr: &out, getenv: func(k string) string {
		return map[string]string{"USERPROFILE": profile, "LOCALAPPDATA": filepath.Join(profile, "AppData", "Local")}[k]
	}, goos: "windows",
		runProgram: func(_ context.Context, name string, args ...string) ([]byte, error) {
			ran = append(ran, name+" "+strings.Join(args, " "))
			if args[0] == "/Query" {
				return []byte("ERROR: The system cannot find the file specified."), errTestNoTask
			}
			if args[0] == "/Create" {
				b, err := os.ReadFile(args[4])
				if err != nil || len(b) < 2 {
					t.Fatalf("the task's XML: %v", err)
				}
				u := make([]uint16, (len(b)-2)/2)
				for i := range u {
					u[i] = uint16(b[2+2*i]) | uint16(b[3+2*i])<<8
				}
				xml := string(utf16.Decode(u))
				logPath := filepath.Join(profile, "AppData", "Local", "paneflow", "server.log")
				var want strings.Builder
				encxml.EscapeText(&want, []byte(`serve --socket \\.\pipe\paneflow-test-none --log `+autostart.WindowsArg(logPath)))
				if !strings.Contains(xml, "<Arguments>"+want.String()+"</Arguments>") {
					t.Errorf("the task's XML:\n%s", xml)
				}
			}
			return nil, nil
		}}
	if err := dispatch(context.Background(), inv, []string{"service", "install", "--socket", `\\.\pipe\paneflow-test-none`}); err != nil {
		t.Fatalf("install: %v\n%s", err, out.String())
	}
	task := "Paneflow server " + sid
	if len(ran) != 3 || !strings.HasPrefix(ran[1], "schtasks /Create /TN "+task+" /XML ") || ran[2] != "schtasks /Run /TN "+task {
		t.Errorf("ran %q", ran)
	}
	if !strings.Contains(out.String(), `installed the task "`+task+`"`) {
		t.Errorf("output:\n%s", out.String())
	}
}

// errTestNoTask is what the fake schtasks /Query fails with.
var errTestNoTask = errors.New("exit status 1")
