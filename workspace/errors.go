package workspace

import (
	"errors"
	"fmt"
)

// Error kinds. Every error a [Manager] method returns for a bad request
// wraps one of them (test with errors.Is); its Error text is written for
// API clients (spec ipc.md wording) and may be sent to them as is. Other
// errors (a program that fails to start, say) are internal.
var (
	// ErrNotFound: the surface or workspace does not exist.
	ErrNotFound = errors.New("not found")
	// ErrLimit: a workspace or pane cap would be exceeded.
	ErrLimit = errors.New("limit reached")
	// ErrLastWorkspace: the only workspace cannot be closed.
	ErrLastWorkspace = errors.New("cannot close last workspace")
	// ErrInvalid: a parameter is malformed (a cwd that is not a
	// directory, an empty name, a bad size, an empty layout).
	ErrInvalid = errors.New("invalid argument")
	// ErrClosed: the manager was closed.
	ErrClosed = errors.New("workspace manager closed")
)

// Error is a model error with a client-facing message. Kind is one of the
// Err* kinds above.
type Error struct {
	Kind error
	Msg  string
}

// Error returns the client-facing message.
func (e *Error) Error() string { return e.Msg }

// Unwrap returns the kind, so errors.Is(err, ErrNotFound) works.
func (e *Error) Unwrap() error { return e.Kind }

func errorf(kind error, format string, args ...any) error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// Client-facing messages shared by several methods (spec ipc.md §6).
const (
	msgSurfaceNotFound   = "Surface not found"
	msgIndexOutOfBounds  = "Index out of bounds"
	msgWorkspaceLimit    = "Workspace limit reached"
	msgLastWorkspace     = "Cannot close last workspace"
	msgMaxPanes          = "Maximum pane count reached"
	msgNoActiveWorkspace = "No active workspace"
)
