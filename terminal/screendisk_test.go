package terminal

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// diskScreenText is screen i of the tests: a few rows, one naming i.
func diskScreenText(i int) string {
	return fmt.Sprintf("header row\nscreen %d says needle%04d\n  spinner %d\nfooter", i, i, i%7)
}

// addScreens adds screens from..to-1 (diskScreenText) to h, a second
// apart from at.
func addScreens(t *testing.T, h *ScreenHistory, from, to int, at time.Time) {
	t.Helper()
	for i := from; i < to; i++ {
		if !h.add([]byte(diskScreenText(i)), uint64(i), at.Add(time.Duration(i)*time.Second)) {
			t.Fatalf("screen %d not stored", i)
		}
	}
}

// findSeqs returns the screens whose rows match pattern, in order.
func findSeqs(t *testing.T, h *ScreenHistory, pattern string) []uint64 {
	t.Helper()
	q, err := NewQuery(pattern, false, CaseSensitive)
	if err != nil {
		t.Fatal(err)
	}
	var out []uint64
	h.find(q, func(f Found) bool {
		if f.Source != FoundHistory {
			t.Errorf("found %+v, want a history match", f)
		}
		out = append(out, f.Screen)
		return true
	})
	return out
}

// TestScreenDiskRestart: a history kept on disk is found again by a new
// history opening the same journal (a pane restored after a restart):
// the old screens come first, the new one's are numbered after them, and
// search, Screens, Screen, Len and Span read the old ones from disk.
func TestScreenDiskRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pane")
	at := time.Unix(1_700_000_000, 0)
	h := newScreenHistory(1 << 20)
	if refused, err := h.OpenDisk(path, 256<<10, func(w string) { t.Errorf("warning: %s", w) }); refused != nil || err != nil {
		t.Fatalf("OpenDisk: %v, %v", refused, err)
	}
	addScreens(t, h, 1, 41, at)
	if err := h.CloseDisk(false); err != nil {
		t.Fatal(err)
	}

	// The new pane already showed two screens when it finds its journal.
	h2 := newScreenHistory(1 << 20)
	h2.add([]byte("new screen A needle-new"), 1, at.Add(time.Hour))
	h2.add([]byte("new screen B"), 2, at.Add(time.Hour+time.Second))
	h2.add([]byte("new screen A needle-new"), 3, at.Add(time.Hour+2*time.Second)) // shown again
	if refused, err := h2.OpenDisk(path, 256<<10, nil); refused != nil || err != nil {
		t.Fatalf("OpenDisk again: %v, %v", refused, err)
	}
	if n := h2.Len(); n != 42 {
		t.Errorf("Len = %d, want 42", n)
	}
	if first, last, ok := h2.Span(); !ok || first != 1 || last != 42 {
		t.Errorf("Span = %d, %d, %v; want 1, 42", first, last, ok)
	}
	var seqs []uint64
	h2.Screens(func(r ScreenRecord) bool {
		seqs = append(seqs, r.Seq)
		if r.Seq <= 40 && (r.Text != diskScreenText(int(r.Seq)) || !r.First.Equal(at.Add(time.Duration(r.Seq)*time.Second)) || r.Generation != r.Seq) {
			t.Errorf("screen %d read back as %+v", r.Seq, r)
		}
		if r.Seq == 41 && (r.Text != "new screen A needle-new" || r.Seen != 2) {
			t.Errorf("screen 41 = %+v, want the new pane's first screen, seen twice", r)
		}
		return true
	})
	if len(seqs) != 42 || seqs[0] != 1 || seqs[41] != 42 {
		t.Errorf("Screens gave %v", seqs)
	}
	if r, ok := h2.Screen(17); !ok || r.Text != diskScreenText(17) {
		t.Errorf("Screen(17) = %+v, %v", r, ok)
	}
	if got := findSeqs(t, h2, "needle0017"); len(got) != 1 || got[0] != 17 {
		t.Errorf("needle0017 found in %v, want [17]", got)
	}
	if got := findSeqs(t, h2, "needle-new"); len(got) != 1 || got[0] != 41 {
		t.Errorf("needle-new found in %v, want [41]", got)
	}
	// The new screens were written too: a third run sees all 42.
	h2.add([]byte("screen after the restart"), 4, at.Add(2*time.Hour))
	h2.CloseDisk(false)
	h3 := newScreenHistory(1 << 20)
	if _, err := h3.OpenDisk(path, 256<<10, nil); err != nil {
		t.Fatal(err)
	}
	if got := findSeqs(t, h3, "after the restart"); len(got) != 1 || got[0] != 43 {
		t.Errorf("a third run finds the second's screen in %v, want [43]", got)
	}
	if err := h3.CloseDisk(true); err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{".0", ".1"} {
		if _, err := os.Stat(path + suffix); !os.IsNotExist(err) {
			t.Errorf("%s still there after CloseDisk(true): %v", suffix, err)
		}
	}
}

