package main

import (
	"bytes"
	"debug/macho"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
)

// fatAlign is the alignment of each slice in a universal file, as a power
// of two: 2^14 = 16 KiB, the arm64 page size (lipo's choice for arm64, and
// a multiple of x86_64's 4 KiB pages).
const fatAlign = 14

// archName is the name lipo and Apple's tools use for a CPU type.
func archName(c macho.Cpu) string {
	switch c {
	case macho.CpuAmd64:
		return "x86_64"
	case macho.CpuArm64:
		return "arm64"
	}
	return c.String()
}

// thin is one input of writeUniversal.
type thin struct {
	path string
	cpu  macho.Cpu
	sub  uint32
	data []byte
}

// writeUniversal writes the thin 64-bit Mach-O files ins as one universal
// file out: the big-endian fat header, one fat_arch record per slice, and
// each slice at an offset aligned to 2^fatAlign. Slices are ordered by CPU
// type, so the output does not depend on the order of ins. Two inputs for
// the same CPU are an error, as is any input that is not a thin Mach-O.
func writeUniversal(out string, ins []string) error {
	var thins []thin
	for _, p := range ins {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := macho.NewFile(bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("%s: not a thin Mach-O file: %w", p, err)
		}
		if f.Magic != macho.Magic64 {
			return fmt.Errorf("%s: a 32-bit Mach-O file; only 64-bit slices are supported", p)
		}
		for _, t := range thins {
			if t.cpu == f.Cpu {
				return fmt.Errorf("%s and %s are both %s", t.path, p, archName(f.Cpu))
			}
		}
		thins = append(thins, thin{path: p, cpu: f.Cpu, sub: f.SubCpu, data: data})
	}
	sort.Slice(thins, func(i, j int) bool { return thins[i].cpu < thins[j].cpu })

	const headerSize, archSize = 8, 20
	var buf bytes.Buffer
	be := binary.BigEndian
	buf.Write(be.AppendUint32(nil, macho.MagicFat))
	buf.Write(be.AppendUint32(nil, uint32(len(thins))))
	off := align(headerSize+archSize*len(thins), 1<<fatAlign)
	offsets := make([]int, len(thins))
	for i, t := range thins {
		if off+len(t.data) > 1<<32-1 {
			return errors.New("the slices do not fit in a 32-bit fat file")
		}
		offsets[i] = off
		for _, v := range []uint32{uint32(t.cpu), t.sub, uint32(off), uint32(len(t.data)), fatAlign} {
			buf.Write(be.AppendUint32(nil, v))
		}
		off = align(off+len(t.data), 1<<fatAlign)
	}
	for i, t := range thins {
		buf.Write(make([]byte, offsets[i]-buf.Len()))
		buf.Write(t.data)
	}
	return writeFile(out, buf.Bytes(), 0o755)
}

func align(n, a int) int { return (n + a - 1) / a * a }

// checkUniversal opens path as a universal Mach-O file and checks that its
// slices are executables for exactly the architectures want (names as
// archName gives them); it returns the architectures found.
func checkUniversal(path string, want []string) ([]string, error) {
	ff, err := macho.OpenFat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: not a universal Mach-O file: %w", path, err)
	}
	defer ff.Close()
	var got []string
	for _, a := range ff.Arches {
		if a.Type != macho.TypeExec {
			return nil, fmt.Errorf("%s: the %s slice is a %v, not an executable", path, archName(a.Cpu), a.Type)
		}
		if a.Align < 12 || a.Align > 31 || a.Offset%(1<<a.Align) != 0 {
			return nil, fmt.Errorf("%s: the %s slice is not page-aligned (offset %d, alignment 2^%d)", path, archName(a.Cpu), a.Offset, a.Align)
		}
		got = append(got, archName(a.Cpu))
	}
	g, w := slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))
	if !slices.Equal(g, w) {
		return got, fmt.Errorf("%s holds %v, want %v", path, g, w)
	}
	return got, nil
}

// writeFile writes data to path through a temporary file in the same
// directory and a rename, so a reader never sees half a file.
func writeFile(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
