package shim

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
)

// ErrNotFound is returned by [FindReal] when no real binary of the tool is
// on PATH outside shim directories.
var ErrNotFound = errors.New("not found on PATH")

// Finder finds an agent's real binary on PATH, never a shim. The zero
// value searches nothing; set Path. A Finder holds no state.
type Finder struct {
	// Path is the PATH value to search, in order. Empty and relative
	// entries are skipped: a shim must not run a binary from whatever
	// directory the user happens to be in.
	Path string
	// Skip are directories never searched (the shim's own directory);
	// they are compared after resolving symlinks.
	Skip []string
	// Self is the shim's own executable: a candidate that is the same
	// file (a hardlink, a symlink or a copy's original) is skipped. ""
	// means unknown.
	Self string
	// GOOS selects the rules: on "windows" <tool>.exe, then <tool>.cmd,
	// then <tool>.bat are tried and no exec bit is needed; elsewhere
	// <tool> with an exec bit. "" means the running system's.
	GOOS string
}

// Find returns the absolute path of the first binary of tool on Path
// that is not in a skipped directory, not in a directory holding the
// shim marker file, and not the shim itself (same file, or a file whose
// resolved name is paneflow-shim). The error wraps [ErrNotFound] when
// there is none.
func (f Finder) Find(tool string) (string, error) {
	goos := f.GOOS
	if goos == "" {
		goos = runtime.GOOS
	}
	var self fs.FileInfo
	if f.Self != "" {
		self, _ = os.Stat(f.Self)
	}
	skip := make([]string, 0, len(f.Skip))
	for _, d := range f.Skip {
		if d != "" {
			skip = append(skip, canonicalDir(d))
		}
	}
	names := []string{tool}
	if goos == "windows" {
		names = []string{tool + ".exe", tool + ".cmd", tool + ".bat"}
	}
	seen := map[string]bool{}
	for _, dir := range filepath.SplitList(f.Path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		cdir := canonicalDir(dir)
		if seen[cdir] || slices.Contains(skip, cdir) {
			continue
		}
		seen[cdir] = true
		if _, err := os.Lstat(filepath.Join(dir, markerFile)); err == nil {
			continue // another shim directory (another Paneflow version)
		}
		for _, n := range names {
			p := filepath.Join(dir, n)
			fi, err := os.Stat(p)
			if err != nil || !fi.Mode().IsRegular() || goos != "windows" && fi.Mode().Perm()&0o111 == 0 {
				continue
			}
			if self != nil && os.SameFile(fi, self) {
				continue // a hardlink or symlink to this very shim
			}
			if real, err := filepath.EvalSymlinks(p); err == nil && filepath.Base(real) == exeName(ShimBinary, goos) {
				continue // some other paneflow-shim
			}
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", tool, ErrNotFound)
}
