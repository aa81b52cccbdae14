// Package specfind finds the workspace and flow specs a user can launch,
// remembers the recently used ones, and reads and resolves one into the
// plan a dry run shows: what the window's launch pad lists and shows,
// without any of its widgets (it imports no Fyne).
//
// A spec is a TOML file: a workspace (`paneflow up`) or a flow (`paneflow
// flow run`). [Discover] lists them from three places: the recently used
// ones, those named like specs in a directory and each one above it, and
// the user's library (<config dir>/paneflow/workspaces/, see
// [LibraryDir]). [Resolve] reads one (at most [MaxSize] bytes), parses and
// resolves it with no side effect but git's read-only worktree planning.
// Whether a spec may run is not decided here: see package spectrust.
//
// # Concurrency
//
// The package has no state; its functions may be called from any
// goroutine. A [Resolved] is plain data, owned by its caller.
package specfind

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/paneflow-go/paneflow/config"
	"github.com/paneflow-go/paneflow/flow"
	"github.com/paneflow-go/paneflow/internal/atomicfile"
	"github.com/paneflow-go/paneflow/internal/flowgit"
)

// Spec kinds.
const (
	KindWorkspace = "workspace" // paneflow up
	KindFlow      = "flow"      // paneflow flow run
)

// Where [Discover] found a spec ([Entry.Origin]). OriginOpened is the
// caller's, for a file the user picked.
const (
	OriginRecent  = "recent"
	OriginProject = "project"
	OriginLibrary = "library"
	OriginOpened  = "opened"
)

// MaxSize bounds a spec file the package reads.
const MaxSize = 1 << 20

// MaxRecent is how many recently used spec files [NoteRecent] keeps.
const MaxRecent = 20

// Entry is one spec file. The zero value is no spec.
type Entry struct {
	Path   string // absolute
	Kind   string // KindWorkspace or KindFlow
	Origin string // OriginRecent, OriginProject, …
}

// KindByName tells a spec's kind from its file name: flow.toml and
// *.flow.toml are flows, paneflow.workspace.toml and *.workspace.toml
// workspaces; "" for any other name.
func KindByName(name string) string {
	switch {
	case name == "flow.toml" || strings.HasSuffix(name, ".flow.toml"):
		return KindFlow
	case strings.HasSuffix(name, ".workspace.toml"):
		return KindWorkspace
	}
	return ""
}

// Kind is the kind of the spec at path: by its name ([KindByName]), else
// by its text: a [[step]] table makes it a flow, anything else (an
// unreadable file included) a workspace.
func Kind(path string) string {
	if k := KindByName(filepath.Base(path)); k != "" {
		return k
	}
	f, err := os.Open(path)
	if err != nil {
		return KindWorkspace
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, MaxSize))
	sc.Buffer(make([]byte, 0, 4096), MaxSize)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "[[") && strings.TrimSpace(strings.Trim(l, "[] ")) == "step" {
			return KindFlow
		}
	}
	return KindWorkspace
}

// isRegular reports whether path is a regular file (symlinks followed).
func isRegular(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// maxParents bounds how many directories above cwd [Discover] reads.
const maxParents = 64

// Discover lists the spec files to offer: the recently used ones that
// still exist, then those named like specs in cwd and each directory
// above it (nearest first), then every .toml file of library. A file is
// listed once, under the first place it was found. It reads directories
// and, for files whose name does not tell their kind, their text. An
// empty or relative cwd and an empty library are skipped.
func Discover(cwd, library string, recent []string) []Entry {
	var out []Entry
	seen := map[string]bool{}
	add := func(p, kind, origin string) {
		if seen[p] {
			return
		}
		seen[p] = true
		out = append(out, Entry{Path: p, Kind: kind, Origin: origin})
	}
	for _, p := range recent {
		if isRegular(p) {
			add(p, Kind(p), OriginRecent)
		}
	}
	if cwd != "" && filepath.IsAbs(cwd) {
		for d, n := filepath.Clean(cwd), 0; n < maxParents; n++ {
			ents, _ := os.ReadDir(d)
			for _, e := range ents {
				if k := KindByName(e.Name()); k != "" && !e.IsDir() {
					if p := filepath.Join(d, e.Name()); isRegular(p) {
						add(p, k, OriginProject)
					}
				}
			}
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			d = parent
		}
	}
	if library != "" {
		ents, _ := os.ReadDir(library)
		for _, e := range ents {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".toml") || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			p := filepath.Join(library, e.Name())
			add(p, Kind(p), OriginLibrary)
		}
	}
	return out
}

