package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const testHook = "/opt/paneflow/bin/paneflow-ai-hook"

// newInstaller returns an installer for settings.json in a fresh
// directory (".claude" under a temp home), with the file holding content
// unless content is "-" (no file).
func newInstaller(t *testing.T, content string) *Installer {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".claude")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "settings.json")
	if content != "-" {
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &Installer{SettingsPath: p, HookPath: testHook, GOOS: "linux"}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// dirNames lists the names in dir, to catch leftover temporary files.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// ours is our group for event with the test hook path, pretty-printed at
// the depth of an event array element.
func oursJSON(event string) string {
	return `{"_paneflow_managed":true,"hooks":[{"type":"command","command":"` + testHook + ` ` + event + `","timeout":5}]}`
}

// canon re-indents JSON so tests can compare structure and order.
func canon(t *testing.T, s string) string {
	t.Helper()
	c := compactOf([]byte(s))
	if c == nil {
		t.Fatalf("not JSON: %s", s)
	}
	return string(pretty(c))
}

// allOurs is the hooks object a fresh install writes.
func allOurs() string {
	var parts []string
	for _, ev := range ClaudeEvents {
		parts = append(parts, `"`+ev+`":[`+oursJSON(ev)+`]`)
	}
	return `{` + strings.Join(parts, ",") + `}`
}

func TestSetup(t *testing.T) {
	userStop := `{"hooks":[{"type":"command","command":"notify-send done"}]}`
	userPre := `{"matcher":"Bash","hooks":[{"type":"command","command":"~/bin/audit.sh","timeout":30}]}`
	staleStop := strings.ReplaceAll(oursJSON("Stop"), testHook, "/old/paneflow-ai-hook")
	tests := []struct {
		name        string
		before      string // "-" for no file
		wantOutcome Outcome
		want        string   // the file after, compared as JSON structure and order
		wantSkipped []string // events left alone
	}{
		{name: "fresh", before: "-", wantOutcome: Installed, want: `{"hooks":` + allOurs() + `}`},
		{name: "empty file", before: "\n", wantOutcome: Installed, want: `{"hooks":` + allOurs() + `}`},
		{name: "empty object", before: "{}", wantOutcome: Installed, want: `{"hooks":` + allOurs() + `}`},
		{name: "other settings kept in order",
			before:      `{"model":"opus","permissions":{"allow":["Bash(go test:*)"]},"env":{"B":"2","A":1.50}}`,
			wantOutcome: Installed,
			want:        `{"model":"opus","permissions":{"allow":["Bash(go test:*)"]},"env":{"B":"2","A":1.50},"hooks":` + allOurs() + `}`},
		{name: "user hooks kept, ours after them",
			before:      `{"hooks":{"PreToolUse":[` + userPre + `],"Stop":[` + userStop + `],"SessionStart":[` + userStop + `]}}`,
			wantOutcome: Installed,
			want: `{"hooks":{"PreToolUse":[` + userPre + `,` + oursJSON("PreToolUse") + `],"Stop":[` + userStop + `,` + oursJSON("Stop") + `],` +
				`"SessionStart":[` + userStop + `],"UserPromptSubmit":[` + oursJSON("UserPromptSubmit") + `],` +
				`"Notification":[` + oursJSON("Notification") + `],"PostToolUse":[` + oursJSON("PostToolUse") + `]}}`},
		{name: "stale group replaced in place",
			before:      `{"hooks":{"Stop":[` + staleStop + `,` + userStop + `]}}`,
			wantOutcome: Updated,
			want: `{"hooks":{"Stop":[` + oursJSON("Stop") + `,` + userStop + `],"UserPromptSubmit":[` + oursJSON("UserPromptSubmit") + `],` +
				`"Notification":[` + oursJSON("Notification") + `],"PreToolUse":[` + oursJSON("PreToolUse") + `],"PostToolUse":[` + oursJSON("PostToolUse") + `]}}`},
		{name: "unmarked handler of ours taken out of a user group",
			before:      `{"hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"'/home/me/my bin/paneflow-ai-hook' Stop"},{"type":"command","command":"say done"}]}]}}`,
			wantOutcome: Updated,
			want: `{"hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"say done"}]},` + oursJSON("Stop") + `],` +
				`"UserPromptSubmit":[` + oursJSON("UserPromptSubmit") + `],"Notification":[` + oursJSON("Notification") + `],` +
				`"PreToolUse":[` + oursJSON("PreToolUse") + `],"PostToolUse":[` + oursJSON("PostToolUse") + `]}}`},
		{name: "our group for an event we no longer install is removed",
			before:      `{"hooks":{"SessionEnd":[` + oursJSON("SessionEnd") + `]}}`,
			wantOutcome: Updated, want: `{"hooks":` + allOurs() + `}`},
		{name: "event value that is not an array is left alone",
			before:      `{"hooks":{"Notification":"off"}}`,
			wantOutcome: Installed,
			want: `{"hooks":{"Notification":"off","UserPromptSubmit":[` + oursJSON("UserPromptSubmit") + `],"Stop":[` + oursJSON("Stop") + `],` +
				`"PreToolUse":[` + oursJSON("PreToolUse") + `],"PostToolUse":[` + oursJSON("PostToolUse") + `]}}`,
			wantSkipped: []string{"Notification"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := newInstaller(t, tt.before)
			res, err := in.Setup()
			if err != nil {
				t.Fatalf("Setup: %v", err)
			}
			if res.Outcome != tt.wantOutcome {
				t.Errorf("Setup outcome = %q, want %q", res.Outcome, tt.wantOutcome)
			}
			if !slices.Equal(res.Skipped, tt.wantSkipped) {
				t.Errorf("Setup skipped = %q, want %q", res.Skipped, tt.wantSkipped)
			}
			got := readFile(t, in.SettingsPath)
			if diff := cmp.Diff(canon(t, tt.want), got); diff != "" {
				t.Errorf("settings after Setup (-want +got):\n%s", diff)
			}
			if !strings.HasSuffix(got, "}\n") || !strings.HasPrefix(got, "{\n  ") {
				t.Errorf("settings are not pretty-printed with a trailing newline: %q", got[:min(len(got), 40)])
			}
			bak, err := os.ReadFile(in.SettingsPath + ".bak")
			switch {
			case tt.before == "-" && err == nil:
				t.Errorf("a backup was written for a file that did not exist")
			case tt.before != "-" && string(bak) != tt.before:
				t.Errorf("backup = %q (%v), want the old bytes %q", bak, err, tt.before)
			}

			// A second run changes nothing and writes nothing.
			os.Remove(in.SettingsPath + ".bak")
			res, err = in.Setup()
			if err != nil || res.Outcome != AlreadyCurrent {
				t.Errorf("second Setup = %q, %v; want %q", res.Outcome, err, AlreadyCurrent)
			}
			if again := readFile(t, in.SettingsPath); again != got {
				t.Errorf("second Setup changed the file:\n%s", cmp.Diff(got, again))
			}
			if _, err := os.Stat(in.SettingsPath + ".bak"); err == nil {
				t.Errorf("second Setup wrote a backup; want no write at all")
			}
		})
	}
}

func TestSetupKeepsFormattingWhenCurrent(t *testing.T) {
	in := newInstaller(t, "-")
	if _, err := in.Setup(); err != nil {
		t.Fatal(err)
	}
	// The user re-indents the file by hand; nothing of ours changed.
	var v any
	json.Unmarshal([]byte(readFile(t, in.SettingsPath)), &v)
	tabbed, _ := json.MarshalIndent(v, "", "\t")
	if err := os.WriteFile(in.SettingsPath, tabbed, 0o644); err != nil {
		t.Fatal(err)
	}
	// MarshalIndent sorted the keys of our groups, which changes nothing
	// semantically but does change the compact form, so this run may
	// rewrite; the run after it must not.
	in.Setup()
	before := readFile(t, in.SettingsPath)
	res, err := in.Setup()
	if err != nil || res.Outcome != AlreadyCurrent {
		t.Fatalf("Setup = %q, %v; want %q", res.Outcome, err, AlreadyCurrent)
	}
	if after := readFile(t, in.SettingsPath); after != before {
		t.Errorf("Setup rewrote a current file")
	}
}

func TestSetupModes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix permissions")
	}
	t.Run("kept", func(t *testing.T) {
		in := newInstaller(t, `{}`)
		os.Chmod(in.SettingsPath, 0o640)
		if _, err := in.Setup(); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{in.SettingsPath, in.SettingsPath + ".bak"} {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != 0o640 {
				t.Errorf("mode of %s = %v, want 0640", filepath.Base(p), got)
			}
		}
	})
	t.Run("new file is private", func(t *testing.T) {
		in := newInstaller(t, "-")
		os.Remove(filepath.Dir(in.SettingsPath))
		if _, err := in.Setup(); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(in.SettingsPath)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != 0o600 {
			t.Errorf("mode of a new settings file = %v, want 0600", got)
		}
	})
}

