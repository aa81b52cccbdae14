package teams

import "errors"

// ErrGone is what a [Host] returns (wrapped or not) for a pane that does
// not exist or was closed.
var ErrGone = errors.New("teams: pane not found")

// Spec describes a pane to start.
type Spec struct {
	// Name is the pane's name ("" means an automatic one).
	Name string
	// Cwd is the working directory ("" means the host's default).
	Cwd string
	// Argv is the program and its arguments, run without a shell; nil
	// runs the user's interactive shell.
	Argv []string
	// Env is added to the pane's environment (the host keeps its own
	// protected variables).
	Env map[string]string
}

// PaneInfo is what the registry reads about a pane.
type PaneInfo struct {
	// Workspace is the id of the workspace (tmux window) holding it.
	Workspace uint64
	// Name is the pane's custom name ("" for an automatic one).
	Name string
	// Pid is the pane's process id (0 before it started or after it
	// ended).
	Pid int
	// Dead reports that the program ended, with ExitCode.
	Dead     bool
	ExitCode int
	// X, Y, W, H are its place in the workspace as fractions (0..1);
	// Cols and Rows its size in cells.
	X, Y, W, H float64
	Cols, Rows int
}

// Window is a workspace as the registry sees it.
type Window struct {
	ID    uint64
	Index int
	Title string
	// Panes are its panes' surface ids in layout order.
	Panes []uint64
}

// Text is a pane's text for capture: the newest lines of its scrollback
// (oldest first) and its screen rows, right-trimmed.
type Text struct {
	History []string
	Screen  []string
	Cols    int
}

// Host is what the registry needs from the workspace model (core adapts
// workspace.Manager). Pane ids are surface ids. Methods must be safe for
// concurrent use; the registry calls them under its own lock, so a Host
// must never call back into the registry.
type Host interface {
	// Split starts a pane next to target: side by side when sideBySide
	// (tmux -h), else stacked below (tmux -v). It returns the new id.
	Split(target uint64, sideBySide bool, spec Spec) (uint64, error)
	// Replace starts spec in a new pane that takes id's place and closes
	// id (respawn-pane -k); it returns the new id.
	Replace(id uint64, spec Spec) (uint64, error)
	// Close closes the pane, killing its program.
	Close(id uint64) error
	// Input queues bytes for the pane's program.
	Input(id uint64, b []byte) error
	// Text returns up to history lines of scrollback and the screen.
	Text(id uint64, history int) (Text, bool)
	// Pane describes an open pane.
	Pane(id uint64) (PaneInfo, bool)
	// Window describes the workspace with id ws.
	Window(ws uint64) (Window, bool)
	// Windows lists every workspace in order.
	Windows() []Window
	// Command returns the pane's foreground command and directory (""
	// when unknown); it may read the process table, so the registry asks
	// only when a format needs them.
	Command(id uint64) (cmd, cwd string)
	// Rename sets the pane's name.
	Rename(id uint64, name string) error
	// Focus makes the pane the focused one of its workspace (tmux's
	// active pane of its window) without switching workspaces.
	Focus(id uint64) error
	// SetShare gives the pane the fraction share of the nearest split
	// around it in that orientation; EqualizeAround evens that split.
	SetShare(id uint64, sideBySide bool, share float64) error
	EqualizeAround(id uint64, sideBySide bool) error
	// Tap calls f with each chunk of the pane's raw output (f copies and
	// never blocks) until remove is called; ok is false for an unknown
	// pane.
	Tap(id uint64, f func([]byte)) (remove func(), ok bool)
	// Done returns a channel closed when the pane's program ended (also
	// when the pane was closed, which kills it) and a function giving
	// its exit code once it did; ok is false for an unknown pane.
	Done(id uint64) (done <-chan struct{}, code func() int, ok bool)
}