// LibraryDir is the user's spec library, the per-OS config dir's
// paneflow/workspaces/ (config.Dir with getenv on goos); "" when the
// config dir is unknown.
func LibraryDir(getenv func(string) string, goos string) string {
	d, err := config.Dir(getenv, goos)
	if err != nil {
		return ""
	}
	return filepath.Join(d, "workspaces")
}

// LoadRecent reads the recently used spec files, newest first, from the
// JSON list at path; nil when the file is missing or not such a list.
func LoadRecent(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var list []string
	if json.Unmarshal(b, &list) != nil {
		return nil
	}
	return list
}

// NoteRecent returns list with path first and no other copy of it, cut
// to [MaxRecent]; list itself is not changed.
func NoteRecent(list []string, path string) []string {
	out := make([]string, 0, len(list)+1)
	out = append(out, path)
	for _, p := range list {
		if p != path {
			out = append(out, p)
		}
	}
	if len(out) > MaxRecent {
		out = out[:MaxRecent]
	}
	return slices.Clip(out)
}

// SaveRecent writes list to path as [LoadRecent] reads it, creating the
// directory (0700) and replacing the file atomically (0600).
func SaveRecent(path string, list []string) error {
	b, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, bytes.NewReader(append(b, '\n')), 0o600)
}

// Resolved is a spec file read, parsed and resolved (the dry run).
type Resolved struct {
	Entry Entry
	Data  []byte         // the file's bytes, what trust is given to
	WS    *flow.Plan     // a workspace's plan
	Flow  *flow.FlowPlan // a flow's plan
	Err   error          // why it cannot launch
	Loc   flow.Location  // where Err points in Data
}

// Resolve reads, parses and resolves the spec at e (no side effect but
// git's read-only worktree planning): relative cwds resolve against the
// spec's directory, agents against this process's PATH, "~" against
// home. A failure is in the result's Err (and Loc), never a nil result.
func Resolve(ctx context.Context, e Entry, home string) *Resolved {
	r := &Resolved{Entry: e}
	f, err := os.Open(e.Path)
	if err == nil {
		r.Data, err = io.ReadAll(io.LimitReader(f, MaxSize+1))
		f.Close()
		if err == nil && len(r.Data) > MaxSize {
			err = fmt.Errorf("the file is larger than %d bytes", MaxSize)
		}
	}
	if err != nil {
		r.Err = err
		return r
	}
	dir := filepath.Dir(e.Path)
	h := flow.Host{Getwd: func() (string, error) { return dir, nil }, Home: home, LookPath: exec.LookPath, Worktrees: flowgit.Worktrees{}}
	if e.Kind == KindFlow {
		var spec *flow.Flow
		if spec, r.Err = flow.ParseFlow(r.Data); r.Err == nil {
			r.Flow, r.Err = flow.ResolveFlow(ctx, spec, h)
		}
	} else {
		var spec *flow.Workspace
		if spec, r.Err = flow.ParseWorkspace(r.Data); r.Err == nil {
			r.WS, r.Err = flow.ResolveWorkspace(ctx, spec, h)
		}
	}
	if r.Err != nil {
		r.Loc = flow.Locate(r.Data, r.Err)
	}
	return r
}

// PlanText is the dry run as `paneflow up --dry-run` / `flow run
// --dry-run` print it; "" when nothing resolved.
func (r *Resolved) PlanText() string {
	var b strings.Builder
	if r.WS != nil {
		r.WS.WriteText(&b)
	}
	if r.Flow != nil {
		r.Flow.WriteText(&b)
	}
	return b.String()
}
