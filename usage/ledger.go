package usage

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/paneflow-go/paneflow/internal/atomicfile"
)

// ledgerVersion is the version of the day files this code writes; a file
// of a newer version is read as far as it can be and never rewritten.
const ledgerVersion = 1

// key is what the usage of one hour is told apart by: the hour (its start,
// Unix seconds), the agent, its model, its workspace's title, and the
// flow run (name and id) its pane belonged to, if any.
type key struct {
	Hour      int64
	Tool      string
	Model     string
	Workspace string
	Flow      string
	Run       string
}

// day is the usage of one local day, by key. A day file holds one: its
// rows, written atomically whole.
type day struct {
	name  string // YYYY-MM-DD
	rows  map[key]Totals
	dirty bool // changed since written
	// frozen: the file is of a newer version or unreadable; it is left
	// alone (never rewritten).
	frozen bool
}

// dayFile is a day file's JSON.
type dayFile struct {
	Version int      `json:"version"`
	Day     string   `json:"day"`
	Rows    []dayRow `json:"rows"`
}

type dayRow struct {
	Hour         int64  `json:"hour"`
	Tool         string `json:"tool"`
	Model        string `json:"model,omitempty"`
	Workspace    string `json:"workspace,omitempty"`
	Flow         string `json:"flow,omitempty"`
	Run          string `json:"run,omitempty"`
	Input        int64  `json:"input"`
	CacheRead    int64  `json:"cache_read"`
	CacheWrite   int64  `json:"cache_write"`
	CacheWrite1h int64  `json:"cache_write_1h,omitempty"`
	Output       int64  `json:"output"`
	Reasoning    int64  `json:"reasoning"`
	CostNanos    int64  `json:"cost_nanos"`
	Priced       bool   `json:"priced"`
	Unpriced     int64  `json:"unpriced"`
	Calls        int64  `json:"calls"`
}

// ledger keeps usage by day: today's in memory (and each day written
// into), written to <dir>/<YYYY-MM-DD>.json atomically; other days are
// read from their files when asked. dir "" keeps nothing on disk. Its
// user serializes calls.
type ledger struct {
	dir  string
	loc  *time.Location
	days map[string]*day // the days written into since start
	logf func(format string, args ...any)
}

func newLedger(dir string, loc *time.Location, logf func(string, ...any)) *ledger {
	return &ledger{dir: dir, loc: loc, days: map[string]*day{}, logf: logf}
}

// hour is the start of t's local hour.
func (l *ledger) hour(t time.Time) time.Time {
	t = t.In(l.loc)
	y, m, d := t.Date()
	return time.Date(y, m, d, t.Hour(), 0, 0, 0, l.loc)
}

// dayName is the local date of t.
func (l *ledger) dayName(t time.Time) string { return t.In(l.loc).Format(time.DateOnly) }

// add counts t under k in the day of at.
func (l *ledger) add(at time.Time, k key, t Totals) {
	d := l.day(l.dayName(at))
	k.Hour = l.hour(at).Unix()
	d.rows[k] = d.rows[k].add(t)
	d.dirty = true
}

// day returns day name, read from its file the first time.
func (l *ledger) day(name string) *day {
	if d := l.days[name]; d != nil {
		return d
	}
	d, err := l.read(name)
	if err != nil {
		l.logf("paneflow: %v", err)
	}
	l.days[name] = d
	return d
}

// read reads the file of day name; a missing file is an empty day. An
// unreadable or newer file gives what could be read and a frozen day,
// with the error.
func (l *ledger) read(name string) (*day, error) {
	d := &day{name: name, rows: map[key]Totals{}}
	if l.dir == "" {
		return d, nil
	}
	data, err := os.ReadFile(l.path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		d.frozen = true
		return d, err
	}
	var f dayFile
	if err := json.Unmarshal(data, &f); err != nil {
		d.frozen = true
		return d, fmt.Errorf("usage: %s: %v (left as it is; usage of that day is not added to it)", l.path(name), err)
	}
	if f.Version > ledgerVersion {
		d.frozen = true
	}
	for _, r := range f.Rows {
		k := key{Hour: r.Hour, Tool: r.Tool, Model: r.Model, Workspace: r.Workspace, Flow: r.Flow, Run: r.Run}
		d.rows[k] = d.rows[k].add(Totals{
			Tokens: Tokens{Input: r.Input, CacheRead: r.CacheRead, CacheWrite: r.CacheWrite, CacheWrite1h: r.CacheWrite1h,
				Output: r.Output, Reasoning: r.Reasoning},
			Cost: Nanos(r.CostNanos), Priced: r.Priced, Unpriced: r.Unpriced, Calls: r.Calls,
		})
	}
	return d, nil
}

