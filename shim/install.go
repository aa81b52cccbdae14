package shim

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/paneflow-go/paneflow/internal/atomicfile"
	"github.com/paneflow-go/paneflow/internal/userdir"
)

// Installer keeps a shim directory current (see the package doc). Dir,
// ShimBin and HookBin are required; set them before the first call and do
// not change them after. Its methods are safe for concurrent use; two
// processes installing the same directory at once are safe too (every
// file is replaced by a rename, and both write the same bytes).
type Installer struct {
	// Dir is the shim directory, normally [DefaultDir].
	Dir string
	// ShimBin and HookBin are the paneflow-shim and paneflow-ai-hook
	// programs to install, normally found with [FindBinaries].
	ShimBin, HookBin string
	// GOOS selects symlinks ("" or a Unix) or copies ("windows") for the
	// tool entries; "" means runtime.GOOS.
	GOOS string

	mu     sync.Mutex
	stamps map[string]stamp // path → stamp of what the last install verified
}

// stamp is what cheaply tells that a file changed.
type stamp struct {
	size  int64
	mode  fs.FileMode
	mtime time.Time
}

func stampOf(fi fs.FileInfo) stamp {
	return stamp{size: fi.Size(), mode: fi.Mode(), mtime: fi.ModTime()}
}

// DefaultDir returns <user cache dir>/paneflow/bin/<version>: the cache
// directory is $XDG_CACHE_HOME or ~/.cache on Linux and the BSDs,
// ~/Library/Caches on macOS, %LOCALAPPDATA% on Windows (userdir.Base).
// getenv reads the environment; version is made safe for a file name
// ("" is "dev").
func DefaultDir(getenv func(string) string, goos, version string) (string, error) {
	base, err := userdir.Base(userdir.Cache, getenv, goos)
	if err != nil {
		return "", fmt.Errorf("shim: %w", err)
	}
	return filepath.Join(base, "paneflow", "bin", safeVersion(version)), nil
}

// safeVersion maps version to a file name: characters other than
// [A-Za-z0-9._+-] become '_', and "" (or only dots) is "dev".
func safeVersion(v string) string {
	b := []byte(v)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("._+-", c) >= 0) {
			b[i] = '_'
		}
	}
	if strings.Trim(string(b), ".") == "" {
		return "dev"
	}
	return string(b)
}

func (in *Installer) goos() string {
	if in.GOOS != "" {
		return in.GOOS
	}
	return runtime.GOOS
}

// Ensure makes the directory current and reports whether it wrote
// anything. When every file and both sources carry the stamps the last
// successful call verified, it only stats them; otherwise it hashes and
// rewrites what differs.
func (in *Installer) Ensure() (changed bool, err error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.stamps != nil && in.stampsCurrent() {
		return false, nil
	}
	in.stamps = nil
	changed, err = in.install()
	if err != nil {
		return changed, fmt.Errorf("shim: installing %s: %w", in.Dir, err)
	}
	stamps := map[string]stamp{}
	for _, p := range in.watched() {
		fi, err := lstatOrStat(p, in.isSource(p))
		if err != nil {
			return changed, fmt.Errorf("shim: installing %s: %w", in.Dir, err)
		}
		stamps[p] = stampOf(fi)
	}
	in.stamps = stamps
	return changed, nil
}

// Entries returns the paths of the tool entries, the two programs and the
// marker, as Ensure makes them.
func (in *Installer) Entries() []string {
	var out []string
	for _, t := range Tools {
		out = append(out, filepath.Join(in.Dir, exeName(t, in.goos())))
	}
	return append(out, in.tmuxPath(), in.shimPath(), in.hookPath(), filepath.Join(in.Dir, markerFile))
}

// tmuxPath is the tmux stand-in for agent teams, in a subdirectory that
// only Claude Code launches get on their PATH (see claudeTeams).
func (in *Installer) tmuxPath() string {
	return filepath.Join(in.Dir, TeamsDir, exeName(TmuxName, in.goos()))
}

func (in *Installer) shimPath() string {
	return filepath.Join(in.Dir, exeName(ShimBinary, in.goos()))
}

func (in *Installer) hookPath() string {
	return filepath.Join(in.Dir, exeName(HookBinary, in.goos()))
}

// HookPath returns the path of paneflow-ai-hook inside the directory.
func (in *Installer) HookPath() string { return in.hookPath() }

func (in *Installer) watched() []string {
	return append(in.Entries(), in.ShimBin, in.HookBin)
}

func (in *Installer) isSource(p string) bool { return p == in.ShimBin || p == in.HookBin }

// lstatOrStat stats p, following a final symlink only when follow is set.
func lstatOrStat(p string, follow bool) (fs.FileInfo, error) {
	if follow {
		return os.Stat(p)
	}
	return os.Lstat(p)
}

// stampsCurrent reports whether every watched file still has its stamp.
func (in *Installer) stampsCurrent() bool {
	for _, p := range in.watched() {
		want, ok := in.stamps[p]
		if !ok {
			return false
		}
		fi, err := lstatOrStat(p, in.isSource(p))
		if err != nil || stampOf(fi) != want {
			return false
		}
	}
	return true
}

