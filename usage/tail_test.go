package usage

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// tailLines polls tl until it has nothing more, returning the lines read
// and how many resets it made.
func tailLines(t *testing.T, tl *tail, budget int64) (lines []string, resets int) {
	t.Helper()
	for {
		more, err := tl.poll(budget, func(b []byte) { lines = append(lines, string(b)) }, func() { resets++ })
		if err != nil {
			t.Fatal(err)
		}
		if !more {
			return lines, resets
		}
	}
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestTail(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	tl := newTail(path, time.Time{})
	defer tl.close()
	check := func(what string, want []string, wantResets int) {
		t.Helper()
		got, resets := tailLines(t, tl, 7) // a small budget: lines span polls
		if !slices.Equal(got, want) || resets != wantResets {
			t.Errorf("%s: lines %q, resets %d; want %q, %d", what, got, resets, want, wantResets)
		}
	}
	check("missing file", nil, 0)
	appendFile(t, path, "one\r\ntw")
	check("a line and a half", []string{"one"}, 0)
	appendFile(t, path, "o\nthree\n")
	check("the rest", []string{"two", "three"}, 0)
	check("nothing new", nil, 0)

	// Truncated and written again: read from the start.
	if err := os.WriteFile(path, []byte("a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	check("truncated", []string{"a"}, 1)

	// Replaced (a rotation): the old file's last lines, then the new one.
	appendFile(t, path, "b\n")
	old, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	old.WriteString("c\n") // its writer still appends
	old.Close()
	appendFile(t, path, "fresh\n")
	check("rotated", []string{"b", "c", "fresh"}, 1)

	// Removed while open: what was written before is still read.
	appendFile(t, path, "last\n")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	check("removed", []string{"last"}, 0)
}

// TestTailOverlong: a line longer than maxLine is skipped whole, the next
// one is read.
func TestTailOverlong(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	appendFile(t, path, "short\n"+strings.Repeat("x", 100)+"\nafter\n"+strings.Repeat("y", 30)+"\n")
	tl := newTail(path, time.Time{})
	tl.maxLine = 64
	defer tl.close()
	got, _ := tailLines(t, tl, 16) // the long line arrives over several polls
	if !slices.Contains(got, strings.Repeat("y", 30)) {
		t.Errorf("lines = %q, want the 30-byte line", got)
	}
	got = slices.DeleteFunc(got, func(s string) bool { return s == strings.Repeat("y", 30) })
	if !slices.Equal(got, []string{"short", "after"}) {
		t.Errorf("lines = %.40q", got)
	}
}

// TestTailSince: a file last written before the session began holds
// nothing of it (a resumed session's history): it is read from its end.
func TestTailSince(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	appendFile(t, path, "history\n")
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, past, past); err != nil {
		t.Fatal(err)
	}
	tl := newTail(path, time.Now().Add(-time.Minute))
	defer tl.close()
	appendFileKeepTime(t, path, "new\n", past) // as if seen before the first poll
	got, _ := tailLines(t, tl, 1<<20)
	if len(got) != 0 {
		t.Errorf("lines = %q, want none (history)", got)
	}
	appendFile(t, path, "now\n")
	if got, _ := tailLines(t, tl, 1<<20); !slices.Equal(got, []string{"now"}) {
		t.Errorf("lines = %q, want now", got)
	}
}

func appendFileKeepTime(t *testing.T, path, s string, mtime time.Time) {
	t.Helper()
	appendFile(t, path, s)
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}
