package autostart

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/paneflow-go/paneflow/internal/atomicfile"
)

// Marker is in every file this package writes: a file without it is the
// user's own.
const Marker = "Written by `paneflow service install`"

// ErrUnsupported is returned on a system with no service manager this
// package knows.
var ErrUnsupported = errors.New("autostart: no per-user service on this system yet (systemd on Linux, launchd on macOS)")

// ErrNotOurs is returned (wrapped, with the path) for a file at the
// service's path that this package did not write.
var ErrNotOurs = errors.New("was not written by Paneflow; leaving it alone")

// Service describes the per-user service on one system. Create it with
// [For]; the zero value is not usable.
type Service struct {
	// Path is the unit or plist file.
	Path string
	// Content is the file's text.
	Content []byte
	// Enable is the command that starts the service now and at each
	// login; Disable the one that stops it for good (run before
	// uninstalling).
	Enable, Disable string
	// Dirs are directories Install creates besides the file's (launchd's
	// log directory: launchd does not create it).
	Dirs []string
}

// Options says what the service runs and where its file goes.
type Options struct {
	// Exe is the absolute path of the paneflow binary to run with
	// `serve`. Required.
	Exe string
	// Socket, when not "", is passed as `serve --socket`.
	Socket string
	// Home is the user's home directory; required.
	Home string
	// ConfigHome is $XDG_CONFIG_HOME ("": Home/.config); Linux only.
	ConfigHome string
	// GOOS is the system ("linux", "darwin", ...).
	GOOS string
}

// For returns the service for o.GOOS: systemd on Linux (and the other
// systems with systemd's layout are not assumed), launchd on macOS,
// [ErrUnsupported] elsewhere. A relative Exe or Home is an error.
func For(o Options) (Service, error) {
	if !filepath.IsAbs(o.Exe) {
		return Service{}, fmt.Errorf("autostart: the program path %q is not absolute", o.Exe)
	}
	if !filepath.IsAbs(o.Home) {
		return Service{}, fmt.Errorf("autostart: the home directory %q is not absolute", o.Home)
	}
	args := []string{o.Exe, "serve"}
	if o.Socket != "" {
		args = append(args, "--socket", o.Socket)
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
		return Service{Path: filepath.Join(dir, "systemd", "user", SystemdName), Content: content,
			Enable:  "systemctl --user daemon-reload && systemctl --user enable --now " + SystemdName,
			Disable: "systemctl --user disable --now " + SystemdName}, nil
	case "darwin":
		logs := filepath.Join(o.Home, "Library", "Logs", "Paneflow", "server.log")
		path := filepath.Join(o.Home, "Library", "LaunchAgents", LaunchdLabel+".plist")
		return Service{Path: path, Content: LaunchdPlist(args, logs),
			Enable:  "launchctl bootstrap gui/$(id -u) " + shellQuote(path),
			Disable: "launchctl bootout gui/$(id -u)/" + LaunchdLabel, Dirs: []string{filepath.Dir(logs)}}, nil
	}
	return Service{}, ErrUnsupported
}

// Installed reports whether s's file is there and ours; a file there
// that is not ours is an error wrapping [ErrNotOurs].
func (s Service) Installed() (bool, error) {
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

// Install writes s's file atomically, creating its directory; it replaces
// only a file of ours (an older install), and reports whether the file
// changed.
func (s Service) Install() (changed bool, err error) {
	ours, err := s.Installed()
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

// Uninstall removes s's file when it is ours and reports whether there
// was one; the user's own file is left, with an error.
func (s Service) Uninstall() (removed bool, err error) {
	ours, err := s.Installed()
	if err != nil || !ours {
		return false, err
	}
	if err := os.Remove(s.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("autostart: %w", err)
	}
	return true, nil
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
