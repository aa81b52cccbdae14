//go:build linux || darwin

package fontfind

import (
	"os"
	"syscall"

	"golang.org/x/image/font/sfnt"
)

// mapFont maps the font file at path read-only and reports whether it is
// a single font the sfnt parser accepts as it is. Otherwise the mapping
// is released and ok is false.
func mapFont(path string) (data []byte, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() < 12 || st.Size() > maxFontFile {
		return nil, false
	}
	data, err = syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, false
	}
	if string(data[:4]) == "ttcf" {
		syscall.Munmap(data)
		return nil, false
	}
	if _, err := sfnt.Parse(data); err != nil {
		syscall.Munmap(data)
		return nil, false
	}
	return data, true
}
