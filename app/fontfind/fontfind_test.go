package fontfind

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/image/font/sfnt"
)

// fyneFonts returns the directory of the fonts Fyne ships, from the module
// cache.
func fyneFonts(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "fyne.io/fyne/v2").Output()
	if err != nil {
		t.Skipf("cannot locate the fyne module: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "theme", "font")
	if _, err := os.Stat(filepath.Join(dir, "NotoSans-Regular.ttf")); err != nil {
		t.Skipf("fyne's fonts are not in the module cache: %v", err)
	}
	return dir
}

func readFont(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// fontDir builds a font directory from Fyne's fonts: some at the top, the
// Noto Sans family in a nested directory, a symbolic link to one of them,
// and files that are not fonts.
func fontDir(t *testing.T) string {
	t.Helper()
	src := fyneFonts(t)
	dir := t.TempDir()
	for _, name := range []string{"Inter-Regular.ttf", "InterSymbols-Regular.ttf", "DejaVuSansMono-Powerline.ttf", "EmojiOneColor.otf"} {
		writeFile(t, filepath.Join(dir, name), readFont(t, filepath.Join(src, name)))
	}
	for _, name := range []string{"NotoSans-Regular.ttf", "NotoSans-Bold.ttf", "NotoSans-Italic.ttf", "NotoSans-BoldItalic.ttf"} {
		writeFile(t, filepath.Join(dir, "truetype", "noto", name), readFont(t, filepath.Join(src, name)))
	}
	if runtime.GOOS != "windows" {
		if err := os.Symlink(filepath.Join(dir, "truetype", "noto", "NotoSans-Regular.ttf"), filepath.Join(dir, "zz-link.ttf")); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(dir, "broken.ttf"), []byte("this is not a font"))
	writeFile(t, filepath.Join(dir, "README.txt"), []byte("fonts"))
	return dir
}

func TestDirs(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		goos string
		env  map[string]string
		want []string
	}{
		{"linux", map[string]string{"HOME": "/h"}, []string{"/usr/share/fonts", "/usr/local/share/fonts", "/h/.local/share/fonts", "/h/.fonts"}},
		{"linux", map[string]string{"HOME": "/h", "XDG_DATA_HOME": "/d"}, []string{"/usr/share/fonts", "/usr/local/share/fonts", "/d/fonts", "/h/.fonts"}},
		{"linux", nil, []string{"/usr/share/fonts", "/usr/local/share/fonts"}},
		{"darwin", map[string]string{"HOME": "/h"}, []string{"/System/Library/Fonts", "/Library/Fonts", "/h/Library/Fonts"}},
		{"windows", map[string]string{"WINDIR": `C:\Windows`, "LOCALAPPDATA": `C:\L`}, []string{filepath.Join(`C:\Windows`, "Fonts"), filepath.Join(`C:\L`, "Microsoft", "Windows", "Fonts")}},
		{"windows", map[string]string{"SystemRoot": `C:\W`}, []string{filepath.Join(`C:\W`, "Fonts")}},
	}
	for _, tt := range tests {
		if got := Dirs(env(tt.env), tt.goos); !cmp.Equal(got, tt.want) {
			t.Errorf("Dirs(%v, %s) = %q, want %q", tt.env, tt.goos, got, tt.want)
		}
	}
}

func TestFamily(t *testing.T) {
	dir := fontDir(t)
	noto := filepath.Join(dir, "truetype", "noto")
	f := NewFinder([]string{filepath.Join(dir, "missing"), dir})
	tests := []struct {
		name string
		want Files
	}{
		{"Noto Sans", Files{
			Regular: filepath.Join(noto, "NotoSans-Regular.ttf"), Bold: filepath.Join(noto, "NotoSans-Bold.ttf"),
			Italic: filepath.Join(noto, "NotoSans-Italic.ttf"), BoldItalic: filepath.Join(noto, "NotoSans-BoldItalic.ttf"),
		}},
		{"  NOTO   sans ", Files{
			Regular: filepath.Join(noto, "NotoSans-Regular.ttf"), Bold: filepath.Join(noto, "NotoSans-Bold.ttf"),
			Italic: filepath.Join(noto, "NotoSans-Italic.ttf"), BoldItalic: filepath.Join(noto, "NotoSans-BoldItalic.ttf"),
		}},
		// Inter-Regular and InterSymbols-Regular both name themselves
		// "Inter Regular": the shorter path wins.
		{"inter", Files{Regular: filepath.Join(dir, "Inter-Regular.ttf")}},
		// Subfamily "Book" is the regular face.
		{"DejaVu Sans Mono for Powerline", Files{Regular: filepath.Join(dir, "DejaVuSansMono-Powerline.ttf")}},
		{"EmojiOne", Files{Regular: filepath.Join(dir, "EmojiOneColor.otf")}},
	}
	for _, tt := range tests {
		got, err := f.Family(tt.name)
		if err != nil {
			t.Errorf("Family(%q): %v", tt.name, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Family(%q) (-want +got):\n%s", tt.name, diff)
		}
	}
	for _, name := range []string{"", "Noto", "NotoSans-Regular", "Noto Sans Regular", "broken"} {
		if got, err := f.Family(name); !errors.Is(err, ErrNotFound) {
			t.Errorf("Family(%q) = %+v, %v; want ErrNotFound", name, got, err)
		}
	}
}

// buildCollection writes a TTC holding the given fonts, with every table
// placed two bytes off a four-byte boundary, which golang.org/x/image's
// sfnt parser refuses.
func buildCollection(t *testing.T, fonts ...[]byte) []byte {
	t.Helper()
	be := binary.BigEndian
	var out bytes.Buffer
	head := make([]byte, 12+4*len(fonts))
	copy(head, "ttcf")
	be.PutUint32(head[4:], 0x00010000)
	be.PutUint32(head[8:], uint32(len(fonts)))
	out.Write(head)
	for k, font := range fonts {
		be.PutUint32(out.Bytes()[12+4*k:], uint32(out.Len()))
		n := int(be.Uint16(font[4:]))
		dirStart := out.Len()
		out.Write(font[:12+16*n])
		for i := range n {
			rec := font[12+16*i:]
			off, length := be.Uint32(rec[8:]), be.Uint32(rec[12:])
			for out.Len()%4 != 2 {
				out.WriteByte(0)
			}
			be.PutUint32(out.Bytes()[dirStart+12+16*i+8:], uint32(out.Len()))
			out.Write(font[off : off+length])
		}
	}
	return out.Bytes()
}

func nameOf(t *testing.T, data []byte) string {
	t.Helper()
	f, err := sfnt.Parse(data)
	if err != nil {
		t.Fatalf("sfnt.Parse: %v", err)
	}
	var b sfnt.Buffer
	fam, _ := f.Name(&b, sfnt.NameIDFamily)
	sub, _ := f.Name(&b, sfnt.NameIDSubfamily)
	return fam + " " + sub
}

func TestCollections(t *testing.T) {
	src := fyneFonts(t)
	bold := readFont(t, filepath.Join(src, "NotoSans-Bold.ttf"))
	inter := readFont(t, filepath.Join(src, "Inter-Regular.ttf"))
	ttc := buildCollection(t, bold, inter)
	if _, err := sfnt.ParseCollection(ttc); err != nil {
		t.Fatalf("the test collection does not parse as a collection: %v", err)
	}
	if c, _ := sfnt.ParseCollection(ttc); c != nil {
		if _, err := c.Font(0); err == nil {
			t.Fatal("the test collection's tables are aligned; the repair path would not be tested")
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "Fonts.TTC")
	writeFile(t, path, ttc)

	for i, want := range []string{"Noto Sans Bold", "Inter Regular"} {
		b, err := ReadFace(path, i)
		if err != nil {
			t.Fatalf("ReadFace(%d): %v", i, err)
		}
		if got := nameOf(t, b); got != want {
			t.Errorf("face %d is %q, want %q", i, got, want)
		}
	}
	if _, err := ReadFace(path, 2); err == nil {
		t.Error("ReadFace of a face past the end: no error")
	}
	if _, err := ReadFace(filepath.Join(src, "Inter-Regular.ttf"), 1); err == nil {
		t.Error("ReadFace(ttf, 1): no error")
	}
	if b, err := ReadFace(filepath.Join(src, "Inter-Regular.ttf"), 0); err != nil || !bytes.Equal(b, inter) {
		t.Errorf("ReadFace of a single font changed its bytes (err %v)", err)
	}

	f := NewFinder([]string{dir})
	got, err := f.Family("Inter")
	if err != nil || got != (Files{Regular: path, RegularIndex: 1}) {
		t.Errorf("Family(Inter) in a collection = %+v, %v; want face 1 of %s", got, err, path)
	}
	// A family with only a bold face: it fills Regular too.
	got, err = f.Family("noto sans")
	if err != nil || got != (Files{Regular: path, Bold: path}) {
		t.Errorf("Family(noto sans) = %+v, %v; want face 0 as regular and bold", got, err)
	}
	r, b, i, bi, err := got.Read()
	if err != nil || nameOf(t, r) != "Noto Sans Bold" || nameOf(t, b) != "Noto Sans Bold" || i != nil || bi != nil {
		t.Errorf("Read = %d, %d, %d, %d bytes, %v", len(r), len(b), len(i), len(bi), err)
	}

	// A single-font file is preferred to the same face in a collection.
	writeFile(t, filepath.Join(dir, "sub", "Inter-Regular.ttf"), inter)
	f = NewFinder([]string{dir})
	if got, _ := f.Family("Inter"); got.Regular != filepath.Join(dir, "sub", "Inter-Regular.ttf") || got.RegularIndex != 0 {
		t.Errorf("Family(Inter) = %+v, want the single-font file", got)
	}
}

func TestFilesRead(t *testing.T) {
	dir := fontDir(t)
	files, err := NewFinder([]string{dir}).Family("Noto Sans")
	if err != nil {
		t.Fatal(err)
	}
	r, b, i, bi, err := files.Read()
	if err != nil {
		t.Fatal(err)
	}
	for want, data := range map[string][]byte{"Noto Sans Regular": r, "Noto Sans Bold": b, "Noto Sans Italic": i, "Noto Sans Bold Italic": bi} {
		if got := nameOf(t, data); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	if _, _, _, _, err := (Files{}).Read(); err == nil {
		t.Error("Read of empty Files: no error")
	}
	if _, _, _, _, err := (Files{Regular: filepath.Join(dir, "missing.ttf")}).Read(); err == nil {
		t.Error("Read of a missing regular face: no error")
	}
}

func TestFallbacks(t *testing.T) {
	dir := fontDir(t)
	f := NewFinder([]string{dir})
	f.fallbackFamilies = []string{
		cjk + "Missing CJK", cjk + "Inter", cjk + "Noto Sans", // only the first CJK found counts
		"Not Installed", "DejaVu Sans Mono for Powerline", "EmojiOne", "Inter",
	}
	want := []string{
		filepath.Join(dir, "Inter-Regular.ttf"),
		filepath.Join(dir, "DejaVuSansMono-Powerline.ttf"),
		filepath.Join(dir, "EmojiOneColor.otf"),
	}
	if got := f.Fallbacks(); !cmp.Equal(got, want) {
		t.Errorf("Fallbacks = %q, want %q", got, want)
	}
	if got := NewFinder([]string{t.TempDir()}).Fallbacks(); got != nil {
		t.Errorf("Fallbacks with no fonts = %q, want nil", got)
	}
}

// TestSystemFallbacksAreReadable checks whatever this machine has
// installed: every fallback must load as a font.
func TestSystemFallbacksAreReadable(t *testing.T) {
	for _, p := range Fallbacks() {
		b, err := ReadFace(p, 0)
		if err != nil {
			t.Errorf("fallback %s: %v", p, err)
			continue
		}
		if _, err := sfnt.Parse(b); err != nil {
			t.Errorf("fallback %s does not parse: %v", p, err)
		}
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		sub  string
		want style
	}{
		{"regular", style{}},
		{"book", style{}},
		{"", style{}},
		{"bold", style{bold: true}},
		{"italic", style{italic: true}},
		{"oblique", style{italic: true}},
		{"bold oblique", style{bold: true, italic: true}},
		{"bold italic", style{bold: true, italic: true}},
		{"medium", style{rank: 1}},
		{"semibold italic", style{bold: true, italic: true, rank: 1}},
		{"condensed", style{rank: -1}},
		{"extralight", style{rank: -1}},
		{"condensed bold", style{rank: -1}},
	}
	for _, tt := range tests {
		if got := classify(tt.sub); got != tt.want {
			t.Errorf("classify(%q) = %+v, want %+v", tt.sub, got, tt.want)
		}
	}
}
