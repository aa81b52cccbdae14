package ipc

import (
	"os"
	"path/filepath"
)

// EnvSocketPath names the environment variable that overrides the
// endpoint on every OS when it holds an absolute path.
const EnvSocketPath = "PANEFLOW_SOCKET_PATH"

// MaxSocketPath is the Unix socket path length, in bytes, from which the
// server refuses to serve: macOS's sun_path holds 104 bytes including the
// terminating NUL, and the same guard is used on every Unix so a path that
// works on one works on all.
const MaxSocketPath = 104

// socketSubpath is the file under the chosen runtime directory.
const socketDirName, socketFileName = "paneflow", "paneflow.sock"

// ServerSocketPath returns the endpoint the server listens on (spec ipc.md
// §1). An absolute $PANEFLOW_SOCKET_PATH wins on every OS (a relative one
// is ignored). Otherwise, on Unix, the first of $XDG_RUNTIME_DIR, $TMPDIR
// and the user cache dir's "run" subdirectory that is set (and absolute)
// gets "paneflow/paneflow.sock"; on Windows the endpoint is the named pipe
// \\.\pipe\paneflow. On Unix a path of [MaxSocketPath] bytes or more is an
// error: the server does not fall back to a shorter directory.
//
// getenv looks the variables up; nil means [os.Getenv].
func ServerSocketPath(getenv func(string) string) (string, error) {
	p, err := resolveSocketPath(getenv)
	if err != nil {
		return "", err
	}
	if err := checkSocketPathLen(p); err != nil {
		return "", err
	}
	return p, nil
}

// ClientSocketPath returns the endpoint clients dial: the same resolution
// as [ServerSocketPath] without the length guard, so a client reports the
// server as unreachable at the real path rather than refusing to try.
//
// getenv looks the variables up; nil means [os.Getenv].
func ClientSocketPath(getenv func(string) string) (string, error) {
	return resolveSocketPath(getenv)
}

func resolveSocketPath(getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if p := getenv(EnvSocketPath); p != "" && filepath.IsAbs(p) {
		return p, nil
	}
	return defaultSocketPath(getenv)
}

// socketPathIn returns <dir>/paneflow/paneflow.sock.
func socketPathIn(dir string) string {
	return filepath.Join(dir, socketDirName, socketFileName)
}
