package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// MaxFileSize is the largest session file Load reads (64 MiB).
const MaxFileSize = 64 << 20

// keepCorrupted is how many files moved aside as corrupted are kept.
const keepCorrupted = 5

// corruptedTimeFormat stamps a corrupted file's new name; it sorts in
// time order.
const corruptedTimeFormat = "20060102T150405.000000000Z"

// ErrNewerVersion is returned (wrapped) by Load for a file written in a
// newer format than this build knows.
var ErrNewerVersion = errors.New("session file written by a newer Paneflow")

// Load reads the session file at path. A missing file gives an error
// wrapping os.ErrNotExist (test with errors.Is(err, fs.ErrNotExist)). A
// file larger than MaxFileSize is refused. A file that does not decode as
// a session (bad JSON, an unknown layout node, a missing version) is
// renamed to <path>.corrupted-<UTC time>, keeping the newest five such
// files, and the error says where it went. A file in a newer format than
// this build reads is renamed to <path>.version<N> (so that saving this
// session does not destroy it; a later one of the same version replaces
// it) and the error wraps ErrNewerVersion.
func Load(path string) (Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return Session{}, fmt.Errorf("session: %w", err)
	}
	if fi, err := f.Stat(); err == nil && fi.Size() > MaxFileSize {
		f.Close()
		return Session{}, fmt.Errorf("session: %s is larger than %d MiB; not read", path, MaxFileSize>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	f.Close()
	if err != nil {
		return Session{}, fmt.Errorf("session: read %s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return Session{}, fmt.Errorf("session: %s is larger than %d MiB; not read", path, MaxFileSize>>20)
	}
	var s Session
	dec := json.NewDecoder(bytes.NewReader(data))
	err = dec.Decode(&s)
	if err == nil && dec.More() {
		err = errors.New("data after the session object")
	}
	if err == nil {
		switch {
		case s.Version > Version:
			kept := fmt.Sprintf("%s.version%d", path, s.Version)
			if err := os.Rename(path, kept); err != nil {
				return Session{}, fmt.Errorf("session: %s: %w (format %d, this build reads %d); could not move it aside: %v", path, ErrNewerVersion, s.Version, Version, err)
			}
			return Session{}, fmt.Errorf("session: %s: %w (format %d, this build reads %d); moved it to %s", path, ErrNewerVersion, s.Version, Version, kept)
		case s.Version < 1:
			err = fmt.Errorf("missing or invalid version %d", s.Version)
		}
	}
	if err != nil {
		aside, mvErr := moveAside(path)
		if mvErr != nil {
			return Session{}, fmt.Errorf("session: %s is corrupt (%v) and could not be moved aside: %v", path, err, mvErr)
		}
		return Session{}, fmt.Errorf("session: %s was corrupt (%v); moved it to %s", path, err, aside)
	}
	return s, nil
}

// moveAside renames a corrupt file to <path>.corrupted-<UTC time> and
// deletes the oldest such files beyond keepCorrupted.
func moveAside(path string) (string, error) {
	aside := path + ".corrupted-" + time.Now().UTC().Format(corruptedTimeFormat)
	if err := os.Rename(path, aside); err != nil {
		return "", err
	}
	dir, prefix := filepath.Dir(path), filepath.Base(path)+".corrupted-"
	entries, err := os.ReadDir(dir)
	if err != nil {
		return aside, nil // pruning is best effort
	}
	var old []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) && e.Type().IsRegular() {
			old = append(old, e.Name())
		}
	}
	sort.Strings(old) // time order: the stamp sorts
	for len(old) > keepCorrupted {
		os.Remove(filepath.Join(dir, old[0]))
		old = old[1:]
	}
	return aside, nil
}

// tempFile is what Save writes through; tests inject one that fails.
type tempFile interface {
	io.Writer
	Sync() error
	Close() error
	Name() string
}

// createTemp creates Save's temporary file; a variable so tests can make
// writes fail as on a full disk.
var createTemp = func(dir, pattern string) (tempFile, error) {
	return os.CreateTemp(dir, pattern)
}

// Save writes s to path atomically: the JSON goes to a temporary file in
// the same directory (created 0600; the directory is created 0700 when
// missing), which is synced and then renamed over path. On any error
// (a full disk, a read-only directory) the temporary file is removed and
// the previous file at path is left as it was. Save sets s.Version to
// [Version] in what it writes.
func Save(path string, s Session) error {
	s.Version = Version
	if s.Workspaces == nil {
		s.Workspaces = []Workspace{}
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("session: encode: %w", err)
	}
	data = append(data, '\n')
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("session: save: %w", err)
	}
	f, err := createTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("session: save: %w", err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("session: save %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("session: save %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("session: save %s: %w", path, err)
	}
	syncDir(dir)
	return nil
}

// syncDir flushes a directory entry change to disk where the system
// allows it (best effort: not all systems can sync a directory).
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}