func (l *ledger) path(name string) string { return filepath.Join(l.dir, name+".json") }

// save writes every changed day; the first error is returned, the other
// days are still written.
func (l *ledger) save() error {
	var first error
	for _, d := range l.days {
		if !d.dirty || d.frozen || l.dir == "" {
			continue
		}
		if err := l.write(d); err != nil {
			first = cmpOr(first, err)
			continue
		}
		d.dirty = false
	}
	return first
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// write replaces d's file atomically.
func (l *ledger) write(d *day) error {
	if err := os.MkdirAll(l.dir, 0o700); err != nil {
		return fmt.Errorf("usage: %w", err)
	}
	f := dayFile{Version: ledgerVersion, Day: d.name, Rows: make([]dayRow, 0, len(d.rows))}
	for k, t := range d.rows {
		f.Rows = append(f.Rows, dayRow{
			Hour: k.Hour, Tool: k.Tool, Model: k.Model, Workspace: k.Workspace, Flow: k.Flow, Run: k.Run,
			Input: t.Input, CacheRead: t.CacheRead, CacheWrite: t.CacheWrite, CacheWrite1h: t.CacheWrite1h,
			Output: t.Output, Reasoning: t.Reasoning, CostNanos: int64(t.Cost), Priced: t.Priced, Unpriced: t.Unpriced, Calls: t.Calls,
		})
	}
	slices.SortFunc(f.Rows, func(a, b dayRow) int {
		if a.Hour != b.Hour {
			return int(a.Hour - b.Hour)
		}
		return strings.Compare(a.Tool+"\x00"+a.Model+"\x00"+a.Workspace+"\x00"+a.Run, b.Tool+"\x00"+b.Model+"\x00"+b.Workspace+"\x00"+b.Run)
	})
	data, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(l.path(d.name), bytes.NewReader(append(data, '\n')), 0o600); err != nil {
		return fmt.Errorf("usage: %w", err)
	}
	return nil
}

// rows calls fn with every row of the hours overlapping since..until: the
// days in memory as they are, the others read from their files (only the
// days that have one are visited, so a span from the epoch costs nothing
// more).
func (l *ledger) rows(since, until time.Time, fn func(key, Totals)) error {
	first, last := l.dayName(since), l.dayName(until)
	names := map[string]bool{}
	for name := range l.days {
		names[name] = true
	}
	if l.dir != "" {
		entries, err := os.ReadDir(l.dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("usage: %w", err)
		}
		for _, e := range entries {
			if name, ok := strings.CutSuffix(e.Name(), ".json"); ok && !e.IsDir() {
				if _, err := time.Parse(time.DateOnly, name); err == nil {
					names[name] = true
				}
			}
		}
	}
	var firstErr error
	for _, name := range slices.Sorted(maps.Keys(names)) {
		if name < first || name > last {
			continue
		}
		d := l.days[name]
		if d == nil {
			var err error
			if d, err = l.read(name); err != nil {
				firstErr = cmpOr(firstErr, err)
			}
		}
		for k, v := range d.rows {
			// An hour counts whole when it overlaps the span (until
			// included: "until now" counts the hour that now is in).
			if h := time.Unix(k.Hour, 0); h.Add(time.Hour).After(since) && !h.After(until) {
				fn(k, v)
			}
		}
	}
	return firstErr
}

// total is the usage of day name.
func (l *ledger) total(name string) Totals {
	var sum Totals
	for _, v := range l.day(name).rows {
		sum = sum.add(v)
	}
	return sum
}
