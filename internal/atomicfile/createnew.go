package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// CreateNew writes a new file at path with what r holds, with permissions
// perm, and never replaces one: when path exists (even created meanwhile
// by someone else) it fails with an error matching [fs.ErrExist] and
// leaves it alone. The content is complete before the name appears: it is
// written to a temporary file in the same directory, synced, then
// hard-linked to path (link refuses an existing name) and the temporary
// name removed. On file systems without hard links it falls back to an
// exclusive create (O_EXCL) written in place.
func CreateNew(path string, r io.Reader, perm fs.FileMode) (err error) {
	if _, err := os.Lstat(path); err == nil {
		return &fs.PathError{Op: "create", Path: path, Err: fs.ErrExist}
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".new-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name) // the temporary name goes in every case
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	lerr := os.Link(name, path)
	if lerr == nil || errors.Is(lerr, fs.ErrExist) {
		if lerr == nil {
			if d, err := os.Open(dir); err == nil {
				d.Sync()
				d.Close()
			}
		}
		return lerr
	}
	// No hard links here: an exclusive create still never clobbers.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err = f.Write(data); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path) // ours, half written
	}
	return err
}
