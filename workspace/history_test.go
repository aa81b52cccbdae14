//go:build !windows

package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/terminal"
)

// showScreen puts text on pane id's alternate screen and records it.
func showScreen(t *testing.T, m *Manager, id uint64, text string) *Surface {
	t.Helper()
	s, ok := m.Surface(id)
	if !ok {
		t.Fatalf("no surface %d", id)
	}
	e := s.Terminal().Emulator()
	e.Write([]byte("\x1b[?1049h\x1b[2J\x1b[H" + text))
	if !e.RecordScreen() {
		t.Fatalf("pane %d: %q not recorded", id, text)
	}
	return s
}

// TestHistoryOnDisk: with Options.HistoryDir each pane keeps a journal
// named by its history key; a pane closed for good deletes it, a manager
// that closes keeps the open panes' journals, and a pane of the next
// manager that adopts a key reads that pane's screens. A key Paneflow
// did not make names no file.
func TestHistoryOnDisk(t *testing.T) {
	dir := t.TempDir()
	m, _ := newManager(t, Options{HistoryDir: dir, HistoryDiskBytes: 1 << 20, UndoWindow: -1})
	if _, err := m.CreateWorkspace("w", "", nil, true); err != nil {
		t.Fatal(err)
	}
	a, _, err := m.Split(0, Vertical, PaneSpec{})
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := m.Split(a.ID, Horizontal, PaneSpec{})
	if err != nil {
		t.Fatal(err)
	}
	ka := showScreen(t, m, a.ID, "only pane a showed this").HistoryKey()
	kb := showScreen(t, m, b.ID, "only pane b showed this").HistoryKey()
	if !validHistoryKey(ka) || !validHistoryKey(kb) || ka == kb {
		t.Fatalf("history keys %q, %q", ka, kb)
	}
	st, err := os.Stat(filepath.Join(dir, ka+".0"))
	if err != nil {
		t.Fatalf("pane a's journal: %v", err)
	}
	if runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Errorf("journal mode %v, want 0600", st.Mode().Perm())
	}
	if err := m.CloseSurface(a.ID); err != nil {
		t.Fatal(err)
	}
	m.Close()
	if _, err := os.Stat(filepath.Join(dir, ka+".0")); !os.IsNotExist(err) {
		t.Errorf("pane a was closed for good, its journal is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, kb+".0")); err != nil {
		t.Errorf("pane b was open when the manager closed, its journal is gone: %v", err)
	}

	m2, _ := newManager(t, Options{HistoryDir: dir, HistoryDiskBytes: 1 << 20})
	if _, err := m2.CreateWorkspace("w", "", nil, true); err != nil {
		t.Fatal(err)
	}
	c, _, err := m2.Split(0, Vertical, PaneSpec{})
	if err != nil {
		t.Fatal(err)
	}
	sc := showScreen(t, m2, c.ID, "the restored pane's own screen")
	started := sc.HistoryKey()
	if err := sc.AdoptHistory(kb); err != nil {
		t.Fatal(err)
	}
	var got []string
	sc.Terminal().Emulator().ScreenHistory().Screens(func(r terminal.ScreenRecord) bool {
		got = append(got, fmt.Sprintf("%d %s", r.Seq, r.Text))
		return true
	})
	if want := []string{"1 only pane b showed this", "2 the restored pane's own screen"}; !slices.Equal(got, want) {
		t.Errorf("screens after adopting pane b's journal: %q, want %q", got, want)
	}
	if sc.HistoryKey() != kb {
		t.Errorf("key after adopting = %q, want %q", sc.HistoryKey(), kb)
	}
	if _, err := os.Stat(filepath.Join(dir, started+".0")); !os.IsNotExist(err) {
		t.Errorf("the journal the pane started with is still there: %v", err)
	}
	// A journal no pane keeps (a pane a killed server never saved) is
	// pruned; the adopted one and files that are not journals stay.
	orphan := filepath.Join(dir, newHistoryKey()+".0")
	other := filepath.Join(dir, "notes.txt")
	for _, p := range []string{orphan, other} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := m2.PruneHistory(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Errorf("an orphan journal survived PruneHistory: %v", err)
	}
	for _, p := range []string{other, filepath.Join(dir, kb+".0")} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("PruneHistory removed %s: %v", p, err)
		}
	}
	if err := sc.AdoptHistory("../../etc/passwd"); err == nil || !strings.Contains(err.Error(), "not one Paneflow made") {
		t.Errorf("a foreign key: %v", err)
	}
	// Undo close keeps the journal while the pane can come back; a
	// manager closing meanwhile closes it for good.
	if err := m2.CloseSurface(c.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, kb+".0")); err != nil {
		t.Errorf("the journal of a pane undo close can bring back is gone: %v", err)
	}
	m2.Close()
	if _, err := os.Stat(filepath.Join(dir, kb+".0")); !os.IsNotExist(err) {
		t.Errorf("a kept pane's journal outlived the manager: %v", err)
	}
}
