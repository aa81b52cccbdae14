package session

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/paneflow-go/paneflow/internal/userdir"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/workspace"
)

// Version is the session file format written by [Save] and read by
// [Load].
const Version = 1

// FileName is the session file's name inside its directory.
const FileName = "session.json"

// Session is what is saved: the workspaces in order and which one is
// active. The zero value is an empty session (Version 0, which [Save]
// sets to [Version]).
type Session struct {
	// Version is the file format, [Version].
	Version int `json:"version"`
	// Active is the index in Workspaces of the active workspace.
	Active int `json:"active"`
	// Workspaces are the workspaces in sidebar order.
	Workspaces []Workspace `json:"workspaces"`
}

// Workspace is one saved workspace.
type Workspace struct {
	// Title is the sidebar title.
	Title string `json:"title"`
	// Cwd is the workspace's directory (new panes' default).
	Cwd string `json:"cwd"`
	// Layout is the layout tree. Each pane has one surface definition
	// carrying its CustomName ("" for an automatic name), Cwd (its live
	// directory when saved), Command (the command it was started with,
	// "" for a shell), Env (the variables it was started with) and
	// Focus (the workspace's focused pane). A workspace that had no pane
	// has a zero Layout, restored as one shell.
	Layout workspace.LayoutNode `json:"layout"`
	// Panes is what the server knew of each pane beyond its layout
	// definition, in the layout's depth-first pane order; nil when it
	// knew nothing (and in files written before it existed).
	Panes []Pane `json:"panes,omitempty"`
}

// Pane is what a session keeps of one pane beyond its layout definition:
// the agent it ran, to resume it in its own conversation, the managed
// worktree it runs in, so that the restored pane owns it again, and its
// screen history on disk, so that the restored pane searches it again.
// The zero value is a pane with none of them.
type Pane struct {
	// Agent is the wire tool id (binary name) of the agent the pane ran
	// when saved, e.g. "claude"; "" for none.
	Agent string `json:"agent,omitempty"`
	// AgentSession is that agent's own session id, from its hooks; ""
	// when it reported none.
	AgentSession string `json:"agent_session,omitempty"`
	// Worktree is the managed worktree the pane was adopted into (see
	// workspace.up's managed_worktree), nil for none.
	Worktree *proto.ManagedWorktree `json:"worktree,omitempty"`
	// History is the key of the pane's screen history on disk
	// (workspace.Surface.HistoryKey), "" for none: the restored pane
	// reads it again (workspace.Surface.AdoptHistory).
	History string `json:"history,omitempty"`
}

// zero reports whether p holds nothing.
func (p Pane) zero() bool {
	return p.Agent == "" && p.AgentSession == "" && p.Worktree == nil && p.History == ""
}

// Path returns the session file's path for goos: on Linux and other Unix
// systems $XDG_STATE_HOME/paneflow/session.json (an absolute
// XDG_STATE_HOME only, else ~/.local/state/paneflow/session.json), on
// macOS ~/Library/Application Support/paneflow/session.json, on Windows
// %LOCALAPPDATA%\paneflow\session.json.
func Path(getenv func(string) string, goos string) (string, error) {
	base, err := userdir.Base(userdir.State, getenv, goos)
	if err != nil {
		return "", fmt.Errorf("session: %w", err)
	}
	return filepath.Join(base, "paneflow", FileName), nil
}

// ServerPath returns the session file of the server listening on
// socketPath: [Path]'s file for the user's default socket
// (defaultSocket), else session-<12 hex digits of the SHA-256 of
// socketPath>.json beside it, so servers on other sockets (tests, a
// second server) never restore each other's panes, and a server started
// again on its socket finds its own.
func ServerPath(getenv func(string) string, goos, socketPath, defaultSocket string) (string, error) {
	p, err := Path(getenv, goos)
	if err != nil || filepath.Clean(socketPath) == filepath.Clean(defaultSocket) {
		return p, err
	}
	sum := sha256.Sum256([]byte(filepath.Clean(socketPath)))
	return filepath.Join(filepath.Dir(p), fmt.Sprintf("session-%x.json", sum[:6])), nil
}

// Capture reads the manager's workspaces into a Session. It reads each
// pane's live directory (see workspace.Manager.Layout), so it takes a
// little time per pane; it holds no lock of its own. Surface ids and
// titles are not kept.
func Capture(m *workspace.Manager) Session { return CaptureWith(m, nil) }

// CaptureWith is [Capture] that also asks paneOf, when not nil, what to
// keep of each pane beyond its layout (by surface id): its agent and
// worktree. A workspace whose panes all have a zero [Pane] gets no Panes.
func CaptureWith(m *workspace.Manager, paneOf func(surfaceID uint64) Pane) Session {
	s := Session{Version: Version}
	for i := 0; ; i++ {
		info, l, ok := m.Layout(i)
		if !ok {
			break
		}
		w := Workspace{Title: info.Title, Cwd: info.Cwd}
		if l != nil {
			var panes []Pane
			some := false
			l.EachSurface(func(d *workspace.SurfaceDefinition) {
				var p Pane
				if paneOf != nil {
					p = paneOf(d.SurfaceID)
				}
				some = some || !p.zero()
				panes = append(panes, p)
				*d = workspace.SurfaceDefinition{
					SurfaceType: d.SurfaceType, CustomName: d.CustomName,
					Cwd: d.Cwd, Command: d.Command, Env: d.Env, Focus: d.Focus,
				}
			})
			w.Layout = *l
			if some {
				w.Panes = panes
			}
		}
		if info.Active {
			s.Active = len(s.Workspaces)
		}
		s.Workspaces = append(s.Workspaces, w)
	}
	return s
}