// install writes whatever differs from what it should be.
func (in *Installer) install() (changed bool, err error) {
	if in.Dir == "" || in.ShimBin == "" || in.HookBin == "" {
		return false, errors.New("Dir, ShimBin and HookBin are required")
	}
	if err := os.MkdirAll(in.Dir, 0o755); err != nil {
		return false, err
	}
	shimSum, err := fileSum(in.ShimBin)
	if err != nil {
		return false, err
	}
	hookSum, err := fileSum(in.HookBin)
	if err != nil {
		return false, err
	}
	note := func(c bool, err error) error {
		changed = changed || c
		return err
	}
	if err := note(copyIfChanged(in.ShimBin, in.shimPath(), shimSum)); err != nil {
		return changed, err
	}
	if err := note(copyIfChanged(in.HookBin, in.hookPath(), hookSum)); err != nil {
		return changed, err
	}
	for _, t := range Tools {
		dst := filepath.Join(in.Dir, exeName(t, in.goos()))
		if in.goos() == "windows" {
			err = note(copyIfChanged(in.ShimBin, dst, shimSum))
		} else {
			err = note(symlinkIfChanged(exeName(ShimBinary, in.goos()), dst))
		}
		if err != nil {
			return changed, err
		}
	}
	if err := os.MkdirAll(filepath.Dir(in.tmuxPath()), 0o755); err != nil {
		return changed, err
	}
	if in.goos() == "windows" {
		err = note(copyIfChanged(in.ShimBin, in.tmuxPath(), shimSum))
	} else {
		err = note(symlinkIfChanged(filepath.Join("..", exeName(ShimBinary, in.goos())), in.tmuxPath()))
	}
	if err != nil {
		return changed, err
	}
	marker := filepath.Join(in.Dir, markerFile)
	if _, err := os.Lstat(marker); errors.Is(err, fs.ErrNotExist) {
		content := []byte("This directory holds Paneflow's agent launch shims; Paneflow rewrites it.\n")
		if err := note(true, writeAtomic(marker, bytes.NewReader(content), 0o644)); err != nil {
			return changed, err
		}
	}
	return changed, nil
}

// fileSum returns the SHA-256 of the file at p.
func fileSum(p string) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	f, err := os.Open(p)
	if err != nil {
		return sum, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return sum, err
	}
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

// copyIfChanged makes dst an executable copy of src, whose hash is sum:
// nothing is written when dst is a regular executable file with that
// hash. The copy is verified after the rename.
func copyIfChanged(src, dst string, sum [sha256.Size]byte) (bool, error) {
	if fi, err := os.Lstat(dst); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm() == 0o755 {
		if got, err := fileSum(dst); err == nil && got == sum {
			return false, nil
		}
	}
	f, err := os.Open(src)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if err := writeAtomic(dst, f, 0o755); err != nil {
		return false, err
	}
	if got, err := fileSum(dst); err != nil || got != sum {
		return true, fmt.Errorf("%s does not match %s after copying (it changed meanwhile?)", dst, src)
	}
	return true, nil
}

// symlinkIfChanged makes dst a symlink to target (relative to dst's
// directory), replacing whatever else is there with a rename.
func symlinkIfChanged(target, dst string) (bool, error) {
	if got, err := os.Readlink(dst); err == nil && got == target {
		return false, nil
	}
	tmp := fmt.Sprintf("%s.tmp-%d-%d", dst, os.Getpid(), time.Now().UnixNano())
	if err := os.Symlink(target, tmp); err != nil {
		return false, err
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return false, err
	}
	return true, nil
}

// writeAtomic replaces path with what r holds (see [atomicfile.Write]).
func writeAtomic(path string, r io.Reader, perm fs.FileMode) error {
	return atomicfile.Write(path, r, perm)
}

// FindBinaries finds paneflow-shim and paneflow-ai-hook for a Paneflow
// whose executable is exe: $PANEFLOW_SHIM_BIN and $PANEFLOW_HOOK_BIN when
// set, else next to exe, else next to the file exe links to.
func FindBinaries(exe string, getenv func(string) string, goos string) (shimBin, hookBin string, err error) {
	find := func(env, name string) (string, error) {
		if p := getenv(env); p != "" {
			if !isExecFile(p, goos) {
				return "", fmt.Errorf("shim: $%s=%s is not an executable file", env, p)
			}
			return filepath.Abs(p)
		}
		dirs := []string{filepath.Dir(exe)}
		if real, err := filepath.EvalSymlinks(exe); err == nil && filepath.Dir(real) != dirs[0] {
			dirs = append(dirs, filepath.Dir(real))
		}
		for _, d := range dirs {
			if p := filepath.Join(d, exeName(name, goos)); isExecFile(p, goos) {
				return filepath.Abs(p)
			}
		}
		return "", fmt.Errorf("shim: no %s next to %s (set $%s)", exeName(name, goos), exe, env)
	}
	if shimBin, err = find("PANEFLOW_SHIM_BIN", ShimBinary); err != nil {
		return "", "", err
	}
	if hookBin, err = find("PANEFLOW_HOOK_BIN", HookBinary); err != nil {
		return "", "", err
	}
	return shimBin, hookBin, nil
}

// isExecFile reports whether p is a regular file we may run.
func isExecFile(p, goos string) bool {
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	return goos == "windows" || fi.Mode().Perm()&0o111 != 0
}
