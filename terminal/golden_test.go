package terminal

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// render is the golden-file form of a screen: one line per row between
// bars, then the styled runs of each row, then the cursor and modes.
func render(e *Emulator) string {
	var s Snapshot
	e.Snapshot(&s)
	var b strings.Builder
	fmt.Fprintf(&b, "size %dx%d history %d\n", s.Cols, s.Rows, e.HistoryLen())
	for y := range s.Rows {
		var row strings.Builder
		for _, c := range s.Row(y) {
			row.WriteString(s.Grapheme(c))
		}
		wrap := ""
		if s.Wrapped[y] {
			wrap = " (wrapped)"
		}
		fmt.Fprintf(&b, "|%s|%s\n", row.String(), wrap)
	}
	for y := range s.Rows {
		cells := s.Row(y)
		for x := 0; x < len(cells); {
			st := cells[x].Style
			st.Attrs &= attrStyleMask
			end := x + 1
			for end < len(cells) {
				n := cells[end].Style
				n.Attrs &= attrStyleMask
				if n != st {
					break
				}
				end++
			}
			if st != (Style{}) {
				fmt.Fprintf(&b, "row %d cols %d-%d: %s\n", y, x, end-1, describeStyle(st, &s))
			}
			x = end
		}
	}
	fmt.Fprintf(&b, "cursor %d,%d visible=%v shape=%d title=%q alt=%v\n", s.Cursor.X, s.Cursor.Y, s.Cursor.Visible, s.Cursor.Shape, s.Title, s.AltScreen)
	return b.String()
}

func describeStyle(st Style, s *Snapshot) string {
	var parts []string
	if !st.Fg.IsDefault() {
		parts = append(parts, "fg="+st.Fg.String())
	}
	if !st.Bg.IsDefault() {
		parts = append(parts, "bg="+st.Bg.String())
	}
	if !st.Underline.IsDefault() {
		parts = append(parts, "ul="+st.Underline.String())
	}
	names := []string{"bold", "faint", "italic", "blink", "inverse", "hidden", "strike", "overline"}
	for i, n := range names {
		if st.Attrs&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	if u := st.Attrs.Underline(); u != UnderlineNone {
		parts = append(parts, "underline="+strconv.Itoa(int(u)))
	}
	if st.Link != 0 {
		parts = append(parts, "link="+s.Link(st.Link))
	}
	return strings.Join(parts, " ")
}

// TestGoldenScreens feeds each testdata/golden/*.in (a Go-quoted string,
// so escapes are readable) to an emulator of the size in its first line
// and compares the rendering with the .golden file. Run with -update to
// rewrite; mismatches are written to testdata/failed/.
func TestGoldenScreens(t *testing.T) {
	ins, _ := filepath.Glob("testdata/golden/*.in")
	if len(ins) == 0 {
		t.Fatal("no golden inputs found")
	}
	for _, in := range ins {
		name := strings.TrimSuffix(filepath.Base(in), ".in")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			header, body, _ := strings.Cut(string(raw), "\n")
			var cols, rows int
			if _, err := fmt.Sscanf(header, "%dx%d", &cols, &rows); err != nil {
				t.Fatalf("%s: first line must be COLSxROWS: %v", in, err)
			}
			text, err := strconv.Unquote(strings.TrimSpace(body))
			if err != nil {
				t.Fatalf("%s: body must be a Go-quoted string: %v", in, err)
			}
			e := NewEmulator(cols, rows, EmulatorOptions{})
			e.Write([]byte(text))
			got := render(e)
			goldenPath := strings.TrimSuffix(in, ".in") + ".golden"
			if *update {
				if err := os.WriteFile(goldenPath, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(goldenPath)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if got != string(want) {
				os.MkdirAll("testdata/failed", 0o755)
				failed := filepath.Join("testdata/failed", name+".golden")
				os.WriteFile(failed, []byte(got), 0o644)
				t.Errorf("screen differs from %s; got written to %s\n got:\n%s\nwant:\n%s", goldenPath, failed, got, want)
			}
		})
	}
}