// TestUnparseableUntouched checks that a file we cannot edit safely is
// reported and left byte for byte, by every operation.
func TestUnparseableUntouched(t *testing.T) {
	tests := []struct{ name, content string }{
		{"syntax error", `{"model": "opus",}`},
		{"cut short", `{"hooks": {"Stop": [`},
		{"array", `[{"hooks":{}}]`},
		{"string", `"settings"`},
		{"two objects", `{} {}`},
		{"duplicate key", `{"hooks":{},"hooks":{"Stop":[]}}`},
		{"duplicate event", `{"hooks":{"Stop":[],"Stop":[]}}`},
		{"hooks not an object", `{"hooks":["Stop"]}`},
		{"hooks null", `{"hooks":null}`},
		{"byte order mark", "\xef\xbb\xbf{}"},
		{"comments", "{\n  // mine\n  \"model\": \"opus\"\n}\n"},
	}
	ops := map[string]func(*Installer) error{
		"Setup":     func(in *Installer) error { _, err := in.Setup(); return err },
		"Uninstall": func(in *Installer) error { _, err := in.Uninstall(); return err },
		"Status":    func(in *Installer) error { _, err := in.Status(); return err },
	}
	for _, tt := range tests {
		for opName, op := range ops {
			t.Run(tt.name+"/"+opName, func(t *testing.T) {
				in := newInstaller(t, tt.content)
				err := op(in)
				var pe *ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("%s error = %v, want a *ParseError", opName, err)
				}
				if !strings.Contains(err.Error(), in.SettingsPath) || !strings.Contains(err.Error(), "left untouched") {
					t.Errorf("error %q does not name the file and say it is untouched", err)
				}
				if got := readFile(t, in.SettingsPath); got != tt.content {
					t.Errorf("file changed to %q, want %q", got, tt.content)
				}
				if names := dirNames(t, filepath.Dir(in.SettingsPath)); !slices.Equal(names, []string{"settings.json"}) {
					t.Errorf("directory holds %q, want only settings.json", names)
				}
			})
		}
	}
}

