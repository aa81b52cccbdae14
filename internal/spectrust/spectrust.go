// Package spectrust remembers which spec files (the workspace specs of
// `paneflow up`, the flows of `paneflow flow run`, the launch pad's) the
// user agreed to run, as direnv's `allow` and mise's `trust` do: a spec
// that came with a repository runs commands (`command`, `setup`, agents
// with prompts), and cloning a repository is not consent to that.
//
// Trust is given to a spec's exact content: the store keys each spec by
// its absolute, symlink-resolved path and keeps the SHA-256 of the bytes
// that were shown and agreed to ([Hash]). Specs have no include or extends
// mechanism, so those bytes are everything that will run; a mechanism that
// reads another file must add that file's bytes to the hash. A spec whose
// bytes changed is untrusted again ([Changed]) until the user agrees anew.
// Specs under the user's own configuration directory (the launch pad's
// library, <config>/paneflow/) are the user's and need no trust ([Own]).
//
// The store is one JSON file in the state directory,
// $XDG_STATE_HOME/paneflow/trusted-specs.json (see [Default]), mode 0600,
// replaced atomically. The package does not decide when to ask or how:
// the CLI asks on a terminal and the launch pad in a dialog, each showing
// the resolved plan with control characters escaped, and both check
// before anything runs. The check is client-side: the server's socket
// admits only its own user, who could run the commands anyway, so trust
// guards the user against a repository, not against themselves.
//
// # Concurrency
//
// A [Store] is plain data; its methods read or replace the file and are
// safe to call from several goroutines and processes. Two trusts written
// at the same moment may keep only one of them (the last rename wins):
// the other spec is then asked about again, never trusted by mistake.
package spectrust

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/paneflow-go/paneflow/internal/atomicfile"
	"github.com/paneflow-go/paneflow/internal/userdir"
)

// FileName is the store's file name in <state>/paneflow/.
const FileName = "trusted-specs.json"

// Status is what [Store.Check] found for a spec. The zero value is
// Untrusted.
type Status int

const (
	// Untrusted: the spec was never trusted (or trust was withdrawn).
	Untrusted Status = iota
	// Changed: the spec was trusted, but its content differs from what
	// was trusted.
	Changed
	// Trusted: the spec was trusted with exactly this content.
	Trusted
	// Own: the spec lies in the user's own configuration directory.
	Own
)

// OK reports whether a spec of this status may run without asking.
func (s Status) OK() bool { return s == Trusted || s == Own }

func (s Status) String() string {
	switch s {
	case Changed:
		return "changed"
	case Trusted:
		return "trusted"
	case Own:
		return "own"
	}
	return "untrusted"
}

// Entry is one trusted spec.
type Entry struct {
	// Path is the spec's absolute, symlink-resolved path.
	Path string `json:"path"`
	// Hash is [Hash] of the content trusted.
	Hash string `json:"hash"`
	// Trusted is when it was trusted.
	Trusted time.Time `json:"trusted"`
}

// Store is the trust store. The zero value has no file: every method but
// Check fails, and Check finds nothing trusted.
type Store struct {
	// Path is the store's JSON file; its directory is created (0700) on
	// the first trust.
	Path string
	// OwnDir is the user's configuration directory (<config>/paneflow):
	// specs under it are [Own]. "" makes no spec Own.
	OwnDir string
}

// Default returns the user's store: <state>/paneflow/trusted-specs.json,
// with <config>/paneflow as the own directory, the base directories as
// package userdir resolves them for goos through getenv.
func Default(getenv func(string) string, goos string) (Store, error) {
	state, err := userdir.Base(userdir.State, getenv, goos)
	if err != nil {
		return Store{}, fmt.Errorf("spec trust: no state directory: %w", err)
	}
	s := Store{Path: filepath.Join(state, "paneflow", FileName)}
	if cfg, err := userdir.Base(userdir.Config, getenv, goos); err == nil {
		s.OwnDir = filepath.Join(cfg, "paneflow")
	}
	return s, nil
}

