// Package artifact is where an agent's final answer is kept for the
// orchestration tools: $XDG_DATA_HOME/paneflow/artifacts/<workspace>/<pane>/output.json
// (~/.local/share when XDG_DATA_HOME is unset; ~/Library/Application Support
// on macOS; %LOCALAPPDATA% on Windows). The hook binary writes it when an
// agent's turn ends (its Stop/turn-end payload carries the answer); an
// agent without hooks may write it itself, told so in its task; the core
// serves it (artifact.get) and removes it with its pane unless it is kept.
//
// Functions here are stateless and safe for concurrent use; a file is
// replaced atomically, so a reader sees the old answer or the new one.
package artifact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/paneflow-go/paneflow/internal/atomicfile"
)

// MaxOutput bounds the answer kept in a file (bytes); a longer one is cut
// at a rune boundary and marked Truncated.
const MaxOutput = 1 << 20

// FileName is the artifact's file in its pane's directory.
const FileName = "output.json"

// Artifact is the content of output.json. The zero value is an empty
// answer.
type Artifact struct {
	// Output is the agent's final answer (untrusted text).
	Output string `json:"output"`
	// Truncated is true when Output was cut to MaxOutput.
	Truncated bool `json:"truncated,omitempty"`
	// Tool is the agent that wrote it ("claude", …; "" when unknown).
	Tool string `json:"tool,omitempty"`
	// WorkspaceID and SurfaceID are the pane's ids.
	WorkspaceID uint64 `json:"workspace_id"`
	SurfaceID   uint64 `json:"surface_id"`
	// WrittenAt is when it was written (RFC 3339, UTC).
	WrittenAt string `json:"written_at,omitempty"`
}

// Root returns the directory holding every pane's artifacts for the
// environment getenv reads, on goos.
func Root(getenv func(string) string, goos string) (string, error) {
	var base string
	switch goos {
	case "windows":
		if base = getenv("LOCALAPPDATA"); base == "" {
			return "", errors.New("%LOCALAPPDATA% is not set")
		}
	case "darwin":
		home := getenv("HOME")
		if home == "" {
			return "", errors.New("$HOME is not set")
		}
		base = filepath.Join(home, "Library", "Application Support")
	default:
		base = getenv("XDG_DATA_HOME")
		if !filepath.IsAbs(base) {
			home := getenv("HOME")
			if home == "" {
				return "", errors.New("neither $XDG_DATA_HOME nor $HOME is set")
			}
			base = filepath.Join(home, ".local", "share")
		}
	}
	return filepath.Join(base, "paneflow", "artifacts"), nil
}

// Dir is the directory of one pane's artifact under root.
func Dir(root string, workspace, surface uint64) string {
	return filepath.Join(root, strconv.FormatUint(workspace, 10), strconv.FormatUint(surface, 10))
}

// Path is one pane's output.json under root.
func Path(root string, workspace, surface uint64) string {
	return filepath.Join(Dir(root, workspace, surface), FileName)
}

// Cut returns s cut to at most max bytes at a rune boundary, and whether
// it was cut.
func Cut(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i], true
}

// Write stores a as the artifact of its pane (a.WorkspaceID, a.SurfaceID)
// under root, cutting Output to MaxOutput and stamping WrittenAt with now
// when it is empty.
func Write(root string, a Artifact, now time.Time) error {
	if a.WorkspaceID == 0 || a.SurfaceID == 0 {
		return errors.New("artifact: workspace and surface ids are needed")
	}
	var cut bool
	a.Output, cut = Cut(a.Output, MaxOutput)
	a.Truncated = a.Truncated || cut
	if a.WrittenAt == "" {
		a.WrittenAt = now.UTC().Format(time.RFC3339Nano)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(a); err != nil {
		return err
	}
	dir := Dir(root, a.WorkspaceID, a.SurfaceID)
	// Remove and Keep, in the server, delete a workspace's directory once
	// it is empty, which races with this creating it for another pane of
	// that workspace (a hook runs in its own process): the directory can
	// vanish between MkdirAll's steps or before the file is written. Once
	// the pane's directory exists the workspace's is no longer empty, so
	// making it again settles it; a bounded number of rounds.
	var err error
	for range 3 {
		if err = os.MkdirAll(dir, 0o700); err == nil {
			if err = atomicfile.Write(filepath.Join(dir, FileName), bytes.NewReader(buf.Bytes()), 0o600); err == nil {
				return nil
			}
		}
		if !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	return fmt.Errorf("artifact: %w", err)
}

// Read returns the artifact at path. A file an agent wrote itself may be
// any JSON object with an "output" string, or plain text (then all of it
// is the output).
func Read(path string) (Artifact, error) {
	f, err := os.Open(path)
	if err != nil {
		return Artifact{}, err
	}
	defer f.Close()
	data, err := readAtMost(f, MaxOutput*2)
	if err != nil {
		return Artifact{}, err
	}
	var a Artifact
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' && json.Unmarshal(t, &a) == nil {
		return a, nil
	}
	a = Artifact{}
	a.Output, a.Truncated = Cut(string(data), MaxOutput)
	return a, nil
}

// readAtMost reads f up to max bytes.
func readAtMost(f *os.File, max int64) ([]byte, error) {
	var buf bytes.Buffer
	_, err := buf.ReadFrom(io.LimitReader(f, max))
	return buf.Bytes(), err
}

// KeptDir is the directory, under root, that kept artifacts move to when
// their pane closes: kept/<workspace>-<pane>-<unix nanoseconds>/output.json.
const KeptDir = "kept"

// Remove deletes one pane's artifact directory, and its workspace's
// directory when that is left empty. A missing directory is not an error.
func Remove(root string, workspace, surface uint64) error {
	dir := Dir(root, workspace, surface)
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	os.Remove(filepath.Dir(dir)) // only when empty
	return nil
}

// Keep moves one pane's artifact directory to KeptDir (its pane ids are
// reused by the next Paneflow run) and returns the new directory; "" when
// there was nothing to keep.
func Keep(root string, workspace, surface uint64, now time.Time) (string, error) {
	dir := Dir(root, workspace, surface)
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	dst := filepath.Join(root, KeptDir, fmt.Sprintf("%d-%d-%d", workspace, surface, now.UnixNano()))
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return "", err
	}
	if err := os.Rename(dir, dst); err != nil {
		return "", err
	}
	os.Remove(filepath.Dir(dir))
	return dst, nil
}