// TestScreenDiskSmallMemory: with a journal, a small memory bound drops
// screens from memory but not from the history: every screen is still
// found and read back.
func TestScreenDiskSmallMemory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pane")
	h := newScreenHistory(4 << 10)
	if _, err := h.OpenDisk(path, 1<<20, nil); err != nil {
		t.Fatal(err)
	}
	addScreens(t, h, 1, 301, time.Unix(1_700_000_000, 0))
	if h.Dropped() == 0 {
		t.Fatal("nothing was dropped from memory: the test does not exercise the journal")
	}
	if n := h.Len(); n != 300 {
		t.Errorf("Len = %d, want 300", n)
	}
	for _, i := range []int{1, 2, 150, 299, 300} {
		if got := findSeqs(t, h, fmt.Sprintf("needle%04d", i)); len(got) != 1 || got[0] != uint64(i) {
			t.Errorf("needle%04d found in %v", i, got)
		}
		if r, ok := h.Screen(uint64(i)); !ok || r.Text != diskScreenText(i) {
			t.Errorf("Screen(%d) = %q, %v", i, r.Text, ok)
		}
	}
	if got := findSeqs(t, h, "header row"); len(got) != 300 {
		t.Errorf("header row found on %d screens, want 300", len(got))
	}
}

// TestScreenDiskBound: the journal stays within its bound (plus one
// frame), dropping its oldest screens, and what it keeps reads back.
func TestScreenDiskBound(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pane")
	const limit = 64 << 10
	h := newScreenHistory(8 << 10)
	if _, err := h.OpenDisk(path, limit, nil); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	text := func(i int) string { // incompressible: the bound is reached
		b := make([]byte, 600)
		for k := range b {
			b[k] = 'a' + byte(r.IntN(26))
		}
		return fmt.Sprintf("screen %d\n%s", i, b)
	}
	for i := 1; i <= 2000; i++ {
		h.add([]byte(text(i)), uint64(i), time.Unix(int64(i), 0))
		size := int64(0)
		for _, s := range []string{".0", ".1"} {
			if st, err := os.Stat(path + s); err == nil {
				size += st.Size()
			}
		}
		if size > limit+int64(diskFrameRaw(limit)) {
			t.Fatalf("after screen %d the journal takes %d bytes, bound %d", i, size, limit)
		}
	}
	first, last, ok := h.Span()
	if !ok || first <= 1 || last != 2000 {
		t.Fatalf("Span = %d, %d, %v: want the oldest dropped, 2000 the newest", first, last, ok)
	}
	n := 0
	h.Screens(func(rec ScreenRecord) bool {
		if !strings.HasPrefix(rec.Text, fmt.Sprintf("screen %d\n", rec.Seq)) {
			t.Errorf("screen %d reads back as %.20q", rec.Seq, rec.Text)
		}
		n++
		return true
	})
	if n != h.Len() || uint64(n) != last-first+1 {
		t.Errorf("Screens gave %d, Len %d, Span %d–%d", n, h.Len(), first, last)
	}
	if runtime.GOOS != "windows" {
		for _, s := range []string{".0", ".1"} {
			if st, err := os.Stat(path + s); err != nil || st.Mode().Perm() != 0o600 {
				t.Errorf("%s: %v, mode %v; want 0600", s, err, st.Mode().Perm())
			}
		}
	}
}

