package review

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
	"strconv"
	"sync"

	"github.com/paneflow-go/paneflow/internal/atomicfile"
	"github.com/paneflow-go/paneflow/proto"
)

// file is one worktree's comments (and its checks' last results) on disk:
// <dir>/<hash of root>.json.
type file struct {
	// Root is the worktree's top directory (the hash names the file).
	Root string `json:"root"`
	// Next numbers the next comment ("c<Next>"); ids are never reused.
	Next     int                   `json:"next"`
	Comments []proto.ReviewComment `json:"comments"`
	// Checks are the last finished run of each check in the worktree.
	Checks map[string]proto.CheckResult `json:"checks,omitempty"`
}

// Store keeps the review comments of each worktree in a file of its own
// under Dir (created 0700; files 0600, replaced atomically). A file that
// cannot be read or parsed is an error naming it and is never
// overwritten. The zero value is not usable: Dir must be set. Methods are
// safe for concurrent use within one process (one mutex); only the server
// writes the files.
type Store struct {
	Dir string

	mu sync.Mutex
}

// path is root's file.
func (s *Store) path(root string) string {
	h := sha256.Sum256([]byte(root))
	return filepath.Join(s.Dir, hex.EncodeToString(h[:12])+".json")
}

// loadLocked reads root's comments; a missing file is none.
func (s *Store) loadLocked(root string) (file, error) {
	p := s.path(root)
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return file{Root: root, Next: 1}, nil
	}
	if err != nil {
		return file{}, fmt.Errorf("review: %w", err)
	}
	var f file
	if err := json.Unmarshal(b, &f); err != nil {
		return file{}, fmt.Errorf("review: %s is not valid JSON (left untouched): %v", p, err)
	}
	if f.Root != root {
		return file{}, fmt.Errorf("review: %s holds the comments of %s, not of %s (left untouched)", p, f.Root, root)
	}
	return f, nil
}

// saveLocked replaces root's file.
func (s *Store) saveLocked(f file) error {
	if f.Comments == nil {
		f.Comments = []proto.ReviewComment{}
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("review: %w", err)
	}
	if err := atomicfile.Write(s.path(f.Root), bytes.NewReader(append(b, '\n')), 0o600); err != nil {
		return fmt.Errorf("review: %w", err)
	}
	return nil
}

// Update reads root's comments, lets fn change them and writes them back
// when fn reports a change (an error from fn writes nothing).
func (s *Store) Update(root string, fn func(f *file) (changed bool, err error)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.loadLocked(root)
	if err != nil {
		return err
	}
	changed, err := fn(&f)
	if err != nil || !changed {
		return err
	}
	return s.saveLocked(f)
}

// add appends a comment to f, numbering it.
func (f *file) add(c proto.ReviewComment) proto.ReviewComment {
	if f.Next < 1 {
		f.Next = 1
	}
	c.ID = "c" + strconv.Itoa(f.Next)
	f.Next++
	f.Comments = append(f.Comments, c)
	return c
}
