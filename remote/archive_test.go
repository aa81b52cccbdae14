package remote

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWriteTarMatchesArchiveTar checks writeTar's stream byte for byte
// against archive/tar's Writer given the headers Install used to give it,
// and reads it back.
func TestWriteTarMatchesArchiveTar(t *testing.T) {
	dir := t.TempDir()
	sizes := []int{0, 1, 511, 512, 513, 3000}
	var files []string
	for i, n := range sizes {
		p := filepath.Join(dir, "prog"+strings.Repeat("x", i))
		data := bytes.Repeat([]byte{byte('a' + i)}, n)
		if err := os.WriteFile(p, data, 0o755); err != nil {
			t.Fatal(err)
		}
		// Sub-second times on both sides of the half: archive/tar rounds.
		mt := time.Unix(1700000000+int64(i), int64(i)*200_000_000)
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	var got bytes.Buffer
	if err := writeTar(&got, files); err != nil {
		t.Fatal(err)
	}

	var want bytes.Buffer
	tw := tar.NewWriter(&want)
	for _, p := range files {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := tw.WriteHeader(&tar.Header{Name: filepath.Base(p), Mode: 0o755, Size: fi.Size(), ModTime: fi.ModTime(), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		for i := range min(got.Len(), want.Len()) {
			if got.Bytes()[i] != want.Bytes()[i] {
				t.Fatalf("stream differs from archive/tar's at byte %d (block %d, offset %d): got %q, want %q (lengths %d, %d)",
					i, i/tarBlock, i%tarBlock, got.Bytes()[i], want.Bytes()[i], got.Len(), want.Len())
			}
		}
		t.Fatalf("stream length %d, archive/tar's %d", got.Len(), want.Len())
	}

	tr := tar.NewReader(&got)
	for i, p := range files {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if h.Name != filepath.Base(p) || h.Mode != 0o755 || h.Typeflag != tar.TypeReg || len(data) != sizes[i] {
			t.Errorf("entry %d: got %s mode %o type %c %d bytes, want %s mode 755 type 0 %d bytes", i, h.Name, h.Mode, h.Typeflag, len(data), filepath.Base(p), sizes[i])
		}
	}
	if _, err := tr.Next(); err != io.EOF {
		t.Errorf("after the last entry: got %v, want io.EOF", err)
	}
}

func TestUstarHeaderRefusesWhatDoesNotFit(t *testing.T) {
	now := time.Unix(1700000000, 0)
	for _, tc := range []struct {
		name  string
		size  int64
		mtime time.Time
		want  string
	}{
		{strings.Repeat("n", 101), 1, now, "does not fit"},
		{"", 1, now, "does not fit"},
		{"p", maxTarSize + 1, now, "size"},
		{"p", -1, now, "size"},
		{"p", 1, time.Unix(-1, 0), "modification time"},
	} {
		if _, err := ustarHeader(tc.name, 0o755, tc.size, tc.mtime); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ustarHeader(%.10q, %d, %v): got %v, want an error with %q", tc.name, tc.size, tc.mtime, err, tc.want)
		}
	}
	if _, err := ustarHeader(strings.Repeat("n", 100), 0o755, maxTarSize, now); err != nil {
		t.Errorf("the largest name and size: %v", err)
	}
}

// fakeELF is an ELF header with program headers of the given types (no
// sections unless xnum, which stores the count in section 0's sh_info).
func fakeELF(class byte, bo binary.ByteOrder, xnum bool, types ...uint32) []byte {
	var buf bytes.Buffer
	data := byte(elfData2LSB)
	if bo == binary.BigEndian {
		data = elfData2MSB
	}
	w := func(v any) { binary.Write(&buf, bo, v) }
	buf.Write([]byte{0x7f, 'E', 'L', 'F', class, data, 1})
	buf.Write(make([]byte, 9))
	ehsize, phent, shent := 64, 56, 64
	if class == elfClass32 {
		ehsize, phent, shent = 52, 32, 40
	}
	phoff := ehsize
	shoff := 0
	phnum, shnum := len(types), 0
	if xnum {
		shoff = phoff + len(types)*phent
		phnum, shnum = pnXNum, 1
	}
	w(uint16(2))  // e_type: ET_EXEC
	w(uint16(62)) // e_machine
	w(uint32(1))  // e_version
	if class == elfClass64 {
		w(uint64(0x400000))
		w(uint64(phoff))
		w(uint64(shoff))
	} else {
		w(uint32(0x400000))
		w(uint32(phoff))
		w(uint32(shoff))
	}
	w(uint32(0)) // e_flags
	w(uint16(ehsize))
	w(uint16(phent))
	w(uint16(phnum))
	w(uint16(shent))
	w(uint16(shnum))
	w(uint16(0)) // e_shstrndx
	for _, typ := range types {
		ph := make([]byte, phent)
		bo.PutUint32(ph, typ)
		buf.Write(ph)
	}
	if xnum {
		sh := make([]byte, shent)
		if class == elfClass64 {
			bo.PutUint32(sh[44:], uint32(len(types)))
		} else {
			bo.PutUint32(sh[28:], uint32(len(types)))
		}
		buf.Write(sh)
	}
	return buf.Bytes()
}

func TestHasInterp(t *testing.T) {
	const load, note = 1, 4
	for _, tc := range []struct {
		name string
		file []byte
		want bool
		err  string
	}{
		{"64 LE static", fakeELF(elfClass64, binary.LittleEndian, false, load, note, load), false, ""},
		{"64 LE dynamic", fakeELF(elfClass64, binary.LittleEndian, false, load, ptInterp, load), true, ""},
		{"32 BE dynamic", fakeELF(elfClass32, binary.BigEndian, false, note, ptInterp), true, ""},
		{"32 LE static", fakeELF(elfClass32, binary.LittleEndian, false, load), false, ""},
		{"no program headers", fakeELF(elfClass64, binary.LittleEndian, false), false, ""},
		{"PN_XNUM dynamic", fakeELF(elfClass64, binary.LittleEndian, true, load, load, ptInterp), true, ""},
		{"PN_XNUM 32 static", fakeELF(elfClass32, binary.BigEndian, true, load), false, ""},
		{"cut in the program headers", fakeELF(elfClass64, binary.LittleEndian, false, load, ptInterp)[:64+56+2], false, "program header 1 of 2"},
		{"cut in the header", fakeELF(elfClass64, binary.LittleEndian, false, load)[:40], false, "cut short"},
		{"a script", []byte("#!/bin/sh\nexit 0\n"), false, "not an ELF file"},
		{"empty", nil, false, "not an ELF file"},
		{"bad class", append([]byte{0x7f, 'E', 'L', 'F', 9, 1}, make([]byte, 60)...), false, "unknown class"},
	} {
		got, err := hasInterp(bytes.NewReader(tc.file))
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: got %v, %v; want an error with %q", tc.name, got, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("%s: got %v, %v; want %v", tc.name, got, err, tc.want)
		}
		if tc.err == "" && !strings.HasPrefix(tc.name, "PN_XNUM") {
			// debug/elf agrees (it wants sections for PN_XNUM).
			f, err := elf.NewFile(bytes.NewReader(tc.file))
			if err != nil {
				t.Fatalf("%s: debug/elf: %v", tc.name, err)
			}
			if de := hasProg(f, elf.PT_INTERP); de != tc.want {
				t.Errorf("%s: debug/elf says PT_INTERP %v, the case %v", tc.name, de, tc.want)
			}
		}
	}
}

// TestHasInterpRealPrograms compares hasInterp with debug/elf on this
// test program and on the system's programs in /bin (dynamic ones at
// least, static ones where there are any).
func TestHasInterpRealPrograms(t *testing.T) {
	paths := []string{}
	if self, err := os.Executable(); err == nil {
		paths = append(paths, self)
	}
	ents, _ := os.ReadDir("/bin")
	for _, e := range ents {
		if len(paths) >= 40 {
			break
		}
		paths = append(paths, filepath.Join("/bin", e.Name()))
	}
	checked := 0
	for _, p := range paths {
		f, err := elf.Open(p)
		if err != nil {
			continue // not ELF, or not readable
		}
		want := hasProg(f, elf.PT_INTERP)
		f.Close()
		r, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := hasInterp(r)
		r.Close()
		if err != nil || got != want {
			t.Errorf("%s: hasInterp %v, %v; debug/elf says %v", p, got, err, want)
		}
		checked++
	}
	if checked == 0 {
		t.Skip("no ELF programs to compare with (not an ELF system)")
	}
}

func hasProg(f *elf.File, typ elf.ProgType) bool {
	for _, p := range f.Progs {
		if p.Type == typ {
			return true
		}
	}
	return false
}
