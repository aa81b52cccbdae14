package mcpinstall

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/paneflow-go/paneflow/internal/atomicfile"
	"github.com/paneflow-go/paneflow/internal/userdir"
)

// BridgeBinary is the bridge's file name on goos.
func BridgeBinary(goos string) string {
	if goos == "windows" {
		return "paneflow-mcp.exe"
	}
	return "paneflow-mcp"
}

// BridgePath returns the stable, version-independent path the agents'
// entries run: <data dir>/paneflow/bin/paneflow-mcp, the data dir being
// $XDG_DATA_HOME or ~/.local/share on Linux and the BSDs,
// ~/Library/Application Support on macOS, %LOCALAPPDATA% on Windows.
func BridgePath(getenv func(string) string, goos string) (string, error) {
	base, err := userdir.Base(userdir.Data, getenv, goos)
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "paneflow", "bin", BridgeBinary(goos)), nil
}

// FindBridge finds the paneflow-mcp shipped with the paneflow whose
// executable is exe: $PANEFLOW_MCP_BIN when set, else next to exe, else
// next to the file exe links to. "" when there is none.
func FindBridge(exe string, getenv func(string) string, goos string) string {
	if p := getenv("PANEFLOW_MCP_BIN"); p != "" {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	dirs := []string{filepath.Dir(exe)}
	if real, err := filepath.EvalSymlinks(exe); err == nil && filepath.Dir(real) != dirs[0] {
		dirs = append(dirs, filepath.Dir(real))
	}
	for _, d := range dirs {
		p := filepath.Join(d, BridgeBinary(goos))
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// EnsureBridge makes dst a copy of src, rewriting it (atomically) only
// when their SHA-256 differ, and reports whether it wrote.
func EnsureBridge(src, dst string) (bool, error) {
	want, err := sum(src)
	if err != nil {
		return false, fmt.Errorf("reading the bridge %s: %w", src, err)
	}
	if have, err := sum(dst); err == nil && bytes.Equal(have, want) {
		return false, nil
	}
	in, err := os.Open(src)
	if err != nil {
		return false, err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return false, err
	}
	if err := atomicfile.Write(dst, in, 0o755); err != nil {
		return false, fmt.Errorf("installing the bridge at %s: %w", dst, err)
	}
	return true, nil
}

// sum returns the SHA-256 of a file.
func sum(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}
