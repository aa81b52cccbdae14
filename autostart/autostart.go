package autostart

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/paneflow-go/paneflow/internal/atomicfile"
)

// Marker is in every file this package writes: a file without it is the
// user's own.
const Marker = "Written by `paneflow service install`"

// ErrUnsupported is returned on a system with no service manager this
// package knows.
var ErrUnsupported = errors.New("autostart: no per-user service on this system (systemd on Linux, launchd on macOS, Task Scheduler on Windows)")

// ErrNotOurs is returned (wrapped, with the path or task name) for a
// file or task at the service's place that this package did not write.
var ErrNotOurs = errors.New("was not written by Paneflow; leaving it alone")

// Runner runs one program with arguments and returns its combined output
// (stdout and stderr); a non-zero exit is an error. It must honour ctx.
type Runner func(ctx context.Context, name string, args ...string) ([]byte, error)

// Exec is the [Runner] that runs programs with os/exec.
func Exec(ctx context.Context, name string, args ...string) ([]byte, error) {
	return exec.CommandContext(ctx, name, args...).CombinedOutput()
}

// Service describes the per-user service on one system. Create it with
// [For]; the zero value is not usable. Its methods run the system's
// service manager through [Options.Run]; a Service is safe for concurrent
// use, but two installs at once race as two users at a shell would.
type Service struct {
	// Path is the unit or plist file; "" on Windows.
	Path string
	// Task is the Windows logon task's name; "" elsewhere.
	Task string
	// Content is the file's text, or the task's XML definition.
	Content []byte
	// Dirs are directories Install creates besides the file's (launchd's
	// log directory: launchd does not create it).
	Dirs []string

	goos  string
	uid   int
	run   Runner
	where string // Path or the task's name, for messages
}

// Options says what the service runs and where its file goes.
type Options struct {
	// Exe is the absolute path of the paneflow binary to run with
	// `serve`. Required.
	Exe string
	// Socket, when not "", is passed as `serve --socket`.
	Socket string
	// Log, when not "", is passed as `serve --log`; Windows only (the
	// task's program has no standard error to write to, while systemd's
	// journal and launchd's StandardErrorPath keep the others' output).
	Log string
	// Home is the user's home directory; required. On Windows it is the
	// task's working directory.
	Home string
	// ConfigHome is $XDG_CONFIG_HOME ("": Home/.config); Linux only.
	ConfigHome string
	// GOOS is the system ("linux", "darwin", "windows"...).
	GOOS string
	// UID is the user's id; macOS only (launchd's gui/UID domain).
	UID int
	// User is the user's security identifier (S-1-5-21-...); Windows
	// only, required there: the task's name, trigger and principal.
	User string
	// Run runs the service manager's commands; nil is [Exec].
	Run Runner
}

// For returns the service for o.GOOS: a systemd user unit on Linux, a
// launchd agent on macOS, a Task Scheduler logon task on Windows,
// [ErrUnsupported] elsewhere. A relative Exe or Home is an error.
func For(o Options) (Service, error) {
	if !isAbs(o.Exe, o.GOOS) {
		return Service{}, fmt.Errorf("autostart: the program path %q is not absolute", o.Exe)
	}
	if !isAbs(o.Home, o.GOOS) {
		return Service{}, fmt.Errorf("autostart: the home directory %q is not absolute", o.Home)
	}
	args := []string{o.Exe, "serve"}
	if o.Socket != "" {
		args = append(args, "--socket", o.Socket)
	}
	s := Service{goos: o.GOOS, uid: o.UID, run: o.Run}
	if s.run == nil {
		s.run = Exec
	}
	switch o.GOOS {
	case "linux":
		dir := o.ConfigHome
		if dir == "" {
			dir = filepath.Join(o.Home, ".config")
		}
		content, err := SystemdUnit(args)
		if err != nil {
			return Service{}, err
		}
		s.Path, s.Content = filepath.Join(dir, "systemd", "user", SystemdName), content
	case "darwin":
		logs := filepath.Join(o.Home, "Library", "Logs", "Paneflow", "server.log")
		s.Path = filepath.Join(o.Home, "Library", "LaunchAgents", LaunchdLabel+".plist")
		s.Content, s.Dirs = LaunchdPlist(args, logs), []string{filepath.Dir(logs)}
	case "windows":
		if !strings.HasPrefix(o.User, "S-") || strings.ContainsAny(o.User, `\/:*?"<>| `) {
			return Service{}, fmt.Errorf("autostart: the user's security identifier %q is not one", o.User)
		}
		if o.Log != "" {
			args = append(args, "--log", o.Log)
		}
		content, err := TaskXML(args, o.User, o.Home)
		if err != nil {
			return Service{}, err
		}
		s.Task, s.Content = TaskPrefix+o.User, content
	default:
		return Service{}, ErrUnsupported
	}
	s.where = s.Path
	if s.Task != "" {
		s.where = "the task " + strconv.Quote(s.Task)
	}
	return s, nil
}