// TestScreenDiskRefused: a damaged or foreign journal is refused with a
// message saying what is wrong, moved aside, and a new one started; the
// history works. Every cut of a good journal is refused or read, never a
// panic.
func TestScreenDiskRefused(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	h := newScreenHistory(1 << 20)
	if _, err := h.OpenDisk(good, 256<<10, nil); err != nil {
		t.Fatal(err)
	}
	addScreens(t, h, 1, 200, time.Unix(1_700_000_000, 0))
	h.CloseDisk(false)
	data, err := os.ReadFile(good + ".0")
	if err != nil {
		t.Fatal(err)
	}
	flip := func(at int) []byte {
		b := []byte(string(data))
		b[at] ^= 0x40
		return b
	}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"cut short", data[:len(data)-5], "truncated"},
		{"cut in a header", data[:len(diskMagic)+7], "truncated"},
		{"body changed", flip(len(data) - 3), "does not match its checksum"},
		{"length changed", flip(len(diskMagic) + 1), "truncated"},
		{"not a journal", []byte("{\"json\": true}\n"), "not a screen history file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "pane")
			if err := os.WriteFile(path+".0", tt.data, 0o600); err != nil {
				t.Fatal(err)
			}
			h := newScreenHistory(1 << 20)
			refused, err := h.OpenDisk(path, 256<<10, nil)
			if err != nil {
				t.Fatal(err)
			}
			if refused == nil || !strings.Contains(refused.Error(), tt.want) || !strings.Contains(refused.Error(), "moved aside to "+path+".0.corrupt") {
				t.Fatalf("refused = %v, want it to say %q and where the file went", refused, tt.want)
			}
			if moved, err := os.ReadFile(path + ".0.corrupt"); err != nil || string(moved) != string(tt.data) {
				t.Errorf("the refused file was not kept aside: %v", err)
			}
			addScreens(t, h, 1, 3, time.Unix(1, 0))
			if first, last, ok := h.Span(); !ok || first != 1 || last != 2 || h.Len() != 2 {
				t.Errorf("after a refused journal: Span %d–%d %v, Len %d", first, last, ok, h.Len())
			}
		})
	}
	for cut := 0; cut < len(data); cut += 97 {
		path := filepath.Join(dir, fmt.Sprintf("cut%d", cut))
		os.WriteFile(path+".0", data[:cut], 0o600)
		h := newScreenHistory(1 << 20)
		refused, err := h.OpenDisk(path, 256<<10, nil)
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		if refused == nil && cut > len(diskMagic) {
			t.Errorf("cut at %d: not refused", cut)
		}
		h.CloseDisk(true)
	}
}

// TestScreenDiskUnwritable: a journal that cannot be kept leaves the
// history in memory, with a clear error (a missing directory) or one
// warning (writing fails later, as on a full disk); nothing held is lost.
func TestScreenDiskUnwritable(t *testing.T) {
	h := newScreenHistory(1 << 20)
	_, err := h.OpenDisk(filepath.Join(t.TempDir(), "gone", "pane"), 256<<10, nil)
	if err == nil || !strings.Contains(err.Error(), "screen history on disk") {
		t.Fatalf("OpenDisk in a missing directory: %v", err)
	}
	addScreens(t, h, 1, 3, time.Unix(1, 0))
	if h.Len() != 2 {
		t.Errorf("Len = %d without a journal", h.Len())
	}

	path := filepath.Join(t.TempDir(), "pane")
	var warns []string
	h = newScreenHistory(1 << 20)
	if _, err := h.OpenDisk(path, 64<<10, func(w string) { warns = append(warns, w) }); err != nil {
		t.Fatal(err)
	}
	addScreens(t, h, 1, 11, time.Unix(1, 0))
	h.SyncDisk()
	// Writing fails from now on (the file is only open for reading).
	h.disk.f.Close()
	h.disk.f, err = os.Open(path + ".0")
	if err != nil {
		t.Fatal(err)
	}
	addScreens(t, h, 11, 200, time.Unix(1, 0))
	if len(warns) != 1 || !strings.Contains(warns[0], "kept in memory only") {
		t.Fatalf("warnings: %q; want one saying the history is kept in memory only", warns)
	}
	if h.Len() != 199 {
		t.Errorf("Len = %d, want 199", h.Len())
	}
	for _, i := range []int{5, 150, 199} {
		if got := findSeqs(t, h, fmt.Sprintf("needle%04d", i)); len(got) != 1 || got[0] != uint64(i) {
			t.Errorf("needle%04d found in %v", i, got)
		}
	}
	h.CloseDisk(false)
	// What was written before the failure is a good journal.
	h = newScreenHistory(1 << 20)
	if refused, err := h.OpenDisk(path, 64<<10, nil); refused != nil || err != nil {
		t.Fatalf("reopening after the failure: %v, %v", refused, err)
	}
	if got := findSeqs(t, h, "needle0010"); len(got) != 1 || got[0] != 10 {
		t.Errorf("needle0010 after reopening: %v", got)
	}
}
