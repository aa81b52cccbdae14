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
	cur, err := readForEdit(path)
	if err != nil {
		return err
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
	return replace(path, cur, data)
}

// Append appends text (whole TOML tables, as "[[hosts]]\naddress = …")
// to the configuration file at path (created when missing), leaving every
// byte already in it as it was, for the settings [Save] cannot set in
// place (another [[hosts]] table). done tells, from the parsed file,
// whether what text says is already there (then nothing is written) and,
// after the append, whether it took. It refuses as Save does, and also
// when the file would not parse or not take the setting with text
// appended (a table of that name already there): the error then ends
// with byHand, what to do instead. The old content is backed up and the
// file replaced as by Save.
func Append(path, text string, done func(Config) bool, byHand string) error {
	cur, err := readForEdit(path)
	if err != nil {
		return err
	}
	if c, _ := Parse(cur.Data); done(c) {
		return nil
	}
	data := slices.Clone(cur.Data)
	if len(data) > 0 {
		if data[len(data)-1] != '\n' {
			data = append(data, '\n')
		}
		data = append(data, '\n')
	}
	data = append(data, text...)
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		return fmt.Errorf("config: cannot append to %s (%v); not changed: %s", path, err, byHand)
	}
	if c, _ := Parse(data); !done(c) {
		return fmt.Errorf("config: %s would not take it as written; not changed: %s", path, byHand)
	}
	return replace(path, cur, data)
}

// Rewrite replaces the configuration file at path with what change makes
// of its bytes, for an edit that neither [Save] nor [Append] makes (a
// table taken out). change gets nil for a missing file; what it returns
// unchanged is not written (a missing file stays missing), and an error
// it returns leaves the file as it was and is returned as it is. It
// refuses as Save does (a file that does not parse, is read-only or is
// not a regular file); the old content is backed up and the file
// replaced as by Save. Checking that the new bytes say what was meant is
// change's part.
func Rewrite(path string, change func(old []byte) ([]byte, error)) error {
	cur, err := readForEdit(path)
	if err != nil {
		return err
	}
	data, err := change(cur.Data)
	if err != nil {
		return err
	}
	if bytes.Equal(data, cur.Data) {
		return nil
	}
	return replace(path, cur, data)
}

// readForEdit reads the file at path for Save, Append or Rewrite: it must parse,
// and be writable when it exists.
func readForEdit(path string) (atomicfile.Current, error) {
	cur, err := atomicfile.ReadCurrent(path)
	if err != nil {
		return cur, fmt.Errorf("config: %v; not changed", err)
	}
	var raw map[string]any
	if _, err := toml.Decode(string(cur.Data), &raw); err != nil {
		return cur, fmt.Errorf("config: %s cannot be parsed (%v); fix it first, it was not changed", path, err)
	}
	if cur.Exists && cur.Mode&0o200 == 0 {
		return cur, fmt.Errorf("config: %s is read-only; not changed", path)
	}
	return cur, nil
}

// replace copies the file's old content to path+BackupSuffix, then
// replaces it with data atomically (creating its directory when the file
// is new).
func replace(path string, cur atomicfile.Current, data []byte) error {
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
