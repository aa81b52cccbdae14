package remote

// The two file formats `host install` needs, written here rather than with
// archive/tar and debug/elf: package remote is linked into the
// command-line client, and those packages (with the decompressors and
// DWARF reader debug/elf brings) would add their package initialisation
// and pages to every `paneflow ls`, though only `host install` uses them.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// ELF constants (the System V ABI's names).
const (
	elfClass32  = 1      // ELFCLASS32
	elfClass64  = 2      // ELFCLASS64
	elfData2LSB = 1      // ELFDATA2LSB
	elfData2MSB = 2      // ELFDATA2MSB
	ptInterp    = 3      // PT_INTERP: the program names a dynamic loader
	pnXNum      = 0xffff // PN_XNUM: the program header count is in section 0's sh_info
)

// errNotELF is hasInterp's answer for a file that is not an ELF program.
var errNotELF = errors.New("not an ELF file")

// hasInterp reports whether the ELF file r has a PT_INTERP program header,
// i.e. needs a dynamic loader. It reads the ELF header and the p_type of
// each program header, for either class (32- or 64-bit) and byte order;
// a file that is not ELF or is cut short is an error.
func hasInterp(r io.ReaderAt) (bool, error) {
	var h [64]byte // the ELF-64 header; the ELF-32 one is its first 52 bytes
	n, err := r.ReadAt(h[:], 0)
	if n < 16 || string(h[:4]) != "\x7fELF" {
		if err != nil && err != io.EOF {
			return false, err
		}
		return false, errNotELF
	}
	var bo binary.ByteOrder
	switch h[5] {
	case elfData2LSB:
		bo = binary.LittleEndian
	case elfData2MSB:
		bo = binary.BigEndian
	default:
		return false, fmt.Errorf("ELF file with unknown byte order %d", h[5])
	}
	var phoff, shoff int64
	var phentsize, phnum int
	var minEnt, shInfo int // the smallest program header; sh_info's offset in a section header
	switch h[4] {
	case elfClass64:
		if n < 64 {
			return false, errors.New("ELF header cut short")
		}
		phoff, shoff = int64(bo.Uint64(h[32:])), int64(bo.Uint64(h[40:]))
		phentsize, phnum = int(bo.Uint16(h[54:])), int(bo.Uint16(h[56:]))
		minEnt, shInfo = 56, 44
	case elfClass32:
		if n < 52 {
			return false, errors.New("ELF header cut short")
		}
		phoff, shoff = int64(bo.Uint32(h[28:])), int64(bo.Uint32(h[32:]))
		phentsize, phnum = int(bo.Uint16(h[42:])), int(bo.Uint16(h[44:]))
		minEnt, shInfo = 32, 28
	default:
		return false, fmt.Errorf("ELF file with unknown class %d", h[4])
	}
	if phnum == pnXNum {
		var b [4]byte
		if _, err := r.ReadAt(b[:], shoff+int64(shInfo)); err != nil || shoff <= 0 {
			return false, errors.New("ELF file: cannot read the program header count from section 0")
		}
		phnum = int(bo.Uint32(b[:]))
	}
	if phnum == 0 {
		return false, nil
	}
	if phentsize < minEnt || phoff <= 0 {
		return false, fmt.Errorf("ELF file with bad program headers (offset %d, entry size %d)", phoff, phentsize)
	}
	for i := range phnum {
		var b [4]byte // p_type, the first field in both classes
		if _, err := r.ReadAt(b[:], phoff+int64(i)*int64(phentsize)); err != nil {
			return false, fmt.Errorf("ELF file: program header %d of %d: %w", i, phnum, err)
		}
		if bo.Uint32(b[:]) == ptInterp {
			return true, nil
		}
	}
	return false, nil
}

// tarBlock is the unit of a tar stream: each header and each file's
// padded data are whole blocks, and two zero blocks end the stream.
const tarBlock = 512

// maxTarSize is the largest file a ustar header holds (11 octal digits).
const maxTarSize = 1<<33 - 1

// writeTar writes files (by base name, mode 0755, regular files) as a
// POSIX ustar stream, the bytes archive/tar's Writer would write for the
// same headers (tested against it).
func writeTar(w io.Writer, files []string) error {
	for _, p := range files {
		if err := writeTarFile(w, p); err != nil {
			return err
		}
	}
	_, err := w.Write(make([]byte, 2*tarBlock))
	return err
}

// writeTarFile writes the header and the padded contents of the file at p.
func writeTarFile(w io.Writer, p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	hdr, err := ustarHeader(filepath.Base(p), 0o755, fi.Size(), fi.ModTime())
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	if _, err := w.Write(hdr[:]); err != nil {
		return err
	}
	if _, err := io.CopyN(w, f, fi.Size()); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	if pad := (tarBlock - fi.Size()%tarBlock) % tarBlock; pad > 0 {
		_, err = w.Write(make([]byte, pad))
	}
	return err
}

// ustarHeader is the ustar header block of a regular file: the name (at
// most 100 bytes), mode, size and modification time (rounded to the
// second, as archive/tar does), owner 0:0 without names.
func ustarHeader(name string, mode, size int64, mtime time.Time) ([tarBlock]byte, error) {
	var b [tarBlock]byte
	secs := mtime.Round(time.Second).Unix()
	switch {
	case name == "" || len(name) > 100:
		return b, fmt.Errorf("tar: name %q does not fit a ustar header", name)
	case size < 0 || size > maxTarSize:
		return b, fmt.Errorf("tar: size %d does not fit a ustar header", size)
	case secs < 0 || secs > maxTarSize:
		return b, fmt.Errorf("tar: modification time %v does not fit a ustar header", mtime)
	}
	copy(b[0:100], name)
	octal(b[100:108], mode)
	octal(b[108:116], 0) // uid
	octal(b[116:124], 0) // gid
	octal(b[124:136], size)
	octal(b[136:148], secs)
	b[156] = '0' // a regular file
	copy(b[257:265], "ustar\x0000")
	octal(b[329:337], 0) // devmajor
	octal(b[337:345], 0) // devminor
	// The checksum is the sum of the header's bytes with its own field
	// read as spaces, written as six octal digits, NUL, space.
	copy(b[148:156], "        ")
	var sum int64
	for _, c := range b {
		sum += int64(c)
	}
	octal(b[148:155], sum)
	return b, nil
}

// octal writes v as zero-padded octal digits filling field but its last
// byte, which is NUL. v must fit.
func octal(field []byte, v int64) {
	for i := len(field) - 2; i >= 0; i-- {
		field[i] = byte('0' + v&7)
		v >>= 3
	}
	field[len(field)-1] = 0
}
