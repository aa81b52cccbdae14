//go:build windows

package ipc

// defaultPipe is the Windows endpoint: a named pipe, with no fallback chain.
const defaultPipe = `\\.\pipe\paneflow`

// defaultSocketPath returns the named pipe; Windows has no directory chain.
func defaultSocketPath(func(string) string) (string, error) {
	return defaultPipe, nil
}

// checkSocketPathLen does nothing: pipe names have no sun_path limit.
func checkSocketPathLen(string) error { return nil }
