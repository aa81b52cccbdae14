package config

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/paneflow-go/paneflow/internal/atomicfile"
	"github.com/paneflow-go/paneflow/internal/tomledit"
)

// Edit is one setting for [Save] to write: Key is its TOML name as the
// field docs give it ("theme", "terminal.scrollback_lines"; parts are
// split at dots), Value a string, bool, int, int64 or float64.
type Edit struct {
	Key   string
	Value any
}

// BackupSuffix is added to the file's name for the copy [Save] keeps of
// what it replaced.
const BackupSuffix = ".bak"

// Save writes edits into the configuration file at path (created when
// missing), changing only their values: each key's value is replaced in
// place, or the key is added to its table (the table appended when the
// file has none), and every other byte (the user's comments, order and
// spelling) stays as it was (package internal/tomledit).
//
// It refuses, leaving the file as it was, when the file does not parse,
// is read-only, or is not a regular file; when a key cannot be set in
// place (it is in an inline table); and when the result would read with
// a problem the file did not have (a value out of range), the error
// saying which. The old content is copied to path+[BackupSuffix] first,
// then the file is replaced atomically (a symbolic link is followed and
// kept, its mode kept). A running [Watch] sees the change as any other
// edit.
func Save(path string, edits ...Edit) error {
	cur, err := atomicfile.ReadCurrent(path)
	if err != nil {
		return fmt.Errorf("config: %v; not changed", err)
	}
	var raw map[string]any
	if _, err := toml.Decode(string(cur.Data), &raw); err != nil {
		return fmt.Errorf("config: %s cannot be parsed (%v); fix it first, it was not changed", path, err)
	}
	if cur.Exists && cur.Mode&0o200 == 0 {
		return fmt.Errorf("config: %s is read-only; not changed", path)
	}
	data := cur.Data
	for _, e := range edits {
		if data, err = tomledit.Set(data, strings.Split(e.Key, "."), e.Value); err != nil {
			return fmt.Errorf("config: %s: %v; not changed", path, strings.TrimPrefix(err.Error(), "tomledit: "))
		}
	}
	_, before := Parse(cur.Data)
	if _, after := Parse(data); len(after) > 0 {
		for _, w := range after {
			if !slices.Contains(before, w) {
				return fmt.Errorf("config: %s: %s; not changed", path, w)
			}
		}
	}
	if bytes.Equal(data, cur.Data) && cur.Exists {
		return nil
	}
	if cur.Exists {
		if err := atomicfile.Write(cur.Target+BackupSuffix, bytes.NewReader(cur.Data), cur.Mode); err != nil {
			return fmt.Errorf("config: backing up %s: %v; not changed", path, err)
		}
	} else if err := os.MkdirAll(filepath.Dir(cur.Target), 0o700); err != nil {
		return fmt.Errorf("config: %v", err)
	}
	if err := atomicfile.Write(cur.Target, bytes.NewReader(data), cur.Mode); err != nil {
		return fmt.Errorf("config: writing %s: %v", path, err)
	}
	return nil
}