// Restore recreates the session's workspaces in m, after any it already
// has: each with its title, directory, layout shape and ratios, pane
// names, and panes started fresh in their saved directories (a shell, or
// the pane's original command). A directory that no longer exists falls
// back to the workspace's, then to the home directory, with a warning. Then the saved
// active workspace becomes the active one; each workspace's saved focused
// pane is its focused pane.
//
// Problems with single workspaces (a cap reached, a program that fails
// to start) are warnings and the rest is restored; err is non-nil only
// when the session had workspaces and none could be restored.
//
// Agents are not resumed (see [RestoreWith]).
func Restore(m *workspace.Manager, s Session) (warnings []string, err error) {
	return RestoreWith(m, s, RestoreOptions{})
}

// RestoreOptions adds to [Restore] what only the server does. The zero
// value restores like Restore.
type RestoreOptions struct {
	// Resume brings each pane's saved agent back in its own conversation
	// (see [Resume]); panes whose agent cannot be resumed say so on
	// their screen.
	Resume bool
	// Restored, when set, is called for each restored pane with a
	// non-zero saved [Pane] (after the pane's workspace was created), so
	// the caller can give the pane its worktree and agent records again.
	Restored func(s *workspace.Surface, p Pane)
}

// RestoreWith is [Restore] with o.
func RestoreWith(m *workspace.Manager, s Session, o RestoreOptions) (warnings []string, err error) {
	warn := func(format string, args ...any) { warnings = append(warnings, fmt.Sprintf(format, args...)) }
	home, _ := os.UserHomeDir() // $HOME on Unix, %USERPROFILE% on Windows
	base := len(m.Workspaces())
	restored := 0
	active := -1
	var lastErr error
	for i, w := range s.Workspaces {
		name := w.Title
		if name == "" {
			name = fmt.Sprintf("#%d", i+1)
		}
		cwd := w.Cwd
		if _, err := m.CanonicalCwd(cwd); cwd == "" || err != nil {
			fallback := home
			if _, err := m.CanonicalCwd(fallback); fallback == "" || err != nil {
				fallback = "" // the manager's default
			}
			if cwd != "" {
				warn("workspace %q: directory %s no longer exists; using %s", name, cwd, orDefault(fallback))
			}
			cwd = fallback
		}
		layout := w.Layout
		layout = withPaneCwds(m, layout, func(paneCwd string) {
			warn("workspace %q: pane directory %s no longer exists; using %s", name, paneCwd, orDefault(cwd))
		})
		var typed, notices []string
		if o.Resume {
			typed, notices = resumeLayout(&layout, w.Panes)
		}
		info, ss, err := m.CreateFromLayout(w.Title, cwd, layout, false)
		if err != nil {
			if errors.Is(err, workspace.ErrClosed) {
				return warnings, fmt.Errorf("session: restore: %w", err)
			}
			warn("workspace %q: %v; not restored", name, err)
			lastErr = err
			continue
		}
		restored++
		for k, sf := range ss {
			if k < len(notices) && notices[k] != "" {
				sf.Terminal().Emulator().Notice([]byte(notices[k]))
			}
			if k < len(typed) && typed[k] != "" {
				typeWhenSettled(sf, typed[k])
			}
			if o.Restored != nil && k < len(w.Panes) && !w.Panes[k].zero() {
				o.Restored(sf, w.Panes[k])
			}
		}
		if i == s.Active {
			active = info.Index
		}
	}
	if restored == 0 && len(s.Workspaces) > 0 {
		return warnings, fmt.Errorf("session: no workspace could be restored: %w", lastErr)
	}
	switch {
	case active >= 0:
		err = m.SelectWorkspace(active)
	case restored > 0 && base == 0:
		err = m.SelectWorkspace(0)
	}
	if err != nil {
		return warnings, fmt.Errorf("session: restore: %w", err)
	}
	return warnings, nil
}

// orDefault names a fallback directory in a warning.
func orDefault(dir string) string {
	if dir == "" {
		return "the default directory"
	}
	return dir
}

// withPaneCwds returns a copy of l in which each pane cwd that no longer
// exists is cleared (so the pane starts in the workspace's directory),
// calling gone for each.
func withPaneCwds(m *workspace.Manager, l workspace.LayoutNode, gone func(string)) workspace.LayoutNode {
	c := l
	if l.Surfaces != nil {
		c.Surfaces = append([]workspace.SurfaceDefinition(nil), l.Surfaces...)
		for i := range c.Surfaces {
			d := &c.Surfaces[i]
			if d.Cwd == "" {
				continue
			}
			if _, err := m.CanonicalCwd(d.Cwd); err != nil {
				gone(d.Cwd)
				d.Cwd = ""
			}
		}
	}
	if l.Children != nil {
		c.Children = make([]workspace.LayoutNode, len(l.Children))
		for i := range l.Children {
			c.Children[i] = withPaneCwds(m, l.Children[i], gone)
		}
	}
	return c
}
