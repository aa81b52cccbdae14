package autostart

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf16"
)

// fakeRunner records the commands a Service runs and answers them from
// answer (nil: success with no output).
type fakeRunner struct {
	mu     sync.Mutex
	ran    []string
	answer func(argv []string) ([]byte, error)
}

func (f *fakeRunner) run(_ context.Context, name string, args ...string) ([]byte, error) {
	argv := append([]string{name}, args...)
	f.mu.Lock()
	f.ran = append(f.ran, strings.Join(argv, "|"))
	answer := f.answer
	f.mu.Unlock()
	if answer == nil {
		return nil, nil
	}
	return answer(argv)
}

// take returns the commands run since the last take.
func (f *fakeRunner) take() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.ran
	f.ran = nil
	return out
}

// splitWindows splits a command line as the Microsoft C runtime (since
// 2008) and Go's os.Args on Windows do: white space outside quotes
// separates; 2n backslashes before a quote are n backslashes and the quote
// opens or closes; 2n+1 are n and a literal quote; "" inside quotes is a
// literal quote; other backslashes are literal.
func splitWindows(cmd string) []string {
	var args []string
	var cur strings.Builder
	inQ, have := false, false
	for i := 0; i < len(cmd); {
		switch c := cmd[i]; {
		case c == '\\':
			n := 0
			for i < len(cmd) && cmd[i] == '\\' {
				n++
				i++
			}
			if i < len(cmd) && cmd[i] == '"' {
				cur.WriteString(strings.Repeat(`\`, n/2))
				if n%2 == 1 {
					cur.WriteByte('"')
					i++
				}
			} else {
				cur.WriteString(strings.Repeat(`\`, n))
			}
			have = true
		case c == '"':
			if inQ && i+1 < len(cmd) && cmd[i+1] == '"' {
				cur.WriteByte('"')
				i += 2
				continue
			}
			inQ, have = !inQ, true
			i++
		case (c == ' ' || c == '\t') && !inQ:
			if have {
				args = append(args, cur.String())
				cur.Reset()
				have = false
			}
			i++
		default:
			cur.WriteByte(c)
			have = true
			i++
		}
	}
	if have {
		args = append(args, cur.String())
	}
	return args
}

// windowsArgCases are arguments whose quoting is easy to get wrong.
var windowsArgCases = []string{
	"serve", "", `C:\Program Files\Paneflow\paneflow-gui.exe`, `C:\Users\a b\`, `C:\dir\`,
	`a"b`, `a\"b`, `a\\"b`, `"`, `\`, `\\server\share\x y\\`, "tab\there", `back\slash`,
	`\\.\pipe\paneflow-S-1-5-21 x`, `ends with quote"`, `ünïcode päth\`,
}

// TestWindowsArg: a command line of quoted arguments splits back into
// the same arguments by the Windows C runtime's rules, and plain ones are
// not quoted.
func TestWindowsArg(t *testing.T) {
	q := make([]string, len(windowsArgCases))
	for i, a := range windowsArgCases {
		q[i] = WindowsArg(a)
	}
	line := strings.Join(q, " ")
	if got := splitWindows(line); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", windowsArgCases) {
		t.Errorf("%s\nsplits into %q\nwant %q", line, got, windowsArgCases)
	}
	for a, want := range map[string]string{"serve": "serve", `C:\x\y`: `C:\x\y`, "": `""`, `C:\a b\`: `"C:\a b\\"`, `a"b`: `"a\"b"`} {
		if got := WindowsArg(a); got != want {
			t.Errorf("WindowsArg(%q) = %s, want %s", a, got, want)
		}
	}
}

// task is the part of a Task Scheduler definition the tests check.
type task struct {
	XMLName      xml.Name `xml:"Task"`
	Description  string   `xml:"RegistrationInfo>Description"`
	TriggerUser  string   `xml:"Triggers>LogonTrigger>UserId"`
	TriggerOn    string   `xml:"Triggers>LogonTrigger>Enabled"`
	Principal    string   `xml:"Principals>Principal>UserId"`
	LogonType    string   `xml:"Principals>Principal>LogonType"`
	RunLevel     string   `xml:"Principals>Principal>RunLevel"`
	Multiple     string   `xml:"Settings>MultipleInstancesPolicy"`
	NoBattery    string   `xml:"Settings>DisallowStartIfOnBatteries"`
	StopBattery  string   `xml:"Settings>StopIfGoingOnBatteries"`
	TimeLimit    string   `xml:"Settings>ExecutionTimeLimit"`
	Priority     string   `xml:"Settings>Priority"`
	Command      string   `xml:"Actions>Exec>Command"`
	Arguments    string   `xml:"Actions>Exec>Arguments"`
	WorkingDir   string   `xml:"Actions>Exec>WorkingDirectory"`
	RestartCount string   `xml:"Settings>RestartOnFailure>Count"`
}

// parseTask reads a definition written for UTF-16 as the UTF-8 it is in
// memory (encoding/xml reads UTF-8 only).
func parseTask(t *testing.T, b []byte) task {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	var tk task
	if err := d.Decode(&tk); err != nil {
		t.Fatalf("the task XML is not well-formed: %v\n%s", err, b)
	}
	return tk
}

// TestTaskXML: the logon task names the user in its trigger and
// principal (what lets a user without administrator rights register it),
// runs argv exactly (markup escaped, arguments quoted), with no time
// limit, not stopped on battery, at normal priority; control characters
// and %NAME% are refused; the definition's hash follows argv.
func TestTaskXML(t *testing.T) {
	user := "S-1-5-21-1004336348-1177238915-682003330-1001"
	argv := []string{`C:\Program Files\Pane <&> flow\paneflow-gui.exe`, "serve", "--socket", `C:\Users\a b\pf "x".sock`}
	b, err := TaskXML(argv, user, `C:\Users\a b`)
	if err != nil {
		t.Fatal(err)
	}
	tk := parseTask(t, b)
	for _, c := range []struct{ name, got, want string }{
		{"trigger user", tk.TriggerUser, user},
		{"trigger enabled", tk.TriggerOn, "true"},
		{"principal", tk.Principal, user},
		{"logon type", tk.LogonType, "InteractiveToken"},
		{"run level", tk.RunLevel, "LeastPrivilege"},
		{"instances", tk.Multiple, "IgnoreNew"},
		{"start on battery", tk.NoBattery, "false"},
		{"stop on battery", tk.StopBattery, "false"},
		{"time limit", tk.TimeLimit, "PT0S"},
		{"priority", tk.Priority, "5"},
		{"restarts", tk.RestartCount, "3"},
		{"command", tk.Command, argv[0]},
		{"working directory", tk.WorkingDir, `C:\Users\a b`},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if got := splitWindows(tk.Arguments); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", argv[1:]) {
		t.Errorf("arguments %s split into %q, want %q", tk.Arguments, got, argv[1:])
	}
	if !strings.Contains(tk.Description, Marker) || taskHashIn(tk.Description) == "" {
		t.Errorf("the description has no marker or hash: %q", tk.Description)
	}
	again, _ := TaskXML(argv, user, `C:\Users\a b`)
	other, _ := TaskXML(append(argv[:2:2], "--socket", `C:\other.sock`), user, `C:\Users\a b`)
	if taskHashIn(string(again)) != taskHashIn(string(b)) || taskHashIn(string(other)) == taskHashIn(string(b)) {
		t.Errorf("hashes: same argv %q vs %q, other argv %q", taskHashIn(string(again)), taskHashIn(string(b)), taskHashIn(string(other)))
	}
	for _, bad := range [][]string{
		{`C:\pf.exe`, "serve", "a\r\nb"},
		{`C:\pf.exe`, "serve", "--socket", `%TEMP%\pf.sock`},
		{`C:\%USERNAME%\pf.exe`, "serve"},
	} {
		if _, err := TaskXML(bad, user, `C:\Users\u`); err == nil {
			t.Errorf("TaskXML(%q) was accepted", bad)
		}
	}
}

// decodeUTF16File is the inverse of utf16File, checking its byte-order
// mark.
func decodeUTF16File(t *testing.T, b []byte) string {
	t.Helper()
	if !bytes.HasPrefix(b, []byte{0xff, 0xfe}) || len(b)%2 != 0 {
		t.Fatalf("not UTF-16LE with a byte-order mark: % x", b[:min(len(b), 8)])
	}
	u := make([]uint16, (len(b)-2)/2)
	for i := range u {
		u[i] = uint16(b[2+2*i]) | uint16(b[3+2*i])<<8
	}
	return string(utf16.Decode(u))
}

// TestWindowsTask: install registers the task with `schtasks /Create /XML`
// from a UTF-16 file holding the definition, and does nothing when the
// task there has the same definition; a task of the same name that is
// not ours is neither replaced nor deleted; a failing schtasks is an
// error quoting the command and its message; Enable(true) runs the task
// and uninstall deletes it.
func TestWindowsTask(t *testing.T) {
	ctx := context.Background()
	const user = "S-1-5-21-1-2-3-1001"
	r := &fakeRunner{}
	logPath := `C:\Users\u\AppData\Local\paneflow\server.log`
	s, err := For(Options{Exe: `C:\Program Files\Paneflow\paneflow-gui.exe`, Home: `C:\Users\u`, GOOS: "windows", User: user, Log: logPath, Run: r.run})
	if err != nil {
		t.Fatal(err)
	}
	if got := splitWindows(parseTask(t, s.Content).Arguments); fmt.Sprint(got) != fmt.Sprint([]string{"serve", "--log", logPath}) {
		t.Errorf("the task runs serve with %q", got)
	}
	name := "Paneflow server " + user
	// A schtasks that answers a query with nothing (Wine's) has no task.
	if ok, err := s.Installed(ctx); ok || err != nil {
		t.Errorf("an empty query: installed %v, %v", ok, err)
	}
	var registered string // the task's exported XML; "": none
	var xmlFile string
	createErr := error(nil)
	r.answer = func(argv []string) ([]byte, error) {
		switch argv[1] {
		case "/Query":
			if registered == "" {
				return []byte("ERROR: The system cannot find the file specified.\r\n"), errors.New("exit status 1")
			}
			return utf16File([]byte(registered)), nil // as schtasks writes it to a pipe on some systems
		case "/Create":
			if createErr != nil {
				return []byte("ERROR: Access is denied.\r\n"), createErr
			}
			b, err := os.ReadFile(argv[5])
			if err != nil {
				t.Fatalf("schtasks got no XML file: %v", err)
			}
			xmlFile, registered = argv[5], decodeUTF16File(t, b)
		}
		return nil, nil
	}

	if ok, err := s.Installed(ctx); ok || err != nil {
		t.Errorf("before install: %v, %v", ok, err)
	}
	r.take()
	if changed, err := s.Install(ctx); !changed || err != nil {
		t.Fatalf("install: %v, %v", changed, err)
	}
	if got, want := r.take(), []string{"schtasks|/Query|/TN|" + name + "|/XML", "schtasks|/Create|/TN|" + name + "|/XML|" + xmlFile + "|/F"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("install ran %q, want %q", got, want)
	}
	if registered != string(s.Content) {
		t.Errorf("registered:\n%s\nwant:\n%s", registered, s.Content)
	}
	if _, err := os.Stat(xmlFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the temporary XML file %s was left: %v", xmlFile, err)
	}
	if ok, err := s.Installed(ctx); !ok || err != nil {
		t.Errorf("after install: %v, %v", ok, err)
	}
	r.take()
	if changed, err := s.Install(ctx); changed || err != nil {
		t.Errorf("install again: changed %v, %v", changed, err)
	}
	if got := r.take(); len(got) != 1 {
		t.Errorf("an unchanged install ran %q, want the query only", got)
	}
	if ran, err := s.Enable(ctx, false); len(ran) != 0 || err != nil || len(r.take()) != 0 {
		t.Errorf("enable without starting: %q, %v", ran, err)
	}
	if ran, err := s.Enable(ctx, true); err != nil || fmt.Sprint(ran) != fmt.Sprint([]string{`schtasks /Run /TN "` + name + `"`}) {
		t.Errorf("enable and start: %q, %v", ran, err)
	}
	r.take()
	if removed, err := s.Uninstall(ctx); !removed || err != nil {
		t.Errorf("uninstall: %v, %v", removed, err)
	}
	if got := r.take(); fmt.Sprint(got[1:]) != fmt.Sprint([]string{"schtasks|/Delete|/TN|" + name + "|/F"}) {
		t.Errorf("uninstall ran %q", got)
	}

	registered = "<Task><RegistrationInfo><Description>my own server</Description></RegistrationInfo></Task>"
	r.take()
	if _, err := s.Install(ctx); !errors.Is(err, ErrNotOurs) || !strings.Contains(err.Error(), name) {
		t.Errorf("install over the user's task: %v, want ErrNotOurs naming it", err)
	}
	if _, err := s.Uninstall(ctx); !errors.Is(err, ErrNotOurs) {
		t.Errorf("uninstall of the user's task: %v, want ErrNotOurs", err)
	}
	for _, c := range r.take() {
		if !strings.HasPrefix(c, "schtasks|/Query|") {
			t.Errorf("ran %q on the user's task", c)
		}
	}

	registered, createErr = "", errors.New("exit status 1")
	_, err = s.Install(ctx)
	if err == nil || !strings.Contains(err.Error(), `schtasks /Create /TN "`+name+`" /XML`) || !strings.Contains(err.Error(), "ERROR: Access is denied.") {
		t.Errorf("a failing schtasks: %v, want the command and its message", err)
	}
	if _, err := os.Stat(xmlFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the temporary XML file was left after a failure: %v", err)
	}
}

// TestSystemdEnable: Enable reloads systemd and enables the unit, and
// starts it only when asked; a failing systemctl is an error quoting it;
// uninstall disables (without stopping) before it removes the unit, then
// reloads, and with no user manager removes the enabling link itself.
func TestSystemdEnable(t *testing.T) {
	ctx := context.Background()
	r := &fakeRunner{}
	s, err := For(Options{Exe: "/usr/bin/paneflow", Home: t.TempDir(), GOOS: "linux", Run: r.run})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Install(ctx); err != nil {
		t.Fatal(err)
	}
	if ran, err := s.Enable(ctx, false); err != nil || fmt.Sprint(ran) != "[systemctl --user daemon-reload systemctl --user enable paneflow.service]" {
		t.Errorf("enable: %q, %v", ran, err)
	}
	r.take()
	if ran, err := s.Enable(ctx, true); err != nil || len(ran) != 3 || ran[2] != "systemctl --user start paneflow.service" {
		t.Errorf("enable and start: %q, %v", ran, err)
	}
	r.take()
	r.answer = func(argv []string) ([]byte, error) {
		return []byte("Failed to connect to bus: No medium found\n"), errors.New("exit status 1")
	}
	if _, err := s.Enable(ctx, true); err == nil || !strings.Contains(err.Error(), "systemctl --user daemon-reload: exit status 1: Failed to connect to bus") {
		t.Errorf("enable with no user manager: %v", err)
	}
	// No user manager: the unit and its enabling link (systemctl
	// enable's, or the user's own) are removed all the same; a link of
	// another unit's is not.
	wants := filepath.Join(filepath.Dir(s.Path), "default.target.wants")
	if err := os.MkdirAll(wants, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(s.Path, filepath.Join(wants, SystemdName)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/usr/lib/systemd/user/other.service", filepath.Join(wants, "other.service")); err != nil {
		t.Fatal(err)
	}
	r.take()
	if removed, err := s.Uninstall(ctx); !removed || err != nil {
		t.Errorf("uninstall with no user manager: %v, %v", removed, err)
	}
	if got := r.take(); fmt.Sprint(got) != "[systemctl|--user|disable|paneflow.service]" {
		t.Errorf("uninstall with no user manager ran %q", got)
	}
	if entries, _ := os.ReadDir(wants); len(entries) != 1 || entries[0].Name() != "other.service" {
		t.Errorf("left in default.target.wants: %v", entries)
	}
	if _, err := os.Stat(s.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the unit is still there: %v", err)
	}
	r.answer = nil
	if _, err := s.Install(ctx); err != nil {
		t.Fatal(err)
	}
	r.take()
	if removed, err := s.Uninstall(ctx); !removed || err != nil {
		t.Errorf("uninstall: %v, %v", removed, err)
	}
	if got := r.take(); fmt.Sprint(got) != "[systemctl|--user|disable|paneflow.service systemctl|--user|daemon-reload]" {
		t.Errorf("uninstall ran %q", got)
	}
	if _, err := os.Stat(s.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the unit is still there: %v", err)
	}
	// systemctl disables offline, and only the reload finds no manager.
	if _, err := s.Install(ctx); err != nil {
		t.Fatal(err)
	}
	r.answer = func(argv []string) ([]byte, error) {
		if argv[2] == "daemon-reload" {
			return []byte("Failed to connect to bus"), errors.New("exit status 1")
		}
		return nil, nil
	}
	if removed, err := s.Uninstall(ctx); !removed || err != nil {
		t.Errorf("uninstall with an offline disable: %v, %v", removed, err)
	}
}

// TestLaunchdEnable: the agent is loaded at each login by its place;
// starting it now bootstraps it into the user's gui domain, or kickstarts
// it when launchd has it loaded already.
func TestLaunchdEnable(t *testing.T) {
	ctx := context.Background()
	r := &fakeRunner{}
	home := filepath.Join(t.TempDir(), "a b")
	s, err := For(Options{Exe: "/Applications/Paneflow.app/Contents/MacOS/paneflow", Home: home, GOOS: "darwin", UID: 501, Run: r.run})
	if err != nil {
		t.Fatal(err)
	}
	if ran, err := s.Enable(ctx, false); len(ran) != 0 || err != nil || len(r.take()) != 0 {
		t.Errorf("enable without starting: %q, %v", ran, err)
	}
	loaded := false
	r.answer = func(argv []string) ([]byte, error) {
		if argv[1] == "print" && !loaded {
			return []byte("Could not find service"), errors.New("exit status 113")
		}
		return nil, nil
	}
	if ran, err := s.Enable(ctx, true); err != nil || fmt.Sprint(ran) != fmt.Sprint([]string{"launchctl bootstrap gui/501 '" + s.Path + "'"}) {
		t.Errorf("start, not loaded: %q, %v", ran, err)
	}
	if got := r.take(); fmt.Sprint(got) != fmt.Sprint([]string{"launchctl|print|gui/501/dev.paneflow.server", "launchctl|bootstrap|gui/501|" + s.Path}) {
		t.Errorf("ran %q", got)
	}
	loaded = true
	if ran, err := s.Enable(ctx, true); err != nil || fmt.Sprint(ran) != "[launchctl kickstart gui/501/dev.paneflow.server]" {
		t.Errorf("start, loaded: %q, %v", ran, err)
	}
}

// TestState: what each service manager says of the installed service:
// systemd's one-word is-enabled answer (also when it exits 1 for
// "disabled"), launchd's loaded or not, the task's Settings Enabled; a
// manager that cannot be asked is an error quoting it.
func TestState(t *testing.T) {
	ctx := context.Background()
	r := &fakeRunner{}
	for _, c := range []struct {
		o    Options
		out  string
		err  error
		want string // "" for an error
	}{
		{Options{GOOS: "linux"}, "enabled\n", nil, "enabled"},
		{Options{GOOS: "linux"}, "disabled\n", errors.New("exit status 1"), "disabled"},
		{Options{GOOS: "linux"}, "Failed to connect to bus: No such file or directory\n", errors.New("exit status 1"), ""},
		{Options{GOOS: "darwin", UID: 501}, "", nil, "loaded"},
		{Options{GOOS: "darwin", UID: 501}, "Could not find service", errors.New("exit status 113"), "not loaded"},
		{Options{GOOS: "windows"}, "<Task><Triggers><LogonTrigger><Enabled>true</Enabled></LogonTrigger></Triggers><Settings><Enabled>true</Enabled></Settings></Task>", nil, "enabled"},
		{Options{GOOS: "windows"}, "<Task><Triggers><LogonTrigger><Enabled>true</Enabled></LogonTrigger></Triggers><Settings><Enabled>false</Enabled></Settings></Task>", nil, "disabled"},
		{Options{GOOS: "windows"}, "ERROR: Access is denied.", errors.New("exit status 1"), ""},
	} {
		o := c.o
		o.Exe, o.Home, o.User, o.Run = "/bin/pf", "/home/u", "S-1-5-21-1", r.run
		if o.GOOS == "windows" {
			o.Exe, o.Home = `C:\pf.exe`, `C:\Users\u`
		}
		s, err := For(o)
		if err != nil {
			t.Fatal(err)
		}
		r.answer = func([]string) ([]byte, error) { return []byte(c.out), c.err }
		got, err := s.State(ctx)
		if c.want == "" {
			if err == nil || !strings.Contains(err.Error(), strings.TrimSpace(c.out)) {
				t.Errorf("%s, %q: %q, %v; want an error quoting it", o.GOOS, c.out, got, err)
			}
		} else if got != c.want || err != nil {
			t.Errorf("%s, %q: %q, %v; want %q", o.GOOS, c.out, got, err, c.want)
		}
	}
	// The task's own definition, as registered: enabled.
	s, _ := For(Options{Exe: `C:\pf.exe`, Home: `C:\Users\u`, GOOS: "windows", User: "S-1-5-21-1", Run: r.run})
	r.answer = func([]string) ([]byte, error) { return utf16File(s.Content), nil }
	if got, err := s.State(ctx); got != "enabled" || err != nil {
		t.Errorf("our definition: %q, %v", got, err)
	}
}
