package autostart

import (
	"context"
	"encoding/xml"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestSystemdUnit: ExecStart quotes each argument (spaces, quotes,
// backslashes) and doubles % and $ so systemd expands nothing; the unit
// starts at login (default.target) and restarts the server when it fails.
func TestSystemdUnit(t *testing.T) {
	b, err := SystemdUnit([]string{"/opt/pane flow/paneflow", "serve", "--socket", `/run/a"b\c%h$HOME`})
	if err != nil {
		t.Fatal(err)
	}
	unit := string(b)
	for _, want := range []string{
		"# " + Marker,
		"\n[Service]\nType=simple\n",
		`ExecStart="/opt/pane flow/paneflow" "serve" "--socket" "/run/a\"b\\c%%h$$HOME"` + "\n",
		"\nRestart=on-failure\n",
		"\n[Install]\nWantedBy=default.target\n",
	} {
		if !strings.Contains(unit, want) {
			t.Errorf("the unit lacks %q:\n%s", want, unit)
		}
	}
	if _, err := SystemdUnit([]string{"/bin/paneflow", "a\nExecStartPre=/bin/evil"}); err == nil {
		t.Error("an argument with a newline was accepted")
	}
}

// TestLaunchdPlist: the plist is well-formed XML whose ProgramArguments
// are argv exactly (markup characters escaped), with the label, the log
// and KeepAlive only after a failure.
func TestLaunchdPlist(t *testing.T) {
	argv := []string{"/Applications/Pane <&> flow.app/paneflow", "serve"}
	b := LaunchdPlist(argv, "/Users/u/Library/Logs/Paneflow/server.log")
	if !strings.Contains(string(b), Marker) {
		t.Errorf("no marker:\n%s", b)
	}
	var doc struct {
		Dict struct {
			Inner []byte `xml:",innerxml"`
		} `xml:"dict"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("not well-formed: %v\n%s", err, b)
	}
	// The dict as key → the raw element after it.
	d := xml.NewDecoder(strings.NewReader("<d>" + string(doc.Dict.Inner) + "</d>"))
	vals := map[string][]string{}
	key, depth := "", 0
	var inArray bool
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case xml.StartElement:
			depth++
			switch v.Name.Local {
			case "key":
				var k string
				d.DecodeElement(&k, &v)
				depth--
				if depth == 1 {
					key = k
				}
			case "string":
				var s string
				d.DecodeElement(&s, &v)
				depth--
				if depth == 1 || inArray {
					vals[key] = append(vals[key], s)
				}
			case "array":
				inArray = true
			default:
				if depth == 2 {
					vals[key] = append(vals[key], v.Name.Local)
				}
			}
		case xml.EndElement:
			depth--
			if v.Name.Local == "array" {
				inArray = false
			}
		}
	}
	for k, want := range map[string]string{
		"Label":             LaunchdLabel,
		"ProgramArguments":  strings.Join(argv, "|"),
		"RunAtLoad":         "true",
		"KeepAlive":         "dict",
		"StandardErrorPath": "/Users/u/Library/Logs/Paneflow/server.log",
	} {
		if got := strings.Join(vals[k], "|"); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
}

// TestFor: the file's place on each system; relative paths and other
// systems are errors.
func TestFor(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		path string
	}{
		{Options{Exe: "/bin/pf", Home: "/home/u", GOOS: "linux"}, "/home/u/.config/systemd/user/paneflow.service"},
		{Options{Exe: "/bin/pf", Home: "/home/u", ConfigHome: "/cfg", GOOS: "linux"}, "/cfg/systemd/user/paneflow.service"},
		{Options{Exe: "/bin/pf", Home: "/Users/u", GOOS: "darwin"}, "/Users/u/Library/LaunchAgents/dev.paneflow.server.plist"},
	} {
		s, err := For(tc.o)
		if err != nil || s.Path != tc.path {
			t.Errorf("For(%+v) = %q, %v; want %q", tc.o, s.Path, err, tc.path)
		}
	}
	if s, err := For(Options{Exe: `C:\Program Files\Paneflow\paneflow-gui.exe`, Home: `C:\Users\u`, GOOS: "windows", User: "S-1-5-21-1-2-3-1001"}); err != nil || s.Task != "Paneflow server S-1-5-21-1-2-3-1001" || s.Path != "" {
		t.Errorf("windows: task %q, path %q, %v", s.Task, s.Path, err)
	}
	for _, o := range []Options{
		{Exe: `C:\pf.exe`, Home: `C:\Users\u`, GOOS: "windows"},
		{Exe: `C:\pf.exe`, Home: `C:\Users\u`, GOOS: "windows", User: `DOMAIN\u`},
		{Exe: `pf.exe`, Home: `C:\Users\u`, GOOS: "windows", User: "S-1-5-21-1"},
		{Exe: "/bin/pf", Home: "/h", GOOS: "plan9"},
	} {
		if _, err := For(o); err == nil {
			t.Errorf("For(%+v) was accepted", o)
		}
	}
	if _, err := For(Options{Exe: "/bin/pf", Home: "/h", GOOS: "plan9"}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("plan9: %v, want ErrUnsupported", err)
	}
	if _, err := For(Options{Exe: "pf", Home: "/h", GOOS: "linux"}); err == nil {
		t.Error("a relative program path was accepted")
	}
}

// TestInstallNeverClobbers: a file of the user's own at the path is
// neither replaced nor removed; ours is written, rewritten only when it
// changes, and removed.
func TestInstallNeverClobbers(t *testing.T) {
	home := t.TempDir()
	ctx := context.Background()
	r := &fakeRunner{}
	s, err := For(Options{Exe: "/usr/bin/paneflow", Home: home, GOOS: "linux", Run: r.run})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Installed(ctx); ok || err != nil {
		t.Errorf("before install: installed %v, %v", ok, err)
	}
	if removed, err := s.Uninstall(ctx); removed || err != nil {
		t.Errorf("uninstall with nothing there: %v, %v", removed, err)
	}
	if changed, err := s.Install(ctx); !changed || err != nil {
		t.Fatalf("install: %v, %v", changed, err)
	}
	if b, _ := os.ReadFile(s.Path); string(b) != string(s.Content) {
		t.Errorf("installed file:\n%s\nwant:\n%s", b, s.Content)
	}
	if changed, err := s.Install(ctx); changed || err != nil {
		t.Errorf("install again: changed %v, %v; want unchanged", changed, err)
	}
	s2, _ := For(Options{Exe: "/opt/paneflow/paneflow", Home: home, GOOS: "linux", Run: r.run})
	if changed, err := s2.Install(ctx); !changed || err != nil {
		t.Errorf("install of a moved binary: changed %v, %v", changed, err)
	}
	if removed, err := s2.Uninstall(ctx); !removed || err != nil {
		t.Errorf("uninstall: %v, %v", removed, err)
	}

	own := "[Service]\nExecStart=/home/u/my-own-paneflow serve\n"
	if err := os.WriteFile(s.Path, []byte(own), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Install(ctx); !errors.Is(err, ErrNotOurs) {
		t.Errorf("install over the user's file: %v, want ErrNotOurs", err)
	}
	if _, err := s.Uninstall(ctx); !errors.Is(err, ErrNotOurs) {
		t.Errorf("uninstall of the user's file: %v, want ErrNotOurs", err)
	}
	if b, _ := os.ReadFile(s.Path); string(b) != own {
		t.Errorf("the user's file changed:\n%s", b)
	}
	if entries, _ := os.ReadDir(filepath.Dir(s.Path)); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

// TestSystemdVerify: systemd's own checker accepts the unit (on Linux,
// where systemd-analyze is installed).
func TestSystemdVerify(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("systemd units are checked on Linux only")
	}
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed: the unit's syntax is not checked by systemd here")
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "pane flow", "paneflow")
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := For(Options{Exe: exe, Socket: filepath.Join(dir, "a%z$c.sock"), Home: dir, GOOS: "linux"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Install(context.Background()); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "--user", "verify", s.Path).CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("systemd-analyze --user verify: %v\n%s\n%s", err, out, s.Content)
	}
}