func TestUninstall(t *testing.T) {
	userStop := `{"hooks":[{"type":"command","command":"notify-send done"}]}`
	tests := []struct {
		name   string
		before string
		want   Outcome
		after  string // "" means unchanged (and no backup)
	}{
		{name: "no file", before: "-", want: NothingToDo},
		{name: "none of ours", before: `{"hooks":{"Stop":[` + userStop + `]}}`, want: NothingToDo},
		{name: "only ours", before: `{"model":"opus","hooks":` + allOurs() + `}`, want: Removed, after: `{"model":"opus"}`},
		{name: "ours among the user's",
			before: `{"hooks":{"Stop":[` + userStop + `,` + oursJSON("Stop") + `],"PreToolUse":[` + oursJSON("PreToolUse") + `],"PostToolUse":[]}}`,
			want:   Removed, after: `{"hooks":{"Stop":[` + userStop + `],"PostToolUse":[]}}`},
		{name: "unmarked and stale ones too",
			before: `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/x/paneflow-ai-hook.exe Stop"},{"type":"command","command":"say hi"}]}],` +
				`"SessionEnd":[` + strings.ReplaceAll(oursJSON("SessionEnd"), testHook, "/old/paneflow-ai-hook") + `]}}`,
			want: Removed, after: `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"say hi"}]}]}}`},
		{name: "a similar name is not ours",
			before: `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/x/paneflow-ai-hook-wrapper Stop"}]},{"_paneflow_managed":false,"hooks":[]}]}}`,
			want:   NothingToDo},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := newInstaller(t, tt.before)
			got, err := in.Uninstall()
			if err != nil {
				t.Fatalf("Uninstall: %v", err)
			}
			if got != tt.want {
				t.Errorf("Uninstall = %q, want %q", got, tt.want)
			}
			if tt.after == "" {
				if tt.before == "-" {
					if _, err := os.Stat(in.SettingsPath); err == nil {
						t.Errorf("Uninstall created %s", in.SettingsPath)
					}
				} else if now := readFile(t, in.SettingsPath); now != tt.before {
					t.Errorf("Uninstall changed the file to %q", now)
				}
				if _, err := os.Stat(in.SettingsPath + ".bak"); err == nil {
					t.Errorf("Uninstall wrote a backup without changing anything")
				}
				return
			}
			if diff := cmp.Diff(canon(t, tt.after), readFile(t, in.SettingsPath)); diff != "" {
				t.Errorf("settings after Uninstall (-want +got):\n%s", diff)
			}
			if bak := readFile(t, in.SettingsPath+".bak"); bak != tt.before {
				t.Errorf("backup = %q, want %q", bak, tt.before)
			}
		})
	}
}

