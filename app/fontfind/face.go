package fontfind

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/image/font/sfnt"
)

// Limits of the font file reader.
const (
	// maxFontFile is the largest font file read whole (the biggest CJK
	// collections are about 120 MB).
	maxFontFile = 256 << 20
	// maxTables bounds a font's table directory.
	maxTables = 256
)

// ReadFace returns the bytes of face index of the font file at path,
// ready for sfnt.Parse: a single-font file's bytes as they are, or, for a
// face inside a collection (.ttc/.otc), a standalone font with that face's
// tables. A font whose tables the sfnt parser refuses because they are not
// aligned on four bytes is rewritten with aligned tables. index must be 0
// for a single-font file.
func ReadFace(path string, index int) ([]byte, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return faceBytes(data, index)
}

// readFile reads a font file, refusing absurd sizes.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("fontfind: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFontFile+1))
	if err != nil {
		return nil, fmt.Errorf("fontfind: read %s: %w", path, err)
	}
	if len(data) > maxFontFile {
		return nil, fmt.Errorf("fontfind: %s is larger than %d MiB", path, maxFontFile>>20)
	}
	return data, nil
}

// faceBytes implements ReadFace on a file's bytes.
func faceBytes(data []byte, index int) ([]byte, error) {
	if len(data) >= 12 && string(data[:4]) == "ttcf" {
		n := int(binary.BigEndian.Uint32(data[8:12]))
		if index < 0 || index >= n || 12+4*n > len(data) {
			return nil, fmt.Errorf("fontfind: collection has %d faces, no face %d", n, index)
		}
		off := int(binary.BigEndian.Uint32(data[12+4*index:]))
		return rebuild(data, off)
	}
	if index != 0 {
		return nil, fmt.Errorf("fontfind: not a collection, no face %d", index)
	}
	if _, err := sfnt.Parse(data); err == nil {
		return data, nil
	} else if out, rerr := rebuild(data, 0); rerr == nil {
		if _, perr := sfnt.Parse(out); perr == nil {
			return out, nil
		}
		return nil, fmt.Errorf("fontfind: %w", err)
	} else {
		return nil, fmt.Errorf("fontfind: %w", err)
	}
}

var errBadFont = errors.New("fontfind: malformed font")

// rebuild writes the font whose offset table starts at off in data as a
// standalone font: the same tables, each starting on a four-byte
// boundary, with a fresh table directory. Checksums are kept as they are
// (the table bytes do not change).
func rebuild(data []byte, off int) ([]byte, error) {
	be := binary.BigEndian
	if off < 0 || off+12 > len(data) {
		return nil, errBadFont
	}
	numTables := int(be.Uint16(data[off+4:]))
	dir := off + 12
	if numTables == 0 || numTables > maxTables || dir+16*numTables > len(data) {
		return nil, errBadFont
	}
	type rec struct{ tag, sum, off, n uint32 }
	recs := make([]rec, numTables)
	size := 12 + 16*numTables
	for i := range recs {
		b := data[dir+16*i:]
		r := rec{be.Uint32(b), be.Uint32(b[4:]), be.Uint32(b[8:]), be.Uint32(b[12:])}
		if uint64(r.off)+uint64(r.n) > uint64(len(data)) {
			return nil, errBadFont
		}
		recs[i] = r
		size += int(r.n+3) &^ 3
	}
	out := make([]byte, 12+16*numTables, size)
	copy(out, data[off:off+12])
	for i, r := range recs {
		pos := len(out)
		out = append(out, data[r.off:r.off+r.n]...)
		for len(out)&3 != 0 {
			out = append(out, 0)
		}
		b := out[12+16*i:]
		be.PutUint32(b, r.tag)
		be.PutUint32(b[4:], r.sum)
		be.PutUint32(b[8:], uint32(pos))
		be.PutUint32(b[12:], r.n)
	}
	return out, nil
}
