package shim

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// users is the reference count of one injected config file: which shims
// use it, and what Paneflow created for it. It lives in
// <StateDir>/<hash of the file's path>.json and is only read or written
// under the matching .lock file's exclusive lock.
type users struct {
	Target string `json:"target"`
	PIDs   []int  `json:"pids"`
	// CreatedFile: the file did not exist before a shim wrote it.
	CreatedFile bool `json:"created_file,omitempty"`
	// CreatedDirs: directories shims created, deepest first per shim.
	CreatedDirs []string `json:"created_dirs,omitempty"`
	// Added: a shim added its content (the Codex feature flag is added
	// only when the user has none).
	Added bool `json:"added,omitempty"`
	// Original holds the file's exact bytes before a shim first changed
	// it, and Restore says they are to be put back; Wrote is the SHA-256
	// (hex) of what the file held after the last shim's edit. The last
	// user puts Original back only while the file still holds what we
	// wrote (an edit of someone else's since is kept: our groups are
	// removed instead). The copy lives here, in the state directory, never
	// as a backup next to a project's file.
	Original []byte `json:"original,omitempty"`
	Restore  bool   `json:"restore,omitempty"`
	Wrote    string `json:"wrote,omitempty"`
}

// registry keeps the users files. dir "" disables counting: every shim
// then behaves as the only user (its cleanup removes the hooks), and what
// it records is kept in mem, its own memory.
type registry struct {
	dir string
	pid int
	mem map[string]*users // dir "": target → users; nil map means no record
}

// paths returns the lock and state files of target.
func (r registry) paths(target string) (lock, state string) {
	sum := sha256.Sum256([]byte(target))
	base := filepath.Join(r.dir, hex.EncodeToString(sum[:12]))
	return base + ".lock", base + ".json"
}

// update runs fn on target's users with the lock held, pruned of dead
// pids, and saves what fn leaves (or removes the state when no pid is
// left). When fn fails nothing is saved.
func (r registry) update(target string, fn func(u *users) error) error {
	if r.dir == "" {
		u := &users{Target: target}
		if old := r.mem[target]; old != nil {
			c := *old
			u = &c
		}
		if err := fn(u); err != nil {
			return err
		}
		if r.mem != nil {
			if len(u.PIDs) == 0 {
				delete(r.mem, target)
			} else {
				r.mem[target] = u
			}
		}
		return nil
	}
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return err
	}
	lockPath, statePath := r.paths(target)
	unlock, err := lockFile(lockPath)
	if err != nil {
		return err
	}
	defer unlock()
	u := &users{Target: target}
	if data, err := os.ReadFile(statePath); err == nil {
		var old users
		if json.Unmarshal(data, &old) == nil && old.Target == target {
			u = &old
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	u.PIDs = slices.DeleteFunc(u.PIDs, func(pid int) bool { return pid != r.pid && !processAlive(pid) })
	if err := fn(u); err != nil {
		return err
	}
	if len(u.PIDs) == 0 {
		if err := os.Remove(statePath); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	data, err := json.Marshal(u)
	if err != nil {
		return err
	}
	return writeAtomic(statePath, strings.NewReader(string(data)), 0o600)
}

// acquire records this shim as a user of target and runs add, with the
// lock held, on every acquire: the edits are idempotent and self-healing.
// What add records in u (the files and directories Paneflow created) is
// kept until the last user releases target, including across shims that
// died without releasing it, so their leftovers are still removed.
func (r registry) acquire(target string, add func(u *users) error) error {
	return r.update(target, func(u *users) error {
		u.PIDs = slices.DeleteFunc(u.PIDs, func(pid int) bool { return pid == r.pid })
		if err := add(u); err != nil {
			return err // nothing is saved: this shim is not recorded
		}
		u.PIDs = append(u.PIDs, r.pid)
		return nil
	})
}

// release removes this shim from target's users and, when no live user
// is left, runs remove with what the first user recorded.
func (r registry) release(target string, remove func(u *users) error) error {
	return r.update(target, func(u *users) error {
		u.PIDs = slices.DeleteFunc(u.PIDs, func(pid int) bool { return pid == r.pid })
		if len(u.PIDs) > 0 {
			return nil
		}
		return remove(u)
	})
}

// mkdirAllRecord creates dir and its missing parents, returning the ones
// it created, deepest first.
func mkdirAllRecord(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return missing, nil
}

// removeEmptyDirs removes dirs (deepest first) while they are empty.
func removeEmptyDirs(dirs []string) {
	for _, d := range dirs {
		if os.Remove(d) != nil { // fails unless empty
			return
		}
	}
}