func TestSetupThenUninstallRestores(t *testing.T) {
	before := `{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"say done"}]}]}}`
	in := newInstaller(t, before)
	if _, err := in.Setup(); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Uninstall(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(canon(t, before), readFile(t, in.SettingsPath)); diff != "" {
		t.Errorf("Setup then Uninstall (-before +after):\n%s", diff)
	}
}

func TestStatus(t *testing.T) {
	stale := strings.ReplaceAll(allOurs(), testHook, "/old/bin/paneflow-ai-hook")
	tests := []struct {
		name        string
		content     string
		hookPath    string
		want        State
		wantProgs   []string
		wantMissing []string
	}{
		{name: "no file", content: "-", hookPath: testHook, want: StateNotInstalled, wantMissing: ClaudeEvents},
		{name: "user hooks only", content: `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"say"}]}]}}`,
			hookPath: testHook, want: StateNotInstalled, wantMissing: ClaudeEvents},
		{name: "installed", content: `{"hooks":` + allOurs() + `}`, hookPath: testHook,
			want: StateInstalled, wantProgs: []string{testHook}},
		{name: "other path", content: `{"hooks":` + stale + `}`, hookPath: testHook,
			want: StateStale, wantProgs: []string{"/old/bin/paneflow-ai-hook"}, wantMissing: ClaudeEvents},
		{name: "event missing", content: `{"hooks":{"Stop":[` + oursJSON("Stop") + `]}}`, hookPath: testHook,
			want: StateStale, wantProgs: []string{testHook}, wantMissing: []string{"UserPromptSubmit", "Notification", "PreToolUse", "PostToolUse"}},
		{name: "hook program unknown", content: `{"hooks":` + allOurs() + `}`, hookPath: "",
			want: StateStale, wantProgs: []string{testHook}, wantMissing: ClaudeEvents},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := newInstaller(t, tt.content)
			in.HookPath = tt.hookPath
			got, err := in.Status()
			if err != nil {
				t.Fatal(err)
			}
			if got.State != tt.want || !slices.Equal(got.Programs, tt.wantProgs) || !slices.Equal(got.Missing, tt.wantMissing) {
				t.Errorf("Status = %+v, want state %q, programs %q, missing %q", got, tt.want, tt.wantProgs, tt.wantMissing)
			}
		})
	}
}