// Hash is the identity of a spec's content that trust is given to:
// "sha256:" and the hex SHA-256 of its bytes.
func Hash(content []byte) string {
	sum := sha256.Sum256(content)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Canonical is the key a spec file is trusted under: path made absolute
// and cleaned, with every symlink resolved (the file must exist).
func Canonical(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	return filepath.Clean(real), nil
}

// file is the store's JSON form.
type file struct {
	Version int     `json:"version"`
	Specs   []Entry `json:"specs"`
}

const version = 1

// load reads the store; a missing file is an empty store. A file that is
// not a store is an error naming it and the fix, and is never rewritten.
func (s Store) load() (file, error) {
	f := file{Version: version}
	if s.Path == "" {
		return f, errors.New("spec trust: no store file")
	}
	data, err := os.ReadFile(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("spec trust: %v", err)
	}
	if err := json.Unmarshal(data, &f); err != nil || f.Version != version {
		why := "unknown version"
		if err != nil {
			why = err.Error()
		}
		return f, fmt.Errorf("spec trust: %s is not a trust store this paneflow reads (%s); move it aside to start an empty one", s.Path, why)
	}
	return f, nil
}

// save replaces the store atomically, sorted by path.
func (s Store) save(f file) error {
	sort.Slice(f.Specs, func(i, j int) bool { return f.Specs[i].Path < f.Specs[j].Path })
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return fmt.Errorf("spec trust: %v", err)
	}
	if err := atomicfile.Write(s.Path, bytes.NewReader(append(data, '\n')), 0o600); err != nil {
		return fmt.Errorf("spec trust: write %s: %v", s.Path, err)
	}
	return nil
}

// own reports whether the canonical path lies under the own directory.
func (s Store) own(path string) bool {
	if s.OwnDir == "" {
		return false
	}
	dir := filepath.Clean(s.OwnDir)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Check reports whether the spec at path (any form; it is made
// [Canonical]) with this content may run. An error (an unreadable store,
// a path that cannot be resolved) comes with Untrusted: callers refuse.
func (s Store) Check(path string, content []byte) (Status, error) {
	p, err := Canonical(path)
	if err != nil {
		return Untrusted, fmt.Errorf("spec trust: %v", err)
	}
	if s.own(p) {
		return Own, nil
	}
	f, err := s.load()
	if err != nil {
		return Untrusted, err
	}
	h := Hash(content)
	for _, e := range f.Specs {
		if e.Path == p {
			if e.Hash == h {
				return Trusted, nil
			}
			return Changed, nil
		}
	}
	return Untrusted, nil
}

// Trust records that the spec at path may run with this content (the
// bytes the user was shown), replacing what was trusted for it before. It
// returns the entry written.
func (s Store) Trust(path string, content []byte) (Entry, error) {
	p, err := Canonical(path)
	if err != nil {
		return Entry{}, fmt.Errorf("spec trust: %v", err)
	}
	f, err := s.load()
	if err != nil {
		return Entry{}, err
	}
	e := Entry{Path: p, Hash: Hash(content), Trusted: time.Now().UTC().Truncate(time.Second)}
	f.Specs = slices.DeleteFunc(f.Specs, func(x Entry) bool { return x.Path == p })
	f.Specs = append(f.Specs, e)
	return e, s.save(f)
}

// Untrust withdraws the trust of the spec at path and reports whether it
// had any. A path that no longer exists is looked up as given, made
// absolute.
func (s Store) Untrust(path string) (bool, error) {
	p, err := Canonical(path)
	if err != nil {
		if p, err = filepath.Abs(path); err != nil {
			return false, err
		}
	}
	f, err := s.load()
	if err != nil {
		return false, err
	}
	n := len(f.Specs)
	f.Specs = slices.DeleteFunc(f.Specs, func(x Entry) bool { return x.Path == p })
	if len(f.Specs) == n {
		return false, nil
	}
	return true, s.save(f)
}

// List returns every trusted spec, sorted by path.
func (s Store) List() ([]Entry, error) {
	f, err := s.load()
	if err != nil {
		return nil, err
	}
	sort.Slice(f.Specs, func(i, j int) bool { return f.Specs[i].Path < f.Specs[j].Path })
	return f.Specs, nil
}