// isAbs reports whether p is absolute on goos (a drive or UNC path on
// Windows, whatever this program runs on).
func isAbs(p, goos string) bool {
	if goos != "windows" {
		return filepath.IsAbs(p)
	}
	p = strings.ReplaceAll(p, "/", `\`)
	return len(p) >= 3 && p[1] == ':' && p[2] == '\\' || strings.HasPrefix(p, `\\`)
}

// Where names the service's place for the user: its file, or its task.
func (s Service) Where() string { return s.where }

// Installed reports whether the service is there and ours; a file or
// task there that is not ours is an error wrapping [ErrNotOurs]. On
// Windows a `schtasks /Query` that fails or returns no task definition
// reads as not installed (its message is in the system's language, so
// "no such task" cannot be told from other failures; a create that then
// fails says why).
func (s Service) Installed(ctx context.Context) (bool, error) {
	if s.Task != "" {
		out, err := s.run(ctx, "schtasks", "/Query", "/TN", s.Task, "/XML")
		if err != nil || !strings.Contains(decodeOutput(out), "<Task") {
			return false, nil // no definition came back
		}
		if !strings.Contains(decodeOutput(out), Marker) {
			return false, fmt.Errorf("autostart: %s %w", s.where, ErrNotOurs)
		}
		return true, nil
	}
	b, err := os.ReadFile(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("autostart: %w", err)
	}
	if !bytes.Contains(b, []byte(Marker)) {
		return false, fmt.Errorf("autostart: %s %w", s.Path, ErrNotOurs)
	}
	return true, nil
}

// Install writes s's file atomically, creating its directory, or
// registers its task; it replaces only a file or task of ours (an older
// install), and reports whether anything changed. It does not make the
// service start: [Service.Enable] does.
func (s Service) Install(ctx context.Context) (changed bool, err error) {
	if s.Task != "" {
		return s.installTask(ctx)
	}
	ours, err := s.Installed(ctx)
	if err != nil {
		return false, err
	}
	for _, d := range append([]string{filepath.Dir(s.Path)}, s.Dirs...) {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return false, fmt.Errorf("autostart: %w", err)
		}
	}
	if !ours {
		// CreateNew: a file the user creates meanwhile is kept too.
		if err := atomicfile.CreateNew(s.Path, bytes.NewReader(s.Content), 0o644); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return false, fmt.Errorf("autostart: %s %w", s.Path, ErrNotOurs)
			}
			return false, fmt.Errorf("autostart: %w", err)
		}
		return true, nil
	}
	if old, err := os.ReadFile(s.Path); err == nil && bytes.Equal(old, s.Content) {
		return false, nil
	}
	if err := atomicfile.Write(s.Path, bytes.NewReader(s.Content), 0o644); err != nil {
		return false, fmt.Errorf("autostart: %w", err)
	}
	return true, nil
}

// installTask registers the Windows task from a temporary XML file
// (UTF-16, as schtasks reads it), unless the task there already has this
// definition's hash.
func (s Service) installTask(ctx context.Context) (bool, error) {
	out, qerr := s.run(ctx, "schtasks", "/Query", "/TN", s.Task, "/XML")
	if old := decodeOutput(out); qerr == nil && strings.Contains(old, "<Task") {
		if !strings.Contains(old, Marker) {
			return false, fmt.Errorf("autostart: %s %w", s.where, ErrNotOurs)
		}
		if h := taskHashIn(old); h != "" && h == taskHashIn(string(s.Content)) {
			return false, nil
		}
	}
	f, err := os.CreateTemp("", "paneflow-task-*.xml")
	if err != nil {
		return false, fmt.Errorf("autostart: %w", err)
	}
	defer os.Remove(f.Name())
	_, err = f.Write(utf16File(s.Content))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("autostart: %w", err)
	}
	if err := s.do(ctx, "schtasks", "/Create", "/TN", s.Task, "/XML", f.Name(), "/F"); err != nil {
		return false, err
	}
	return true, nil
}

// Uninstall stops the service from starting at login and removes its
// file or task when it is ours, and reports whether there was one; the
// user's own is left, with an error. A server the service is running
// now keeps running (`paneflow kill-server` ends it): on Linux the unit
// is disabled (its link in default.target.wants removed; by this package
// when systemctl cannot reach a user manager) but not stopped; on macOS
// the agent stays loaded until logout.
func (s Service) Uninstall(ctx context.Context) (removed bool, err error) {
	ours, err := s.Installed(ctx)
	if err != nil || !ours {
		return false, err
	}
	reload := false
	switch s.goos {
	case "windows":
		return true, s.do(ctx, "schtasks", "/Delete", "/TN", s.Task, "/F")
	case "linux":
		// With no user manager to ask (no session bus: a container, an
		// SSH login without lingering), do what `disable` does to the
		// files, so that the unit can always be removed.
		if reload = s.do(ctx, "systemctl", "--user", "disable", SystemdName) == nil; !reload {
			link := filepath.Join(filepath.Dir(s.Path), "default.target.wants", SystemdName)
			if dest, err := os.Readlink(link); err == nil && dest == s.Path {
				if err := os.Remove(link); err != nil {
					return false, fmt.Errorf("autostart: %w", err)
				}
			}
		}
	}
	if err := os.Remove(s.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("autostart: %w", err)
	}
	if reload {
		// Best effort: `disable` works on the files without a manager
		// running, and with none there is nothing to reload.
		_ = s.do(ctx, "systemctl", "--user", "daemon-reload")
	}
	return true, nil
}

// Enable makes the installed service start at each login, and when
// startNow also starts it now: on Linux `systemctl --user daemon-reload`
// and `enable` (and `start`); on macOS the agent in LaunchAgents is
// loaded at each login by itself, and startNow loads it now with
// `launchctl bootstrap` (or, already loaded, starts it with `kickstart`);
// on Windows the task is enabled when registered, and startNow runs it
// (`schtasks /Run`). Leave startNow false while a server already answers:
// a second one would find the socket taken. It returns the commands it
// ran, for the user.
func (s Service) Enable(ctx context.Context, startNow bool) (ran []string, err error) {
	var cmds [][]string
	switch s.goos {
	case "linux":
		cmds = [][]string{{"systemctl", "--user", "daemon-reload"}, {"systemctl", "--user", "enable", SystemdName}}
		if startNow {
			cmds = append(cmds, []string{"systemctl", "--user", "start", SystemdName})
		}
	case "darwin":
		if startNow {
			target := fmt.Sprintf("gui/%d", s.uid)
			if _, err := s.run(ctx, "launchctl", "print", target+"/"+LaunchdLabel); err == nil {
				cmds = append(cmds, []string{"launchctl", "kickstart", target + "/" + LaunchdLabel})
			} else {
				cmds = append(cmds, []string{"launchctl", "bootstrap", target, s.Path})
			}
		}
	case "windows":
		if startNow {
			cmds = append(cmds, []string{"schtasks", "/Run", "/TN", s.Task})
		}
	}
	for _, c := range cmds {
		if err := s.do(ctx, c[0], c[1:]...); err != nil {
			return ran, err
		}
		ran = append(ran, s.commandLine(c))
	}
	return ran, nil
}

// State says what the service manager makes of the installed service,
// for `service status`: systemd's `is-enabled` answer ("enabled",
// "disabled", ...); on macOS whether launchd has the agent loaded now
// ("loaded", or "not loaded": launchd loads it at the next login); on
// Windows "enabled", or "disabled" when the task was switched off (in
// Task Scheduler). A manager that cannot be asked is an error.
func (s Service) State(ctx context.Context) (string, error) {
	switch s.goos {
	case "linux":
		argv := []string{"systemctl", "--user", "is-enabled", SystemdName}
		out, err := s.run(ctx, argv[0], argv[1:]...)
		// is-enabled exits 1 for a disabled unit, and says so in a word.
		if state := strings.TrimSpace(string(out)); state != "" && !strings.ContainsAny(state, " \n") {
			return state, nil
		}
		if err == nil {
			err = errors.New("no one-word answer")
		}
		return "", s.failed(argv, out, err)
	case "darwin":
		if _, err := s.run(ctx, "launchctl", "print", fmt.Sprintf("gui/%d/%s", s.uid, LaunchdLabel)); err != nil {
			return "not loaded", nil
		}
		return "loaded", nil
	}
	argv := []string{"schtasks", "/Query", "/TN", s.Task, "/XML"}
	out, err := s.run(ctx, argv[0], argv[1:]...)
	if err != nil {
		return "", s.failed(argv, out, err)
	}
	if taskDisabled(decodeOutput(out)) {
		return "disabled", nil
	}
	return "enabled", nil
}

// StartCommand is the command a user runs to start the installed service
// now, and StopCommand the one that stops it (for `service status`).
func (s Service) StartCommand() string {
	switch s.goos {
	case "linux":
		return "systemctl --user start " + SystemdName
	case "darwin":
		return fmt.Sprintf("launchctl bootstrap gui/%d %s", s.uid, shellQuote(s.Path))
	}
	return s.commandLine([]string{"schtasks", "/Run", "/TN", s.Task})
}

// StopCommand: see [Service.StartCommand].
func (s Service) StopCommand() string {
	switch s.goos {
	case "linux":
		return "systemctl --user stop " + SystemdName
	case "darwin":
		return fmt.Sprintf("launchctl bootout gui/%d/%s", s.uid, LaunchdLabel)
	}
	return s.commandLine([]string{"schtasks", "/End", "/TN", s.Task})
}

// do runs one command and turns its failure into an error quoting the
// command and what it printed.
func (s Service) do(ctx context.Context, name string, args ...string) error {
	out, err := s.run(ctx, name, args...)
	return s.failed(append([]string{name}, args...), out, err)
}

// failed is nil when err is, else the error of argv's run quoting its
// output.
func (s Service) failed(argv []string, out []byte, err error) error {
	if err == nil {
		return nil
	}
	msg := strings.TrimSpace(decodeOutput(out))
	if msg != "" {
		msg = ": " + msg
	}
	return fmt.Errorf("autostart: %s: %v%s", s.commandLine(argv), err, msg)
}

// commandLine shows argv as one would type it on s's system.
func (s Service) commandLine(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		if s.goos == "windows" {
			q[i] = WindowsArg(a)
		} else {
			q[i] = shellQuote(a)
		}
	}
	return strings.Join(q, " ")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