// TestWriteFailuresKeepOriginal checks that a failed write (a full disk,
// a directory we may not write) leaves the settings as they were and no
// temporary file behind.
func TestWriteFailuresKeepOriginal(t *testing.T) {
	const before = `{"model":"opus"}`
	tests := []struct {
		name  string
		setup func(in *Installer)
	}{
		{"disk full", func(in *Installer) {
			in.write = func(f *os.File, data []byte) (int, error) {
				n, _ := f.Write(data[:len(data)/2])
				return n, &fs.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
			}
		}},
		{"directory not writable", func(in *Installer) {
			in.createTemp = func(dir, pattern string) (*os.File, error) {
				return nil, &fs.PathError{Op: "open", Path: filepath.Join(dir, pattern), Err: syscall.EACCES}
			}
		}},
		{"disk full on the settings file only", func(in *Installer) {
			in.write = func(f *os.File, data []byte) (int, error) {
				if strings.Contains(f.Name(), ".bak") {
					return f.Write(data)
				}
				return 0, &fs.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
			}
		}},
	}
	for _, tt := range tests {
		for _, op := range []string{"Setup", "Uninstall"} {
			t.Run(tt.name+"/"+op, func(t *testing.T) {
				content := before
				if op == "Uninstall" {
					content = `{"model":"opus","hooks":` + allOurs() + `}`
				}
				in := newInstaller(t, content)
				tt.setup(in)
				var err error
				if op == "Setup" {
					_, err = in.Setup()
				} else {
					_, err = in.Uninstall()
				}
				if err == nil {
					t.Fatalf("%s succeeded, want an error", op)
				}
				if got := readFile(t, in.SettingsPath); got != content {
					t.Errorf("settings changed to %q after a failed %s", got, op)
				}
				for _, n := range dirNames(t, filepath.Dir(in.SettingsPath)) {
					if n != "settings.json" && n != "settings.json.bak" {
						t.Errorf("leftover file %q after a failed %s", n, op)
					}
				}
			})
		}
	}
}

func TestReadOnlyDirectory(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix permissions")
	}
	if os.Geteuid() == 0 {
		t.Skip("root ignores directory permissions; TestWriteFailuresKeepOriginal covers the failure path")
	}
	const before = `{"model":"opus"}`
	in := newInstaller(t, before)
	dir := filepath.Dir(in.SettingsPath)
	os.Chmod(dir, 0o500)
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	if _, err := in.Setup(); err == nil {
		t.Fatalf("Setup in a read-only directory succeeded, want an error")
	}
	if got := readFile(t, in.SettingsPath); got != before {
		t.Errorf("settings changed to %q", got)
	}
}

