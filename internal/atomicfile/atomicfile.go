// Package atomicfile replaces files so that readers see the old content or
// the new, never a part: the data goes to a temporary file in the same
// directory, which is given its mode, synced and renamed over the target.
// It is how Paneflow writes the files it shares with users and other tools
// (agent settings, hook files, its own caches).
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Writer writes files atomically. The zero value uses the os package; tests
// set the fields to make a step fail as on a full disk. A Writer is plain
// data and safe for concurrent use when its functions are.
type Writer struct {
	// CreateTemp creates the temporary file; nil means os.CreateTemp.
	CreateTemp func(dir, pattern string) (*os.File, error)
	// Copy writes the content into it; nil means io.Copy.
	Copy func(dst *os.File, src io.Reader) (int64, error)
}

// Write replaces path with what r holds, with permissions perm. On failure
// the temporary file is removed and path is left as it was. The directory
// must exist.
func (w Writer) Write(path string, r io.Reader, perm fs.FileMode) (err error) {
	createTemp, copyTo := os.CreateTemp, func(dst *os.File, src io.Reader) (int64, error) { return io.Copy(dst, src) }
	if w.CreateTemp != nil {
		createTemp = w.CreateTemp
	}
	if w.Copy != nil {
		copyTo = w.Copy
	}
	dir := filepath.Dir(path)
	tmp, err := createTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = copyTo(tmp, r); err != nil {
		return err
	}
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // not supported on every system; the rename is done either way
		d.Close()
	}
	return nil
}

// Write replaces path with what r holds using the os package; see
// [Writer.Write].
func Write(path string, r io.Reader, perm fs.FileMode) error {
	return Writer{}.Write(path, r, perm)
}

// Current is a file as read before it is replaced: Target is where it
// really is (a symlink resolved, so that writing Target keeps the link),
// Exists whether it was there, Data its bytes and Mode its permissions
// (0600 for a file that does not exist yet). The zero value is a missing
// file at no path.
type Current struct {
	Target string
	Exists bool
	Data   []byte
	Mode   fs.FileMode
}

// ReadCurrent reads path for a later [Write] to its Target: a missing file
// is not an error (Exists false), a symlink is followed, and anything but a
// regular file is refused.
func ReadCurrent(path string) (Current, error) {
	c := Current{Target: path, Mode: 0o600}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return c, nil
	case err != nil:
		return c, err
	case fi.Mode()&fs.ModeSymlink != 0:
		if c.Target, err = filepath.EvalSymlinks(path); err != nil {
			return c, fmt.Errorf("%s is a symlink that cannot be followed: %w", path, err)
		}
		if fi, err = os.Stat(c.Target); err != nil {
			return c, err
		}
	}
	if !fi.Mode().IsRegular() {
		return c, fmt.Errorf("%s is not a regular file", path)
	}
	if c.Data, err = os.ReadFile(c.Target); err != nil {
		return c, err
	}
	c.Exists, c.Mode = true, fi.Mode().Perm()
	return c, nil
}