// TestSymlinkedSettings checks the documented choice for a settings file
// that is a symlink (dotfile managers do this): the file it points to is
// replaced, the link stays a link, and the backup sits next to the link.
func TestSymlinkedSettings(t *testing.T) {
	home := t.TempDir()
	dotfiles := filepath.Join(home, "dotfiles", "claude")
	claude := filepath.Join(home, ".claude")
	for _, d := range []string{dotfiles, claude} {
		os.MkdirAll(d, 0o700)
	}
	const before = `{"model":"opus"}`
	target := filepath.Join(dotfiles, "settings.json")
	if err := os.WriteFile(target, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(claude, "settings.json")
	if err := os.Symlink("../dotfiles/claude/settings.json", link); err != nil {
		t.Skipf("cannot make symlinks here: %v", err)
	}
	in := &Installer{SettingsPath: link, HookPath: testHook, GOOS: "linux"}
	if res, err := in.Setup(); err != nil || res.Outcome != Installed {
		t.Fatalf("Setup = %v, %v; want installed", res.Outcome, err)
	}
	fi, err := os.Lstat(link)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("settings.json is no longer a symlink (%v, %v)", fi.Mode(), err)
	}
	if got := readFile(t, target); !strings.Contains(got, `"_paneflow_managed": true`) {
		t.Errorf("link target was not updated: %s", got)
	}
	if bak := readFile(t, link+".bak"); bak != before {
		t.Errorf("backup next to the link = %q, want %q", bak, before)
	}
	if names := dirNames(t, dotfiles); !slices.Equal(names, []string{"settings.json"}) {
		t.Errorf("dotfiles directory holds %q, want only settings.json", names)
	}
	if st, err := in.Status(); err != nil || st.State != StateInstalled {
		t.Errorf("Status through the link = %+v, %v; want installed", st, err)
	}

	t.Run("dangling", func(t *testing.T) {
		link := filepath.Join(t.TempDir(), "settings.json")
		os.Symlink(filepath.Join(t.TempDir(), "gone", "settings.json"), link)
		in := &Installer{SettingsPath: link, HookPath: testHook, GOOS: "linux"}
		if _, err := in.Setup(); err == nil {
			t.Errorf("Setup through a dangling symlink succeeded, want an error")
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("dangling link was replaced")
		}
	})
}

func TestHookCommand(t *testing.T) {
	tests := []struct {
		path, goos, want string
		wantProgram      string // what commandProgram reads back; "" means path
	}{
		{"/opt/paneflow/bin/paneflow-ai-hook", "linux", "/opt/paneflow/bin/paneflow-ai-hook Stop", ""},
		{"/Users/me/My Apps/paneflow-ai-hook", "darwin", "'/Users/me/My Apps/paneflow-ai-hook' Stop", ""},
		{"/home/o'brien/bin/paneflow-ai-hook", "linux", `'/home/o'\''brien/bin/paneflow-ai-hook' Stop`, ""},
		{"/tmp/$HOME/paneflow-ai-hook", "linux", "'/tmp/$HOME/paneflow-ai-hook' Stop", ""},
		{`C:\Program Files\Paneflow\paneflow-ai-hook.exe`, "windows",
			`powershell.exe -NoProfile -ExecutionPolicy Bypass -Command "& 'C:/Program Files/Paneflow/paneflow-ai-hook.exe' Stop"`,
			"C:/Program Files/Paneflow/paneflow-ai-hook.exe"},
		{`C:\Users\o'neil\paneflow-ai-hook.exe`, "windows",
			`powershell.exe -NoProfile -ExecutionPolicy Bypass -Command "& 'C:/Users/o''neil/paneflow-ai-hook.exe' Stop"`,
			"C:/Users/o'neil/paneflow-ai-hook.exe"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got := HookCommand(tt.path, "Stop", tt.goos)
			if got != tt.want {
				t.Errorf("HookCommand = %q, want %q", got, tt.want)
			}
			want := tt.wantProgram
			if want == "" {
				want = tt.path
			}
			if p := commandProgram(got); p != want {
				t.Errorf("commandProgram(%q) = %q, want %q", got, p, want)
			}
			if !isHookProgram(commandProgram(got)) {
				t.Errorf("isHookProgram does not recognize %q", got)
			}
		})
	}
}

func TestCommandProgram(t *testing.T) {
	tests := []struct{ cmd, want string }{
		{"paneflow-ai-hook Stop", "paneflow-ai-hook"},
		{"  /a/b/paneflow-ai-hook\tStop", "/a/b/paneflow-ai-hook"},
		{`"/a b/paneflow-ai-hook" Stop`, "/a b/paneflow-ai-hook"},
		{`/a\ b/paneflow-ai-hook Stop`, "/a b/paneflow-ai-hook"},
		{"/a/paneflow-ai-hook;echo hi", "/a/paneflow-ai-hook"},
		{"'unterminated", "unterminated"},
		{"pwsh -Command \"& 'D:/x/paneflow-ai-hook.exe' Stop\"", "D:/x/paneflow-ai-hook.exe"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := commandProgram(tt.cmd); got != tt.want {
			t.Errorf("commandProgram(%q) = %q, want %q", tt.cmd, got, tt.want)
		}
	}
}

// TestGroupShape pins our group to the shape of spec conductor.md §7,
// which the launch shim writes too.
func TestGroupShape(t *testing.T) {
	in := &Installer{HookPath: testHook, GOOS: "linux"}
	want := `{"_paneflow_managed":true,"hooks":[{"type":"command","command":"/opt/paneflow/bin/paneflow-ai-hook Notification","timeout":5}]}`
	if got := string(in.group("Notification")); got != want {
		t.Errorf("group = %s, want %s", got, want)
	}
	win := &Installer{HookPath: `C:\pf\paneflow-ai-hook.exe`, GOOS: "windows"}
	if got := string(win.group("Stop")); !bytes.Contains([]byte(got), []byte(`"& 'C:/pf/paneflow-ai-hook.exe' Stop\"`)) {
		t.Errorf("windows group = %s, want the PowerShell command unescaped", got)
	}
}

func TestSetupNeedsAbsoluteHookPath(t *testing.T) {
	in := newInstaller(t, "{}")
	in.HookPath = "paneflow-ai-hook"
	if _, err := in.Setup(); err == nil {
		t.Errorf("Setup with a relative hook path succeeded, want an error")
	}
	if got := readFile(t, in.SettingsPath); got != "{}" {
		t.Errorf("settings changed to %q", got)
	}
}

// TestLaunchGroupsRefuseSymlink: a project's config that is a symlink is
// neither read nor written through, and no backup is left next to a file
// the launch changed; the old bytes come back in LaunchEdit.Old (issue 25).
func TestLaunchGroupsRefuseSymlink(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside.json")
	os.WriteFile(outside, []byte(`{"a":1}`), 0o644)
	link := filepath.Join(dir, "project", "settings.json")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(outside, link); err != nil {
		t.Skipf("cannot make symlinks here: %v", err)
	}
	groups := []LaunchGroup{{Event: "Stop", Group: LaunchHookGroup(testHook, "Stop", "linux")}}
	var se *SymlinkError
	if _, err := AddLaunchGroups(link, groups); !errors.As(err, &se) {
		t.Errorf("AddLaunchGroups through a symlink = %v; want a *SymlinkError", err)
	}
	if _, err := RemoveLaunchGroups(link, true); !errors.As(err, &se) {
		t.Errorf("RemoveLaunchGroups through a symlink = %v; want a *SymlinkError", err)
	}
	if got := readFile(t, outside); got != `{"a":1}` {
		t.Errorf("the file the link points to = %q", got)
	}
	plain := filepath.Join(dir, "project", "plain.json")
	os.WriteFile(plain, []byte(`{"a":1}`), 0o644)
	edit, err := AddLaunchGroups(plain, groups)
	if err != nil || !edit.Changed || string(edit.Old) != `{"a":1}` || string(edit.New) != readFile(t, plain) {
		t.Errorf("AddLaunchGroups = %+v, %v; want changed, Old the old bytes, New the file", edit, err)
	}
	if _, err := os.Lstat(plain + ".bak"); err == nil {
		t.Error("a backup left next to the project's file")
	}
}
